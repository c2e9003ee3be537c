"""A learner VM's grading result pushed to the instructor's collector (the push design of
docs/performance.md): the VM's timer polls the collector for an open grading run, grades itself
(runner.grade_host, the lab_grade module's work, with the options the poll's answer carries:
grade.yml's for this host) when the run is one it has not pushed for, and sends one HTTPS
request; the controller spends no SSH session and no Ansible task on it. push_command.py is the
VM's command around it (lab-grade-push, run by its systemd timer).

The envelope is what the collector (plugin_utils/collector.py) validates: its schema, the host it
speaks for (the one the VM's token was issued to), the run it answers and the host's result as
lab_grade returns it. Standard library only: it runs in the grader's runtime on the VM."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import ssl
import tempfile
import time
import urllib.error
import urllib.request

# v2 carries the run the result answers; v1 (no run) was never provisioned on a VM, and a push
# without its run could put a slow VM's result into the next run's report.
SCHEMA = "lab-push/v2"
# A graded host's result is about 100 KB of JSON for two labs (docs/performance.md); four times
# that leaves room for a third lab and long messages, and bounds what one VM can make the
# controller read, parse and keep.
MAX_PUSH_BYTES = 512 * 1024
# Seconds any one step of a request may wait (urllib's timeout: the connection, each read): a dead
# collector never holds a VM's timer.
PUSH_TIMEOUT = 10
POLL_TIMEOUT = 5  # a poll is one small answer; the timer polls again 5-10 s later
# What the VM reads of any answer. A poll's is one line carrying the host's grading options (the
# labs, the language, timings and the lab_* site paths: about 200 bytes for a host of inventory/class);
# grade-push refuses to open a run whose answer to a host would be longer (grade_push.py).
MAX_ANSWER_BYTES = 16 * 1024
# A push told 503 "busy" (the collector reads at most 64 at once: 1,000 VMs' timers bunch up when a
# run opens) is sent again, the same result, after a random 1-3 s, at most BUSY_RETRIES times:
# before, the VM graded again at its next tick (1,785 gradings for 1,000 hosts measured,
# docs/performance.md).
BUSY_RETRIES = 3
BUSY_WAIT_SECONDS = (1.0, 3.0)
# Still busy after those, another answer of a server in trouble (5xx: a proxy's 502, 504), or not
# reached: the request is kept beside the state file and sent again
# at the timer's next run, not graded again (a learner's grading is ~9 s on a VM, nearly all of it
# cgoa-ci's probes; 1,000 VMs made 1,997 gradings for 769 pushes kept in 60 s when each refused
# push was graded again, docs/performance.md).
UNSENT_SUFFIX = ".unsent"
# A run id is the report folder's stamp (20261203T185516Z, -2 for a second run in that second);
# anything else in a poll's answer is not taken as a run, nor written to the VM's state file.
RUN_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z-]{0,63}")
# The push_token task's options (its action plugin issues the token this client sends).
TOKEN_OPTIONS = {
    "collector_url": {"type": "str", "required": True},
    "current_digest": {"type": "str"},
    "report_dir": {"type": "path"},
}


def valid_run(run):
    return isinstance(run, str) and RUN_ID.fullmatch(run) is not None


def collector_path(collector_url, prefix, host):
    return f"{collector_url.rstrip('/')}/v1/{prefix}/{urllib.request.quote(host, safe='')}"


def push_url(collector_url, host):
    """<collector>/v1/results/<host>: the host is in the path, and the token must be that host's."""
    return collector_path(collector_url, "results", host)


def poll_url(collector_url, host):
    """<collector>/v1/run/<host>: the open run, asked with the host's token."""
    return collector_path(collector_url, "run", host)


def envelope(host, run, result):
    """The request body: bytes of {"schema", "host", "run", "result"} (compact JSON, UTF-8)."""
    return json.dumps({"schema": SCHEMA, "host": host, "run": run, "result": result}, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")


def exchange(collector_url, request, cafile, timeout):
    """(HTTP status, the answer's first MAX_ANSWER_BYTES as text) of `request`; (0, why) when the
    collector is not reached. With `cafile` (HTTPS) only that certificate is trusted."""
    context = ssl.create_default_context(cafile=cafile) if collector_url.startswith("https:") else None
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            return response.status, response.read(MAX_ANSWER_BYTES).decode("utf-8", "replace")
    except urllib.error.HTTPError as answer:  # the collector said no, with its reason
        return answer.code, answer.read(MAX_ANSWER_BYTES).decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as exc:
        return 0, f"collector {collector_url} not reached: {getattr(exc, 'reason', exc)}"


def push_result(collector_url, host, token, run, result, cafile=None, timeout=PUSH_TIMEOUT, wait=time.sleep):
    """POST `result` for `host` and `run` with its token, again (the same bytes) while the
    collector answers 503 "busy": BUSY_RETRIES times at most, `wait` a random BUSY_WAIT_SECONDS
    between. Returns (HTTP status, the collector's message) of the last request; a collector that
    cannot be reached is (0, why). Never raises for the network's sake: the VM's timer logs the
    answer and tries again at its next run."""
    return send_push(collector_url, host, token, envelope(host, run, result), cafile, timeout, wait)


def send_push(collector_url, host, token, body, cafile=None, timeout=PUSH_TIMEOUT, wait=time.sleep):
    """push_result's requests for an envelope's `body`."""
    if len(body) > MAX_PUSH_BYTES:
        return 413, f"the result is {len(body)} bytes, more than {MAX_PUSH_BYTES}: not sent"
    for attempt in range(BUSY_RETRIES + 1):
        if attempt:
            wait(random.uniform(*BUSY_WAIT_SECONDS))
        request = urllib.request.Request(push_url(collector_url, host), data=body, method="POST", headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        status, message = exchange(collector_url, request, cafile, timeout)
        if status != 503:
            break
    return status, message


def poll_run(collector_url, host, token, cafile=None, timeout=POLL_TIMEOUT):
    """(the open run's id or None, its grading options, HTTP status, message): 200 with the id
    and the options (lab_grade's, as grade.yml would give them for this host; {} when the answer
    has none) while a run is open that has no result of this host (None once it has), 204 "no
    run open", the collector's refusal, or (None, None, 0, why) when it is not reached."""
    request = urllib.request.Request(poll_url(collector_url, host), method="GET",
                                     headers={"Authorization": f"Bearer {token}"})
    status, answer = exchange(collector_url, request, cafile, timeout)
    if status == 204:
        return None, None, 204, "no run open"
    if status != 200:
        return None, None, status, answer
    try:
        open_run = json.loads(answer)
        run, kept, options = open_run.get("run"), open_run.get("kept"), open_run.get("options", {})
    except (ValueError, AttributeError):
        run, kept, options = None, None, None
    if not valid_run(run):
        return None, None, 200, f"the collector's answer names no run: {answer[:120]!r}"
    if kept is True:  # its push arrived, even if the VM did not hear the answer
        return None, None, 200, f"run {run}: this host's result is kept"
    if not isinstance(options, dict):
        return None, None, 200, f"run {run}: the collector's grading options are not an object: {answer[:120]!r}"
    return run, options, 200, f"run {run} open"


def last_pushed_run(state_file):
    """The run this VM last pushed for (its state file, beside its token), or None."""
    try:
        with open(state_file, encoding="utf-8") as handle:
            run = handle.read(128).strip()
    except OSError:
        return None
    return run if valid_run(run) else None


def remember_run(state_file, run):
    """Replace the state file atomically (0600): a VM stopped half-way never reads half an id."""
    replace_file(state_file, (run + "\n").encode("utf-8"))


def replace_file(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".push-run-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        os.unlink(temporary)
        raise


def unsent_push(state_file, host, run):
    """The request kept at an earlier timer run (keep_unsent) when it was for this host and run;
    None otherwise (none kept, another run's, unreadable)."""
    try:
        with open(state_file + UNSENT_SUFFIX, "rb") as handle:
            body = handle.read(MAX_PUSH_BYTES + 1)
        kept = json.loads(body)
    except (OSError, ValueError):
        return None
    if len(body) > MAX_PUSH_BYTES or not isinstance(kept, dict) or (kept.get("host"), kept.get("run")) != (host, run):
        return None
    return body


def keep_unsent(state_file, body):
    """True when kept; not kept (the file cannot be written), the next timer run grades again."""
    try:
        replace_file(state_file + UNSENT_SUFFIX, body)
    except OSError:
        return False
    return True


def forget_unsent(state_file):
    with contextlib.suppress(OSError):
        os.unlink(state_file + UNSENT_SUFFIX)


def poll_and_push(collector_url, host, token, state_file, grade, cafile=None, wait=time.sleep):
    """One run of the VM's timer: poll, and only when the open run is not the one last pushed for
    (`state_file`), grade (`grade(options)`: the host's lab_grade result with the options the
    poll's answer carried) and push it for that run (send_push: again while the collector is
    busy, `wait` between). A push still refused as busy (or any 5xx), or not reached, is kept
    and sent again at the next timer run of the same run instead of grading again
    (UNSENT_SUFFIX). Returns (HTTP status, message) of the last request, the message saying when
    the push is kept; never raises for the network's sake."""
    run, options, status, message = poll_run(collector_url, host, token, cafile)
    if run is None:
        return status, message
    if run == last_pushed_run(state_file):
        return status, f"run {run}: already pushed"
    kept = unsent_push(state_file, host, run)
    body = kept if kept is not None else envelope(host, run, grade(options))
    status, message = send_push(collector_url, host, token, body, cafile, wait=wait)
    if status in (202, 422):  # the collector kept the host's record for this run (422: as ERROR)
        remember_run(state_file, run)
    if status == 0 or status >= 500:
        if kept is not None or keep_unsent(state_file, body):
            message = f"{message.rstrip()} (kept: sent again at the next timer run)"
    else:  # kept, or refused for a reason sending it again would not change
        forget_unsent(state_file)
    return status, message
