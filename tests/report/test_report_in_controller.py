"""grade.yml's report path (issue 23): lab_grade returns its lab results as one JSON string
(labs_as_json) and the report, built in the controller's process from what each host registered,
is the report the lab results as a mapping give, byte for byte."""

from __future__ import annotations

import json

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import runner
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build
from report_sample import NOW, registry_result

from tests.conftest import load_plugin

grading_filter = load_plugin("plugins/filter/grading.py", "grading_filter_in_controller")

ENROLLED = {"learner01": ["capa-src", "cgoa-ci"], "learner02": ["capa-src", "cgoa-ci"]}


def lab_results(lang):
    return {"capa-src": registry_result(LABS["capa-src"], lang, {LABS["capa-src"].checks[2].id: "FAIL"}),
            "cgoa-ci": registry_result(LABS["cgoa-ci"], lang)}


def module_result(labs, as_json):
    """A lab_grade result as Ansible registers it (it crossed as JSON)."""
    result = {"changed": False, "state": "graded", "error": None, "health": {"healthy": True}}
    if as_json:
        result["labs_json"] = json.dumps(labs, ensure_ascii=False, separators=(",", ":"))
    else:
        result["labs"] = labs
    return json.loads(json.dumps(result))


def report(as_json):
    hostvars = {"learner01": {"grade_result": module_result(lab_results("en"), as_json)},
                "learner02": {"grade_result": module_result(lab_results("ja"), as_json), "lab_lang": "ja",
                              "lab_learner_id": "l02@school.example"}}
    records = grading_filter.grade_records(hostvars, list(hostvars))
    return build.build_report(records, hosts=list(hostvars), now=NOW, report_dir="/reports/x", enrolled=ENROLLED)


def test_lab_results_as_one_json_string_make_the_same_report_byte_for_byte():
    as_mapping, as_string = report(as_json=False), report(as_json=True)
    assert as_string["contents"] == as_mapping["contents"]
    assert as_string["matrix"] == as_mapping["matrix"]
    assert as_string["counts"]["hosts_graded"] == 2


@pytest.mark.parametrize("labs_json", ["{not json", ""])
def test_lab_results_that_are_not_json_are_an_error_of_the_grader(labs_json):
    record = grading_filter.grade_record({"state": "graded", "labs_json": labs_json}, "learner01")
    assert record["state"] == "error" and record["labs"] == {}
    assert record["error"]["kind"] == "grader"
    assert record["error"]["message"].startswith("the lab results are not JSON: ")


class Exited(Exception):
    pass


class FakeModule:
    """AnsibleModule's surface run_lab_grade uses: params in, exit_json's keywords out."""

    def __init__(self, argument_spec, supports_check_mode):
        self.params = {name: spec.get("default") for name, spec in argument_spec.items()}
        self.params.update(labs=["capa-src"], labs_as_json=FakeModule.labs_as_json)

    def fail_json(self, **result):
        raise AssertionError(result)

    def exit_json(self, **result):
        raise Exited(result)


@pytest.mark.parametrize("as_json", [True, False])
def test_lab_grade_returns_the_labs_as_one_string_only_when_asked(monkeypatch, as_json):
    labs = lab_results("en")
    monkeypatch.setattr(runner, "option_problem", lambda params: None)
    monkeypatch.setattr(runner, "grade_host", lambda params: {"state": "graded", "error": None, "health": None,
                                                               "labs": labs})
    monkeypatch.setattr(FakeModule, "labs_as_json", as_json, raising=False)
    with pytest.raises(Exited) as exited:
        runner.run_lab_grade(FakeModule)
    (result,) = exited.value.args
    if as_json:
        assert "labs" not in result and json.loads(result["labs_json"]) == labs
    else:
        assert "labs_json" not in result and result["labs"] == labs
