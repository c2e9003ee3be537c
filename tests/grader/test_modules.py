"""The grading modules through AnsibleModule itself (patch_module_args): arguments are
validated with clear messages, and results are never `changed`."""

from __future__ import annotations

import json

import pytest
from ansible.module_utils.testing import patch_module_args
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

from tests.grader.test_module_docs import load

KNOWN_LABS = ", ".join(sorted(LABS))  # as settings.unknown_lab_message lists them


def run(name, args, capsys):
    module = load(name)
    with patch_module_args(args), pytest.raises(SystemExit) as exc:
        module.main()
    return exc.value.code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("args", "message"), [
    ({"settle_timeout": -1}, "settle_timeout must be between 0 and 600 seconds, got -1.0"),
    ({"api_timeout": 0}, "api_timeout must be more than 0 seconds"),
    ({"time_budget": 3601}, "time_budget must be between 0 and 3600 seconds, got 3601.0"),
    ({"poll_interval": 0}, "poll_interval must be more than 0 when settle_timeout is set"),
    ({"lang": "fr"}, "value of lang must be one of: en, ja, ko, got: fr"),
    ({"max_file_bytes": "lots"}, "argument 'max_file_bytes' is of type str and we were unable to convert to int"),
    ({"labs": ["capa-sr"]}, f"labs: unknown lab capa-sr (did you mean capa-src?); known labs: {KNOWN_LABS}"),
    ({"labs": ["nope"]}, f"labs: unknown lab nope; known labs: {KNOWN_LABS}"),
])
def test_lab_grade_rejects_bad_arguments(args, message, capsys):
    code, result = run("lab_grade", {"labs": ["capa-src"], **args}, capsys)
    assert code == 1
    assert result["failed"] is True
    assert message in result["msg"]


def test_a_missing_kubeconfig_fails_the_health_gate_and_grades_nothing(tmp_path, capsys):
    code, result = run("lab_grade", {"labs": ["capa-src"], "kubeconfig": str(tmp_path / "none")}, capsys)
    assert code == 0
    assert (result["changed"], result["state"], result["labs"]) == (False, "error", {})
    assert result["error"]["kind"] == "health"
    assert result["health"]["problems"][0] == {
        "probe": "kubeconfig", "detail": f"the kubeconfig {tmp_path / 'none'} does not exist",
        "reason": {"key": "host_kubeconfig_missing", "params": {"path": str(tmp_path / "none")}}}
    assert result["error"]["reasons"] == [result["health"]["problems"][0]["reason"]]


def test_without_the_health_gate_a_missing_vm_layout_fails_checks_without_crashing(tmp_path, capsys):
    code, result = run("lab_grade", {"labs": ["capa-src"], "health": False, "workspace_root": str(tmp_path / "ws"),
                                     "bare_root": str(tmp_path / "bare"), "kubeconfig": str(tmp_path / "kubeconfig"),
                                     "settle_timeout": 0}, capsys)
    assert code == 0
    capa = result["labs"]["capa-src"]
    assert (result["changed"], result["state"], result["health"]) == (False, "graded", None)
    assert capa["summary"]["total"] == len(LABS["capa-src"].checks)
    assert capa["collected"]["cluster_error"]["kind"] == "kubeconfig"


def test_one_call_gates_and_grades_a_healthy_fixture_vm(fake_api, capsys):
    host_dir = fake_api.world("capa-src/base-vm.yaml")
    code, result = run("lab_grade", {"labs": ["capa-src"], "kubeconfig": str(host_dir / "kubeconfig"),
                                     "workspace_root": str(host_dir / "root"), "bare_root": str(host_dir / "srv" / "bare"),
                                     "settle_timeout": 0}, capsys)
    assert (code, result["state"], result["health"]["api_requests"]) == (0, "graded", 5)
    assert set(result["health"]["probes"].values()) == {"ok"}
    assert result["labs"]["capa-src"]["collected"]["api_requests"] == 9


@pytest.mark.parametrize("root", ["workspace_root", "bare_root"])
def test_a_relative_root_is_refused_not_graded_as_fail(root, capsys):
    code, result = run("lab_grade", {"labs": ["capa-src"], root: "relative/path"}, capsys)
    assert (code, result["failed"]) == (1, True)
    assert result["msg"] == f"{root} must be an absolute path, got 'relative/path'"


def test_a_missing_workspace_root_is_the_hosts_error_not_the_learners_fail(fake_api, tmp_path, capsys):
    """104/104 became 52/104 with a root that is not on the VM (issue 19)."""
    host_dir = fake_api.world("capa-src/base-vm.yaml")
    code, result = run("lab_grade", {"labs": ["capa-src"], "kubeconfig": str(host_dir / "kubeconfig"),
                                     "workspace_root": str(tmp_path / "none"),
                                     "bare_root": str(host_dir / "srv" / "bare"), "settle_timeout": 0}, capsys)
    assert (code, result["state"], result["labs"]) == (0, "error", {})
    assert result["error"]["kind"] == "health"
    assert result["error"]["message"] == f"lab_workspace_root {tmp_path / 'none'} is not a directory on this VM"
