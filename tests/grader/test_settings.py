"""settings.py: a run's settings checked once, every problem with its hosts and a "did you mean"."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import enrolled, settings_problems


def test_good_settings_have_no_problem():
    assert settings_problems({"l1": {"labs": ["capa-src", "cgoa-ci"], "lang": "ja"}}, "en", "learners") == []


def test_each_problem_once_with_its_hosts():
    hosts = {f"l{i}": {"labs": "capa-sr, cgoa-ci", "lang": "kr"} for i in range(7)}
    assert settings_problems(hosts, "en", "learners") == [
        "lab_enrolled: unknown lab capa-sr (did you mean capa-src?); known labs: capa-src, cgoa-ci "
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
