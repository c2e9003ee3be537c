"""Cluster reads: every way an API server can misbehave is a ClusterError of a named kind,
within the timeout; a 404 is simply "absent"."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import (
    MAX_OBJECT_DEPTH,
    ClusterError,
    DeepObject,
    KubeReader,
    collect_cluster,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import depth

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


# ------------------------------------------------------------------ objects nested too deep


def application(name, spec_levels):
    """An Application whose spec nests `spec_levels` levels (the object: 2 more), as JSON text."""
    spec = '{"a": ' * (spec_levels - 1) + "{}" + "}" * (spec_levels - 1) if spec_levels else "1"
    return (f'{{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", '
            f'"metadata": {{"name": "{name}", "namespace": "argocd"}}, "spec": {spec}}}')


def listing(*items):
    return '{"kind": "List", "items": [' + ", ".join(items) + "]}"


DEEP = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "deep", "namespace": "argocd"}}
ANSWERS.update({
    "/deep-list": (200, listing(application("before", 3), application("deep", 5000), application("after", 3))),
    "/deep-get": (200, application("deep", 5000)),
    "/limit-list": (200, listing(application("at-limit", 99), application("over-limit", 100))),
    "/deep-not-json": (200, '{"items": [' + "[" * 3000 + '"open'),
})


def test_objects_nested_too_deep_are_kept_by_kind_and_name(kubeconfig):
    state = collect_cluster(kubeconfig, {"list": ("/deep-list", None), "get": ("/deep-get", None)})
    assert state.ok
    before, deep, after = state.reads["list"]
    assert (before["metadata"]["name"], after["metadata"]["name"]) == ("before", "after")
    assert isinstance(deep, DeepObject) and deep == DEEP
    assert isinstance(state.reads["get"], DeepObject) and state.reads["get"] == DEEP


def test_object_depth_limit_is_exact(kubeconfig):
    at_limit, over_limit = collect_cluster(kubeconfig, {"list": ("/limit-list", None)}).reads["list"]
    assert depth(at_limit, 1000) == MAX_OBJECT_DEPTH and not isinstance(at_limit, DeepObject)
    assert isinstance(over_limit, DeepObject)


def test_deep_answer_that_is_not_json(kubeconfig):
    state = collect_cluster(kubeconfig, {"bad": ("/deep-not-json", None)})
    assert (state.problem, state.detail) == ("api", "GET /deep-not-json: the answer is not JSON")


def test_a_check_that_reads_a_deep_object_fails_and_the_others_do_not(kubeconfig):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Reads, Site
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import ClusterView, Declared, Lab, LabState
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import passed

    snapshot = collect_cluster(kubeconfig, {"list": ("/deep-list", None), "get": ("/deep-get", None)})
    lab = Lab("t", {"en": "t"}, {1: {"en": "s"}}, Reads())
    reads = {"find-other": lambda s: s.cluster.find("list", "before"), "find-deep": lambda s: s.cluster.find(
        "list", "deep"), "items": lambda s: s.cluster.items("list"), "get": lambda s: s.cluster.get("get")}
    for name, read in reads.items():
        lab.check(1, name)(lambda state, read=read: read(state) and passed())
    state = LabState(Site(), "/w", None, Declared(), None, None, ClusterView(snapshot, ["list", "get"]), Declared())
    results = {c["check"]: (c["status"], c["message"]) for c in lab.judge(state, "en")}
    assert results.pop("t.1.find-other")[0] == "PASS"
    deep = ("FAIL", "Application argocd/deep is nested deeper than 100 levels; the grader reads at most 100")
    assert results == {"t.1.find-deep": deep, "t.1.items": deep, "t.1.get": deep}
