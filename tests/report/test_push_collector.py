"""The push design's collector (plugins/plugin_utils/collector.py) and client
(module_utils/labgrader/push.py): a pushed result is untrusted input, held to its VM's token, its
own host, the size and schema bounds, and the registry's labs, steps and checks as a pulled one."""

from __future__ import annotations

import http.client
import http.server
import json
import threading

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import push
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.document import as_text
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import (
    Collector,
    CollectorServer,
    issue_tokens,
    token_digest,
)
from processes import running
from report_sample import NOW, registry_result

HOSTS = {"learner01": {"labs": ["capa-src", "cgoa-ci"], "lang": "en"},
         "learner02": {"labs": "capa-src", "lang": "ja"}}  # lab_enrolled as -e gives it
ENROLLED = {"learner01": ["capa-src", "cgoa-ci"], "learner02": ["capa-src"]}


def graded(labs=("capa-src", "cgoa-ci"), lang="en", fail=None):
    """A lab_grade result (runner.grade_host) for `labs`; `fail`: a check id that FAILs."""
    return {"state": "graded", "error": None, "health": {"healthy": True},
            "labs": {lab: registry_result(LABS[lab], lang, {fail: "FAIL"} if fail else None) for lab in labs}}


RUN = "20261203T120000Z"


@pytest.fixture
def class_collector():
    tokens = issue_tokens(HOSTS)
    return Collector(HOSTS, {host: token_digest(token) for host, token in tokens.items()}, RUN, now=NOW,
                     report_dir="/r/x"), tokens


def pushed(collector, tokens, host, result, token_of=None, envelope_host=None, run=RUN):
    body = push.envelope(envelope_host or host, run, result)
    return collector.accept(host, f"Bearer {tokens[token_of or host]}", body)


def test_a_good_push_is_kept_as_the_record_the_pulled_report_makes(class_collector):
    collector, tokens = class_collector
    result = graded(fail=LABS["capa-src"].checks[1].id)
    assert pushed(collector, tokens, "learner01", result) == (202, "learner01: graded")
    assert pushed(collector, tokens, "learner02", graded(["capa-src"], "ja")) == (202, "learner02: graded")
    from_push = collector.finish()
    pulled = [{"host": "learner01", "lang": "en", "state": "graded", "error": None, "labs": result["labs"]},
              {"host": "learner02", "lang": "ja", "state": "graded", "error": None,
               "labs": graded(["capa-src"], "ja")["labs"]}]
    from_pull = build.build_report(pulled, hosts=list(HOSTS), now=NOW, report_dir="/r/x",
                                   enrolled=ENROLLED)
    assert {name: as_text(content) for name, content in from_push["contents"].items()} == from_pull["contents"]
    assert from_push["counts"]["hosts_graded"] == 2


def test_a_token_speaks_only_for_its_own_host(class_collector):
    collector, tokens = class_collector
    assert pushed(collector, tokens, "learner01", graded(), token_of="learner02") == (
        403, "this token is not learner01's: a result speaks only for its own host")
    assert pushed(collector, tokens, "learner02", graded(["capa-src"]), envelope_host="learner01") == (
        403, "the push names another host than learner02: a result speaks only for its own host")
    assert pushed(collector, tokens, "learner02", {**graded(["capa-src"]), "host": "learner01"}) == (
        403, "the push names another host than learner02: a result speaks only for its own host")
    assert collector.accept("learner01", None, b"{}") == (
        401, "a push needs its VM's token (Authorization: Bearer <token>)")
    assert collector.accept("learner09", f"Bearer {tokens['learner01']}", b"{}") == (
        404, "no host 'learner09' in this class")
    assert collector.records == {}


def test_a_result_only_speaks_for_its_own_labs_and_the_registrys_checks(class_collector):
    """Another lab, or a check the registry does not declare: the host is ERROR "result rejected"."""
    collector, tokens = class_collector
    status, message = pushed(collector, tokens, "learner02", graded(["capa-src", "cgoa-ci"]))
    assert (status, message) == (422, "result rejected: lab cgoa-ci is not enrolled on this host")
    forged = graded(["capa-src"])
    forged["labs"]["capa-src"]["steps"][0]["checks"][0]["check"] = "capa-src.1.made-up"
    status, message = pushed(collector, tokens, "learner02", forged)
    assert status == 422 and message.startswith("result rejected: ")
    [record] = collector.records.values()
    assert record["state"] == "error" and record["error"]["message"] == message


@pytest.mark.parametrize(("body", "status", "message"), [
    (b"\xff\xfe", 400, "the push is not UTF-8 JSON: "),
    (b"[1, 2]", 400, "the push is not an object with exactly schema, host, run and result"),
    (json.dumps({"schema": "lab-push/v2", "host": "learner01", "run": RUN, "result": {}, "extra": 1}).encode(),
     400, "the push is not an object with exactly schema, host, run and result"),
    # v1 had no run: a push that cannot say which run it answers is refused, not guessed
    (json.dumps({"schema": "lab-push/v1", "host": "learner01", "result": {}}).encode(), 400,
     "the push is not an object with exactly schema, host, run and result"),
    (json.dumps({"schema": "lab-push/v1", "host": "learner01", "run": RUN, "result": {}}).encode(), 400,
     "schema 'lab-push/v1' is not lab-push/v2"),
    (json.dumps({"schema": "lab-push/v2", "host": "learner01", "run": "../x", "result": {}}).encode(), 400,
     "the run '../x' is not a run id"),
    (json.dumps({"schema": "lab-push/v2", "host": "learner01", "run": RUN, "result": {"state": "solved"}}).encode(),
     400, "the result is not lab_grade's: an object whose state is one of graded, error"),
    (b" " * (push.MAX_PUSH_BYTES + 1), 413, f"a push is at most {push.MAX_PUSH_BYTES} bytes"),
])
def test_a_push_that_is_not_the_schema_or_too_large_is_refused(class_collector, body, status, message):
    collector, tokens = class_collector
    answer = collector.accept("learner01", f"Bearer {tokens['learner01']}", body)
    assert answer[0] == status and answer[1].startswith(message), answer
    assert collector.records == {}


def test_a_host_in_error_is_kept_with_its_reason(class_collector):
    collector, tokens = class_collector
    error = {"state": "error", "error": {"kind": "health", "message": "api_server: unreachable"}, "labs": {}}
    assert pushed(collector, tokens, "learner01", error) == (202, "learner01: error")
    [record] = collector.records.values()
    assert record["error"]["kind"] == "health" and record["error"]["message"] == "api_server: unreachable"


@pytest.fixture
def server(class_collector):
    collector, tokens = class_collector
    httpd = CollectorServer(("127.0.0.1", 0), collector)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", collector, tokens, httpd
    httpd.shutdown()
    httpd.server_close()


def test_the_client_pushes_over_http_and_hears_the_collectors_answer(server):
    url, collector, tokens, _ = server
    assert push.push_result(url, "learner01", tokens["learner01"], RUN, graded()) == (202, "learner01: graded\n")
    assert push.push_result(url, "learner01", tokens["learner02"], RUN, graded()) == (
        403, "this token is not learner01's: a result speaks only for its own host\n")
    assert len(collector.records) == 1
    status, message = push.push_result("http://127.0.0.1:1", "learner01", tokens["learner01"], RUN, graded())
    assert status == 0 and message.startswith("collector http://127.0.0.1:1 not reached: ")


def test_the_client_does_not_send_what_the_collector_would_refuse(server):
    url, _, tokens, _ = server
    huge = {**graded(), "padding": "x" * push.MAX_PUSH_BYTES}
    status, message = push.push_result(url, "learner01", tokens["learner01"], RUN, huge)
    assert status == 413 and message.endswith(f"more than {push.MAX_PUSH_BYTES}: not sent")


def test_a_poll_names_the_open_run_and_nothing_once_it_is_closed(server):
    url, collector, tokens, httpd = server
    assert push.poll_run(url, "learner01", tokens["learner01"]) == (RUN, {}, 200, f"run {RUN} open")
    assert raw_request(httpd, "GET", "/v1/run/learner01", {"Authorization": f"Bearer {tokens['learner01']}"}) == (
        200, f'{{"run": "{RUN}", "kept": false}}\n')
    collector.close()
    assert push.poll_run(url, "learner01", tokens["learner01"]) == (None, None, 204, "no run open")
    assert raw_request(httpd, "GET", "/v1/run/learner01", {"Authorization": f"Bearer {tokens['learner01']}"}) == (
        204, "")


def test_a_poll_is_checked_like_a_push_and_never_reads_a_body(server):
    """A stranger's poll is refused on the headers, whatever body it declares."""
    url, _, tokens, httpd = server
    assert push.poll_run(url, "learner01", tokens["learner02"]) == (
        None, None, 403, "this token is not learner01's: a result speaks only for its own host\n")
    assert push.poll_run(url, "learner09", tokens["learner01"]) == (None, None, 404, "no host 'learner09' in this class\n")
    assert raw_request(httpd, "GET", "/v1/run/learner01", {}) == (
        401, "a push needs its VM's token (Authorization: Bearer <token>)\n")
    declares_a_body = {"Authorization": f"Bearer {tokens['learner01']}", "Content-Length": "1000"}
    assert raw_request(httpd, "GET", "/v1/run/learner01", declares_a_body) == (200, f'{{"run": "{RUN}", "kept": false}}\n')
    assert raw_request(httpd, "PUT", "/v1/run/learner01", {}) == (
        405, "the collector only takes pushes (POST) and polls (GET /v1/run/<host>)\n")
    run, options, status, message = push.poll_run("http://127.0.0.1:1", "learner01", tokens["learner01"])
    assert run is None and options is None and status == 0 and message.startswith("collector http://127.0.0.1:1 not reached: ")


def test_a_push_for_a_closed_or_another_run_is_refused(class_collector):
    collector, tokens = class_collector
    assert pushed(collector, tokens, "learner01", graded(), run="20261203T110000Z") == (
        409, "run 20261203T110000Z is closed")
    collector.close()
    assert pushed(collector, tokens, "learner01", graded()) == (409, f"run {RUN} is closed")
    assert collector.records == {}
    assert not collector.everyone_pushed.is_set()


def test_a_vm_of_the_class_left_out_of_the_run_hears_no_run_open(tmp_path):
    """grade-push -l learner01: learner02's VM still polls with its valid token; it hears 204, not a
    refusal that would fail its unit at every tick, and a push from it is not kept."""
    tokens = issue_tokens(HOSTS)
    digests = {host: token_digest(token) for host, token in tokens.items()}
    collector = Collector({"learner01": HOSTS["learner01"]}, digests, RUN, now=NOW, report_dir=str(tmp_path),
                          class_hosts=list(HOSTS))
    assert collector.poll("learner02", f"Bearer {tokens['learner02']}") == (204, "")
    assert collector.poll("learner02", f"Bearer {tokens['learner01']}")[0] == 403
    assert pushed(collector, tokens, "learner02", graded(["capa-src"], lang="ja")) == (
        409, "learner02 is not graded in this run (-l)")
    assert collector.poll("learner09", f"Bearer {tokens['learner01']}") == (404, "no host 'learner09' in this class")
    assert collector.records == {}


def test_the_run_knows_when_every_host_pushed(class_collector):
    collector, tokens = class_collector
    pushed(collector, tokens, "learner01", graded())
    assert not collector.everyone_pushed.is_set()
    pushed(collector, tokens, "learner02", graded(["capa-src", "cgoa-ci"]))  # rejected: still pushed
    assert collector.everyone_pushed.is_set()


def test_a_vm_grades_once_per_run_and_remembers_the_run_it_pushed_for(server, tmp_path):
    url, collector, tokens, _ = server
    state = tmp_path / "push-run"
    gradings = []

    def grade(options):
        gradings.append(options)
        return graded()

    assert push.poll_and_push(url, "learner01", tokens["learner01"], str(state), grade) == (
        202, "learner01: graded\n")
    assert state.read_text() == f"{RUN}\n" and len(gradings) == 1
    assert push.poll_and_push(url, "learner01", tokens["learner01"], str(state), grade) == (
        200, f"run {RUN}: this host's result is kept")
    assert len(gradings) == 1
    collector.close()
    assert push.poll_and_push(url, "learner01", tokens["learner01"], str(state), grade) == (204, "no run open")
    assert len(gradings) == 1


def test_a_vm_that_did_not_hear_its_push_kept_does_not_grade_again(server, tmp_path):
    """Its push timed out on the VM's side while the collector kept it: the poll says so."""
    url, collector, tokens, httpd = server
    pushed(collector, tokens, "learner01", graded())
    assert raw_request(httpd, "GET", "/v1/run/learner01", {"Authorization": f"Bearer {tokens['learner01']}"}) == (
        200, f'{{"run": "{RUN}", "kept": true}}\n')
    never = []
    assert push.poll_and_push(url, "learner01", tokens["learner01"], str(tmp_path / "push-run"), never.pop) == (
        200, f"run {RUN}: this host's result is kept")
    state = tmp_path / "push-run"  # and the state file alone stops a second grading
    state.write_text(f"{RUN}\n")
    assert push.poll_and_push(url, "learner02", tokens["learner02"], str(state), never.pop) == (
        200, f"run {RUN}: already pushed")


def test_a_vm_whose_push_is_refused_tries_again_at_its_next_run(server, tmp_path):
    """Not reached, or refused for a reason the VM cannot fix alone: the run is not remembered."""
    url, collector, tokens, _ = server
    state = tmp_path / "push-run"
    assert push.poll_and_push(url, "learner01", tokens["learner01"], str(state),
                              lambda options: {"state": "solved"}) == (
        400, "the result is not lab_grade's: an object whose state is one of graded, error\n")
    assert not state.exists()
    status, _ = push.poll_and_push("http://127.0.0.1:1", "learner01", tokens["learner01"], str(state), lambda options: graded())
    assert status == 0 and not state.exists()
    assert push.poll_and_push(url, "learner01", tokens["learner01"], str(state), lambda options: graded())[0] == 202
    assert collector.records["learner01"]["state"] == "graded"


class NotACollector(http.server.BaseHTTPRequestHandler):
    """Answers every poll 200 with the class attribute `body`."""

    body = b""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format, *args):
        pass


class BusyCollector(http.server.BaseHTTPRequestHandler):
    """A run open for every host; a push is told 503 "busy" `busy` times, then 202. Records the
    bodies pushed."""

    busy, pushed = 0, []

    def do_GET(self):
        self.reply(200, json.dumps({"run": RUN, "kept": False}).encode())

    def do_POST(self):
        type(self).pushed.append(self.rfile.read(int(self.headers["Content-Length"])))
        if len(self.pushed) <= self.busy:
            return self.reply(503, b"the collector is busy: push again in a few seconds\n")
        self.reply(202, b"learner01: graded\n")

    def reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


@pytest.mark.parametrize(("busy", "answer", "pushes"), [
    (2, (202, "learner01: graded\n"), 3),
    (push.BUSY_RETRIES + 1, (503, "the collector is busy: push again in a few seconds (kept: sent again at the next "
                                  "timer run)"), push.BUSY_RETRIES + 1),
])
def test_a_push_the_busy_collector_refuses_is_sent_again_without_grading_again(busy, answer, pushes, tmp_path):
    """1,000 VMs at a run's opening: a push told 503 is sent again, the same result, after a
    random 1-3 s, at most BUSY_RETRIES times; the VM grades once (before: once per timer tick
    until it got in)."""
    handler = type("Busy", (BusyCollector,), {"busy": busy, "pushed": []})
    httpd = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    gradings, waits = [], []
    state = tmp_path / "push-run"
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        said = push.poll_and_push(url, "learner01", "token", str(state),
                                  lambda options: gradings.append(1) or graded(), wait=waits.append)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert said == answer
    assert gradings == [1] and len(handler.pushed) == pushes and len(set(handler.pushed)) == 1
    assert len(waits) == pushes - 1 and all(push.BUSY_WAIT_SECONDS[0] <= w <= push.BUSY_WAIT_SECONDS[1] for w in waits)
    assert state.exists() == (answer[0] == 202)



def serving(handler):
    """`handler` serving on loopback: (its URL, its server)."""
    httpd = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}", httpd


def busy_collector(busy):
    """A BusyCollector serving on loopback: (its handler class, its URL, its server)."""
    handler = type("Busy", (BusyCollector,), {"busy": busy, "pushed": []})
    return handler, *serving(handler)


def test_a_push_still_refused_is_sent_again_at_the_next_timer_run_not_graded_again(tmp_path):
    """Busy past its retries: the request waits beside the state file (0600) for the next timer
    run. Before, the VM graded again (~9 s with cgoa-ci's probes): 1,000 VMs made 1,997 gradings
    for 769 pushes kept in 60 s."""
    handler, url, httpd = busy_collector(2 * (push.BUSY_RETRIES + 1))
    gradings = []
    state = tmp_path / "push-run"
    unsent = tmp_path / ("push-run" + push.UNSENT_SUFFIX)
    try:
        def tick():
            return push.poll_and_push(url, "learner01", "token", str(state),
                                      lambda options: gradings.append(1) or graded(), wait=lambda seconds: None)
        assert tick()[0] == 503 and unsent.stat().st_mode & 0o777 == 0o600 and not state.exists()
        assert tick()[0] == 503
        assert tick() == (202, "learner01: graded\n")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert gradings == [1] and len(handler.pushed) == 2 * (push.BUSY_RETRIES + 1) + 1 and len(set(handler.pushed)) == 1
    assert state.read_text() == f"{RUN}\n" and not unsent.exists()



class AnsweringCollector(BusyCollector):
    """A run open for every host; every push answered `status`."""

    status = 202

    def do_POST(self):
        type(self).pushed.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.reply(self.status, b"said\n")


@pytest.mark.parametrize(("status", "kept"), [(502, True), (500, True), (401, False), (409, False), (202, False)])
def test_a_push_a_server_in_trouble_did_not_take_is_kept_and_a_refused_one_forgotten(status, kept, tmp_path):
    """A proxy's 502 or a collector's 500 may pass: the push waits for the next timer run. A 4xx
    would be the same answer again: forgotten (the next run grades again), as a kept push is."""
    handler = type("Answering", (AnsweringCollector,), {"status": status, "pushed": []})
    url, httpd = serving(handler)
    unsent = tmp_path / ("push-run" + push.UNSENT_SUFFIX)
    unsent.write_bytes(push.envelope("learner01", "20261203T000000Z", {"state": "graded"}))  # an earlier run's
    try:
        said = push.poll_and_push(url, "learner01", "token", str(tmp_path / "push-run"), lambda options: graded())
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert said == (status, "said (kept: sent again at the next timer run)" if kept else "said\n")
    assert unsent.exists() == kept and (not kept or unsent.read_bytes() == handler.pushed[0])


def test_a_push_that_did_not_reach_the_collector_is_kept(tmp_path, monkeypatch):
    """The collector answered the poll, then went away (its run's end, a restart)."""
    monkeypatch.setattr(push, "send_push", lambda *args, **kwargs: (
        0, "collector http://127.0.0.1:1 not reached: [Errno 111] Connection refused"))
    state = str(tmp_path / "push-run")
    url, httpd = serving(type("Open", (BusyCollector,), {"busy": 0, "pushed": []}))
    try:
        said = push.poll_and_push(url, "learner01", "token", state, lambda options: graded())
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert said == (0, "collector http://127.0.0.1:1 not reached: [Errno 111] Connection refused (kept: sent again at "
                       "the next timer run)")
    assert push.unsent_push(state, "learner01", RUN) == push.envelope("learner01", RUN, graded())


@pytest.mark.parametrize("kept", [
    push.envelope("learner01", "20261203T000000Z", {"state": "graded"}),  # an earlier run's
    push.envelope("learner02", RUN, {"state": "graded"}),  # another host's
    b'{"host": "learner01", "run": "' + RUN.encode() + b'", "result": ',  # cut short
])
def test_a_kept_push_of_another_run_or_host_or_cut_short_is_graded_again(kept, tmp_path):
    handler, url, httpd = busy_collector(0)
    gradings = []
    state = tmp_path / "push-run"
    (tmp_path / ("push-run" + push.UNSENT_SUFFIX)).write_bytes(kept)
    try:
        assert push.poll_and_push(url, "learner01", "token", str(state),
                                  lambda options: gradings.append(1) or graded())[0] == 202
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert gradings == [1] and handler.pushed == [push.envelope("learner01", RUN, graded())]
    assert not (tmp_path / ("push-run" + push.UNSENT_SUFFIX)).exists()


@pytest.mark.parametrize("body", [b"not json", b'["run"]', b'{"run": "../../etc"}', b'{"run": 7}'])
def test_a_poll_answer_that_names_no_run_is_not_taken_as_one(body, tmp_path):
    handler = type("Answer", (NotACollector,), {"body": body})
    httpd = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        assert push.poll_run(url, "learner01", "token") == (
            None, None, 200, f"the collector's answer names no run: {body.decode()!r}")
        never = []
        assert push.poll_and_push(url, "learner01", "token", str(tmp_path / "push-run"), never.pop)[0] == 200
        assert not (tmp_path / "push-run").exists()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_only_a_run_ids_characters_are_a_run(tmp_path):
    """The VM writes the run id to its state file: only a run id's characters are taken."""
    assert not push.valid_run("../../etc/passwd") and not push.valid_run("") and not push.valid_run(7)
    assert push.valid_run(RUN) and push.valid_run(f"{RUN}-2")
    state = tmp_path / "push-run"
    state.write_text("not a run\n")
    assert push.last_pushed_run(str(state)) is None
    assert push.last_pushed_run(str(tmp_path / "missing")) is None


def raw_request(httpd, method, path, headers, body=b""):
    connection = http.client.HTTPConnection(*httpd.server_address, timeout=10)
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    answer = (response.status, response.read().decode())
    connection.close()
    return answer


def test_the_server_checks_the_declared_length_and_the_token_before_reading_the_body(server):
    """A stranger's 512 KiB is never read: the length and the token are checked on the headers."""
    _, collector, tokens, httpd = server
    too_long = {"Content-Length": str(push.MAX_PUSH_BYTES + 1), "Authorization": f"Bearer {tokens['learner01']}"}
    assert raw_request(httpd, "POST", "/v1/results/learner01", too_long) == (
        413, f"a push is at most {push.MAX_PUSH_BYTES} bytes\n")
    # declares 1,000 bytes and sends none: answered 403 at once, not after READ_TIMEOUT
    stranger = {"Content-Length": "1000", "Authorization": "Bearer not-a-token"}
    assert raw_request(httpd, "POST", "/v1/results/learner01", stranger) == (
        403, "this token is not learner01's: a result speaks only for its own host\n")
    assert raw_request(httpd, "GET", "/v1/results/learner01", {}) == (
        405, "the collector only takes pushes (POST) and polls (GET /v1/run/<host>)\n")
    assert raw_request(httpd, "POST", "/elsewhere", {"Content-Length": "0"}) == (404, "push to /v1/results/<host>\n")
    assert collector.records == {}


def test_a_host_that_never_pushed_is_an_error_row_of_the_report(class_collector):
    collector, tokens = class_collector
    pushed(collector, tokens, "learner01", graded())
    report = collector.finish()
    rows = {host["host"]: host for host in report["hosts"]}
    assert rows["learner01"]["state"] == "graded"
    assert rows["learner02"]["error"]["message"] == (
        "the host produced no grading record (unreachable, or grading stopped early)")


# A collector with worker processes, killed: it never shuts its pool down.
KILLED_COLLECTOR = """
import multiprocessing, sys, time
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import Collector
if __name__ == "__main__":
    collector = Collector({"learner01": {"labs": ["capa-src"], "lang": "en"}}, {}, "run-1", workers=2)
    print(" ".join(str(child.pid) for child in multiprocessing.active_children()), flush=True)
    time.sleep(600)
"""


def test_the_collectors_workers_end_with_it_even_when_it_is_killed(tmp_path):
    """The workers judging pushes are no daemons outliving the run: shutdown ends them, and so
    does the collector's death (SIGKILL: no pool shutdown)."""
    import os
    import subprocess
    import sys
    import time

    script = tmp_path / "collector.py"
    script.write_text(KILLED_COLLECTOR)
    collector = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                                 env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        workers = [int(pid) for pid in collector.stdout.readline().split()]
        assert len(workers) == 2 and all(map(running, workers))
    finally:
        collector.kill()
        collector.wait()
    deadline = time.monotonic() + 10
    while any(map(running, workers)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(map(running, workers))


def test_shutdown_ends_the_collectors_workers(class_collector):
    import multiprocessing

    collector = Collector(HOSTS, {}, RUN, workers=1)
    workers = multiprocessing.active_children()
    assert workers and all(worker.is_alive() for worker in workers)
    collector.shutdown()
    assert not any(worker.is_alive() for worker in workers)


def test_a_dead_worker_costs_no_push(class_collector):
    """A worker killed mid-run (the OOM killer, a signal) breaks the pool: every later push is
    judged in the collector's process, none is lost; so is a push that meets the pool shut down."""
    import multiprocessing
    import os
    import signal
    import time

    _, tokens = class_collector
    collector = Collector(HOSTS, {host: token_digest(token) for host, token in tokens.items()}, RUN, now=NOW,
                          report_dir="/r/x", workers=1)
    try:
        (worker,) = multiprocessing.active_children()
        os.kill(worker.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while running(worker.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert pushed(collector, tokens, "learner01", graded()) == (202, "learner01: graded")
        assert collector.judges is None
    finally:
        collector.shutdown()
    collector = Collector(HOSTS, {host: token_digest(token) for host, token in tokens.items()}, RUN, now=NOW,
                          report_dir="/r/x", workers=1)
    collector.judges.shutdown()  # as ClassRun.shutdown may, while a push is being read
    assert pushed(collector, tokens, "learner02", graded(["capa-src"], "ja")) == (202, "learner02: graded")


def test_json_nested_past_the_parsers_stack_is_a_bad_push(class_collector):
    collector, tokens = class_collector
    status, message = collector.accept("learner01", f"Bearer {tokens['learner01']}", b"[" * 200_000)
    assert (status, message.split(":")[0]) == (400, "the push is not UTF-8 JSON")


def test_the_memos_keep_no_long_text():
    """What the collector memoises is bounded per entry: a learner's long values that never
    repeat are rendered, not kept."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import redaction
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import grades_json, page_data

    memos = (redaction._scrubbed, page_data._row_text_of, grades_json._fields_text)
    for memo in memos:
        memo.forget()
    long_text = "x" * (max(redaction.SCRUB_MEMO_TEXT, page_data.ROW_MEMO_TEXT, grades_json.RECORD_MEMO_TEXT) + 1)
    check = {"lab": "capa-src", "step": 1, "check": "capa-src.1.x", "status": "FAIL", "expected": "a",
             "found": long_text, "message_key": "", "params": {}, "message": "m", "hint": "", "hint_key": None}
    assert redaction.scrub(long_text) == long_text
    assert json.loads(page_data._row_text(check, "en"))[4].startswith("xxxx")
    assert json.loads("{" + grades_json._record_text({"host": "h", **check}).split("{", 1)[1])["found"] == long_text
    assert [len(memo.kept) for memo in memos] == [0, 0, 0]
    short = {**check, "found": "y"}
    redaction.scrub("short text here"), page_data._row_text(short, "en"), grades_json._record_text({"host": "h", **short})
    assert [len(memo.kept) for memo in memos] == [1, 1, 1]


def test_the_memo_keeps_the_first_calls_through_a_cycle_longer_than_it():
    """Hosts bring their checks in the same order: with a cycle of 3 distinct calls and room for
    2, the first two are computed once (an LRU of 2 would compute all three every time)."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.memo import first_seen

    computed = []

    @first_seen(2, 10)
    def upper(text):
        computed.append(text)
        return text.upper()

    assert [upper(t) for t in ["a", "b", "c"] * 3] == ["A", "B", "C"] * 3
    assert computed == ["a", "b", "c", "c", "c"]
    assert upper("x" * 11) == "X" * 11 and len(upper.kept) == 2
