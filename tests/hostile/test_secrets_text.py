"""Secrets in other shapes in a learner's output (issue 16): the scrubber catches a registered
secret folded, in pieces, base64- or hex-encoded, and private keys, JWTs and URL passwords by their
shape."""

from __future__ import annotations

import base64
import json
import random
import statistics
import time

import pytest
import yaml
from ansible.module_utils.labgrader import kubestate, limits

REDACTED = limits.REDACTED
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


# The grader's token (a service-account JWT) and client key, as its kubeconfig holds them.
TOKEN = _jwt("secrets-text-grader")
CLIENT_KEY = _pem("EC PRIVATE KEY", 121)
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
        "users": [{"name": "grader", "user": {"token": TOKEN, "client-key-data": CLIENT_KEY_DATA}}],
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
    assert limits.scrub(f"out: {FOLDED[shape]} (exit 0)") == f"out: {REDACTED} (exit 0)"


def test_a_token_printed_in_three_pieces_is_cut_in_each_message():
    third = len(TOKEN) // 3
    pieces = [TOKEN[:third], TOKEN[third:2 * third], TOKEN[2 * third:]]
    assert [limits.scrub(f"part {n}: {piece}!") for n, piece in enumerate(pieces, 1)] == [
        f"part {n}: {REDACTED}!" for n in (1, 2, 3)]


def test_any_piece_of_16_characters_is_cut_and_a_shorter_one_is_not():
    assert limits.scrub(f"piece {TOKEN[100:116]} end") == f"piece {REDACTED} end"
    assert limits.scrub(f"piece {TOKEN[100:115]} end") == f"piece {TOKEN[100:115]} end"


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
    assert limits.scrub(f"out: {ENCODED[shape]} (exit 0)") == f"out: {REDACTED} (exit 0)"


def test_the_client_key_is_redacted_as_registered_and_as_the_key_it_decodes_to():
    body_lines = CLIENT_KEY.splitlines()[1:-1]
    assert limits.scrub(f"data: {CLIENT_KEY_DATA}") == f"data: {REDACTED}"
    # the key's body alone (no BEGIN line for the shape to find), in two messages
    assert limits.scrub("\n".join(body_lines[:2])) == REDACTED
    assert limits.scrub("key ends " + "".join(body_lines[2:])) == f"key ends {REDACTED}"


def test_an_unregistered_private_key_is_redacted_whole():
    assert limits.scrub(f"$ cat client-admin.key\n{ADMIN_KEY}$ exit 1") == f"$ cat client-admin.key\n{REDACTED}\n$ exit 1"
    cut = ADMIN_KEY[:150]  # the tail of the output cut in the middle of the key
    assert limits.scrub(f"head: {cut}") == f"head: {REDACTED}"
    rsa = _pem("RSA PRIVATE KEY", 300).replace("\n", "\\n")  # as a repr()'d exception shows it
    assert limits.scrub(f"ValueError('{rsa}')") == f"ValueError('{REDACTED}\\n')"


def test_an_unregistered_jwt_is_redacted():
    assert limits.scrub(f"--token={OTHER_JWT} denied") == f"--token={REDACTED} denied"


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
    assert limits.scrub(text) == scrubbed


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
    assert limits.scrub(text) == text


def test_scrub_of_a_typical_message_takes_well_under_a_millisecond():
    for n in range(4):  # with the grader's token and client key: about 5 registered secrets
        limits.register_secret(f"secret-{n}-" + _b64url(48))
    message = ("validate.sh exited with code 1: error: deployment.yaml: line 12: unknown field "
               "spec.replica; the image is registry.lab.example/app:1.28.3-alpine in namespace "
               "src-helm-dev; see https://kubernetes.io/docs/concepts/workloads/ for the fields of a "
               "Deployment, and run it again once the manifest is fixed (exit status 1, 0.4 s)")[:300]
    timings = []
    for _ in range(300):
        started = time.perf_counter()
        limits.scrub(message)
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
    limits.scrub(text[:4096])
    assert time.perf_counter() - started < 0.05
