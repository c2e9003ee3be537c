"""Limits for everything a learner controls (docs/hostile-input.md).

The learner is root on the graded VM: every file, git object and API object they made may be
a FIFO, a device, a symlink loop, a sparse 1 GB file, a YAML alias bomb or 10,000 levels deep.
This module is the one place that reads and runs such things:

- `read_regular`: a learner file, only when it is a regular file, never through a final
  symlink, never blocking, its size checked before reading;
- `load_json` / `load_yaml`: parsers that refuse duplicate JSON keys, nesting deeper than
  MAX_DEPTH and YAML aliases that expand to more than MAX_YAML_NODES nodes;
- `bound`: a JSON-safe copy of any value, cut to a size and depth a module may return;
- `scrub` / `register_secret`: no token or kubeconfig secret in any message, in any shape
  (folded, in pieces, base64, hex), and no private key, JWT or URL password even unregistered;
- `run_bounded`: a subprocess with a wall-clock timeout, a memory limit, output caps and a
  process-group kill (git here; the learner's own scripts in cgoa-ci).

Problems with learner input are returned as `Refused(problem, detail)` where `problem` is one of
the workspace file problem keys (not_regular, too_large, unreadable, invalid_json, ...), so that
the lab can FAIL the checks that need the input with a message naming the reason.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import contextlib
import datetime
import errno
import json
import os
import re
import resource
import selectors
import signal
import stat
import subprocess
import time

try:
    import yaml
    from yaml.constructor import SafeConstructor

    class _SafeLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        """SafeLoader that yields what Kubernetes and Helm see: they read YAML through
        sigs.k8s.io/yaml (go-yaml into interface{}, then JSON), so a timestamp stays a string,
        !!binary is its decoded text, !!set a mapping, and mapping keys are strings
        (convertToJSONableObject: int, float and bool keys are formatted, others refused)."""

        def construct_mapping(self, node, deep=False):
            mapping = super().construct_mapping(node, deep)
            return {_json_key(key, node): value for key, value in mapping.items()}

        def construct_binary_text(self, node):
            return SafeConstructor.construct_yaml_binary(self, node).decode("utf-8", "replace")

        def construct_set_mapping(self, node):
            data = {}
            yield data
            data.update(self.construct_mapping(node))

    def _json_key(key, node):
        if isinstance(key, str):
            return key
        if isinstance(key, bool):
            return "true" if key else "false"
        if isinstance(key, int):
            return str(key)
        if isinstance(key, float):
            return {"inf": ".inf", "-inf": "-.inf", "nan": ".nan"}.get(repr(key), repr(key))
        raise yaml.constructor.ConstructorError(None, None, f"unsupported mapping key of type {type(key).__name__}",
                                                node.start_mark)

    _SafeLoader.add_constructor("tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str)
    _SafeLoader.add_constructor("tag:yaml.org,2002:binary", _SafeLoader.construct_binary_text)
    _SafeLoader.add_constructor("tag:yaml.org,2002:set", _SafeLoader.construct_set_mapping)
except ImportError:  # reported by the health gate
    yaml = None

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 64  # JSON/YAML nesting levels; Kubernetes manifests need about 15
MAX_YAML_NODES = 100_000  # nodes after alias expansion: 1 MiB of plain YAML has fewer

# What a module returns: deep enough for any API object the checks quote, small enough for
# Ansible's templating (a value ~300 levels deep fails set_fact with "Recursive loop detected").
BOUND_DEPTH = 24
BOUND_ITEMS = 200
BOUND_STRING = 4096
BOUND_NODES = 20_000


class Refused(Exception):
    """Learner input the grader will not use: `problem` is a file problem key, `detail` the reason."""

    def __init__(self, problem, detail=""):
        super().__init__(f"{problem}: {detail}" if detail else problem)
        self.problem = problem
        self.detail = detail

    def describe(self, name):
        """One phrase naming the file and the reason: 'packed-refs is a FIFO'."""
        if self.problem == "not_regular":
            return f"{name} is {self.detail}"
        if self.problem == "too_large":
            return f"{name} is too large ({self.detail})"
        if self.problem == "missing":
            return f"{name} is missing"
        return f"{name}: {self.detail}" if self.detail else f"{name}: {self.problem}"


# ------------------------------------------------------------------ files

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def file_kind(mode):
    """'a FIFO', 'a directory', ... for a non-regular st_mode."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path, max_bytes=MAX_FILE_BYTES):
    """The bytes of `path`, or raise Refused (detail without the file's name; see describe()).

    The path is lstat'ed before it is opened, so a FIFO, device or socket is never opened (opening
    a device can have effects); it is then opened with O_NOFOLLOW | O_NONBLOCK and fstat'ed again, so
    a file swapped in between cannot block or redirect the read. The size is checked before
    reading and at most max_bytes + 1 bytes are read (a sparse 1 GB file costs nothing).
    """
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise Refused("missing") from None
    except OSError as exc:
        raise Refused("unreadable", exc.strerror or str(exc)) from None
    if not stat.S_ISREG(st.st_mode):
        raise Refused("not_regular", file_kind(st.st_mode))
    if st.st_size > max_bytes:
        raise Refused("too_large", f"{st.st_size} > {max_bytes} bytes")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused("not_regular", "a symbolic link") from None
        raise Refused("unreadable", exc.strerror or str(exc)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused("not_regular", file_kind(st.st_mode))
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise Refused("unreadable", exc.strerror or str(exc)) from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise Refused("too_large", f"> {max_bytes} bytes")
    return b"".join(chunks)


# ------------------------------------------------------------------ JSON and YAML


def _unique_keys(pairs):
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {json.dumps(key)[:80]}")
            seen.add(key)
    return result


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def depth(value, limit=MAX_DEPTH):
    """Nesting depth of lists/dicts in `value`, counting at most to limit + 1 (iterative)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if level > limit:
                return level
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def load_json(text, max_depth=MAX_DEPTH):
    """Parse JSON; raise Refused('invalid_json', reason) for bad syntax, NaN/Infinity, a duplicate
    key or nesting deeper than max_depth."""
    try:
        data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise Refused("invalid_json", f"nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise Refused("invalid_json", str(exc)[:200]) from None
    if depth(data, max_depth) > max_depth:
        raise Refused("invalid_json", f"nested deeper than {max_depth} levels")
    return data


def _check_yaml_events(text, max_depth, max_nodes):
    """Walk the parser's events (no objects built) and refuse nesting deeper than max_depth or
    aliases whose expansion would exceed max_nodes nodes (a 1 KB 'billion laughs')."""
    stack = []  # [anchor, expanded node count] per open collection
    anchors = {}  # anchor -> expanded node count, per document
    total = 0
    aliased = False

    def add(count):
        nonlocal total
        if stack:
            stack[-1][1] += count
        else:
            total += count
        if max(total, stack[-1][1] if stack else 0) > max_nodes:
            raise Refused("invalid_yaml", f"uses YAML aliases that expand to more than {max_nodes} nodes" if aliased
                          else f"has more than {max_nodes} nodes")

    for event in yaml.parse(text, Loader=_SafeLoader):
        if isinstance(event, yaml.DocumentStartEvent):
            anchors = {}
        elif isinstance(event, yaml.CollectionStartEvent):
            stack.append([event.anchor, 1])
            if len(stack) > max_depth:
                raise Refused("invalid_yaml", f"nested deeper than {max_depth} levels")
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, count = stack.pop()
            if anchor:
                anchors[anchor] = count
            add(count)
        elif isinstance(event, yaml.ScalarEvent):
            if event.anchor:
                anchors[event.anchor] = 1
            add(1)
        elif isinstance(event, yaml.AliasEvent):
            aliased = True
            if event.anchor not in anchors:
                raise Refused("invalid_yaml", f"uses the YAML alias *{event.anchor[:40]} inside its own anchor "
                                              "or before it")
            add(anchors[event.anchor])


def load_yaml(text, max_depth=MAX_DEPTH, max_nodes=MAX_YAML_NODES):
    """The non-empty documents of a (multi-document) YAML text, or raise Refused('invalid_yaml',
    reason). Timestamps stay strings, as Kubernetes reads them."""
    if yaml is None:
        raise Refused("unreadable", "PyYAML is not installed")
    try:
        _check_yaml_events(text, max_depth, max_nodes)
        return [doc for doc in yaml.load_all(text, Loader=_SafeLoader) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        raise Refused("invalid_yaml", _yaml_error(exc)) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise Refused("invalid_yaml", " ".join(str(exc).split())[:200]) from None


def _yaml_error(exc):
    """The parser's complaint and position, without the snippet of the text PyYAML adds: the
    text may be any file the learner linked there, its first line must not reach a report."""
    mark = exc.problem_mark or exc.context_mark
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
    text = f"{exc.context}: {exc.problem}" if exc.context and exc.problem else exc.context or exc.problem or ""
    return " ".join(str(text).split())[:200] + where


# ------------------------------------------------------------------ values leaving the module


def _marker(text):
    return f"…[{text}]"


def bound(value, max_depth=BOUND_DEPTH, max_items=BOUND_ITEMS, max_string=BOUND_STRING, max_nodes=BOUND_NODES):
    """A JSON-safe copy of `value` that a module can return and Ansible can template.

    Strings longer than max_string, lists and dicts longer than max_items, anything nested deeper
    than max_depth and everything after max_nodes nodes in total are cut and replaced by a
    marker starting with '…['. Keys become strings, dates ISO strings, bytes text; other types
    their type name. Shared or recursive structures (YAML aliases) cost their expanded size, so
    the nodes budget also bounds them.
    """
    budget = [max_nodes]

    def text(item):
        if len(item) > max_string:
            return item[:max_string] + _marker(f"{len(item) - max_string} more characters")
        return item

    def copy(item, level):
        if budget[0] <= 0:
            return _marker("truncated: too many values")
        budget[0] -= 1
        if item is None or isinstance(item, (bool, int)):
            return item
        if isinstance(item, float):
            return item if item == item and item not in (float("inf"), float("-inf")) else str(item)
        if isinstance(item, str):
            return text(item)
        if isinstance(item, (bytes, bytearray)):
            return text(bytes(item[:max_string + 1]).decode("utf-8", "replace"))
        if isinstance(item, (datetime.date, datetime.time)):
            return item.isoformat()
        if isinstance(item, (dict, list, tuple, set, frozenset)):
            if level >= max_depth:
                return _marker(f"nested deeper than {max_depth} levels")
            if isinstance(item, dict):
                out = {}
                for index, (key, child) in enumerate(item.items()):
                    if index >= max_items:
                        out[_marker("more")] = f"{len(item) - max_items} more keys"
                        break
                    name = key if isinstance(key, str) else copy(key, 0)
                    name = name if isinstance(name, str) else json.dumps(name)
                    out[text(name)] = copy(child, level + 1)
                return out
            children = list(item) if isinstance(item, (set, frozenset)) else item
            out = [copy(child, level + 1) for child in children[:max_items]]
            if len(children) > max_items:
                out.append(_marker(f"{len(children) - max_items} more items"))
            return out
        return _marker(type(item).__name__)

    return copy(value, 0)


# ------------------------------------------------------------------ secrets
#
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


# ------------------------------------------------------------------ subprocesses


class RunResult:
    """What `run_bounded` saw. `returncode` is negative for a signal (-9 after a kill)."""

    __slots__ = ("killed", "returncode", "seconds", "stderr", "stdout", "timed_out", "truncated")

    def __init__(self, returncode, stdout, stderr, timed_out, truncated, killed, seconds):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.timed_out = timed_out
        self.truncated = truncated
        self.killed = killed
        self.seconds = seconds

    @property
    def ok(self):
        return self.returncode == 0 and not self.killed

    def __repr__(self):
        return (f"RunResult(returncode={self.returncode}, timed_out={self.timed_out}, "
                f"truncated={self.truncated}, killed={self.killed}, seconds={self.seconds:.2f})")


DEFAULT_MEMORY_BYTES = 1024 * 1024 * 1024


def run_bounded(argv, cwd=None, env=None, timeout=10.0, max_output=1024 * 1024, stdin=subprocess.DEVNULL,
                as_user=None, memory_bytes=DEFAULT_MEMORY_BYTES, file_bytes=None):
    """Run `argv` (a list, never a shell string) so that it cannot hang, flood or outlive the caller.

    - `env` is the complete environment (nothing is inherited when it is given); `cwd` the directory.
    - `stdin`: subprocess.DEVNULL (default) or bytes fed to the process.
    - The process gets its own session and process group; at `timeout` seconds (wall clock) or
      when stdout or stderr exceeds `max_output` bytes, the whole group gets SIGKILL. When the
      process exits, what is left of its group (background children) is killed too.
    - `memory_bytes` is its RLIMIT_AS (None: inherited); core dumps are off; `file_bytes` is an
      optional RLIMIT_FSIZE for scripts that might write huge files.
    - `as_user`: a user name or uid to run as (needs root), with that user's primary group and
      no supplementary groups; for learner scripts.

    Returns RunResult(returncode, stdout, stderr, timed_out, truncated, killed, seconds), stdout
    and stderr as bytes of at most max_output each. Never raises for what the process does; raises
    OSError when argv[0] cannot be started.
    """
    def limit():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory_bytes is not None:
            # Never above what this process may have itself (raising a hard limit needs
            # CAP_SYS_RESOURCE, which a container may lack): a child bound by its caller stays so.
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            bound = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
            resource.setrlimit(resource.RLIMIT_AS, (bound, bound))
        if file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))

    user_args = {}
    if as_user is not None:
        import pwd  # only where learner scripts run

        entry = pwd.getpwuid(as_user) if isinstance(as_user, int) else pwd.getpwnam(as_user)
        user_args = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    feed = stdin if isinstance(stdin, bytes) else None
    started = time.monotonic()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE if feed is not None else stdin, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True, preexec_fn=limit, close_fds=True, **user_args)
    outputs = {process.stdout: bytearray(), process.stderr: bytearray()}
    timed_out = truncated = False

    def kill_group():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)

    with selectors.DefaultSelector() as selector:
        for stream in outputs:
            os.set_blocking(stream.fileno(), False)
            selector.register(stream, selectors.EVENT_READ)
        if feed is not None:
            os.set_blocking(process.stdin.fileno(), False)
            if feed:
                selector.register(process.stdin, selectors.EVENT_WRITE)
            else:
                process.stdin.close()
        while selector.get_map():
            remaining = started + timeout - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(min(remaining, 0.5)):
                stream = key.fileobj
                if stream is process.stdin:
                    try:
                        written = os.write(stream.fileno(), feed[:65536])
                    except BrokenPipeError:
                        written = len(feed)
                    feed = feed[written:]
                    if not feed:
                        selector.unregister(stream)
                        stream.close()
                    continue
                chunk = os.read(stream.fileno(), 65536)
                if not chunk:
                    selector.unregister(stream)
                    continue
                buffer = outputs[stream]
                room = max_output - len(buffer)
                buffer += chunk[:room]
                truncated = truncated or len(chunk) > room
            if truncated:
                break
            if process.poll() is not None:
                kill_group()  # background children must not keep the pipes open
    killed = timed_out or truncated
    kill_group()
    try:
        returncode = process.wait(timeout=5)
    except subprocess.TimeoutExpired:  # unkillable (D state): report, do not wait forever
        returncode = None
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None and not stream.closed:
            stream.close()
    return RunResult(returncode, bytes(outputs[process.stdout]), bytes(outputs[process.stderr]),
                     timed_out, truncated, killed, time.monotonic() - started)
