"""roles/grader_runtime's push client (tasks/push_client.yml), run by ansible-playbook into a
folder standing for the VM (lab_root): skipped, changing nothing, without lab_push_collector_url;
with it, the VM's token (its SHA-256 in the class's digests on the controller), the certificate,
the settings, the command and the units; a second run changes nothing; and the installed command
pushes to grade-push's collector with the token provisioning gave it."""

from __future__ import annotations

import getpass
import hashlib
import json
import re
import socket
import subprocess
from pathlib import Path

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import MAX_TIME_BUDGET
from ansible_collections.gitops_lab.grader.plugins.plugin_utils import grade_push
from provision_helpers import REPO, VENV_BIN, run

PUSH_TASKS = 10  # the tasks of push_client.yml


def provision(tmp_path, url=None, *options, **variables):
    """provision.yml's grader_runtime role on learner01 (a local connection), only its tasks
    tagged lab-push (the rest needs a VM), with ansible-playbook's `options`. Returns (rc, output,
    the recap's counts)."""
    inventory = {"learners": {"hosts": {"learner01": {
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "lab_root": str(tmp_path / "vm"), "grade_report_dir": str(tmp_path / "reports"),
        "lab_enrolled": ["capa-src"], "lab_lang": "ja",
        # the command runs the checkout's library with the project's venv, as the VM's would run its own
        "grader_runtime_venv": str(VENV_BIN.parent), "grader_runtime_learner_lib": str(REPO / "collections"),
        "grader_runtime_push_user": getpass.getuser(),
        **({"lab_push_collector_url": url} if url else {}), **variables}}}}
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / "play.yml").write_text(yaml.safe_dump([{"hosts": "learners", "gather_facts": False, "tasks": [
        {"ansible.builtin.import_role": {"name": "gitops_lab.grader.grader_runtime"}}]}]))
    said = run([str(VENV_BIN / "ansible-playbook"), "-i", str(tmp_path / "hosts.yml"), str(tmp_path / "play.yml"),
                "--tags", "lab-push", *options])
    output = said.stdout + said.stderr
    line = next((line for line in said.stdout.splitlines() if line.startswith("learner01 ") and "ok=" in line), "")
    return said.returncode, output, {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", line)}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_without_a_collector_url_every_push_task_is_skipped(tmp_path):
    rc, output, recap = provision(tmp_path)
    assert rc == 0, output
    assert (recap["ok"], recap["changed"], recap["skipped"]) == (0, 0, PUSH_TASKS), output
    assert not (tmp_path / "vm").exists() and not (tmp_path / "reports").exists()


def test_the_push_client_is_installed_once_and_its_command_pushes_with_the_token_it_was_given(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    rc, output, recap = provision(tmp_path, url)
    assert rc == 0, output
    assert recap["failed"] == 0 and recap["changed"] > 0
    etc = tmp_path / "vm" / "etc" / "lab-grader"
    token = (etc / "push-token").read_text()
    assert len(token) == 43 and token not in output
    assert (etc / "push-token").stat().st_mode & 0o777 == 0o600 and (etc / "push.json").stat().st_mode & 0o777 == 0o600
    digests = json.loads((tmp_path / "reports" / ".collector" / "tokens.json").read_text())
    assert digests == {"learner01": hashlib.sha256(token.encode()).hexdigest()}
    assert json.loads((etc / "push.json").read_text()) == {
        "collector_url": url, "host": "learner01", "token_file": str(etc / "push-token"), "cafile": None,
        "state_file": str(etc / "push-run")}
    units = tmp_path / "vm" / "etc" / "systemd" / "system"
    service = (units / "lab-grade-push.service").read_text()
    assert "\nType=oneshot\n" in service and f"\nUser={getpass.getuser()}\n" in service
    assert f"\nTimeoutStartSec={MAX_TIME_BUDGET + 120}\n" in service
    assert f"\nExecStart={tmp_path / 'vm' / 'usr/local/bin/lab-grade-push'}\n" in service
    timer = (units / "lab-grade-push.timer").read_text()
    assert all(f"\n{line}\n" in timer for line in ("OnUnitActiveSec=5s", "RandomizedDelaySec=5s", "AccuracySec=1s"))
    assert not (etc / "collector.pem").exists()

    rc, output, recap = provision(tmp_path, url)
    assert (rc, recap["changed"]) == (0, 0), output  # re-provisioned: the VM keeps its token
    assert (etc / "push-token").read_text() == token

    # the installed command, against grade-push's collector, which loads the digest provisioning recorded
    inventory = tmp_path / "hosts.yml"
    settings, class_hosts, output_dir = grade_push.read_class([str(inventory)])
    class_run = grade_push.ClassRun(settings, class_hosts, output_dir, grade_push.read_digests(output_dir),
                                    ("127.0.0.1", port))
    try:
        pushed = subprocess.run([str(tmp_path / "vm" / "usr/local/bin/lab-grade-push")], capture_output=True,
                                text=True, timeout=120)
        assert (pushed.returncode, pushed.stdout) == (0, "lab-grade-push: 202 learner01: error\n"), pushed.stderr
        assert class_run.wait(0)
    finally:
        class_run.close()
        class_run.shutdown()
    record = class_run.collector.records["learner01"]
    # graded as grade.yml would: its lab_grader_kubeconfig default, which this machine does not have
    assert record["error"]["message"].startswith("the kubeconfig /etc/rancher/k3s/k3s.yaml does not exist")

    (etc / "push-token").write_text("edited")
    rc, output, recap = provision(tmp_path, url)
    assert rc == 0 and recap["changed"] > 0, output
    new = (etc / "push-token").read_text()
    assert new != token and json.loads((tmp_path / "reports" / ".collector" / "tokens.json").read_text()) == {
        "learner01": hashlib.sha256(new.encode()).hexdigest()}



def test_the_units_timeout_leaves_room_for_any_grading_budget_the_collector_may_ask(tmp_path):
    """A VM graded with grade_time_budget 1500 (QEMU without acceleration, docs/real-vm.md) was
    ended by systemd at 360 s, its budget's first quarter, and never pushed; the poll carries the
    class's budget of the day, which may be raised after provisioning."""
    rc, output, _ = provision(tmp_path, f"http://127.0.0.1:{free_port()}", grade_time_budget=240)
    assert rc == 0, output
    service = (tmp_path / "vm" / "etc" / "systemd" / "system" / "lab-grade-push.service").read_text()
    assert f"\nTimeoutStartSec={MAX_TIME_BUDGET + 120}\n" in service


def test_an_https_collector_needs_the_classs_certificate_which_the_vm_then_pins(tmp_path):
    url = "https://10.0.0.5:8443"
    rc, output, _ = provision(tmp_path, url)
    cert = tmp_path / "reports" / ".collector" / "collector.pem"
    assert rc == 2
    assert (f"lab_push_collector_url https://10.0.0.5:8443 is HTTPS and the class's certificate {cert} does not "
            "exist: run scripts/grade-push --init --address 10.0.0.5 first") in output
    assert not (tmp_path / "vm" / "etc" / "lab-grader" / "push-token").exists()

    grade_push.make_certificate(tmp_path / "reports", "10.0.0.5")
    rc, output, _ = provision(tmp_path, url)
    assert rc == 0, output
    etc = tmp_path / "vm" / "etc" / "lab-grader"
    assert (etc / "collector.pem").read_bytes() == Path(cert).read_bytes()
    assert json.loads((etc / "push.json").read_text())["cafile"] == str(etc / "collector.pem")
    rc, output, recap = provision(tmp_path, url)
    assert (rc, recap["changed"]) == (0, 0), output


def test_check_mode_on_a_new_vm_says_what_would_change_and_writes_nothing(tmp_path):
    rc, output, recap = provision(tmp_path, "http://127.0.0.1:9", "--check")
    assert (rc, recap["failed"]) == (0, 0), output
    assert recap["changed"] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hosts.yml", "play.yml"]  # not even the controller's digests


def test_check_mode_on_a_new_systemd_vm_does_not_ask_systemd_for_units_not_written(tmp_path):
    """systemd_service fails on a unit systemd does not know, even in check mode: on a VM
    provisioned before the class had a collector, `--tags lab-push --check` must say what would
    change, not fail."""
    rc, output, recap = provision(tmp_path, "http://127.0.0.1:9", "--check",
                                  grader_runtime_push_service_manager="systemd")
    assert (rc, recap["failed"]) == (0, 0), output
    assert "skipping: [learner01]" in output.split("the timer enabled and running", 1)[1].split("TASK", 1)[0]
