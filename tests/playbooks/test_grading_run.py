"""plugins/plugin_utils/grading_run.py: the run's hosts and their settings, read by the controller's
action plugins in Python, each host's variables once (issue 23: templating them into lab_settings'
arguments took 169 s at N = 1,000, a scan of a lazy list per host)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.grading_run import class_settings, grading_options, run_hosts

REPO = Path(__file__).parents[2]
GROUPS = {"all": ["localhost", "learner01", "learner02", "learner03", "other"], "ungrouped": ["other"],
          "learners": ["learner03", "learner01", "learner02"]}


def test_the_run_is_the_groups_hosts_the_limit_keeps_in_the_inventorys_order():
    task_vars = {"groups": GROUPS}
    assert run_hosts("learners", None, DataLoader(), task_vars) == ["learner03", "learner01", "learner02"]
    assert run_hosts("learners", "learner02,learner03,other", DataLoader(), task_vars) == ["learner03", "learner02"]
    assert run_hosts("learners", "~learner0[12]", DataLoader(), task_vars) == ["learner01", "learner02"]
    assert run_hosts("learners", "nobody", DataLoader(), task_vars) == []
    assert run_hosts("learners:!learner01", "all", DataLoader(), task_vars) == ["learner03", "learner02"]


class CountingHostvars(Mapping):
    """hostvars that count how often each host's variables are built (Ansible's HostVars builds a
    host's whole variable set on each hostvars[host])."""

    def __init__(self, hosts):
        self.hosts, self.reads = hosts, Counter()

    def __getitem__(self, host):
        self.reads[host] += 1
        return self.hosts[host]

    def __iter__(self):
        return iter(self.hosts)

    def __len__(self):
        return len(self.hosts)


def test_each_hosts_settings_read_once_and_the_run_wide_ones_as_the_first_learner_sees_them():
    hostvars = CountingHostvars({
        "learner01": {"lab_enrolled": "capa-src,cgoa-ci", "lab_lang": "ja", "ansible_host": "192.0.2.11",
                      "lab_workspace_root": "/home/l1", "grade_strict": "ture", "grade_report_lang": "ko",
                      "grade_settle_timeout": 0},
        "learner02": {"ansible_host": "10.0.0.2", "grade_strict": True},
        "learner03": {"lab_lang": "en"},
    })
    settings = class_settings(hostvars, ["learner01", "learner02"])
    assert settings == {
        "hosts": {"learner01": {"labs": "capa-src,cgoa-ci", "lang": "ja"},
                  "learner02": {"labs": ["capa-src"], "lang": "en"}},
        "sites": {"learner01": {"workspace_root": "/home/l1"}, "learner02": {}},
        "addresses": {"learner01": "192.0.2.11", "learner02": "10.0.0.2"},
        "run": {"grade_settle_timeout": 0, "grade_poll_interval": 5, "grade_task_timeout": 300, "grade_time_budget": 240,
                "grade_strict": "ture", "grade_allow_host_errors": False},
        "report_lang": "ko",
    }
    assert hostvars.reads == {"learner01": 1, "learner02": 1}


def test_a_run_without_hosts_has_the_defaults():
    assert class_settings(CountingHostvars({}), []) == {"hosts": {}, "sites": {}, "addresses": {}, "run": {},
                                                        "report_lang": "en"}


def test_a_pushing_vm_is_told_what_grade_yml_gives_lab_grade():
    """grade-push tells each VM grading_options; grade.yml's task gives lab_grade its arguments:
    the same options, each from the same variable with the same default (grade_time_budget was
    grade.yml's alone)."""
    play = yaml.safe_load((REPO / "playbooks" / "grade.yml").read_text())
    task = next(task for p in play for task in p.get("tasks", []) if "gitops_lab.grader.lab_grade" in task)
    # labs: its filter is grading_options' enrolled_labs; labs_as_json shapes only what Ansible returns
    arguments = {name: value for name, value in task["gitops_lab.grader.lab_grade"].items()
                 if name not in ("labs", "labs_as_json")}
    assert set(arguments) | {"labs"} == set(grading_options({}))
    for variables in ({}, {"grade_settle_timeout": 12, "grade_poll_interval": 2, "grade_time_budget": 1500,
                           "lab_lang": "ko"}):
        templar = Templar(loader=DataLoader(), variables=variables)
        told = grading_options(variables)
        assert {name: str(templar.template(trust_as_template(value))) for name, value in arguments.items()} == {
            name: str(told[name]) for name in arguments}
