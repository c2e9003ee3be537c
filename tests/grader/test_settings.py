"""settings.py: a run's settings checked once, every problem with its hosts and a "did you mean"."""

from __future__ import annotations

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import enrolled, settings_problems

KNOWN_LABS = ", ".join(sorted(LABS))  # as settings.unknown_lab_message lists them


def test_good_settings_have_no_problem():
    assert settings_problems({"l1": {"labs": ["capa-src", "cgoa-ci"], "lang": "ja"}}, "en", "learners") == []


def test_each_problem_once_with_its_hosts():
    hosts = {f"l{i}": {"labs": "capa-sr, cgoa-ci", "lang": "kr"} for i in range(7)}
    assert settings_problems(hosts, "en", "learners") == [
        f"lab_enrolled: unknown lab capa-sr (did you mean capa-src?); known labs: {KNOWN_LABS} "
        "(hosts: l0, l1, l2, l3, l4 and 2 more)",
        "lab_lang 'kr' is not one of en, ja, ko (did you mean ko?) (hosts: l0, l1, l2, l3, l4 and 2 more)",
    ]


def test_empty_class_and_empty_enrolment():
    assert settings_problems({}, "en", "learners") == [
        "no hosts to grade: the inventory has no host in group 'learners' (or -l matched none)"]
    assert settings_problems({"l1": {"labs": [], "lang": "en"}}, "fr", "learners") == [
        "grade_report_lang 'fr' is not one of en, ja, ko", "lab_enrolled is empty (hosts: l1)"]


def test_enrolled_accepts_a_list_or_a_comma_separated_string():
    assert enrolled(" capa-src , cgoa-ci,") == ["capa-src", "cgoa-ci"]
    assert enrolled(["capa-src"]) == ["capa-src"]


def test_a_relative_root_or_a_bad_namespace_is_the_runs_problem():
    """A relative workspace root graded finished work as FAIL (issue 19): refused before grading."""
    hosts = {"l1": {"labs": ["capa-src"], "lang": "en"}, "l2": {"labs": ["capa-src"], "lang": "en"}}
    sites = {"l1": {"workspace_root": "relative/path", "bare_root": "/srv/bare", "argocd_namespace": "Argo_CD"},
             "l2": {"workspace_root": "relative/path", "gitd_namespace": "gitsrv"}}
    assert settings_problems(hosts, "en", "learners", sites) == [
        "lab_argocd_namespace 'Argo_CD' is not a namespace name (lowercase letters, digits and '-', at most 63) "
        "(hosts: l1)",
        "lab_workspace_root 'relative/path' is not an absolute path (hosts: l1, l2)",
    ]


@pytest.mark.parametrize(("run", "problem"), [
    ({"grade_settle_timeout": "abc"}, "grade_settle_timeout 'abc' is not a number of seconds from 0 to 600"),
    ({"grade_settle_timeout": "-5"}, "grade_settle_timeout '-5' is not a number of seconds from 0 to 600"),
    ({"grade_task_timeout": "0"}, "grade_task_timeout '0' is not a number of seconds from 1 to 86400"),
    ({"grade_time_budget": "4000"}, "grade_time_budget '4000' is not a number of seconds from 1 to 3600"),
    ({"grade_time_budget": "0"}, "grade_time_budget '0' is not a number of seconds from 1 to 3600"),
    # Ansible would end the task first (the module's start comes before its clock): an ERROR host
    ({"grade_time_budget": "1500", "grade_task_timeout": 300},
     "grade_time_budget '1500' must be at least 60 s less than grade_task_timeout 300: the grading would be ended "
     "before it reports"),
    ({"grade_time_budget": 250, "grade_task_timeout": "300"},
     "grade_time_budget 250 must be at least 60 s less than grade_task_timeout '300': the grading would be ended "
     "before it reports"),
    ({"grade_poll_interval": "0", "grade_settle_timeout": "30"},
     "grade_poll_interval must be more than 0 when grade_settle_timeout is set"),
    ({"grade_strict": "ture"}, "grade_strict 'ture' is not a boolean (true or false)"),
    ({"grade_allow_host_errors": "maybe"}, "grade_allow_host_errors 'maybe' is not a boolean (true or false)"),
])
def test_every_run_wide_setting_is_checked(run, problem):
    assert settings_problems({"l1": {"labs": ["capa-src"], "lang": "en"}}, "en", "learners", run=run) == [problem]


def test_good_run_wide_settings_as_the_playbook_renders_them():
    run = {"grade_settle_timeout": "30", "grade_poll_interval": "5", "grade_task_timeout": "1800", "grade_time_budget": 1500,
           "grade_strict": "True", "grade_allow_host_errors": False}
    assert settings_problems({"l1": {"labs": ["capa-src"], "lang": "en"}}, "en", "learners", run=run) == []


def test_the_example_inventorys_documentation_addresses_are_said():
    """The example class (192.0.2.x) was graded for 14 s of SSH timeouts without a word (issue 19)."""
    hosts = {f"learner0{i}": {"labs": ["capa-src"], "lang": "en"} for i in range(1, 4)}
    addresses = {"learner01": "192.0.2.11", "learner02": "2001:db8::2", "learner03": "10.0.0.3"}
    assert settings_problems(hosts, "en", "learners", addresses=addresses) == [
        "ansible_host is an example address of the documentation networks (RFC 5737, 3849): the inventory still holds "
        "the example class; put your VMs' addresses there (hosts: learner01, learner02)"]
    assert settings_problems(hosts, "en", "learners", addresses={"learner01": "vm1.example.org",
                                                                  "learner02": None}) == []
