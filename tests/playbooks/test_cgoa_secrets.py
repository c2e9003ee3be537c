"""cgoa-ci reads a learner's token (ci-kubeconfig) to ask the API server who it is: the token must
appear nowhere in `grade.yml -vvv`'s output or in any report file."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.playbook


def test_the_learners_token_never_leaves_the_vm(fake_api, tmp_path):
    host = fake_api.world("demo/both-golden.yaml", host="learner01")
    token = yaml.safe_load((host / "root" / "cgoa-ci" / "ci-kubeconfig").read_text())["users"][0]["user"]["token"]
    reports = tmp_path / "reports"
    env = {**os.environ, "LAB_DEMO_ROOT": str(fake_api.root), "ANSIBLE_NOCOLOR": "1",
           "GRADE_MATRIX_COLORIZE": "false", "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
    result = subprocess.run(
        ["ansible-playbook", "-vvv", "-i", "inventory/demo", "grade.yml", "-l", "learner01",
         "-e", f"grade_report_dir={reports}"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "cgoa-ci.3.ci-token-identity" in result.stdout  # the check that used the token ran
    reviews = [line for line in (host / "requests.log").read_text().splitlines() if "tokenreviews" in line]
    assert reviews  # the token went to the API server, and only there
    for part in (token, token.split(".")[1], token.split(".")[2]):
        assert part not in result.stdout + result.stderr
        for path in (p for p in reports.rglob("*") if p.is_file()):
            assert part not in path.read_text(errors="replace"), path
