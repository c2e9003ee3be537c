"""No secret leaves the VM: the grader's token, with the trailing newline that used to put
`Bearer <token>` into a ValueError (issue 10 item 6), and a learner file copied from the
kubeconfig, must appear nowhere in `grade.yml -vvv`'s output or in any report file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT
from tests.hostile.harness import CANARY, copy_host, edit_kubeconfig

pytestmark = pytest.mark.playbook


def grade_one(class_root, tmp_path):
    reports = tmp_path / "reports"
    env = {**os.environ, "LAB_DEMO_ROOT": str(class_root), "ANSIBLE_NOCOLOR": "1",
           "GRADE_MATRIX_COLORIZE": "false", "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
    result = subprocess.run(
        ["ansible-playbook", "-vvv", "-i", "inventory/demo", "grade.yml", "-l", "learner01,learner02",
         "-e", f"grade_report_dir={reports}"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    return result, reports


def test_canary_token_appears_nowhere(golden_host, fake_api, tmp_path):
    class_root = tmp_path / "class"
    class_root.mkdir()
    bad_token = copy_host(golden_host, fake_api.root)  # learner01: the token has a trailing newline

    def newline_token(config, host):
        config["users"][0]["user"]["token"] = CANARY + "\n"

    edit_kubeconfig(bad_token, newline_token)
    copied = copy_host(golden_host, fake_api.root)  # learner02: a workspace file copied from the kubeconfig
    shutil.copy(copied / "kubeconfig", copied / "root" / "capa-src" / "app-src-helm.yaml")
    (class_root / "learner01").symlink_to(bad_token)
    (class_root / "learner02").symlink_to(copied)

    result, reports = grade_one(class_root, tmp_path)
    output = result.stdout + result.stderr
    assert "the token has whitespace or a control character" in output  # the run did reach the token
    assert CANARY not in output
    files = [path for path in reports.rglob("*") if path.is_file()]
    assert {path.suffix for path in files} >= {".json", ".xml", ".html", ".txt"}
    for path in files:
        assert CANARY not in path.read_text(errors="replace"), path
