"""The grader's library for `lab check` as one tar, built on the controller (learner_check.yml).

    python3 library_archive.py SOURCES PACKAGE

SOURCES is the library's folder (plugins/module_utils/labgrader); PACKAGE is where its modules
import it from, as a path under the VM's lib folder. Writes the archive into a new temporary
folder and prints one JSON object: {"archive": path, "sha256": hex, "files": count}; the caller
removes the folder.

What goes in: every Python file of the library at any depth, and an empty __init__.py for every
parent of PACKAGE (regular packages, so the grader's imports resolve from lib whether or not the
venv has ansible-core). What stays out: __pycache__, anything that is not Python (the VM renders
no report page), and every reference solution (a `solutions/` folder or a `solution.py`: the
learner must not find the answers on their VM).

The same library gives the same bytes, whatever the checkout's mtimes, owners, umask or file
system order: entries sorted, mtime fixed, owner root, modes 0755/0644. The VM keys its unpacked
copy by the archive's sha256, so a rebuilt archive of an unchanged library must not differ.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

# 2026-01-01T00:00:00Z: a fixed, plausible mtime (GNU tar warns about 1970's "implausibly old" ones).
MTIME = 1767225600


def library_files(sources: str) -> list[str]:
    """The library's Python files as sorted POSIX paths relative to `sources`, solutions left out."""
    found = []
    for folder, subfolders, names in os.walk(sources):
        subfolders[:] = [name for name in subfolders if name not in ("__pycache__", "solutions")]
        for name in names:
            if name.endswith(".py") and name != "solution.py":
                found.append(PurePosixPath(os.path.relpath(os.path.join(folder, name), sources)).as_posix())
    return sorted(found)


def entry(name: str, is_dir: bool, size: int = 0) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE if is_dir else tarfile.REGTYPE
    info.mode = 0o755 if is_dir else 0o644
    info.size = size
    info.mtime = MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def build(sources: str, package: str, out) -> int:
    """Write the archive to the binary file `out`; return how many files it holds."""
    contents = {f"{package}/{relpath}": Path(sources, relpath).read_bytes() for relpath in library_files(sources)}
    parts = package.split("/")
    for depth in range(1, len(parts)):
        contents.setdefault("/".join(parts[:depth]) + "/__init__.py", b"")
    folders = {str(parent) for name in contents for parent in PurePosixPath(name).parents if str(parent) != "."}
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        # A folder before what it holds: sorted paths put "a" before "a/b".
        for name in sorted(folders | set(contents)):
            if name in folders:
                archive.addfile(entry(name, is_dir=True))
            else:
                archive.addfile(entry(name, is_dir=False, size=len(contents[name])), io.BytesIO(contents[name]))
    return len(contents)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not os.path.isdir(argv[0]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix="lab-grader-library-")
    path = os.path.join(folder, "library.tar")
    try:
        with open(path, "wb") as out:
            files = build(argv[0], argv[1].strip("/"), out)
    except BaseException:
        shutil.rmtree(folder)
        raise
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    print(json.dumps({"archive": path, "sha256": digest, "files": files}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
