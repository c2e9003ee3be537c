"""End to end: ansible-playbook with the project's ansible.cfg, the grade_report module and the
grade_matrix callback; one learner unreachable, one that never sets its record."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from report_sample import record, registry_result

from tests.conftest import REPO_ROOT

ANSIBLE_PLAYBOOK = REPO_ROOT / ".venv" / "bin" / "ansible-playbook"
HTML_DIR = REPO_ROOT / "plugins/module_utils/labgrader/report/formats/html"

PLAYBOOK = """
- name: Grade
  hosts: learners
  strategy: free
  tasks:
    - name: Reach the host
      ansible.builtin.ping:
    - name: Record the grade
      ansible.builtin.set_fact:
        grade_record: "{{ sample[inventory_hostname] }}"
      when: inventory_hostname in sample

- name: Report
  hosts: learners
  tasks:
    - name: CHECK write the class report
      grade_report:
        records: >-
          {{ ansible_play_hosts_all | map('extract', hostvars)
             | selectattr('grade_record', 'defined') | map(attribute='grade_record') | list }}
        hosts: "{{ ansible_play_hosts_all }}"
        enrolled: "{{ hostvars | grade_settings(ansible_play_hosts_all) }}"
        class_hosts: "{{ query('ansible.builtin.inventory_hostnames', 'learners') }}"
        output_dir: "{{ report_dir }}"
        lang: ja
      delegate_to: localhost
      run_once: true
      register: class_report
    - name: Why the records expression uses selectattr (this form fails when a record is missing)
      ansible.builtin.debug:
        msg: "{{ ansible_play_hosts_all | map('extract', hostvars) | map(attribute='grade_record', default=None) | list }}"
      run_once: true
      ignore_errors: true
"""


@pytest.mark.playbook
@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="no .venv/bin/ansible-playbook")
def test_playbook_writes_the_report_and_prints_the_matrix(tmp_path):
    capa, cgoa = LABS["capa-src"], LABS["cgoa-ci"]
    sample = {
        "learner01": record("learner01", "en", {"capa-src": registry_result(capa), "cgoa-ci": registry_result(cgoa)}),
        "learner02": record("learner02", "ja", {
            "capa-src": registry_result(capa, "ja", {"capa-src.2.precedence-replicas": "FAIL",
                                                     "capa-src.3.helm-release-secrets": "PENDING"}),
            "cgoa-ci": registry_result(cgoa, "ja")}),
        "learner04": record("learner04", "ko", {"capa-src": registry_result(capa, "ko"),
                                                "cgoa-ci": registry_result(cgoa, "ko", {"cgoa-ci.3.role": "FAIL"})}),
        "learner10": record("learner10", "en", {"capa-src": registry_result(capa)}),
    }
    local = f"ansible_connection=local ansible_python_interpreter={sys.executable}"
    enrolled = {"learner10": "lab_enrolled=capa-src", "learner11": "lab_enrolled=capa-src"}
    hosts = [f"{name} {local} {enrolled.get(name, 'lab_enrolled=capa-src,cgoa-ci')}"
             for name in ("learner01", "learner02", "learner04", "learner10", "learner11")]
    # learner03: nothing listens on port 1, so ssh fails at once -> unreachable, no record
    hosts.append("learner03 ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh")
    (tmp_path / "inventory.ini").write_text("[learners]\n" + "\n".join(hosts) + "\n")
    (tmp_path / "grade.yml").write_text(textwrap.dedent(PLAYBOOK))
    (tmp_path / "vars.json").write_text(json.dumps({"sample": sample, "report_dir": str(tmp_path / "reports")}))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0",
               ANSIBLE_NOCOLOR="1", ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"),
               ANSIBLE_CONTROL_PATH_DIR=str(tmp_path / "cp"))
    command = [str(ANSIBLE_PLAYBOOK), "-i", str(tmp_path / "inventory.ini"), "-e", f"@{tmp_path / 'vars.json'}",
               str(tmp_path / "grade.yml")]
    proc = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    out = proc.stdout
    assert "learner03" in out and "UNREACHABLE" in out, out + proc.stderr
    # the callback printed the matrix raw (real newlines and symbols, not a JSON string)
    assert "\nhost       capa-src  cgoa-ci   score\n" in out, out
    total = len(capa.checks) + len(cgoa.checks)
    assert f"\nlearner02  ✓✗⋯✓✓✓✓✓  ✓✓✓✓✓✓✓✓  {total - 2}/{total}\n" in out, out
    assert f"\nlearner10  ✓✓✓✓✓✓✓✓  ∙∙∙∙∙∙∙∙  {len(capa.checks)}/{len(capa.checks)}\n" in out, out
    assert "learner03  ! grader error: the host produced no grading record" in out, out
    assert "learner11  ! grader error: the host produced no grading record" in out, out
    latest = tmp_path / "reports" / "latest"
    assert latest.is_symlink()
    grades = json.loads((latest / "grades.json").read_text(encoding="utf-8"))
    assert [h["host"] for h in grades["hosts"]] == [
        "learner01", "learner02", "learner03", "learner04", "learner10", "learner11"]
    assert [h["host"] for h in grades["hosts"] if h["state"] == "error"] == ["learner03", "learner11"]
    assert (latest / "junit.xml").exists() and (latest / "index.html").exists()
    # the page's template, CSS and JS reached the module through AnsiballZ (html_assets.py)
    page = (latest / "index.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<tbody id=\"rows\">" in page
    assert f"<style>\n{(HTML_DIR / 'report.css').read_text(encoding='utf-8')}</style>" in page
    assert f"<script>\n{(HTML_DIR / 'report.js').read_text(encoding='utf-8')}</script>" in page
    # on ansible-core 2.21 map(attribute=..., default=None) does not help: the task fails
    assert "has no attribute 'grade_record'" in out + proc.stderr
    # the run itself failed only because a host was unreachable (rc 4), never for learner results
    assert proc.returncode == 4, out + proc.stderr

    # --check: nothing is written and no report path is printed
    checked = subprocess.run([*command, "--check", "-l", "learner02"], cwd=REPO_ROOT, env=env, capture_output=True,
                             text=True, timeout=300, check=False)
    assert "\nreport: not written (check mode)\n" in checked.stdout, checked.stdout + checked.stderr
    assert len(os.listdir(tmp_path / "reports")) == 2  # one report folder and latest
    # -l learner02: merged into the class view, which latest keeps showing
    partial = subprocess.run([*command, "-l", "learner02"], cwd=REPO_ROOT, env=env, capture_output=True,
                             text=True, timeout=300, check=False)
    assert "\npartial run: graded learner02; latest shows the class view merged with it\n" in partial.stdout, (
        partial.stdout + partial.stderr)
    assert "  5 learners carried over unchanged from " in partial.stdout
    grades = json.loads((latest / "grades.json").read_text(encoding="utf-8"))
    assert [h["host"] for h in grades["hosts"]] == [
        "learner01", "learner02", "learner03", "learner04", "learner10", "learner11"]
    assert grades["run"]["scope"] == "partial" and grades["run"]["graded"] == ["learner02"]
    shutil.rmtree(tmp_path / "cp", ignore_errors=True)
