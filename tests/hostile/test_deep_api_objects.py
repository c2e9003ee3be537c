"""An object the learner nests thousands of levels deep in a namespace the lab lists (an
Application's helm.valuesObject, whose schema preserves unknown fields) is the learner's: the
checks that read it FAIL with the reason, every other object and check is judged as usual
(issue 16). Before, the whole answer was "not JSON" and every cluster check was an ERROR.

The fake API holds its objects in Python's json, which nests at most about 1500 levels; a real
API server stores up to 10000 (apimachinery's JSON limit). A proxy in front of the fake API puts
the deep object into the LIST answer as raw JSON text."""

from __future__ import annotations

import copy
import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from tests.hostile.harness import edit_kubeconfig, run

APPLICATIONS = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications"
DEEP_MESSAGE = "Application argocd/src-helm is nested deeper than 100 levels; the grader reads at most 100"
# The checks of capa-src that read the src-helm Application (every other check passes on golden).
READ_SRC_HELM = {"capa-src.1.live-app", "capa-src.1.live-app-status", "capa-src.2.live-app-values"}


class SplicingProxy:
    """Forwards every request to the fake API; `splices` ({path: {object name: raw JSON}})
    replaces (or adds) items of a LIST answer by raw text."""

    def __init__(self, upstream):
        upstream = urlsplit(upstream)
        self.splices = {}
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=10)
                headers = {key: value for key, value in self.headers.items() if key.lower() != "host"}
                connection.request(self.command, self.path, body=body, headers=headers)
                response = connection.getresponse()
                answer = response.read()
                connection.close()
                splice = proxy.splices.get(urlsplit(self.path).path)
                if splice and response.status == 200:
                    answer = spliced(answer, splice)
                self.send_response(response.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            do_GET = do_POST = forward

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def spliced(answer, splice):
    answer = json.loads(answer)
    names = [item["metadata"]["name"] for item in answer["items"]]
    for name in splice:
        placeholder = f"@@{name}@@"
        if name in names:
            answer["items"][names.index(name)] = placeholder
        else:
            answer["items"].append(placeholder)
    text = json.dumps(answer)
    for name, raw in splice.items():
        text = text.replace(json.dumps(f"@@{name}@@"), raw)
    return text.encode()


def nested(levels):
    return '{"a": ' * levels + '"leaf"' + "}" * levels


def deep_application(host, name, where, levels):
    """The host's src-helm Application renamed to `name`, with the value at `where` (a path of
    keys) nested `levels` deep, as JSON text."""
    state = json.loads((host / "cluster.json").read_text())
    app = copy.deepcopy(next(o for o in state["objects"] if o["kind"] == "Application"
                             and o["metadata"]["name"] == "src-helm"))
    app["metadata"]["name"] = name
    holder = app
    for key in where[:-1]:
        holder = holder.setdefault(key, {})
    holder[where[-1]] = "@@deep@@"
    return json.dumps(app).replace('"@@deep@@"', nested(levels))


@pytest.fixture(scope="module")
def proxy(fake_api):
    proxy = SplicingProxy(fake_api.url)
    yield proxy
    proxy.close()


def grade_through(proxy, host, splice, case):
    """The capa-src grading of `host` with its API answers spliced, as {check: (status, message)}."""
    proxy.splices = {f"/h/{host.name}{APPLICATIONS}": splice}
    edit_kubeconfig(host, lambda config, h: config["clusters"][0]["cluster"].update(server=f"{proxy.url}/h/{h.name}"))
    answer = run(case, "grade", 30, host_dir=str(host), timeout=5)
    assert answer["error"] is None
    return answer["checks"]


@pytest.mark.parametrize(("case", "where", "levels"), [
    ("api-deep-values-5000", ("spec", "source", "helm", "valuesObject"), 5000),
    ("api-deep-values-10000", ("spec", "source", "helm", "valuesObject"), 10000),
    # under the C decoder's recursion limit: parsed whole, then found too deep
    ("api-deep-values-1400", ("spec", "source", "helm", "valuesObject"), 1400),
    ("api-deep-values-98", ("spec", "source", "helm", "valuesObject"), 98),  # 102 levels in all
    # managedFields mirror a deep spec: the name is still read from metadata
    ("api-deep-managed-fields-5000", ("metadata", "managedFields"), 5000),
], ids=["values-5000", "values-10000", "values-1400", "values-98", "managed-fields-5000"])
def test_deep_application_fails_the_checks_that_read_it(host, proxy, case, where, levels):
    checks = grade_through(proxy, host, {"src-helm": deep_application(host, "src-helm", where, levels)}, case)
    assert {check: message for check, (status, message) in checks.items() if status != "PASS"} == dict.fromkeys(
        READ_SRC_HELM, DEEP_MESSAGE)
    assert {checks[check][0] for check in READ_SRC_HELM} == {"FAIL"}


def test_deep_application_of_no_check_changes_nothing(host, proxy):
    where = ("spec", "source", "helm", "valuesObject")
    checks = grade_through(proxy, host, {"deep": deep_application(host, "deep", where, 5000)}, "api-deep-other-app")
    assert {status for status, _ in checks.values()} == {"PASS"}


def test_many_deep_applications_stay_bounded(host, proxy):
    """30 Applications of 10000 levels each (the API server's limit) beside the lab's."""
    where = ("spec", "source", "helm", "valuesObject")
    splice = {f"deep-{n}": deep_application(host, f"deep-{n}", where, 10000) for n in range(30)}
    checks = grade_through(proxy, host, splice, "api-deep-30-apps")
    assert {status for status, _ in checks.values()} == {"PASS"}
