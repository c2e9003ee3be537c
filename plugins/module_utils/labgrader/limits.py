"""Bounds on everything a learner controls (docs/hostile-input.md).

The learner is root on the graded VM: every file, git object and API object they made may be
a FIFO, a device, a symlink loop, a sparse 1 GB file, a YAML alias bomb or 10,000 levels deep.
This module is the one place that reads and parses such things:

- `read_regular`: a learner file, only when it is a regular file, never through a final
  symlink, never blocking, its size checked before reading;
- `load_json` / `load_yaml`: parsers that refuse duplicate JSON keys, nesting deeper than
  MAX_DEPTH and YAML aliases that expand to more than MAX_YAML_NODES nodes;
- `bound`: a JSON-safe copy of any value, cut to a size and depth a module may return.

Secrets are kept out of messages by redaction.py; programs (git, the learner's own scripts in
cgoa-ci) run under bounded_run.py.

Problems with learner input are returned as `Refused(problem, detail)` where `problem` is one of
the workspace file problem keys (not_regular, too_large, unreadable, invalid_json, ...), so that
the lab can FAIL the checks that need the input with a message naming the reason.
"""

from __future__ import annotations

import datetime
import errno
import json
import os
import stat

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
