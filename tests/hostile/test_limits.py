"""limits.py, redaction.py and bounded_run.py on their own: the bounded reader, the capped parsers,
bound(), the scrubber and the bounded subprocess runner that git and the learner-script probes share."""

from __future__ import annotations

import datetime
import json
import os
import pwd
import subprocess
import time

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import limits, redaction
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.bounded_run import run_bounded
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import (
    Refused,
    bound,
    load_json,
    load_yaml,
    read_regular,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import scrub
from processes import running


def refused(function, *args):
    with pytest.raises(Refused) as exc:
        function(*args)
    return exc.value.problem, exc.value.detail


# ------------------------------------------------------------------ read_regular


def test_reads_a_small_regular_file(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    assert read_regular(str(tmp_path / "f")) == b"abc"


def test_a_file_that_grows_after_the_size_check_is_still_cut(tmp_path, monkeypatch):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    real_fstat = os.fstat

    def grown(fd):  # the learner appends between lstat and read: only max_bytes + 1 are read
        path.write_bytes(b"x" * 10_000)
        return real_fstat(fd)

    monkeypatch.setattr(limits.os, "fstat", grown)
    assert refused(read_regular, str(path), 1000) == ("too_large", "> 1000 bytes")


def test_refusals_name_the_file_and_the_reason(tmp_path):
    os.mkfifo(tmp_path / "packed-refs")
    with pytest.raises(Refused) as refusal:
        read_regular(str(tmp_path / "packed-refs"))
    assert refusal.value.describe("packed-refs") == "packed-refs is a FIFO"
    assert Refused("too_large", "5 > 4 bytes").describe("HEAD") == "HEAD is too large (5 > 4 bytes)"
    assert Refused("missing").describe("HEAD") == "HEAD is missing"
    assert Refused("unreadable", "Permission denied").describe("HEAD") == "HEAD: Permission denied"


# ------------------------------------------------------------------ JSON and YAML


def test_json_depth_is_counted_without_recursion():
    assert limits.depth([[[]]]) == 3
    assert limits.depth({"a": [1, {"b": 2}]}) == 3
    assert load_json("[" * 64 + "]" * 64) == json.loads("[" * 64 + "]" * 64)


def test_yaml_aliases_within_the_cap_are_expanded():
    assert load_yaml("a: &a [1, 2]\nb: *a\n") == [{"a": [1, 2], "b": [1, 2]}]
    # 9 ** 5 = 59,049 leaves: accepted; one level more (531,441) is refused
    bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 5))
    assert len(load_yaml(bomb)[0]["a4"]) == 9
    assert refused(load_yaml, bomb + "a5: [" + ", ".join(["*a4"] * 9) + "]\n") == (
        "invalid_yaml", "uses YAML aliases that expand to more than 100000 nodes")


def test_yaml_anchors_are_per_document():
    assert refused(load_yaml, "a: &a 1\n---\nb: *a\n")[1].startswith("uses the YAML alias *a")


def test_yaml_timestamps_stay_strings_like_kubernetes():
    assert load_yaml("t: 2026-11-29T09:00:00Z\nd: 2026-11-29\n") == [{"t": "2026-11-29T09:00:00Z", "d": "2026-11-29"}]


# ------------------------------------------------------------------ bound


def test_bound_cuts_strings_lists_dicts_and_depth_with_markers():
    value = {"s": "y" * 30, "l": list(range(10)), "d": {f"k{i}": i for i in range(5)}, "deep": [[[["x"]]]]}
    assert bound(value, max_depth=3, max_items=3, max_string=5) == {
        "s": "yyyyy…[25 more characters]",
        "l": [0, 1, 2, "…[7 more items]"],
        "d": {"k0": 0, "k1": 1, "k2": 2, "…[more]": "2 more keys"},
        "…[more]": "1 more keys",
    }
    assert bound({"deep": [[[["x"]]]]}, max_depth=3) == {"deep": [["…[nested deeper than 3 levels]"]]}


def test_bound_makes_any_value_json_and_ansible_safe():
    value = {datetime.date(2026, 1, 1): datetime.datetime(2026, 1, 1, 9, 0), 3: b"\xffraw", "set": {1},
             "nan": float("nan"), "obj": object(), ("t",): 1}
    assert bound(value) == {"2026-01-01": "2026-01-01T09:00:00", "3": "\ufffdraw", "set": [1], "nan": "nan",
                            "obj": "…[object]", '["t"]': 1}


def test_bound_stops_recursive_and_exponential_structures():
    recursive = []
    recursive.append(recursive)
    assert limits.depth(bound(recursive), 100) == limits.BOUND_DEPTH
    shared = ["leaf"]
    for _ in range(40):
        shared = [shared, shared]  # 2 ** 40 leaves when expanded
    started = time.monotonic()
    text = json.dumps(bound(shared), ensure_ascii=False)
    assert time.monotonic() - started < 2 and "…[truncated: too many values]" in text
    assert len(text) < 2_000_000


def test_bound_keeps_ordinary_values_unchanged():
    value = {"replicas": 3, "images": [{"name": "web", "newTag": "1.28"}], "ok": True, "none": None}
    assert bound(value) == value


# ------------------------------------------------------------------ secrets


def test_scrub_removes_registered_secrets_in_any_form():
    redaction.register_secret("s3cr3t-token-value\n")
    message = "Invalid header value b'Bearer s3cr3t-token-value\\n' for s3cr3t-token-value"
    # the escaped newline after the token stays: it is what the message is about, and no secret
    assert scrub(message) == "Invalid header value b'Bearer <redacted>\\n' for <redacted>"


def test_scrub_removes_any_bearer_value_and_extra_secrets():
    assert scrub("Authorization: Bearer abc.def-ghi tail") == "Authorization: Bearer <redacted> tail"
    assert scrub("key=LS0tLS1CRUdJTi", secrets=["LS0tLS1CRUdJTi"]) == "key=<redacted>"
    assert scrub("plain text stays") == "plain text stays"


def test_scrub_value_walks_structures():
    redaction.register_secret("another-secret-42")
    assert redaction.scrub_value({"another-secret-42": ["x another-secret-42"], "n": 1}) == {
        "<redacted>": ["x <redacted>"], "n": 1}


def test_a_text_scrubbed_before_a_secret_is_registered_is_scrubbed_of_it_after():
    """scrub keeps what it made of each text (the collector sees the same texts from every
    learner); registering a secret must not leave a text as it was scrubbed before."""
    text = "token: secret-registered-later-0123456789abcdef"
    assert scrub(text) == text
    redaction.register_secret("secret-registered-later-0123456789abcdef")
    assert scrub(text) == "token: <redacted>"


# ------------------------------------------------------------------ run_bounded


def test_run_bounded_returns_output_and_status(tmp_path):
    result = run_bounded(["sh", "-c", "echo out; echo err >&2; exit 3"], cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"})
    assert (result.returncode, result.stdout, result.stderr) == (3, b"out\n", b"err\n")
    assert not (result.timed_out or result.truncated or result.killed or result.ok)


def test_run_bounded_kills_the_process_group_at_the_timeout(tmp_path):
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    result = run_bounded(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; sleep 60"], timeout=1)
    assert result.timed_out and result.killed and result.returncode == -9
    assert time.monotonic() - started < 3
    assert not alive(int(pidfile.read_text()))


def alive(pid):
    """True while `pid` runs, a moment after it was told to end."""
    time.sleep(0.2)
    return running(pid)


def test_run_bounded_background_children_do_not_hold_it(tmp_path):
    started = time.monotonic()
    result = run_bounded(["sh", "-c", "sleep 60 & echo $!"], timeout=10)
    assert (result.returncode, result.timed_out) == (0, False)
    assert time.monotonic() - started < 3
    assert not alive(int(result.stdout))


def test_run_bounded_caps_output():
    result = run_bounded(["yes"], max_output=1000, timeout=10)
    assert result.truncated and result.killed and len(result.stdout) == 1000


def test_run_bounded_limits_memory():
    result = run_bounded(["python3", "-c", "x = bytearray(1 << 31)"], memory_bytes=256 * 1024 * 1024, timeout=10)
    assert result.returncode == 1 and b"MemoryError" in result.stderr


def test_run_bounded_feeds_stdin_larger_than_a_pipe():
    data = b"x" * (1 << 20)
    assert run_bounded(["cat"], stdin=data, max_output=2 << 20).stdout == data


def test_run_bounded_uses_only_the_given_environment():
    result = run_bounded(["/usr/bin/env"], env={"ONLY": "this"})
    assert result.stdout == b"ONLY=this\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="switching users needs root")
def test_run_bounded_as_an_unprivileged_user():
    nobody = pwd.getpwnam("nobody")
    result = run_bounded(["id", "-u"], as_user="nobody", env={"PATH": "/usr/bin:/bin"}, cwd="/")
    assert result.stdout == f"{nobody.pw_uid}\n".encode()
    groups = run_bounded(["id", "-G"], as_user=nobody.pw_uid, env={"PATH": "/usr/bin:/bin"}, cwd="/").stdout.split()
    assert groups == [str(nobody.pw_gid).encode()]


def test_run_bounded_raises_for_a_missing_program():
    with pytest.raises(OSError):
        run_bounded(["/nonexistent/program"])


def test_git_is_run_bounded_end_to_end(tmp_path):
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "r.git")], check=True)
    result = run_bounded(["git", "--git-dir", str(tmp_path / "r.git"), "rev-parse", "--is-bare-repository"],
                         env={"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)})
    assert result.stdout == b"true\n"


def test_yaml_values_are_what_kubernetes_sees():
    assert load_yaml("a: {1: x, 1.5: z, .inf: w, false: f}\nb: !!binary aGk=\nc: !!set {p}\n? !!binary aGk=\n: k\n") == [
        {"a": {"1": "x", "1.5": "z", ".inf": "w", "false": "f"}, "b": "hi", "c": {"p": None}, "hi": "k"}]
    assert refused(load_yaml, "{~: 1}") == ("invalid_yaml", "unsupported mapping key of type NoneType (line 1, column 1)")


def test_registering_a_header_value_does_not_redact_its_words():
    redaction.register_secret("Bearer header-token-77\n")
    assert scrub("a header starts with the word Bearer") == "a header starts with the word Bearer"
    assert scrub("b'Bearer header-token-77\\n'") == "b'<redacted>\\n'"  # its repr() form
