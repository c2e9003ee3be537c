"""Secrets in other shapes and hostile text in a learner's output (issue 16): the scrubber catches a
registered secret folded, in pieces, base64- or hex-encoded, and private keys, JWTs and URL
passwords by their shape; control characters and bidi overrides reach no report format raw.
End to end: a learner's script output rendered as the module renders a check, then every file of
the report and the terminal callback."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import os
import random
import re
import statistics
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import grading, kubestate, redaction
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.printable import printable
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

from tests.conftest import load_plugin

REDACTED = redaction.REDACTED
_random = random.Random(16)


def _b64url(size):
    return base64.urlsafe_b64encode(_random.randbytes(size)).decode().rstrip("=")


def _jwt(kid):
    header = base64.urlsafe_b64encode(json.dumps({"alg": "RS256", "kid": kid}).encode()).decode().rstrip("=")
    return f"{header}.{_b64url(520)}.{_b64url(256)}"


def _pem(kind, size):
    body = base64.b64encode(_random.randbytes(size)).decode()
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {kind}-----\n{lines}\n-----END {kind}-----\n"


def _client_pair():
    """A real EC key and a certificate for it (openssl): the grader's kubeconfig must be one a
    client could use, or load_kubeconfig refuses it before any test runs."""
    with tempfile.TemporaryDirectory() as tmp:
        key, cert = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-out", cert, "-subj", "/CN=grader", "-days", "1"],
                       check=True, capture_output=True)
        with open(key, encoding="ascii") as k, open(cert, encoding="ascii") as c:
            return k.read(), c.read()


# The grader's token (a service-account JWT) and client key, as its kubeconfig holds them.
TOKEN = _jwt("secrets-text-grader")
CLIENT_KEY, CLIENT_CERT = _client_pair()
CLIENT_KEY_DATA = base64.b64encode(CLIENT_KEY.encode()).decode()
# Nobody registered these: they are caught by their shape.
ADMIN_KEY = _pem("EC PRIVATE KEY", 121)  # k3s's client-admin.key, cat by a learner's script
OTHER_JWT = _jwt("secrets-text-other")
PASSWORD = "s3cr3t-Passw0rd"
URL = f"http://grader:{PASSWORD}@git.lab.example:3000/root/app.git"


@pytest.fixture(scope="module", autouse=True)
def grader_kubeconfig(tmp_path_factory):
    """The secrets registered as the grader registers them: by reading its kubeconfig."""
    path = tmp_path_factory.mktemp("kubeconfig") / "config"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "grader",
        "clusters": [{"name": "k3s", "cluster": {"server": "https://127.0.0.1:6443"}}],
        "contexts": [{"name": "grader", "context": {"cluster": "k3s", "user": "grader"}}],
        "users": [{"name": "grader", "user": {"token": TOKEN, "client-key-data": CLIENT_KEY_DATA,
                                              "client-certificate-data": base64.b64encode(CLIENT_CERT.encode()).decode()}}],
    }))
    kubestate.load_kubeconfig(str(path))


def folds(text, width):
    return [text[i:i + width] for i in range(0, len(text), width)]


def b64(data, urlsafe=False, padded=True):
    encoded = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()
    return encoded if padded else encoded.rstrip("=")


# ------------------------------------------------------------------ the scrubber's shapes

FOLDED = {
    "fold -w 60": "\n".join(folds(TOKEN, 60)),
    "CRLF lines": "\r\n".join(folds(TOKEN, 100)),
    "backslash-newlines": " \\\n".join(folds(TOKEN, 70)),
    "spaces every 8": " ".join(folds(TOKEN, 8)),
    "tabs and ANSI colours": "\x1b[31m\t".join(folds(TOKEN, 50)),
    "zero-width spaces": "\u200b".join(folds(TOKEN, 20)),
    "repr of the lines": "\\n".join(folds(TOKEN, 64)),
}


@pytest.mark.parametrize("shape", FOLDED)
def test_a_folded_token_is_redacted_whole(shape):
    assert redaction.scrub(f"out: {FOLDED[shape]} (exit 0)") == f"out: {REDACTED} (exit 0)"


def test_a_token_printed_in_three_pieces_is_cut_in_each_message():
    third = len(TOKEN) // 3
    pieces = [TOKEN[:third], TOKEN[third:2 * third], TOKEN[2 * third:]]
    assert [redaction.scrub(f"part {n}: {piece}!") for n, piece in enumerate(pieces, 1)] == [
        f"part {n}: {REDACTED}!" for n in (1, 2, 3)]


def test_any_piece_of_16_characters_is_cut_and_a_shorter_one_is_not():
    assert redaction.scrub(f"piece {TOKEN[100:116]} end") == f"piece {REDACTED} end"
    assert redaction.scrub(f"piece {TOKEN[100:115]} end") == f"piece {TOKEN[100:115]} end"


ENCODED = {
    **{f"base64 {name} of the token from byte {start}{' + echo newline' if newline else ''}":
       b64(TOKEN[start:].encode() + (b"\n" if newline else b""), urlsafe, padded)
       for start in (0, 1, 2) for newline in (False, True)
       for name, urlsafe, padded in (("padded", False, True), ("unpadded", False, False),
                                     ("urlsafe", True, True), ("urlsafe unpadded", True, False))},
    "base64 wrapped at 76 (base64 tool)": "\n".join(folds(b64(TOKEN.encode() + b"\n"), 76)),
    "base64 of a third of the token": b64(TOKEN[300:600].encode()),
    "hex": TOKEN.encode().hex(),
    "HEX": TOKEN.encode().hex().upper(),
    "xxd -p": "\n".join(folds((TOKEN + "\n").encode().hex(), 60)),
    "od -An -tx1": " ".join(folds(TOKEN.encode().hex(), 2)),
    "hex of a piece from an odd byte": TOKEN[201:260].encode().hex(),
}


@pytest.mark.parametrize("shape", ENCODED)
def test_an_encoded_token_is_redacted(shape):
    assert redaction.scrub(f"out: {ENCODED[shape]} (exit 0)") == f"out: {REDACTED} (exit 0)"


def test_the_client_key_is_redacted_as_registered_and_as_the_key_it_decodes_to():
    body_lines = CLIENT_KEY.splitlines()[1:-1]
    assert redaction.scrub(f"data: {CLIENT_KEY_DATA}") == f"data: {REDACTED}"
    # the key's body alone (no BEGIN line for the shape to find), in two messages
    assert redaction.scrub("\n".join(body_lines[:2])) == REDACTED
    assert redaction.scrub("key ends " + "".join(body_lines[2:])) == f"key ends {REDACTED}"


def test_an_unregistered_private_key_is_redacted_whole():
    assert redaction.scrub(f"$ cat client-admin.key\n{ADMIN_KEY}$ exit 1") == f"$ cat client-admin.key\n{REDACTED}\n$ exit 1"
    cut = ADMIN_KEY[:150]  # the tail of the output cut in the middle of the key
    assert redaction.scrub(f"head: {cut}") == f"head: {REDACTED}"
    rsa = _pem("RSA PRIVATE KEY", 300).replace("\n", "\\n")  # as a repr()'d exception shows it
    assert redaction.scrub(f"ValueError('{rsa}')") == f"ValueError('{REDACTED}\\n')"


def test_an_unregistered_jwt_is_redacted():
    assert redaction.scrub(f"--token={OTHER_JWT} denied") == f"--token={REDACTED} denied"


@pytest.mark.parametrize(("text", "scrubbed"), [
    (f"fatal: unable to access '{URL}/': 403",
     f"fatal: unable to access 'http://grader:{REDACTED}@git.lab.example:3000/root/app.git/': 403"),
    ("http://user:pass@host", f"http://user:{REDACTED}@host"),
    ("remote: https://oauth2:p@ss:w0rd@gitlab.example/x.git", f"remote: https://oauth2:{REDACTED}@gitlab.example/x.git"),
    ("GIT+SSH://me:hunter2@host/repo", f"GIT+SSH://me:{REDACTED}@host/repo"),
    ("http://127.0.0.1:6443/api and ssh://git@host/repo.git", "http://127.0.0.1:6443/api and ssh://git@host/repo.git"),
    ("see http://host/a?user=x:y@z", "see http://host/a?user=x:y@z"),
])
def test_a_password_in_a_url_is_redacted(text, scrubbed):
    assert redaction.scrub(text) == scrubbed


@pytest.mark.parametrize("text", [
    "validate.sh in /root/cgoa-ci exited with code 1, but it should reject the manifest with a typo",
    "the Application src-helm-dev is Synced and Healthy at revision 8d3c2a41f0b9e7c6d5a4b3c2d1e0f9a8b7c6d5e4",
    "uid 3f2b8c1e-9d4a-4e7b-8c6f-1a2b3c4d5e6f, image registry.lab.example/app:1.28.3-alpine",
    "-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIBADAKBggqhkjOPQQDAjAjMSEwHwYDVQQDDBhrM3Mtc2Vy\n-----END CERTIFICATE-----",
    "eyJ is how JSON starts in base64; a.b.c is not a token",
    "a header starts with the word Bearer",
    "precedence.json の replicas: 期待値 3、実際の値 2 — internationalization-localization",
])
def test_ordinary_text_stays_as_it_is(text):
    assert redaction.scrub(text) == text


def test_scrub_of_a_typical_message_takes_well_under_a_millisecond():
    for n in range(4):  # with the grader's token and client key: about 5 registered secrets
        redaction.register_secret(f"secret-{n}-" + _b64url(48))
    message = ("validate.sh exited with code 1: error: deployment.yaml: line 12: unknown field "
               "spec.replica; the image is registry.lab.example/app:1.28.3-alpine in namespace "
               "src-helm-dev; see https://kubernetes.io/docs/concepts/workloads/ for the fields of a "
               "Deployment, and run it again once the manifest is fixed (exit status 1, 0.4 s)")[:300]
    timings = []
    for _ in range(300):
        started = time.perf_counter()
        redaction.scrub(message)
        timings.append(time.perf_counter() - started)
    median = statistics.median(timings)
    print(f"scrub of a 300-character message: median {median * 1e6:.0f} µs")
    assert median < 0.5e-3


@pytest.mark.parametrize("text", [
    "eyJ" * 1365,  # a JWT start at every third character
    "a." * 2040 + "://",  # a scheme start at every other character
    "a://b:" + "@" * 4000 + " ",
    "-----BEGIN RSA PRIVATE KEY-----" * 130,  # blocks that never end
    " ".join(folds(TOKEN, 15)) * 4,  # a folded token four times: every position a lookup and a hit
], ids=["jwt starts", "scheme starts", "at signs", "key headers", "folded tokens"])
def test_a_hostile_text_of_4096_characters_is_scrubbed_in_milliseconds(text):
    started = time.perf_counter()
    redaction.scrub(text[:4096])
    assert time.perf_counter() - started < 0.05


# ------------------------------------------------------------------ printable text

@pytest.mark.parametrize(("text", "shown"), [
    ("PASS\u202eLIAF", "PASS\\u202eLIAF"),
    ("\x1b[2J\x1b]0;owned\x07", "\\x1b[2J\\x1b]0;owned\\x07"),
    ("a\x01b\x00c\x7fd\x9b31m", "a\\x01b\\x00c\\x7fd\\x9b31m"),
    ("over\rwrite", "over\\x0dwrite"),
    ("\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u200e\u200f\u061c",
     "\\u2066\\u2067\\u2068\\u2069\\u202a\\u202b\\u202c\\u202d\\u200e\\u200f\\u061c"),
    ("line\u2028sep \ud800 \ufffe", "line\\u2028sep \\ud800 \\ufffe"),
    ("kept:\ttab\nnewline é 日本語 한국어", "kept:\ttab\nnewline é 日本語 한국어"),
])
def test_printable_makes_every_control_and_bidi_character_visible(text, shown):
    assert printable(text) == shown


# ------------------------------------------------------------------ end to end: every format

HOSTILE = "PASS\u202eLIAF \x1b[2J\x1b]0;owned\x07 \x01 \x9b31m"
THIRD = len(TOKEN) // 3
OUTPUTS = [  # what the learner's validate.sh printed, one probe each
    FOLDED["fold -w 60"],
    TOKEN[:THIRD], TOKEN[THIRD:2 * THIRD], TOKEN[2 * THIRD:],
    ENCODED["base64 wrapped at 76 (base64 tool)"],
    ENCODED["hex"],
    ADMIN_KEY,
    CLIENT_KEY,
    OTHER_JWT,
    f"git push {URL}",
    HOSTILE,
]
# A 16-character window of any of these in a report is a leak.
LEAKS = {
    "token": TOKEN, "base64 of the token": b64(TOKEN.encode()), "hex of the token": TOKEN.encode().hex(),
    "admin key": "".join(ADMIN_KEY.splitlines()[1:-1]), "client key": "".join(CLIENT_KEY.splitlines()[1:-1]),
    "client-key-data": CLIENT_KEY_DATA, "other JWT": OTHER_JWT, "URL password": f"grader:{PASSWORD}",
}
RAW = ("\u202e", "\x1b", "\x01", "\x07", "\x9b")


def learner_records():
    check = grading.Check(2, "cgoa-ci.2.probe", None, None)
    checks = []
    for number, output in enumerate(OUTPUTS, 1):
        verdict = failed("probe_wrong", expected={HOSTILE: "exit 1"}, found=output, script=f"validate.sh #{number}",
                         what="should reject the manifest", returncode=0, output=output)
        checks.append(dict(grading.render("cgoa-ci", check, verdict, "en", {}), check=f"cgoa-ci.2.probe-{number}"))
    baseline = grading.render("cgoa-ci", grading.Check(1, "cgoa-ci.1.baseline", None, None), passed(), "en", {})
    lab = {"steps": [{"step": 1, "title": "baseline", "status": "PASS", "checks": [baseline]},
                     {"step": 2, "title": "validate.sh", "status": "FAIL", "checks": checks}]}
    # the controller's own record of a host it could not grade, with the module's message
    error = {"kind": "grader", "message": f"the grading module failed: {HOSTILE} {ADMIN_KEY} {OTHER_JWT} {URL}"}
    return [{"host": "learner01", "lang": "en", "state": "graded", "error": None, "labs": {"cgoa-ci": lab}},
            {"host": "learner02", "lang": "en", "state": "error", "error": error, "labs": {}}]


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def views():
    """{format: (file text, the text its reader sees)}."""
    built = build.build_report(learner_records(), now=report_now(), report_dir="/srv/reports/x")
    contents = built["contents"]
    page = contents["index.html"]
    scripts = [json.loads(block) for block in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>',
                                                          page, re.S)]
    junit = ET.fromstring(contents["junit.xml"])  # parses: no character XML 1.0 forbids
    junit_texts = [t for node in junit.iter() for t in (node.text or "", *node.attrib.values())]
    return {
        "grades.json": (contents["grades.json"], "\n".join(strings(json.loads(contents["grades.json"])))),
        "index.html": (page, html.unescape(page) + "\n".join(s for block in scripts for s in strings(block))),
        "junit.xml": (contents["junit.xml"], "\n".join(junit_texts)),
        "grades.csv": (contents["grades.csv"],
                       "\n".join(cell for row in csv.reader(io.StringIO(contents["grades.csv"])) for cell in row)),
        "learners/learner01.txt": (contents["learners/learner01.txt"], contents["learners/learner01.txt"]),
        "learners/learner02.txt": (contents["learners/learner02.txt"], contents["learners/learner02.txt"]),
        "matrix": (built["matrix"], built["matrix"]),
    }


def report_now():
    import datetime

    return datetime.datetime(2026, 11, 30, 5, 12, 0, tzinfo=datetime.timezone.utc)  # noqa: UP017


def windows(text):
    folded = re.sub(r"\\\r?\n|\s", "", text)
    return {folded[i:i + 16] for i in range(len(folded) - 15)}


@pytest.mark.parametrize("name", ["grades.json", "index.html", "junit.xml", "grades.csv", "learners/learner01.txt",
                                  "learners/learner02.txt", "matrix"])
def test_no_secret_and_no_raw_control_character_reaches_a_report_format(name):
    raw, seen = views()[name]
    leaked = [leak for leak, secret in LEAKS.items() if windows(seen) & windows(secret)]
    assert leaked == []
    assert [ch for ch in RAW if ch in raw or ch in seen] == []


def test_the_reports_show_the_hostile_text_as_escapes():
    found = views()
    assert "PASS\\u202eLIAF \\x1b[2J\\x1b]0;owned\\x07 \\x01 \\x9b31m" in found["learners/learner01.txt"][0]
    assert "http://grader:<redacted>@git.lab.example:3000/root/app.git" in found["learners/learner01.txt"][0]
    assert "PASS\\u202eLIAF" in found["learners/learner02.txt"][0]
    assert "PASS\\\\u202eLIAF" in found["grades.json"][0]  # the escape, as JSON writes a backslash
    assert "learner02  ! grader error: the grading module failed: PASS\\u202eLIAF \\x1b[2J" in found["matrix"][0]


class _Display:
    def __init__(self):
        self.lines = []

    def display(self, msg, *args, **kwargs):
        self.lines.append(msg)


class _Result:
    def __init__(self, matrix):
        self.task = type("Task", (), {"action": "grade_report", "resolved_action": None})()
        self.result = {"matrix": matrix}


@pytest.mark.parametrize("colorize", [False, True])
def test_the_terminal_callback_prints_no_escape_sequence_it_was_given(monkeypatch, colorize):
    grade_matrix = load_plugin("plugins/callback/grade_matrix.py", "grade_matrix_secrets_text")
    plugin = grade_matrix.CallbackModule()
    plugin._display = _Display()
    monkeypatch.setattr(plugin, "get_option", lambda name: colorize)
    matrix = "host       capa-src  score\nlearner01  \u2713\u2717       1/2  ! capa-src: " + HOSTILE
    plugin.v2_runner_on_ok(_Result(matrix))
    (printed,) = plugin._display.lines
    assert [ch for ch in RAW if ch in printed] == [] if not colorize else "\x1b[2J" not in printed
    assert [ch for ch in ("\u202e", "\x01", "\x07", "\x9b") if ch in printed] == []
    assert printed.endswith("! capa-src: PASS\\u202eLIAF \\x1b[2J\\x1b]0;owned\\x07 \\x01 \\x9b31m")
