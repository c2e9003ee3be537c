"""The controller trusts nothing it did not expect (issue 16): a host's result holds exactly the
labs it is enrolled in and the steps and checks the controller's registry declares, or the host is
an ERROR "result rejected: ..."; no host's result changes another row or the report's columns."""

from __future__ import annotations

import copy
import json

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import limits, verdict, vocabulary
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build, normalize, validate, views
from report_sample import NOW, registry_result

from tests.conftest import load_plugin
from tests.grader.conftest import host_collector

grading_filter = load_plugin("plugins/filter/grading.py", "grading_filter_under_test")

CAPA, CGOA = LABS["capa-src"], LABS["cgoa-ci"]
BOTH = ["capa-src", "cgoa-ci"]
FIRST_CAPA = CAPA.checks[0].id  # capa-src.1.bare-repo


def graded(host, lang, labs):
    """The host record grade.yml builds from a lab_grade result that crossed Ansible as JSON."""
    result = json.loads(json.dumps({"changed": False, "state": "graded", "error": None, "labs": labs}))
    return grading_filter.grade_record(result, host, lang)


def solved(host="learner09", lang="en", labs=BOTH):
    return graded(host, lang, {lab_id: registry_result(LABS[lab_id], lang) for lab_id in labs})


def rejection(record, enrolled=BOTH):
    (host,) = normalize.normalize_records([record], enrolled={record["host"]: enrolled})
    assert host["state"] == "error" and host["error"]["kind"] == "grader" and host["labs"] == {}
    return host["error"]["message"]


def capa_checks(record):
    return [c for s in record["labs"]["capa-src"]["steps"] for c in s["checks"]]


def refresh(lab_result):
    """Statuses and summary recomputed after a forgery changed checks, so that only the
    forgery itself is wrong."""
    for step in lab_result["steps"]:
        step["status"] = vocabulary.worst(c["status"] for c in step["checks"])
    lab_result["status"] = vocabulary.worst(s["status"] for s in lab_result["steps"])
    lab_result["summary"] = verdict.summarize([c for s in lab_result["steps"] for c in s["checks"]])


# --- genuine results pass -------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_records(fake_api):
    """lab_grade's results for three learners of the demo class (fixtures/worlds/demo/class.yaml),
    graded for real against the fake API server."""
    learners = {"learner01": ("demo/both-golden.yaml", "en", BOTH),
                "learner02": ("capa-src/half-done.yaml", "ja", ["capa-src"]),
                "learner03": ("demo/both-mistakes.yaml", "ko", BOTH)}
    records, enrolled = [], {}
    for host, (world, lang, labs) in learners.items():
        host_dir = fake_api.world(world)
        results = {lab_id: grade(LABS[lab_id], host_collector(host_dir, lab_id), lang, settle_seconds=0,
                                 poll_seconds=0.1) for lab_id in labs}
        records.append(graded(host, lang, results))
        enrolled[host] = labs
    return records, enrolled


def test_genuine_demo_results_pass_validation(demo_records):
    records, enrolled = demo_records
    for record in records:
        assert validate.result_problem(record, enrolled[record["host"]]) is None, record["host"]
    hosts = normalize.normalize_records(records, enrolled=enrolled)
    capa, both = len(LABS["capa-src"].checks), len(LABS["capa-src"].checks) + len(LABS["cgoa-ci"].checks)
    assert [(h["host"], h["state"], views.host_score(h)["total"]) for h in hosts] == [
        ("learner01", "graded", both), ("learner02", "graded", capa), ("learner03", "graded", both)]
    assert views.host_score(hosts[0]) == {"passed": both, "total": both}
    assert hosts == normalize.normalize_records(records)  # validation changes nothing that passes it


def test_a_solved_result_of_the_real_registry_passes():
    assert validate.result_problem(solved(), BOTH) is None
    assert validate.result_problem(solved(lang="ja"), BOTH) is None


# --- forged results are rejected, with the first reason ---------------------------------------


def extra_lab(record):
    record["labs"]["zzz-lab"] = copy.deepcopy(record["labs"]["capa-src"])


def extra_check(record):
    step1 = record["labs"]["capa-src"]["steps"][0]
    step1["checks"].append(dict(step1["checks"][0], check="capa-src.1.forged"))
    refresh(record["labs"]["capa-src"])


def renamed_title(record):
    record["labs"]["capa-src"]["steps"][0]["title"] = "Everyone passes"


def bad_status(record):
    capa_checks(record)[0]["status"] = "pass"


def summary_disagrees(record):
    for check in capa_checks(record):
        check["status"] = "FAIL"
    refresh(record["labs"]["capa-src"])
    record["labs"]["capa-src"]["summary"] = {"PASS": 56, "FAIL": 0, "PENDING": 0, "ERROR": 0, "total": 56}


def step_status_disagrees(record):
    capa_checks(record)[0]["status"] = "FAIL"


def lab_status_disagrees(record):
    capa_checks(record)[0]["status"] = "FAIL"
    refresh(record["labs"]["capa-src"])
    record["labs"]["capa-src"]["status"] = "PASS"


def huge_message(record):
    capa_checks(record)[0]["message"] = "x" * (1024 * 1024)


def huge_found(record):
    capa_checks(record)[0]["found"] = {"log": "y" * (3 * limits.BOUND_STRING)}


def deep_expected(record):
    value = "bottom"
    for _ in range(limits.BOUND_DEPTH + 5):
        value = [value]
    capa_checks(record)[0]["expected"] = value


def missing_check(record):
    del record["labs"]["capa-src"]["steps"][0]["checks"][0]
    refresh(record["labs"]["capa-src"])


def duplicate_check(record):
    step1 = record["labs"]["capa-src"]["steps"][0]
    step1["checks"].append(step1["checks"][0])
    refresh(record["labs"]["capa-src"])


def check_in_another_step(record):
    steps = record["labs"]["capa-src"]["steps"]
    steps[1]["checks"].append(steps[0]["checks"].pop(0))
    refresh(record["labs"]["capa-src"])


def missing_step(record):
    del record["labs"]["capa-src"]["steps"][7]
    refresh(record["labs"]["capa-src"])


def extra_step(record):
    record["labs"]["capa-src"]["steps"].append({"step": 9, "title": "Bonus", "status": "PASS", "checks": []})


def string_step_number(record):
    record["labs"]["capa-src"]["steps"][0]["step"] = "1"


def missing_lab(record):
    del record["labs"]["cgoa-ci"]


def message_not_a_string(record):
    capa_checks(record)[0]["message"] = ["ok"]


def lab_result_without_steps(record):
    record["labs"]["cgoa-ci"] = {"failed": True, "msg": "everything passed"}


@pytest.mark.parametrize("forge, message", [
    (extra_lab, "result rejected: lab zzz-lab is not enrolled on this host"),
    (extra_check, "result rejected: lab capa-src has no check capa-src.1.forged"),
    (renamed_title, "result rejected: lab capa-src step 1 is titled 'Everyone passes', "
                    "not 'Application src-helm deploying the chart charts/web from git'"),
    (bad_status, f"result rejected: check {FIRST_CAPA} has status 'pass', not one of PASS, FAIL, PENDING, ERROR"),
    (summary_disagrees, "result rejected: lab capa-src has summary "
                        "{'PASS': 56, 'FAIL': 0, 'PENDING': 0, 'ERROR': 0, 'total': 56}, but its checks give "
                        "{'PASS': 0, 'FAIL': 56, 'PENDING': 0, 'ERROR': 0, 'total': 56}"),
    (step_status_disagrees, "result rejected: lab capa-src step 1 has status 'PASS', but its checks give FAIL"),
    (lab_status_disagrees, "result rejected: lab capa-src has status 'PASS', but its steps give FAIL"),
    (huge_message, f"result rejected: check {FIRST_CAPA}: message has 1048576 characters, more than 40960"),
    (huge_found, f"result rejected: check {FIRST_CAPA}: found is larger or deeper than the grader returns"),
    (deep_expected, f"result rejected: check {FIRST_CAPA}: expected is larger or deeper than the grader returns"),
    (missing_check, f"result rejected: lab capa-src has no result for check {FIRST_CAPA}"),
    (duplicate_check, f"result rejected: lab capa-src has check {FIRST_CAPA} twice"),
    (check_in_another_step, f"result rejected: check {FIRST_CAPA} is in step 2, but lab capa-src declares it "
                            "in step 1"),
    (missing_step, "result rejected: lab capa-src has no step 8"),
    (extra_step, "result rejected: lab capa-src has no step 9"),
    (string_step_number, "result rejected: lab capa-src has no step '1'"),
    (missing_lab, "result rejected: lab cgoa-ci has no result"),
    (message_not_a_string, f"result rejected: check {FIRST_CAPA}: message is not a string"),
    (lab_result_without_steps, "result rejected: lab cgoa-ci has no steps list"),
])
def test_a_forged_result_becomes_a_grader_error(forge, message):
    record = solved()
    forge(record)
    assert rejection(record) == message


def test_a_lab_the_host_is_not_enrolled_in_is_rejected():
    assert rejection(solved(), enrolled=["capa-src"]) == "result rejected: lab cgoa-ci is not enrolled on this host"


def test_a_host_the_controller_did_not_enrol_is_rejected():
    (host,) = normalize.normalize_records([solved("stranger")], enrolled={"learner09": BOTH})
    assert host["error"]["message"] == "result rejected: the host is not enrolled in any lab"


def test_a_host_error_larger_than_a_grading_run_returns_is_rejected():
    record = grading_filter.grade_record({"state": "error", "error": {"kind": "health", "message": "z" * 50_000}},
                                         "learner09")
    assert rejection(record) == "result rejected: the error message has 50000 characters, more than 40960"
    record["error"]["message"] = "the API server does not answer"
    (host,) = normalize.normalize_records([record], enrolled={"learner09": BOTH})
    assert host["error"] == {"kind": "health", "message": "the API server does not answer", "details": {}}


# --- one host's result changes nothing else ---------------------------------------------------


def the_class():
    learners = [solved("learner01", "en", ["capa-src"]), solved("learner02", "ja", ["capa-src"])]
    learners[1]["labs"]["capa-src"] = registry_result(CAPA, "ja", {FIRST_CAPA: "FAIL"})
    return learners


def test_a_forged_host_changes_no_other_row_and_no_column():
    """The attack of issue 16: an empty learner enrolled in capa-src sends a solved VM's result
    for both labs with step 1 renamed."""
    enrolled = {"learner01": ["capa-src"], "learner02": ["capa-src"], "learner03": ["capa-src"]}
    forged = solved("learner03", "en", BOTH)
    forged["labs"]["capa-src"]["steps"][0]["title"] = "Forged"
    honest = build.build_report(the_class(), enrolled=enrolled, now=NOW)
    attacked = build.build_report([*the_class(), forged], enrolled=enrolled, now=NOW)
    assert attacked["grades"]["labs"] == honest["grades"]["labs"]
    assert [lab["id"] for lab in attacked["grades"]["labs"]] == ["capa-src"]
    assert attacked["grades"]["labs"][0]["steps"][0]["titles"] == CAPA.step_titles[1]
    rows = {h["host"]: h for h in attacked["grades"]["hosts"]}
    assert rows.pop("learner03")["error"] == {
        "kind": "grader", "message": "result rejected: lab cgoa-ci is not enrolled on this host", "details": {}}
    assert list(rows.values()) == honest["grades"]["hosts"]
    assert [r for r in attacked["grades"]["records"] if r["host"] != "learner03"] == honest["grades"]["records"]
    assert attacked["contents"]["grades.csv"].splitlines()[0] == honest["contents"]["grades.csv"].splitlines()[0]


def test_columns_follow_the_registry_not_a_result():
    """Labs in the registry's order and titles in every language from it, whatever order and
    language the graded hosts have."""
    record = solved("learner01", "ko", BOTH)
    record["labs"] = dict(reversed(record["labs"].items()))
    (host,) = normalize.normalize_records([record], enrolled={"learner01": BOTH})
    columns = views.lab_columns([host])
    assert [c["id"] for c in columns] == BOTH
    assert [s["titles"] for s in columns[1]["steps"]] == [CGOA.step_titles[n] for n in sorted(CGOA.step_titles)]
    assert columns[0]["steps"][0]["title"] == "Application src-helm deploying the chart charts/web from git"


# --- the module -------------------------------------------------------------------------------


def test_the_module_reports_a_rejected_host_and_refuses_bad_enrolment(tmp_path, capsys):
    from ansible.module_utils.testing import patch_module_args

    grade_report = load_plugin("plugins/modules/grade_report.py", "grade_report_validation")
    forged = solved("learner03")
    forged["labs"]["capa-src"]["steps"][0]["title"] = "Forged"

    def run(enrolled):
        args = {"records": [solved("learner01"), forged], "output_dir": str(tmp_path), "enrolled": enrolled,
                "_ansible_check_mode": True}
        with patch_module_args(args), pytest.raises(SystemExit):
            grade_report.main()
        return json.loads(capsys.readouterr().out)

    settings = grading_filter.grade_settings({"learner01": {"lab_enrolled": "capa-src, cgoa-ci"},
                                              "learner03": {"lab_enrolled": BOTH}}, ["learner01", "learner03"])
    result = run(settings)
    assert result["host_errors"] == [{"host": "learner03", "kind": "grader", "message": (
        "result rejected: lab capa-src step 1 is titled 'Forged', not "
        "'Application src-helm deploying the chart charts/web from git'")}]
    assert result["counts"]["hosts_graded"] == 1
    result = run({"learner01": 7})
    assert result["failed"] is True
    assert result["msg"] == "enrolled: the labs of host learner01 are not a list or a comma-separated string: 7"
