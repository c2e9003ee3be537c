"""The instructor's path of the README ("Record a learner's VM and replay the grade offline"):
playbooks/record.yml records a VM (here a fixture world over a local connection) and writes the
replay's inventory; the world materialized under it and graded by grade.yml gives the learner the
same report, line by line, as grading the VM."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from labworld.materialize import materialize
from labworld.server import make_server
from tests.conftest import REPO_ROOT, WORLDS
from tests.labworld.test_record import digest

pytestmark = pytest.mark.playbook
PLAYBOOK = str(Path(sys.executable).with_name("ansible-playbook"))


@pytest.fixture
def served(tmp_path):
    """A fake API server per root: {root: url}."""
    servers = {}

    def serve(root: Path) -> str:
        root.mkdir(parents=True, exist_ok=True)
        server = make_server(root, 0)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        servers[root] = server
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server in servers.values():
        server.shutdown()
        server.server_close()


def playbook(*args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([PLAYBOOK, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    return result


def learner_report(reports: Path, host: str, root: Path) -> list[str]:
    """The learner's report (learners/<host>.txt) without its time, the host's paths written alike."""
    lines = (reports / "latest" / "learners" / f"{host}.txt").read_text().splitlines()[1:]
    return [line.replace(str(root), "<host>") for line in lines]


def test_record_playbook_and_grading_the_replay_give_the_vms_report(tmp_path, served):
    vms = tmp_path / "vms"
    materialize(WORLDS / "demo/both-mistakes.yaml", "learner03", vms, served(vms))
    vm = vms / "learner03"
    inventory = tmp_path / "class.yml"
    inventory.write_text(yaml.safe_dump({"learners": {
        "hosts": {"learner03": {"lab_enrolled": ["capa-src", "cgoa-ci"], "lab_lang": "ko"}},
        "vars": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                 "lab_grader_python": sys.executable, "lab_workspace_root": str(vm / "root"),
                 "lab_bare_root": str(vm / "srv" / "bare"), "lab_grader_kubeconfig": str(vm / "kubeconfig"),
                 "lab_k3s_kubeconfig": str(vm / "kubeconfig"), "lab_probe_replay": str(vm / "probes.json"),
                 "grade_settle_timeout": 0}}}))
    before = digest(vm)
    recorded = tmp_path / "recorded"
    playbook("-i", str(inventory), "playbooks/record.yml", "-e", f"record_dir={recorded}")
    assert digest(vm) == before
    assert sorted(p.name for p in recorded.iterdir()) == ["learner03.inventory.yml", "learner03.yaml"]
    replay_root = recorded / "replay"
    materialize(recorded / "learner03.yaml", "learner03", replay_root, served(replay_root))
    playbook("-i", str(inventory), "grade.yml", "-e", f"grade_report_dir={tmp_path / 'vm-reports'}")
    playbook("-i", str(recorded / "learner03.inventory.yml"), "grade.yml",
             "-e", f"grade_report_dir={tmp_path / 'replay-reports'}")
    original = learner_report(tmp_path / "vm-reports", "learner03", vm)
    assert learner_report(tmp_path / "replay-reports", "learner03", replay_root / "learner03") == original
    assert any(line.startswith("== cgoa-ci") for line in original)
    grades = json.loads((tmp_path / "replay-reports" / "latest" / "grades.json").read_text())
    assert {record["lab"] for record in grades["records"]} == {"capa-src", "cgoa-ci"}


def test_the_recorder_gets_the_classs_grading_budget(tmp_path, served):
    """A VM graded with grade_time_budget (a slow VM) was recorded within 240 s: its probes cut short
    where grading them was not. An out-of-range budget shows the variable reaches the recorder."""
    vms = tmp_path / "vms"
    materialize(WORLDS / "demo/both-mistakes.yaml", "learner03", vms, served(vms))
    vm = vms / "learner03"
    inventory = tmp_path / "class.yml"
    inventory.write_text(yaml.safe_dump({"learners": {
        "hosts": {"learner03": {"lab_enrolled": ["capa-src"], "grade_time_budget": 3601}},
        "vars": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                 "lab_grader_python": sys.executable, "lab_workspace_root": str(vm / "root"),
                 "lab_bare_root": str(vm / "srv" / "bare"), "lab_grader_kubeconfig": str(vm / "kubeconfig"),
                 "lab_k3s_kubeconfig": str(vm / "kubeconfig")}}}))
    result = subprocess.run([PLAYBOOK, "-i", str(inventory), "playbooks/record.yml", "-e",
                             f"record_dir={tmp_path / 'recorded'}"], cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 2, result.stdout[-3000:]
    assert "labworld: error: --time-budget must be more than 0 and at most 3600 seconds" in result.stdout
