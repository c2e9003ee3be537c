"""learner_base's wait for cloud-init (tasks/cloud_init.yml), run for real with a stand-in
`cloud-init` that answers as Debian 12's 22.4 and Ubuntu 24.04's 24.x do.

Found on the real Debian 12 VM (scripts/real-vm, docs/real-vm.md): a module that failed there
(locale) made `cloud-init status --wait` exit 1 with "status: error", and provisioning stopped,
although the VM was usable; 22.4 also says "error" while later stages still run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from role_runner import RoleRunner

pytestmark = pytest.mark.playbook

# cloudinit/cmd/status.py of 22.4.2 (Debian 12): no extended_status, rc 1 for any error.
DEBIAN_12_ERROR = {"status": "error", "errors": ["('locale', ProcessExecutionError(...))"], "detail": "x"}
# 24.x (Ubuntu 24.04): extended_status; rc 2 for recoverable, rc 1 for critical errors.
UBUNTU_RECOVERABLE = {"status": "done", "extended_status": "degraded done", "errors": [],
                      "recoverable_errors": {"WARNING": ["No template found"]}}
UBUNTU_CRITICAL = {"status": "error", "extended_status": "error - done", "errors": ["datasource crashed"],
                   "recoverable_errors": {}}


def wait(tmp_path: Path, rc: int, answer: dict, finished: bool) -> tuple:
    role = RoleRunner(tmp_path)
    fake = tmp_path / "cloud-init"
    args = tmp_path / "cloud-init.args"
    fake.write_text(f"#!/bin/sh\necho \"$*\" >> {args}\ncat <<'EOF'\n{json.dumps(answer)}\nEOF\nexit {rc}\n")
    fake.chmod(0o755)
    result_file = tmp_path / "result.json"
    if finished:
        result_file.write_text("{}")
    variables = {"learner_base_cloud_init": str(fake), "learner_base_cloud_init_result": str(result_file),
                 "learner_base_cloud_init_timeout": 2}
    return role("learner_base", "cloud_init.yml", variables), (tmp_path / "cloud-init.args").read_text()


def test_debian_12_finished_with_a_module_error_goes_on_and_names_it(tmp_path: Path) -> None:
    result, args = wait(tmp_path, 1, DEBIAN_12_ERROR, finished=True)
    assert result.rc == 0, result.output
    assert args.split() == ["status", "--wait", "--format", "json"]
    assert "cloud-init finished with errors" in result.output and "locale" in result.output


def test_debian_12_error_before_its_last_stage_ended_waits_for_it_bounded(tmp_path: Path) -> None:
    result, _ = wait(tmp_path, 1, DEBIAN_12_ERROR, finished=False)
    assert result.rc != 0
    assert "cloud-init reported an error and had not finished its last stage after 2 s" in result.output


def test_ubuntu_recoverable_errors_go_on(tmp_path: Path) -> None:
    result, _ = wait(tmp_path, 2, UBUNTU_RECOVERABLE, finished=False)
    assert result.rc == 0, result.output
    assert "No template found" in result.output


def test_ubuntu_critical_error_stops(tmp_path: Path) -> None:
    result, _ = wait(tmp_path, 1, UBUNTU_CRITICAL, finished=True)
    assert result.rc != 0
    assert "wait for cloud-init to finish" in result.output


def test_done_goes_on_quietly(tmp_path: Path) -> None:
    result, _ = wait(tmp_path, 0, {"status": "done", "extended_status": "done", "errors": []}, finished=True)
    assert result.rc == 0, result.output
    assert "cloud-init finished with errors:" not in result.output


def test_a_timeout_stops(tmp_path: Path) -> None:
    result, _ = wait(tmp_path, 124, {}, finished=False)
    assert result.rc != 0
