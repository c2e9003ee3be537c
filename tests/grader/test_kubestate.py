"""Cluster reads: every way an API server can misbehave is a ClusterError of a named kind,
within the timeout; a 404 is simply "absent"."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml
from ansible.module_utils.labgrader.kubestate import ClusterError, KubeReader, collect_cluster

ANSWERS = {
    "/ok": (200, json.dumps({"kind": "ConfigMapList", "items": [{"metadata": {"name": "a"}}]})),
    "/missing": (404, json.dumps({"kind": "Status", "code": 404})),
    "/forbidden": (403, json.dumps({"kind": "Status", "message": 'configmaps is forbidden: User "x" cannot list'})),
    "/unauthorized": (401, json.dumps({"kind": "Status", "message": "Unauthorized"})),
    "/broken": (500, "internal error"),
    "/garbage": (200, "<html>not json</html>"),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/slow":
            time.sleep(3)
        status, body = ANSWERS.get(path, (200, "{}"))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def kubeconfig(tmp_path_factory):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = tmp_path_factory.mktemp("kube") / "kubeconfig"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": f"http://127.0.0.1:{server.server_address[1]}"}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    }))
    yield str(path)
    server.shutdown()


def test_list_and_absent_object(kubeconfig):
    state = collect_cluster(kubeconfig, {"cms": ("/ok", None), "gone": ("/missing", None)})
    assert state.ok and state.requests == 2
    assert state.items("cms") == [{"metadata": {"name": "a"}}]
    assert state.reads["gone"] is None
    assert state.find("cms", "a") == {"metadata": {"name": "a"}}


@pytest.mark.parametrize(("path", "kind", "detail"), [
    ("/forbidden", "forbidden", 'GET /forbidden: configmaps is forbidden: User "x" cannot list'),
    ("/unauthorized", "unauthorized", "GET /unauthorized: 401"),
    ("/broken", "api", "GET /broken: HTTP 500 internal error"),
    ("/garbage", "api", "GET /garbage: the answer is not JSON"),
])
def test_api_failures_are_named(kubeconfig, path, kind, detail):
    state = collect_cluster(kubeconfig, {"first": ("/ok", None), "bad": (path, None), "never": ("/ok", None)})
    assert (state.problem, state.detail) == (kind, detail)
    assert state.requests == 2  # stops at the first failure


def test_slow_api_server_times_out_within_the_bound(kubeconfig):
    reader = KubeReader(kubeconfig, timeout=0.5)
    started = time.monotonic()
    with pytest.raises(ClusterError) as exc:
        reader.get("/slow")
    assert exc.value.kind == "unreachable"
    assert "Read timed out" in exc.value.detail
    assert time.monotonic() - started < 2.5  # one retry at most, each bounded by 0.5 s


def test_kubeconfig_problems(tmp_path):
    bad = tmp_path / "kubeconfig"
    bad.write_text(": not yaml :\n\t-")
    state = collect_cluster(str(bad), {"x": ("/ok", None)})
    assert state.problem == "kubeconfig" and state.detail.startswith(str(bad))
    assert collect_cluster(str(tmp_path / "none"), {}).problem == "kubeconfig"
