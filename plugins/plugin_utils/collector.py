"""The instructor's collector for pushed results (the push design of docs/performance.md): each
learner VM grades itself and POSTs its result (module_utils/labgrader/push.py); the collector
validates it as it arrives and keeps the host's record, normalised and made safe to show, ready
for the class report. No SSH session, no Ansible task, no worker fork per learner.

A push is untrusted input, the VM's word as much as lab_grade's result is (docs/sandbox.md):

- one token per VM, issued by the instructor (provisioning puts it on the VM); the collector
  keeps only its SHA-256 and compares in constant time. A token speaks for its own host only: the
  URL's host, the envelope's host and the result's host must all be the token's;
- bounded: the body's declared length is checked before a byte is read (MAX_PUSH_BYTES), the
  socket times out (a slow client holds a thread for READ_TIMEOUT at most) and at most
  MAX_CONCURRENT pushes are read at once (the rest are told 503, retry);
- the envelope's schema (push.SCHEMA, exactly its four keys, a result in lab_grade's states) and
  its run: a collector serves one grading run (its id, the report folder's stamp); a push for
  another run, or once the run is closed, is refused (409), so that a slow VM's result never
  enters the next run's report;
- the result itself exactly as the class report validates a pulled one (report/normalize.py,
  report/validate.py): only the labs the inventory enrolls the host in, each with the steps and
  checks the controller's registry declares, values no larger than the grader returns. A result
  that is not is kept as the host's ERROR "result rejected: ..." (as the pulled report does) and
  the VM is told why (422).

Each kept record is rendered at once into its parts of every report format (report/build.py,
ClassReport.add), so that what is left after the last push is the report's assembly (finish).

A VM learns that a run is open by polling (GET /v1/run/<host>, its token checked as a push's, no
body read): 200 {"run": "<id>", "kept": false, "options": {...}} while the run is open and has no
record of the host, "kept": true once it has, 204 once the run is closed. "options" are the
host's lab_grade options as grade.yml would give them (grade_push.py computes them from the
inventory when the run starts), so that what the VM grades is what the pull path would grade."""

from __future__ import annotations

import concurrent.futures
import hashlib
import hmac
import http.server
import json
import multiprocessing
import os
import secrets
import ssl
import sys
import threading
import time
import urllib.parse

from ansible_collections.gitops_lab.grader.plugins.filter.grading import grade_record
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.push import MAX_PUSH_BYTES, SCHEMA, valid_run
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.build import ClassReport, shown
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.normalize import normalize_records
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import registry_columns
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import enrolled as enrolled_labs

PATH_PREFIX = "/v1/results/"
POLL_PREFIX = "/v1/run/"
NOT_A_PUSH_OR_POLL = "the collector only takes pushes (POST) and polls (GET /v1/run/<host>)"
READ_TIMEOUT = 10  # seconds a client may take to send its request
MAX_CONCURRENT = 64  # pushes read at once; 1,000 VMs on timers spread over a minute need far fewer
RESULT_STATES = ("graded", "error")


def issue_tokens(hosts):
    """{host: a new random token} (256 bits each): what provisioning writes on each VM."""
    return {host: secrets.token_urlsafe(32) for host in hosts}


def token_digest(token):
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Collector:
    """The class's pushed results of one grading run. `hosts`: {host: {"labs": lab_enrolled,
    "lang": lab_lang}} (the grade_settings filter's shape, from the inventory); `digests`: {host:
    token_digest(token)}; `run`: the run's id, open from now until close(). The report's options
    are ClassReport's: `now` is the run's time, every pushed host's `graded_at`; `previous` the
    class view `latest` showed before the run; `class_hosts` every host of the class when the run
    grades fewer (-l: the report merges into that view). `workers`: processes that judge the
    pushes (0: the threads that read them do); shutdown() ends them. `options`: {host: its
    lab_grade options}, sent in the poll's answer (none: the answer has no "options")."""

    def __init__(self, hosts, digests, run, now=None, previous=None, lang="en", title="", report_dir="",
                 class_hosts=None, workers=0, options=None):
        self.hosts = {host: {"labs": enrolled_labs(settings["labs"]), "lang": settings.get("lang", "en")}
                      for host, settings in hosts.items()}
        self.digests = dict(digests)
        # -l grades fewer hosts than the class: the others' VMs still poll, and hear "no run open"
        self.class_hosts = set(class_hosts or self.hosts)
        self.options = options or {}
        self.records = {}  # host -> its newest record, normalised and shown; the report owns it
        self.report = ClassReport(list(self.hosts), lang, now, report_dir, title=title,
                                  class_hosts=class_hosts or list(self.hosts),
                                  previous=previous,
                                  columns=registry_columns({lab for s in self.hosts.values() for lab in s["labs"]}))
        self.run = run  # None once closed
        # `workers` > 0: pushes are judged (parsed, validated, normalised, rendered) in that many
        # processes, so that a 2-core controller uses both cores; this process keeps the records.
        self.judges = start_judges(workers, self.hosts, self.report) if workers else None
        self.lock = threading.Lock()
        self.everyone_pushed = threading.Event()

    def authorised_host(self, host, authorization):
        """(HTTP status, message): 0 when `authorization` is the Bearer token of `host`."""
        if host not in self.class_hosts or host not in self.digests:
            return 404, f"no host {host!r} in this class"
        scheme, _, token = (authorization or "").partition(" ")
        if scheme != "Bearer" or not token:
            return 401, "a push needs its VM's token (Authorization: Bearer <token>)"
        if not hmac.compare_digest(token_digest(token), self.digests[host]):
            return 403, f"this token is not {host}'s: a result speaks only for its own host"
        return 0, ""

    def poll(self, host, authorization):
        """(HTTP status, body) of a VM's poll: 200 {"run": id, "kept": whether this run has the
        host's record, "options": its grading options, when the run has them} while the run is
        open, 204 once it is closed; the token is checked as a push's."""
        status, message = self.authorised_host(host, authorization)
        if status:
            return status, message
        # Not under self.lock, which a push holds while its parts are rendered: a poll is answered
        # at once; a push kept a moment later is "kept" at the VM's next poll.
        run, kept = self.run, host in self.records
        if run is None or host not in self.hosts:  # closed, or a run of other hosts (-l)
            return 204, ""
        # "kept": this run has the host's record (a VM whose push timed out while the collector
        # kept it does not grade and push again)
        return 200, poll_answer(run, kept, self.options.get(host))

    def close(self):
        """End the run: from now on a push is refused (409) and a poll answered 204; the records
        kept so far are the run's (finish)."""
        with self.lock:
            self.run = None

    def accept(self, host, authorization, body):
        """Validate one push for `host` and keep its record. Returns (HTTP status, message)."""
        status, message = self.authorised_host(host, authorization)
        if status:
            return status, message
        if host not in self.hosts:
            return 409, f"{host} is not graded in this run (-l)"
        if len(body) > MAX_PUSH_BYTES:
            return 413, f"a push is at most {MAX_PUSH_BYTES} bytes"
        run = self.run
        judged = self._judged_in_worker(host, body, run) if run is not None else None
        status, message, kept = judged or judge(self.hosts[host], self.report, host, body, run)
        if kept is None:
            return status, message
        with self.lock:
            # checked again under the lock: after close() returns, no record enters the run
            if run != self.run:
                return 409, f"run {run} is closed"
            self.records[host] = kept[0]
            self.report.keep(*kept)
            if len(self.records) == len(self.hosts):
                self.everyone_pushed.set()
        return status, message

    def _judged_in_worker(self, host, body, run):
        """judge's answer from a worker process; None without workers, once they are shut down
        (the run closed), or when the pool broke (a worker died: the OOM killer, a signal): from
        then on this process judges, and no push is lost to it."""
        judges = self.judges
        if judges is None:
            return None
        try:
            return judges.submit(_judge_in_worker, host, body, run).result()
        except concurrent.futures.process.BrokenProcessPool:
            self.judges = None
            judges.shutdown(wait=False, cancel_futures=True)
        except RuntimeError as refused:  # submit after shutdown(); any other is judge's own
            if "after shutdown" not in str(refused):
                raise
        return None

    def shutdown(self):
        """End the worker processes (workers > 0); a push after it is judged in this process."""
        judges, self.judges = self.judges, None
        if judges is not None:
            judges.shutdown()

    def finish(self):
        """The class report of the run (build_report's result) from the pushes kept so far: the
        hosts that did not push are ERROR rows "no grading record"."""
        with self.lock:
            return self.report.finish()


def judge(settings, report, host, body, run):
    """(HTTP status, message, the record's ClassReport.host_view or None) of `body`, a push for
    `host` (its token checked) while `run` is open: `settings` the host's {"labs", "lang"},
    `report` the run's ClassReport (only read)."""
    try:
        pushed = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nested past json's stack
        return 400, f"the push is not UTF-8 JSON: {exc}", None
    problem = envelope_problem(pushed, host)
    if problem:
        return (403 if "speaks only" in problem else 400), problem, None
    if pushed["run"] != run:
        return 409, f"run {pushed['run']} is closed", None
    raw = grade_record(pushed["result"], host, settings["lang"])
    record = shown(normalize_records([raw], [host], {host: settings["labs"]}))[0]
    error = record.get("error") or {}
    if record["state"] == "error" and error.get("message", "").startswith("result rejected: "):
        status, message = 422, error["message"]
    else:
        status, message = 202, f"{host}: {record['state']}"
    return status, message, report.host_view(record)


# A worker process's copy of the class (hosts' settings, the run's ClassReport before any push):
# forked from the collector, which keeps the records.
_WORKER_CLASS = {}


def _start_worker(hosts, report, collector_pid):
    _WORKER_CLASS.update(hosts=hosts, report=report)
    # A worker ends with the collector, even one killed, whose pool never says so (its parent is
    # the forkserver, which lives as long as its workers do).
    threading.Thread(target=_end_with, args=(collector_pid,), daemon=True).start()


def _end_with(collector_pid):
    while True:
        try:
            os.kill(collector_pid, 0)
        except ProcessLookupError:
            os._exit(0)
        time.sleep(1)


def _judge_in_worker(host, body, run):
    return judge(_WORKER_CLASS["hosts"][host], _WORKER_CLASS["report"], host, body, run)


def _ready():
    return None


def start_judges(workers, hosts, report):
    """A pool of `workers` processes judging pushes (judge), started now with a copy of the
    class, so that the first pushes wait for no start. Forked by a forkserver: a fork of the
    collector itself, which has threads, could deadlock."""
    pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"),
                                                  initializer=_start_worker, initargs=(hosts, report, os.getpid()))
    for future in [pool.submit(_ready) for _ in range(workers)]:
        future.result()
    return pool


def poll_answer(run, kept, options=None):
    """The body of a poll's 200: one line of JSON, the host's options only when the run has them."""
    return json.dumps({"run": run, "kept": kept, **({"options": options} if options is not None else {})},
                      ensure_ascii=False)


def envelope_problem(pushed, host):
    """Why `pushed` is not a push.SCHEMA envelope for `host`, or None."""
    if not isinstance(pushed, dict) or set(pushed) != {"schema", "host", "run", "result"}:
        return "the push is not an object with exactly schema, host, run and result"
    if pushed["schema"] != SCHEMA:
        return f"schema {str(pushed['schema'])[:60]!r} is not {SCHEMA}"
    if not valid_run(pushed["run"]):
        return f"the run {str(pushed['run'])[:60]!r} is not a run id"
    result = pushed["result"]
    if pushed["host"] != host or (isinstance(result, dict) and result.get("host", host) != host):
        return f"the push names another host than {host}: a result speaks only for its own host"
    if not isinstance(result, dict) or result.get("state") not in RESULT_STATES:
        return f"the result is not lab_grade's: an object whose state is one of {', '.join(RESULT_STATES)}"
    return None


class PushHandler(http.server.BaseHTTPRequestHandler):
    """POST /v1/results/<host> and GET /v1/run/<host>; anything else is 404/405. A push's body
    is read only once the declared length and the token are known to be good; a poll's never."""

    timeout = READ_TIMEOUT
    server_version = "lab-collector"

    def log_message(self, format, *args):
        pass  # one line per VM per push is noise at 1,000 VMs; the answer goes to the VM

    def answer(self, status, message, content_type="text/plain"):
        body = (message + "\n").encode("utf-8") if status != 204 else b""  # 204 has no body
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def do_POST(self):
        if not self.path.startswith(PATH_PREFIX):
            return self.answer(404, "push to /v1/results/<host>")
        host = urllib.parse.unquote(self.path[len(PATH_PREFIX):])
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            return self.answer(411, "a push declares its Content-Length")
        if int(length) > MAX_PUSH_BYTES:
            return self.answer(413, f"a push is at most {MAX_PUSH_BYTES} bytes")
        if not self.server.slots.acquire(blocking=False):
            return self.answer(503, "the collector is busy: push again in a few seconds")
        try:
            # Checked before the body is read: a stranger cannot make the collector read 512 KiB.
            status, message = self.server.collector.authorised_host(host, self.headers.get("Authorization"))
            if status:
                return self.answer(status, message)
            body = self.rfile.read(int(length))
            self.answer(*self.server.collector.accept(host, self.headers.get("Authorization"), body))
        finally:
            self.server.slots.release()

    def do_GET(self):
        if not self.path.startswith(POLL_PREFIX):
            return self.answer(405, NOT_A_PUSH_OR_POLL)
        host = urllib.parse.unquote(self.path[len(POLL_PREFIX):])
        status, message = self.server.collector.poll(host, self.headers.get("Authorization"))
        self.answer(status, message, "application/json" if status == 200 else "text/plain")

    def do_PUT(self):
        self.answer(405, NOT_A_PUSH_OR_POLL)

    do_DELETE = do_PUT


class CollectorServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    # connections waiting to be accepted: 1,000 VMs' timers bunch up, and the default 5 drops
    # their SYNs (the client's connect then waits a second or more for its retry)
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        """A VM that gave up before its answer (its timeout) is not the collector's error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def __init__(self, address, collector, tls=None):
        """`address`: (host, port), port 0 for any free one; `tls`: (certfile, keyfile) for HTTPS."""
        super().__init__(address, PushHandler)
        self.collector = collector
        self.slots = threading.BoundedSemaphore(MAX_CONCURRENT)
        self.tls = bool(tls)
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            # The handshake happens in the handler's thread, under its timeout, not in accept().
            self.socket = context.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)
