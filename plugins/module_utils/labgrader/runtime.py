"""The grader's own Python runtime, verified before the health gate trusts it (issue 16).

The learner is root on the graded VM, so the grader's venv is hostile input too: one `.pth` file
planted in its site-packages made an empty VM grade 104/104. Every installed distribution's
RECORD (written by pip from the wheel) lists `path,<algorithm>=<urlsafe base64 digest>,size`;
`verify_site_packages` checks that every listed file is present with that size and digest, and
that site-packages holds no file (a `.pth`, `sitecustomize.py`, a module, a shared object in a
package) that no RECORD claims. Bytes hashed, files walked and time are bounded; a runtime that
cannot be verified within them is reported, never passed.

The interpreter's environment is checked too: PYTHONPATH and the like load code from elsewhere.

What this proves, honestly: a `.pth` file, `sitecustomize` and the third-party packages the
module imports run before the gate does, so a learner who also patches the gate (or rewrites a
RECORD and a file together, or replaces a `__pycache__/*.pyc`, which RECORD lists without a
hash, or patches the standard library or the interpreter) is not caught. The gate catches the
planted or edited runtime that does not also forge the evidence; what would close the rest is in
docs/hostile-input.md "The grader's runtime".
"""

from __future__ import annotations

import base64
import csv
import hashlib
import os
import posixpath
import site
import stat
import sys
import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, file_kind, read_regular

# The grader venv (requirements/grader-runtime.txt with its closure, and pip) lists 3,857 files of
# 107 MB in site-packages, hashed in about 0.2 CPU-s; the development venv with ansible-core 6,636
# files of 155 MB in about 0.35 CPU-s. Past these limits the runtime is reported as not verified.
RUNTIME_MAX_BYTES = 512 * 1024 * 1024
RUNTIME_MAX_FILES = 100_000
# Wall time: well under 1 s on an idle VM, 4 s seen on a loaded 2-core machine; the bound is far
# enough above both that a busy VM is not an ERROR, and far below the module budget.
RUNTIME_SECONDS = 30.0
RECORD_MAX_BYTES = 8 * 1024 * 1024  # the kubernetes RECORD, the largest, is 0.4 MB
HASH_CHUNK_BYTES = 1024 * 1024
# The wheel format allows sha256 or stronger in RECORD; pip writes sha256.
RECORD_ALGORITHMS = frozenset({"sha256", "sha384", "sha512"})
# Files the interpreter runs by itself at start-up: named first when findings are cut short.
STARTUP_NAMES = frozenset({"sitecustomize.py", "usercustomize.py"})
REPORTED_FINDINGS = 5

DIST_SUFFIXES = (".dist-info", ".egg-info")
# Variables that make the interpreter load code from outside the runtime verified here (another
# path, another prefix, other bytecode). The grader's environment comes from the VM's sshd and PAM
# (/etc/environment), which the learner controls; Python ignores them under -I or -E.
STARTUP_ENVIRONMENT = ("PYTHONPATH", "PYTHONHOME", "PYTHONPLATLIBDIR", "PYTHONPYCACHEPREFIX")


def interpreter_site_packages():
    """The site-packages folders the running interpreter (the grader venv's python) imports from."""
    return [path for path in site.getsitepackages() if path in sys.path and os.path.isdir(path)]


def environment_findings(environ, ignored):
    """A finding per STARTUP_ENVIRONMENT variable set (Python ignores an empty one), unless the
    interpreter ignored its environment (`ignored`: sys.flags.ignore_environment)."""
    if ignored:
        return []
    return [f"the grader's environment sets {name}={environ[name][:200]!r}"
            for name in STARTUP_ENVIRONMENT if environ.get(name)]


def _record_entries(text):
    """(path, algorithm or None, digest or None, size or None) per RECORD row. Parsed here, as
    the wheel format defines it (a CSV of path, algorithm=digest, size), and not through
    importlib.metadata's Distribution.files: since Python 3.12 that drops listed files that no
    longer exist, which would hide a deleted one. Raises ValueError for a malformed row."""
    entries = []
    for number, row in enumerate(csv.reader(text.splitlines()), 1):
        if not row:
            continue
        if len(row) != 3:
            raise ValueError(f"row {number} has {len(row)} fields, not 3")
        path, hashed, size = row
        algorithm, _equals, digest = hashed.partition("=")
        if size and not size.isdigit():
            raise ValueError(f"row {number} has size {size[:40]!r}")
        entries.append((path, algorithm or None, digest or None, int(size) if size else None))
    return entries


class _Walk:
    """Every entry under site-packages, without following a symbolic link."""

    def __init__(self, root, deadline, max_files):
        self.files = set()  # relative posix paths of regular files
        self.folders = []
        self.refused = {}  # relative posix path -> "is a symbolic link" | "is a FIFO" | ...
        self.cut = None  # why the walk stopped early
        pending = [""]
        while pending and self.cut is None:
            folder = pending.pop()
            try:
                self._list(root, folder, pending, max_files)
            except OSError as exc:
                self.refused[folder] = f"cannot be listed: {exc.strerror or exc}"
            if self.cut is None and time.monotonic() > deadline:
                self.cut = "time"

    def _list(self, root, folder, pending, max_files):
        """One folder's entries, stopping at max_files (a folder of a million files is not held)."""
        with os.scandir(os.path.join(root, folder)) as entries:
            for entry in entries:
                relative = posixpath.join(folder, entry.name) if folder else entry.name
                # d_type answers these without a stat; sizes are taken from the open file.
                if entry.is_dir(follow_symlinks=False):
                    self.folders.append(relative)
                    pending.append(relative)
                elif entry.is_file(follow_symlinks=False):
                    self.files.add(relative)
                else:
                    # pip never installs a link or a special file; a link could lead the check
                    # somewhere else than where the interpreter imports from.
                    try:
                        self.refused[relative] = f"is {file_kind(entry.stat(follow_symlinks=False).st_mode)}"
                    except OSError as exc:
                        self.refused[relative] = f"cannot be read: {exc.strerror or exc}"
                if len(self.files) + len(self.refused) > max_files:
                    self.cut = f"more than {max_files} files"
                    return


def _label(relative):
    """The path as a message shows it; bytes of a name that is not UTF-8 as \\xNN."""
    shown = os.fsencode(relative).decode("utf-8", "backslashreplace")
    return f"site-packages/{shown}" if shown else "site-packages"


def _is_bytecode(relative):
    """A .pyc in a __pycache__ folder: pip lists those it compiles without a hash, and the
    interpreter writes more as it imports; none is imported without its source next to it."""
    return relative.endswith(".pyc") and "/__pycache__/" in f"/{relative}"


def _priority(relative):
    """0 for what the interpreter runs at start-up (a top-level .pth, sitecustomize), else 1."""
    return 0 if "/" not in relative and (relative.endswith(".pth") or relative in STARTUP_NAMES) else 1


def _read_claims(root, walk, findings):
    """{relative path: [(record, algorithm, digest, size or None)]} from every dist-info RECORD
    (a path listed without a hash maps to []), and the metadata folders without a usable RECORD
    (their own files are then not reported one by one)."""
    claims = {}
    unrecorded = []
    for top in sorted(folder for folder in walk.folders if "/" not in folder and folder.endswith(DIST_SUFFIXES)):
        record_path = f"{top}/RECORD"
        if record_path in walk.refused:
            unrecorded.append(f"{top}/")
            continue
        try:
            if top.endswith(".egg-info") or record_path not in walk.files:
                raise Refused("missing")
            entries = _record_entries(read_regular(os.path.join(root, record_path), RECORD_MAX_BYTES).decode("utf-8"))
        except Refused as exc:
            findings.append((1, f"{_label(top)} has no RECORD" if exc.problem == "missing"
                             else exc.describe(_label(record_path))))
            unrecorded.append(f"{top}/")
            continue
        except (ValueError, csv.Error) as exc:  # bad UTF-8, a NUL, a short row, a size that is no number
            findings.append((1, f"{_label(record_path)} is not a valid RECORD: {exc}"))
            unrecorded.append(f"{top}/")
            continue
        for path, algorithm, digest, size in entries:
            relative = posixpath.normpath(path)
            if relative == ".." or relative.startswith(("../", "/")):
                # Console scripts in <venv>/bin: the grader never runs them, and a RECORD must not
                # make the gate read files outside site-packages.
                continue
            recorded = claims.setdefault(relative, [])
            if digest is not None:
                recorded.append((record_path, algorithm, digest, size))
            elif relative != record_path and not _is_bytecode(relative):
                findings.append((_priority(relative), f"{_label(relative)} has no hash in {_label(record_path)}"))
    return claims, unrecorded


class _Cut(Exception):
    """Verification stopped at a limit; the reason says which."""


class _Budget:
    """Bytes and time left for hashing; counts what was hashed."""

    def __init__(self, max_bytes, deadline, seconds):
        self.max_bytes, self.deadline, self.seconds = max_bytes, deadline, seconds
        self.files = self.bytes = 0

    def take(self, size):
        """Counts a file of `size` bytes about to be hashed, or raises _Cut past the byte limit."""
        if self.bytes + size > self.max_bytes:
            limit = self.max_bytes // (1024 * 1024)
            raise _Cut(f"more than {limit} MiB to hash" if limit else f"more than {self.max_bytes} bytes to hash")
        self.bytes += size
        self.files += 1

    def check_time(self):
        if time.monotonic() > self.deadline:
            raise _Cut(f"not done within {self.seconds:g} s")


def _check_file(path, label, recorded, budget):
    """The finding for one listed file, or None when it matches one of its claims (a file two
    distributions list, the last install wrote it, matches one of them). Size first, from the
    open file, so a file grown to gigabytes is never read."""
    algorithms = {algorithm for _record, algorithm, _digest, _size in recorded}
    if not algorithms <= RECORD_ALGORITHMS:
        return f"{label} has a {min(algorithms - RECORD_ALGORITHMS)} hash in its RECORD, not sha256 or stronger"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        return f"{label} cannot be read: {exc.strerror or exc}"
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return f"{label} is {file_kind(status.st_mode)}"
        sized = [claim for claim in recorded if claim[3] in (None, status.st_size)]
        if not sized:
            return f"{label} has {status.st_size} bytes, its RECORD says {recorded[0][3]}"
        budget.take(status.st_size)
        digests = {algorithm: hashlib.new(algorithm) for _record, algorithm, _digest, _size in sized}
        while chunk := os.read(fd, HASH_CHUNK_BYTES):
            for digest in digests.values():
                digest.update(chunk)
            budget.check_time()
    except OSError as exc:
        return f"{label} cannot be read: {exc.strerror or exc}"
    finally:
        os.close(fd)
    found = {algorithm: base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")
             for algorithm, digest in digests.items()}
    if any(found[algorithm] == value for _record, algorithm, value, _size in sized):
        return None
    return f"{label} does not match its RECORD hash"


def verify_site_packages(root, max_bytes=RUNTIME_MAX_BYTES, max_files=RUNTIME_MAX_FILES, seconds=RUNTIME_SECONDS):
    """{"findings": [text], "stopped": why verification stopped early or None, "files": files
    hashed, "bytes": bytes hashed, "seconds": time taken}.

    No findings and not stopped means: every file a RECORD lists with a hash is there with its
    size and digest, and every other file in `root` is a RECORD or a __pycache__ .pyc. Findings
    name the file and the reason, sorted, the files the interpreter runs at start-up first."""
    started = time.monotonic()
    budget = _Budget(max_bytes, started + seconds, seconds)
    findings = []  # (priority, text)
    walk = _Walk(root, budget.deadline, max_files)
    cut = f"not done within {seconds:g} s" if walk.cut == "time" else walk.cut
    if cut is None:
        findings.extend((_priority(path), f"{_label(path)} {why}") for path, why in walk.refused.items())
        claims, unrecorded = _read_claims(root, walk, findings)
        try:
            for relative, recorded in sorted(claims.items()):
                if not recorded or relative in walk.refused:
                    continue  # listed without a hash (judged above), or already refused
                if relative not in walk.files:
                    finding = f"{_label(relative)} is missing (listed in {_label(recorded[0][0])})"
                else:
                    finding = _check_file(os.path.join(root, relative), _label(relative), recorded, budget)
                if finding:
                    findings.append((_priority(relative), finding))
        except _Cut as exc:
            cut = str(exc)
        findings.extend((_priority(path), f"{_label(path)} is not part of any installed package")
                        for path in walk.files
                        if path not in claims and not _is_bytecode(path) and not path.startswith(tuple(unrecorded)))
    return {"findings": [text for _priority_, text in sorted(findings)],
            "stopped": f"{cut} ({budget.files} files, {budget.bytes} bytes hashed)" if cut else None,
            "files": budget.files, "bytes": budget.bytes, "seconds": round(time.monotonic() - started, 3)}


def runtime_problem(findings, stopped=()):
    """One health-gate detail for the findings and the reasons verification stopped, else None."""
    stopped = "; ".join(stopped)
    if not findings:
        return f"grader runtime could not be verified: {stopped}" if stopped else None
    shown = "; ".join(findings[:REPORTED_FINDINGS])
    more = f"; and {len(findings) - REPORTED_FINDINGS} more" if len(findings) > REPORTED_FINDINGS else ""
    return f"grader runtime modified: {shown}{more}" + (f"; then verification stopped: {stopped}" if stopped else "")
