"""The real `ansible-playbook grade.yml` over the demo class: exit codes, -l, strict mode,
enrolled labs, the report folder and the printed matrix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

from labworld.materialize import load_class
from tests.conftest import REPO_ROOT, WORLDS

pytestmark = pytest.mark.playbook


@pytest.fixture(scope="module")
def demo_class(fake_api):
    """The demo class of scripts/demo (fixtures/worlds/demo/class.yaml)."""
    for host, entry in load_class(WORLDS / "demo" / "class.yaml").items():
        fake_api.world(os.path.relpath(entry["world"], WORLDS), host=host)
    return fake_api.root


def run_grade(demo_class, tmp_path, *args, inventory="inventory/demo"):
    reports = tmp_path / "reports"
    env = {**os.environ, "LAB_DEMO_ROOT": str(demo_class), "ANSIBLE_NOCOLOR": "1",
           "GRADE_MATRIX_COLORIZE": "false", "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
    result = subprocess.run(
        ["ansible-playbook", "-i", str(inventory), "grade.yml", "-e", f"grade_report_dir={reports}", *args],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    grades = reports / "latest" / "grades.json"
    data = json.loads(grades.read_text()) if grades.exists() else None
    return result, data


def test_run_wide_settings_in_the_learners_group_vars_reach_the_controller(demo_class, tmp_path):
    """The example class sets grade_* in group_vars/learners: the controller's plays (the settings
    check, the outcome) must read them as the learners' plays do, not as localhost's variables."""
    inventory = tmp_path / "inventory"
    shutil.copytree(REPO_ROOT / "inventory" / "demo", inventory)
    learners = inventory / "group_vars" / "learners.yml"
    learners.write_text(learners.read_text() + "grade_allow_host_errors: true\n")
    result, grades = run_grade(demo_class, tmp_path, inventory=inventory)
    assert grades is not None and "Could not grade" not in result.stdout
    assert result.returncode == 0, result.stdout[-3000:]
    learners.write_text(learners.read_text() + "grade_strict: ture\n")
    result, _ = run_grade(demo_class, tmp_path / "strict", inventory=inventory)
    assert result.returncode == 5, result.stdout[-3000:]  # refused before any VM, as with -e
    assert "grade_strict 'ture' is not a boolean (true or false)" in result.stdout


def states(grades):
    return {h["host"]: (h["state"], (h.get("error") or {}).get("kind")) for h in grades["hosts"]}


def test_whole_class_grades_everyone_and_exits_2_for_hosts_in_error(demo_class, tmp_path):
    result, grades = run_grade(demo_class, tmp_path)
    assert result.returncode == 2, result.stdout[-3000:]
    assert states(grades) == {
        "learner01": ("graded", None), "learner02": ("graded", None), "learner03": ("graded", None),
        "learner04": ("graded", None), "learner05": ("graded", None), "learner06": ("graded", None),
        "learner07": ("error", "health"), "learner08": ("error", "unreachable"),
    }
    golden = [r for r in grades["records"] if r["host"] == "learner01"]  # enrolled in both labs, both done
    total = len(LABS["capa-src"].checks) + len(LABS["cgoa-ci"].checks)
    assert len(golden) == total and {r["status"] for r in golden} == {"PASS"}
    assert f"learner01  ✓✓✓✓✓✓✓✓  ✓✓✓✓✓✓✓✓  ∙∙∙∙∙∙∙∙    {total}/{total}" in result.stdout
    # The demo's third lab: learner02 is half way through capa-src and capa-drift.
    half = len(LABS["capa-src"].checks) + len(LABS["capa-drift"].checks)
    assert f"learner02  ✓✓✓✓✗✗✗✗  ∙∙∙∙∙∙∙∙  ✓✓✓✓✗✗✗✗    55/{half}" in result.stdout
    assert ("Could not grade 2 of 8 hosts: learner07 (environment unhealthy), learner08 (unreachable). "
            "The other 6 were graded; see " in result.stdout)
    said = [line for line in result.stdout.splitlines() if line.startswith("fatal:") and "Could not grade" in line]
    assert len(said) == 1 and said[0].startswith("fatal: [localhost]")  # said once, by the controller
    recap = {line.split()[0]: line for line in result.stdout.splitlines() if " : ok=" in line}
    # the run's outcome is the controller's, never a graded learner's (it landed on 1-3 learners)
    assert "failed=1" in recap["localhost"]
    assert all("failed=0" in recap[f"learner0{n}"] for n in range(1, 9)), recap
    # the report and outcome tasks run once, on the controller: no learner gets a worker to skip
    # them (24-31 ms of controller CPU per learner each, issue 23)
    assert all("skipped=0" in recap[f"learner0{n}"] for n in range(1, 9)), recap
    assert (tmp_path / "reports" / "latest" / "junit.xml").exists()
    assert (tmp_path / "reports" / "latest" / "index.html").exists()


def test_limit_grades_one_learner_and_exits_0_even_when_the_learner_fails(demo_class, tmp_path):
    result, grades = run_grade(demo_class, tmp_path, "-l", "learner03")
    assert result.returncode == 0, result.stdout[-3000:]
    assert states(grades) == {"learner03": ("graded", None)}
    messages = {r["check"]: r["message"] for r in grades["records"] if r["status"] == "FAIL"}
    assert "차트 디렉터리가 기준이므로" in messages["capa-src.1.app-file-value-files"]  # learner03 reads Korean


def test_check_mode_grades_and_prints_the_matrix_but_writes_no_report(demo_class, tmp_path):
    """The report runs in the controller's process (an action plugin): --check still writes nothing."""
    result, grades = run_grade(demo_class, tmp_path, "--check", "-l", "learner01")
    assert result.returncode == 0, result.stdout[-3000:]
    assert grades is None and not (tmp_path / "reports").exists()
    assert "learner01  ✓✓✓✓✓✓✓✓  ✓✓✓✓✓✓✓✓" in result.stdout and "report: not written (check mode)" in result.stdout


def test_strict_mode_fails_on_learner_failures(demo_class, tmp_path):
    result, grades = run_grade(demo_class, tmp_path, "-l", "learner03", "-e", "grade_strict=true")
    assert result.returncode == 3  # learners failing, every host graded (README.md, "Exit codes")
    assert "Strict mode: failing checks for 1 of 1 graded learners: learner03. See " in result.stdout
    assert states(grades) == {"learner03": ("graded", None)}


def test_strict_mode_on_the_class_names_the_failing_learners_on_the_controller(demo_class, tmp_path):
    """Strict mode failed on learner01, who passed everything (issue 19)."""
    result, _ = run_grade(demo_class, tmp_path, "-e", "grade_strict=true", "-e", "grade_allow_host_errors=true")
    assert result.returncode == 3
    assert ("Strict mode: failing checks for 4 of 6 graded learners: learner02, learner03, learner04, learner05. "
            "See ") in result.stdout
    recap = {line.split()[0]: line for line in result.stdout.splitlines() if " : ok=" in line}
    assert "failed=1" in recap["localhost"] and "failed=0" in recap["learner01"], recap


def test_strict_mode_passes_a_perfect_learner(demo_class, tmp_path):
    result, _ = run_grade(demo_class, tmp_path, "-l", "learner01", "-e", "grade_strict=true")
    assert result.returncode == 0, result.stdout[-3000:]


def requests_sent(demo_class):
    return sum(len(log.read_text().splitlines()) for log in demo_class.glob("*/requests.log") if log.exists())


def test_bad_settings_fail_once_before_any_vm_is_touched(demo_class, tmp_path):
    before = requests_sent(demo_class)
    result, grades = run_grade(demo_class, tmp_path, "-e", "lab_enrolled=capa-sr,cgoa-ci", "-e", "lab_lang=jp",
                               "-e", "grade_report_lang=fr")
    assert result.returncode == 5  # settings refused
    assert grades is None
    assert requests_sent(demo_class) == before
    assert ("Grading settings: grade_report_lang 'fr' is not one of en, ja, ko | lab_enrolled: unknown lab capa-sr "
            f"(did you mean capa-src?); known labs: {', '.join(sorted(LABS))} (hosts: learner01, learner02, learner03, "
            "learner04, learner05 and 3 more) | lab_lang 'jp' is not one of en, ja, ko (did you mean ja?) (hosts: "
            "learner01, learner02, learner03, learner04, learner05 and 3 more)") in result.stdout
    assert "TASK [Grade the enrolled labs]" not in result.stdout
    recap = {line.split()[0]: line for line in result.stdout.splitlines() if " : ok=" in line}
    assert list(recap) == ["localhost"] and "failed=1" in recap["localhost"], recap  # the controller's, not learner01's


def test_an_instructors_slip_in_a_site_or_run_setting_is_refused_before_any_vm(demo_class, tmp_path):
    """A relative workspace root graded finished work 52/104; a settle timeout of abc failed every
    host and still wrote a report; grade_strict=ture was silently false (issue 19)."""
    before = requests_sent(demo_class)
    result, grades = run_grade(demo_class, tmp_path, "-e", "lab_workspace_root=relative/path",
                               "-e", "grade_settle_timeout=abc", "-e", "grade_strict=ture")
    assert result.returncode == 5, result.stdout[-3000:]
    assert grades is None
    assert requests_sent(demo_class) == before
    assert ("Grading settings: grade_settle_timeout 'abc' is not a number of seconds from 0 to 600 | "
            "grade_strict 'ture' is not a boolean (true or false) | lab_workspace_root 'relative/path' is not "
            "an absolute path (hosts: learner01, learner02, learner03, learner04, learner05 and 3 more)"
            ) in result.stdout
    assert "TASK [Grade the enrolled labs]" not in result.stdout


def test_a_class_without_learners_fails_with_the_reason(tmp_path):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  hosts:\n    somehost: {}\n")
    result = subprocess.run(["ansible-playbook", "-i", str(inventory), "grade.yml"], cwd=REPO_ROOT,
                            env={**os.environ, "ANSIBLE_NOCOLOR": "1",
                                 "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 5
    assert "no hosts to grade: the inventory has no host in group 'learners' (or -l matched none)" in result.stdout


def test_the_example_inventory_is_refused_with_the_reason_before_any_ssh(tmp_path):
    """inventory/class (192.0.2.x) was graded for 14 s of SSH timeouts without a word (issue 19)."""
    result = subprocess.run(["ansible-playbook", "grade.yml", "-e", f"grade_report_dir={tmp_path}"], cwd=REPO_ROOT,
                            env={**os.environ, "ANSIBLE_NOCOLOR": "1",
                                 "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 5, result.stdout[-3000:]
    assert ("ansible_host is an example address of the documentation networks (RFC 5737, 3849): the inventory "
            "still holds the example class; put your VMs' addresses there (hosts: learner01, ") in result.stdout
    assert "TASK [Grade the enrolled labs]" not in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_reports_default_to_the_project_root(demo_class):
    env = {**os.environ, "LAB_DEMO_ROOT": str(demo_class), "ANSIBLE_NOCOLOR": "1",
           "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
    result = subprocess.run(["ansible-playbook", "-i", "inventory/demo", "grade.yml", "-l", "learner02"],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:]
    assert f"report: {REPO_ROOT}/reports/" in result.stdout
    assert not (REPO_ROOT / "playbooks" / "reports").exists()
