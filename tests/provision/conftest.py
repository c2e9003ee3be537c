"""Fixtures of the provisioning tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from provision_helpers import VENV_BIN, run


@pytest.fixture(scope="session")
def rendered(tmp_path_factory) -> Path:
    """Every provisioning template rendered once by render.yml, through Ansible itself."""
    out = tmp_path_factory.mktemp("rendered")
    result = run(
        [
            str(VENV_BIN / "ansible-playbook"),
            "-i",
            "learner07,",
            "-e",
            "ansible_python_interpreter=/usr/bin/python3",
            "-e",
            f"render_out={out}",
            "tests/provision/render.yml",
        ]
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out
