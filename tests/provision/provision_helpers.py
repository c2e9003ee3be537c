"""Helpers for the provisioning tests: repo paths and running the project's Ansible.

A module with its own name (not conftest) so that importing it cannot pick up another
test folder's conftest.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = REPO / ".venv" / "bin"


def ansible_env() -> dict[str, str]:
    """Environment for ansible-* run from the repo: the venv's tools first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["ANSIBLE_NOCOLOR"] = "1"
    return env


def run(cmd: list[str], extra_env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess[str]:
    env = ansible_env() | (extra_env or {})
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300, **kwargs)
