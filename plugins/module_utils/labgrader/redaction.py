"""No secret in any message (docs/hostile-input.md): `register_secret` a token, a client key or a
password once, and `scrub` / `scrub_value` take it out of every text in any shape (folded, in
pieces, base64, hex); private keys, JWTs, URL passwords and Bearer/Basic values go even when
nobody registered them.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.memo import first_seen

# A secret can leave in another shape than the one registered: folded over lines (`fold`,
# `base64` wraps at 76 columns, a backslash-newline), in pieces over several messages, base64- or
# hex-encoded. So a registered secret is kept as the set of its PIECE-character pieces, in every
# shape (as is, repr()'d, base64 standard and URL-safe at each of the three byte alignments, hex
# lower and upper case), and a text is searched for them with what a reader does not see taken
# out (white space, backslash-newlines and the \n, \r, \t escapes of a repr() or JSON text,
# control and formatting characters, ANSI escape sequences): one set lookup per position of the
# text, whatever the number of secrets. Private keys, JWTs, URL passwords and Bearer/Basic values
# are redacted by their shape even when nobody registered them.

REDACTED = "<redacted>"
MIN_SECRET = 6  # shorter strings would redact ordinary words
# A run of PIECE characters of a registered secret is redacted wherever it appears. 16 characters
# of a token are 96 bits in base64, 64 in hex: no piece of that length of a random token turns up
# in other text by chance, so nothing else is redacted; 8 would be 48 bits of hex, which a git
# object id or a UUID matches by chance in a class's worth of messages. Only tokens, keys and
# passwords are registered, never words, so the pieces are as random as the secret. Pieces of 15
# characters pass: a grader token (about 950 characters) would take more than 60 messages, and
# keeping the token from learner code at all is the sandbox's part. A secret shorter than PIECE
# (a short password) is matched literally, as registered.
PIECE = 16

_FOLD = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\\(?:\r?\n|[nrt])|[\s\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
                   r"\u202a-\u202e\u2060-\u2069\ufeff]")
_REGISTERED = set()  # the values given to register_secret, so registering again costs nothing
_PIECES = set()  # every PIECE-character run of every shape of every registered secret, folded
_LITERALS = set()  # registered secrets shorter than PIECE: as they are and repr()'d
_LITERAL_PATTERN = {}  # the compiled alternation of _LITERALS, rebuilt after a registration
_BASE64_TEXT = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_URLSAFE = str.maketrans("+/", "-_")
_PADDING = re.compile("={1,2}")

_PEM_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY-----"
                      r"|[A-Za-z0-9+/=\s\\:,-]*)", re.S)  # a block cut short: up to the end of its body
# starting where a base64url run starts: a run of 4000 characters is tried once, not at every "eyJ"
_JWT = re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*")
# RFC 3986 userinfo: the password runs to the last "@" before the path, query or fragment. The
# scheme is tried where a run of scheme characters starts (not at each "." of "a.a.a...").
_URL_PASSWORD = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*://[^/?#@\s:]*:)[^/?#\s]*@")
_BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+|%20)[^\s'\"\\]+")
_SHAPED = re.compile(r"(?i)-----BEGIN|eyJ|://|bearer|basic")  # what each shape above starts with


def _fold(text):
    """`text` without what a reader does not see."""
    return _FOLD.sub("", text)


def _unfolded(text, spans):
    """Spans of _fold(text) as spans of `text` (only computed when a secret was found)."""
    runs, kept, last = [], 0, 0  # (index in the folded text, index in text) where each kept run starts
    for match in [*_FOLD.finditer(text), None]:
        start = match.start() if match else len(text)
        if start > last:
            runs.append((kept, last))
            kept += start - last
        last = match.end() if match else last
    starts = [run[0] for run in runs]

    def at(index):
        folded_start, start = runs[bisect.bisect_right(starts, index) - 1]
        return start + index - folded_start
    return [(at(start), at(end - 1) + 1) for start, end in spans]


def _encodings(secret):
    """The secret's bytes (alone, and followed by the newline `echo` adds) in hex and in base64,
    standard and URL-safe, as they appear when encoded after 0, 1 or 2 other bytes: without the
    first characters, which also carry those bytes, and without padding."""
    forms = []
    data = secret.encode("utf-8", "replace")
    for payload in (data, data + b"\n"):
        forms += [payload.hex(), payload.hex().upper()]
        for shift in range(3):
            encoded = base64.b64encode(bytes(shift) + payload).decode("ascii").rstrip("=")
            standard = encoded[(8 * shift + 5) // 6:]
            forms += [standard, standard.translate(_URLSAFE)]
    return forms


def _base64_text(value):
    """The text a base64 value decodes to (a kubeconfig's client-key-data is a PEM key), or None
    when it is not base64 of printable UTF-8."""
    compact = "".join(value.split())
    if len(compact) < PIECE or len(compact) % 4 or not _BASE64_TEXT.fullmatch(compact):
        return None
    try:
        text = base64.b64decode(compact, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return None if any(ch < " " and ch not in "\t\r\n" for ch in text) else text


def register_secret(value):
    """Never show `value` (a token, a key, a password) in a message from now on: in any of its
    shapes (see above), nor what it decodes to when it is base64 (a PEM key)."""
    if not isinstance(value, str) or value in _REGISTERED:
        return
    _REGISTERED.add(value)
    secret = value.strip()
    for candidate in (secret, *(line.strip() for line in secret.splitlines())):
        shapes = (candidate, repr(candidate)[1:-1])  # repr: as it appears inside a repr()'d exception text
        if len(_fold(candidate)) >= PIECE:
            for shape in shapes:
                folded = _fold(shape)
                _PIECES.update(folded[i:i + PIECE] for i in range(len(folded) - PIECE + 1))
        elif len(candidate) >= MIN_SECRET:
            _LITERALS.update(shapes)
            _LITERAL_PATTERN.clear()
    for encoded in _encodings(secret):
        _PIECES.update(encoded[i:i + PIECE] for i in range(len(encoded) - PIECE + 1))
    decoded = _base64_text(secret)
    if decoded:
        register_secret(decoded)
    _scrubbed.forget()  # a text scrubbed before may show this secret


def _registered_spans(text):
    """The (start, end) spans of `text` that show a registered secret, in order, overlapping ones
    merged; a span takes the base64 padding after it too."""
    spans = []
    if _PIECES and len(text) >= PIECE:
        folded = _fold(text)
        start = end = None
        for index in range(len(folded) - PIECE + 1):
            if folded[index:index + PIECE] in _PIECES:
                if end is None or index > end:
                    if end is not None:
                        spans.append((start, end))
                    start = index
                end = index + PIECE
        if end is not None:
            spans.append((start, end))
        if spans and len(folded) < len(text):
            spans = _unfolded(text, spans)
    if _LITERALS:
        pattern = _LITERAL_PATTERN.get("pattern")
        if pattern is None:
            alternation = "|".join(re.escape(s) for s in sorted(_LITERALS, key=len, reverse=True))
            pattern = _LITERAL_PATTERN["pattern"] = re.compile(alternation)
        spans += [match.span() for match in pattern.finditer(text)]
    if not spans:
        return []
    merged = []
    for start, end in sorted(spans):
        padding = _PADDING.match(text, end)
        end = padding.end() if padding else end
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def scrub(text, secrets=()):
    """`text` with every registered secret (in any shape: folded, in a piece of PIECE or more
    characters, base64, hex), every string in `secrets` (as it is), every private key block, JWT
    and URL password and any 'Bearer <x>' value replaced by <redacted>."""
    if not isinstance(text, str) or len(text) < MIN_SECRET:  # nothing redactable is shorter
        return text
    for secret in secrets:
        if isinstance(secret, str) and len(secret) >= MIN_SECRET and secret in text:
            text = text.replace(secret, REDACTED)
    return _scrubbed(text)


# A class's results repeat most of their texts (every learner who passes a check gets its
# message): the collector scrubs each distinct text once (99.9 % of a result's texts are under
# 300 characters). At most ~2 x SCRUB_MEMO x SCRUB_MEMO_TEXT characters. register_secret empties it.
SCRUB_MEMO, SCRUB_MEMO_TEXT = 32768, 1024


@first_seen(SCRUB_MEMO, SCRUB_MEMO_TEXT)
def _scrubbed(text):
    """scrub of `text` without `secrets`."""
    shaped = _SHAPED.search(text) is not None
    if shaped:
        text = _JWT.sub(REDACTED, _PEM_KEY.sub(REDACTED, text))
    spans = _registered_spans(text)
    if spans:
        pieces, last = [], 0
        for start, end in spans:
            pieces += [text[last:start], REDACTED]
            last = end
        text = "".join(pieces) + text[last:]
    if not shaped:
        return text
    text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    return _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)


def scrub_value(value, secrets=()):
    """`value` (from bound()) with every string and key scrubbed."""
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, dict):
        return {scrub(k, secrets): scrub_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(v, secrets) for v in value]
    return value
