"""Read the learner's evidence files safely: bounded size, no escape from the workspace,
no hang on FIFOs, binary junk and malformed JSON/YAML reported as findings, never raised."""

from __future__ import annotations

import json
import os
import stat

try:
    import yaml
    _YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
except ImportError:  # reported by the health gate; JSON evidence can still be graded
    yaml = None

DEFAULT_MAX_BYTES = 1024 * 1024


class FileRead:
    """The outcome of reading one workspace file.

    `problem` is None when `data` holds the parsed content; otherwise it is a message key
    (missing, too_large, binary, outside, not_regular, unreadable, empty, invalid_json,
    invalid_yaml) and `detail` says more.
    """

    __slots__ = ("data", "detail", "path", "problem", "text")

    def __init__(self, path, problem=None, detail="", data=None, text=None):
        self.path = path
        self.problem = problem
        self.detail = detail
        self.data = data
        self.text = text

    @property
    def ok(self):
        return self.problem is None

    def __repr__(self):
        return f"FileRead({self.path!r}, problem={self.problem!r}, detail={self.detail!r})"


def read_text(root, relpath, max_bytes=DEFAULT_MAX_BYTES):
    """Read `root/relpath` as UTF-8 text, refusing anything that is not a small regular file
    inside `root` (after resolving symlinks)."""
    path = os.path.join(root, relpath)
    display = path
    try:
        st = os.stat(path)  # follows symlinks: we judge what the path points to
    except FileNotFoundError:
        return FileRead(display, "missing")
    except OSError as exc:
        return FileRead(display, "unreadable", exc.strerror or str(exc))
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        return FileRead(display, "outside", real)
    if not stat.S_ISREG(st.st_mode):
        return FileRead(display, "not_regular")
    if st.st_size > max_bytes:
        return FileRead(display, "too_large", f"{st.st_size} > {max_bytes} bytes")
    try:
        with open(real, "rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        return FileRead(display, "unreadable", exc.strerror or str(exc))
    if len(raw) > max_bytes:
        return FileRead(display, "too_large", f"> {max_bytes} bytes")
    if b"\0" in raw:
        return FileRead(display, "binary")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return FileRead(display, "binary")
    if not text.strip():
        return FileRead(display, "empty")
    return FileRead(display, text=text)


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def read_json(root, relpath, max_bytes=DEFAULT_MAX_BYTES):
    read = read_text(root, relpath, max_bytes)
    if not read.ok:
        return read
    try:
        read.data = json.loads(read.text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        read.problem, read.detail = "invalid_json", str(exc)[:200]
    return read


def read_yaml_documents(root, relpath, max_bytes=DEFAULT_MAX_BYTES):
    """Parse a (multi-document) YAML file into a list of its non-empty documents."""
    read = read_text(root, relpath, max_bytes)
    if not read.ok:
        return read
    if yaml is None:
        read.problem, read.detail = "unreadable", "PyYAML is not installed"
        return read
    try:
        read.data = [doc for doc in yaml.load_all(read.text, Loader=_YAML_LOADER) if doc is not None]
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        read.problem, read.detail = "invalid_yaml", " ".join(str(exc).split())[:200]
    return read


def parse_yaml_text(text):
    """Parse YAML text from git; returns (documents, error) and never raises."""
    if yaml is None:
        return None, "PyYAML is not installed"
    try:
        return [doc for doc in yaml.load_all(text, Loader=_YAML_LOADER) if doc is not None], None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        return None, " ".join(str(exc).split())[:200]
