"""`scripts/demo --keep`: the demo class stays up after the demo and the printed commands work
against it (issue: after `make demo` nothing could be tried)."""

from __future__ import annotations

import os
import re
import signal
import subprocess

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.playbook


def test_demo_keep_leaves_the_class_up_and_its_commands_work(tmp_path):
    env = {**os.environ, "LAB_DEMO_REPORTS": str(tmp_path / "reports"), "ANSIBLE_NOCOLOR": "1"}
    demo = subprocess.run(["scripts/demo", "--keep"], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    pid = int(re.search(r"fake API server pid (\d+)", demo.stdout).group(1))
    try:
        assert demo.returncode == 0, demo.stdout[-3000:]
        one_learner = next(line.split("#")[0].strip() for line in demo.stdout.splitlines() if "-l learner03" in line)
        root = re.search(r"export LAB_DEMO_ROOT=(\S+)", demo.stdout).group(1)
        again = subprocess.run(one_learner, shell=True, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
                               env={**env, "LAB_DEMO_ROOT": root})
        assert again.returncode == 0, again.stdout[-3000:]
        assert "partial run: graded learner03; latest shows the class view merged with it" in again.stdout
    finally:
        os.kill(pid, signal.SIGTERM)
