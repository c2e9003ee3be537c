"""The grader's library for `lab check`, shipped as one archive (roles/grader_runtime: learner_check.yml,
files/library_archive.py): the same library gives the same bytes, the VM unpacks it once per
archive, and a module taken out of the library is taken off the VM."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest
from provision_helpers import REPO
from role_runner import RoleRunner

BUILDER = REPO / "roles" / "grader_runtime" / "files" / "library_archive.py"
PACKAGE = "ansible_collections/gitops_lab/grader/plugins/module_utils/labgrader"
MARKERS = [f"{'/'.join(PACKAGE.split('/')[:depth])}/__init__.py" for depth in range(1, 6)]


def write_library(root: Path) -> Path:
    """A small library shaped like labgrader: a lab package with its solution, the solutions
    package, a cache and a file that is not Python."""
    for relpath, text in {
        "__init__.py": "",
        "lab_command.py": "MAIN = 1\n",
        "checks/__init__.py": "",
        "checks/gone.py": "GONE = 1\n",
        "labs/demo/__init__.py": "",
        "labs/demo/definition.py": "STEPS = 3\n",
        "labs/demo/solution.py": "ANSWER = 42\n",
        "solutions/__init__.py": "",
        "solutions/solve.py": "ANSWERS = {}\n",
        "report/formats/html/report.css": "body {}\n",
        "checks/__pycache__/gone.cpython-311.pyc": "not a real pyc",
    }.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def build(sources: Path) -> dict:
    result = subprocess.run([sys.executable, str(BUILDER), str(sources), PACKAGE],
                            capture_output=True, text=True, timeout=60, check=True)
    return json.loads(result.stdout)


@pytest.fixture
def built(tmp_path):
    """Build the archive of a library; the temporary folders it makes are removed after the test."""
    made = []

    def build_and_keep(sources):
        archive = build(sources)
        made.append(Path(archive["archive"]).parent)
        return archive

    yield build_and_keep
    for folder in made:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


def test_the_archive_holds_the_python_files_and_no_answers_in_a_fixed_form(tmp_path, built):
    archive = built(write_library(tmp_path / "labgrader"))
    with tarfile.open(archive["archive"]) as tar:
        members = tar.getmembers()
    files = [m.name for m in members if m.isfile()]
    assert files == sorted(MARKERS + [f"{PACKAGE}/{name}" for name in (
        "__init__.py", "checks/__init__.py", "checks/gone.py", "lab_command.py",
        "labs/demo/__init__.py", "labs/demo/definition.py")])
    assert archive["files"] == len(files)
    names = [m.name for m in members]
    assert names == sorted(names)  # every folder comes before what it holds
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(1767225600, 0, 0, "root", "root")}
    assert {(m.isdir(), m.mode) for m in members} == {(True, 0o755), (False, 0o644)}
    assert archive["sha256"] == hashlib.sha256(Path(archive["archive"]).read_bytes()).hexdigest()


def test_the_same_library_gives_the_same_archive(tmp_path, built):
    first = built(write_library(tmp_path / "one"))
    # another checkout of it: other mtimes and modes, files written in another order
    other = write_library(tmp_path / "two")
    for path in other.rglob("*"):
        os.utime(path, (1, 1))
    (other / "lab_command.py").chmod(0o600)
    second = built(other)
    assert first["sha256"] == second["sha256"]
    (other / "lab_command.py").write_text("MAIN = 2\n")
    assert built(other)["sha256"] != first["sha256"]


def test_a_library_that_is_not_a_folder_is_a_usage_message(tmp_path):
    result = subprocess.run([sys.executable, str(BUILDER), str(tmp_path / "missing"), PACKAGE],
                            capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.strip() == "python3 library_archive.py SOURCES PACKAGE"


def recap(output: str) -> dict[str, int]:
    line = next(line for line in output.splitlines() if line.startswith("localhost") and "ok=" in line)
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", line)}


@pytest.fixture
def controller_tmp(monkeypatch):
    """The controller's TMPDIR, where the builder makes its archive: a short path of its own
    (ansible-playbook's RPC socket goes there too, and a socket's path is limited to 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="lab-ctl-"))
    monkeypatch.setenv("TMPDIR", str(folder))
    yield folder
    shutil.rmtree(folder)


def test_the_vm_unpacks_once_per_archive_and_a_removed_module_does_not_linger(tmp_path, controller_tmp):
    runner = RoleRunner(tmp_path)
    sources = write_library(tmp_path / "labgrader")
    variables = {"grader_runtime_learner_sources": str(sources), "grader_runtime_venv": "/opt/lab-grader/venv"}
    lib = tmp_path / "root" / "opt" / "lab-grader" / "lib"
    package = lib / PACKAGE

    def provision():
        result = runner("grader_runtime", "learner_check.yml", variables)
        assert result.rc == 0, result.output
        assert not list(controller_tmp.glob("lab-grader-library-*"))  # the run removed its archive
        return recap(result.output)

    def stamps():
        return sorted(path.name for path in lib.glob(".archive-sha256-*"))

    assert provision()["changed"] > 0
    assert (package / "checks" / "gone.py").read_text() == "GONE = 1\n"
    assert [path for path in lib.rglob("*") if "solution" in path.name or path.name == "__pycache__"] == []
    assert provision()["changed"] == 0  # a second run changes nothing
    first_stamps = stamps()

    (sources / "checks" / "gone.py").unlink()
    (sources / "lab_command.py").write_text("MAIN = 2\n")
    assert provision()["changed"] > 0
    assert not (package / "checks" / "gone.py").exists()  # a stale module does not linger
    assert (package / "lab_command.py").read_text() == "MAIN = 2\n"
    assert len(stamps()) == 1 and stamps() != first_stamps
    assert provision()["changed"] == 0
