"""Read the learner's evidence files safely: bounded size, no escape from the workspace,
no hang on FIFOs, binary junk and malformed or hostile JSON/YAML reported as findings, never
raised. The limits themselves live in limits.py (docs/hostile-input.md)."""

from __future__ import annotations

import os

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import (
    Refused,
    load_json,
    load_yaml,
    read_regular,
)

DEFAULT_MAX_BYTES = 1024 * 1024


class FileRead:
    """The outcome of reading one workspace file.

    `problem` is None when `data` holds the parsed content; otherwise it is a message key
    (missing, too_large, binary, outside, not_regular, unreadable, empty, invalid_json,
    invalid_yaml) and `detail` says more; `reason`, when set, is `detail` as a catalogue entry
    ({"key", "params"}), for the learner's language.
    """

    __slots__ = ("data", "detail", "path", "problem", "reason", "text")

    def __init__(self, path, problem=None, detail="", data=None, text=None, reason=None):
        self.path = path
        self.problem = problem
        self.detail = detail
        self.data = data
        self.text = text
        self.reason = reason

    @property
    def ok(self):
        return self.problem is None

    def __repr__(self):
        return f"FileRead({self.path!r}, problem={self.problem!r}, detail={self.detail!r})"


def read_text(root, relpath, max_bytes=DEFAULT_MAX_BYTES):
    """Read `root/relpath` as UTF-8 text, refusing anything that is not a small regular file
    inside `root` (after resolving symlinks: a link inside the workspace is followed)."""
    path = os.path.join(root, relpath)
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)  # lstat/readlink only: nothing is opened
    if os.path.lexists(real) and os.path.commonpath([real_root, real]) != real_root:
        return FileRead(path, "outside", real)
    try:
        raw = read_regular(real, max_bytes)
    except Refused as refused:
        return FileRead(path, refused.problem, refused.detail)
    if b"\0" in raw:
        return FileRead(path, "binary")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return FileRead(path, "binary")
    if not text.strip():
        return FileRead(path, "empty")
    return FileRead(path, text=text)


def read_json(root, relpath, max_bytes=DEFAULT_MAX_BYTES):
    """read_text, then JSON without NaN, duplicate keys or nesting deeper than limits.MAX_DEPTH."""
    read = read_text(root, relpath, max_bytes)
    if not read.ok:
        return read
    try:
        read.data = load_json(read.text)
    except Refused as refused:
        read.problem, read.detail = refused.problem, refused.detail
    return read


def read_yaml_documents(root, relpath, max_bytes=DEFAULT_MAX_BYTES):
    """Parse a (multi-document) YAML file into a list of its non-empty documents (limits.load_yaml:
    aliases capped, depth capped, timestamps as strings)."""
    read = read_text(root, relpath, max_bytes)
    if not read.ok:
        return read
    try:
        read.data = load_yaml(read.text)
    except Refused as refused:
        read.problem, read.detail = refused.problem, refused.detail
    return read


def parse_yaml_text(text):
    """Parse YAML text from git; returns (documents, error) and never raises."""
    try:
        return load_yaml(text), None
    except Refused as refused:
        return None, refused.detail
