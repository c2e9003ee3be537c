"""A learner VM's grading result pushed to the instructor's collector (the push design of
docs/performance.md): the VM grades itself (runner.grade_host, the lab_grade module's work) and
sends one HTTPS request; the controller spends no SSH session and no Ansible task on it.

The envelope is what the collector (report/collector.py) validates: its schema, the host it
speaks for (the one the VM's token was issued to) and the host's result as lab_grade returns it.
Standard library only: it runs in the grader's runtime on the VM."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request

SCHEMA = "lab-push/v1"
# A graded host's result is about 100 KB of JSON for two labs (docs/performance.md); four times
# that leaves room for a third lab and long messages, and bounds what one VM can make the
# controller read, parse and keep.
MAX_PUSH_BYTES = 512 * 1024
PUSH_TIMEOUT = 10  # seconds for the whole request: a slow collector never holds a VM's timer


def push_url(collector_url, host):
    """<collector>/v1/results/<host>: the host is in the path, and the token must be that host's."""
    return f"{collector_url.rstrip('/')}/v1/results/{urllib.request.quote(host, safe='')}"


def envelope(host, result):
    """The request body: bytes of {"schema", "host", "result"} (compact JSON, UTF-8)."""
    return json.dumps({"schema": SCHEMA, "host": host, "result": result}, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")


def push_result(collector_url, host, token, result, cafile=None, timeout=PUSH_TIMEOUT):
    """POST `result` for `host` with its token. Returns (HTTP status, the collector's message);
    a collector that cannot be reached is (0, why). Never raises for the network's sake: the VM's
    timer logs the answer and tries again at its next run."""
    body = envelope(host, result)
    if len(body) > MAX_PUSH_BYTES:
        return 413, f"the result is {len(body)} bytes, more than {MAX_PUSH_BYTES}: not sent"
    request = urllib.request.Request(push_url(collector_url, host), data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    context = ssl.create_default_context(cafile=cafile) if collector_url.startswith("https:") else None
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            return response.status, response.read(4096).decode("utf-8", "replace")
    except urllib.error.HTTPError as answer:  # the collector said no, with its reason
        return answer.code, answer.read(4096).decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as exc:
        return 0, f"collector {collector_url} not reached: {getattr(exc, 'reason', exc)}"
