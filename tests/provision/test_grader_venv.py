"""The grader venv (roles/grader_runtime, venv.yml): pip runs only when a pin of the hashed
closure is not installed at its version; a venv that holds them all is left alone, also in
check mode."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from provision_helpers import REPO
from role_runner import RoleRunner

PIP_TASK = "Venv | install the grader's libraries"
HASHES = REPO / "roles/grader_runtime/files/grader-runtime-hashes.txt"


def task_status(output: str, name: str) -> str:
    """The first word of the result line of task `name` (ok, changed, skipping, fatal)."""
    block = output.split(f"TASK [grader_runtime : {name}]", 1)[1]
    return re.search(r"^(ok|changed|skipping|fatal):", block, re.MULTILINE)[1]


@pytest.fixture
def venv(tmp_path) -> Path:
    """A venv whose python is this test's (the project's .venv holds the closure at its pins,
    tests/provision/test_defects.py), and no pip of its own: if the pip task ran, it would fail
    ("Unable to find pip in the virtualenv"), not install anything. Its bin/activate tells
    ansible.builtin.pip that the venv exists (without it, the module would make one here and run pip)."""
    folder = tmp_path / "venv"
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    (folder / "bin" / "activate").write_text("")
    return folder


def test_a_venv_that_holds_every_pin_is_not_given_to_pip(tmp_path, venv):
    runner = RoleRunner(tmp_path)
    variables = {"grader_runtime_venv": str(venv), "lab_artifact_source": "online"}
    first = runner("grader_runtime", "venv.yml", variables)
    assert first.rc == 0, first.output
    assert task_status(first.output, PIP_TASK) == "skipping"
    again = runner("grader_runtime", "venv.yml", variables)
    assert again.rc == 0 and "changed=0" in again.output, again.output
    check = runner("grader_runtime", "venv.yml", variables, check=True)
    assert check.rc == 0 and "changed=0" in check.output, check.output


@pytest.mark.parametrize("pin", ["lab-not-installed==1.0", "PyYAML==0.1"])
def test_a_pin_the_venv_does_not_hold_runs_pip(tmp_path, venv, pin):
    hashes = tmp_path / "hashes.txt"
    hashes.write_text(HASHES.read_text() + f"{pin} \\\n    --hash=sha256:{'0' * 64}\n")
    runner = RoleRunner(tmp_path)
    result = runner("grader_runtime", "venv.yml", {"grader_runtime_venv": str(venv), "lab_artifact_source": "online",
                                                   "grader_runtime_hashed_requirements": str(hashes)})
    assert result.rc != 0 and task_status(result.output, PIP_TASK) == "fatal", result.output
    assert "Unable to find pip in the virtualenv" in result.output  # the pip task ran, found no pip
