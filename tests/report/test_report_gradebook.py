"""Gradebook export (issue 19 §2): the inventory's lab_learner_id, a percent per lab and overall
in grades.csv, and checks.csv, one row per check."""

from __future__ import annotations

import csv
import io
import json

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import history
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.build import build_report
from report_sample import NOW, capa, cgoa, check, class_records, record

from tests.conftest import load_plugin

grading_filter = load_plugin("plugins/filter/grading.py", "grading_filter_gradebook")
pytestmark = pytest.mark.usefixtures("sample_registry")


def table(text):
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:])))


def with_ids(records):
    for rec, learner_id in zip(records, ["a01@school.example", 20261, None, "=cmd", "x" * 400], strict=True):
        if learner_id is not None:
            rec["learner_id"] = learner_id
    return records


def test_the_records_carry_the_inventorys_learner_id():
    hostvars = {
        "learner01": {"grade_result": {"state": "graded", "labs": {}}, "lab_learner_id": "a01@school.example"},
        "learner02": {"grade_result": {"state": "graded", "labs": {}}, "lab_learner_id": 42},
        "learner03": {"grade_result": {"state": "graded", "labs": {}}},
    }
    records = grading_filter.grade_records(hostvars, ["learner01", "learner02", "learner03"])
    assert [r.get("learner_id") for r in records] == ["a01@school.example", "42", None]


def test_grades_csv_has_the_learner_id_and_a_percent_per_lab_and_overall():
    rows = table(build_report(with_ids(class_records()), now=NOW)["contents"]["grades.csv"])
    head = rows[0]
    assert head[:3] == ["learner", "learner_id", "lang"]
    got = {
        r[0]: (r[1], r[head.index("percent")], r[head.index("capa-src percent")], r[head.index("cgoa-ci percent")])
        for r in rows[1:]
    }
    assert got == {
        "learner01": ("a01@school.example", "100.0", "100.0", "100.0"),
        "learner02": ("20261", "75.0", "60.0", "100.0"),
        "learner03": ("", "", "", ""),
        "learner04": ("'=cmd", "87.5", "100.0", "66.7"),
        "learner10": ("x" * 320, "100.0", "100.0", ""),
    }


def test_the_learner_id_survives_the_next_run_in_grades_json():
    first = build_report(with_ids(class_records()), now=NOW)
    back = history.hosts_from_grades(json.loads(first["contents"]["grades.json"]))
    assert [h["learner_id"] for h in back] == ["a01@school.example", "20261", "", "=cmd", "x" * 320]


def test_checks_csv_one_row_per_check_and_one_per_host_or_lab_in_error():
    records = with_ids(class_records())
    records[4]["labs"]["cgoa-ci"] = {"failed": True, "msg": "boom"}
    rows = table(build_report(records, now=NOW)["contents"]["checks.csv"])
    assert rows[0] == [
        "learner",
        "learner_id",
        "lang",
        "graded_at",
        "lab",
        "lab_state",
        "step",
        "check",
        "status",
        "message",
        "expected",
        "found",
    ]
    assert len(rows) == 1 + 8 + 8 + 1 + 8 + 5 + 1
    fail = next(r for r in rows if r[0] == "learner02" and r[8] == "FAIL")
    assert fail == [
        "learner02",
        "20261",
        "ja",
        "2026-11-30T05:12:00Z",
        "capa-src",
        "started",
        "2",
        "capa-src.2.precedence-replicas",
        "FAIL",
        fail[9],
        "3",
        "2",
    ]
    assert [r for r in rows if r[0] == "learner03"] == [
        [
            "learner03",
            "",
            "en",
            "2026-11-30T05:12:00Z",
            "",
            "error",
            "",
            "",
            "ERROR",
            "unreachable: ssh: connect to host 10.0.0.3 port 22: timed out",
            "",
            "",
        ]
    ]
    assert [r[4:10] for r in rows if r[0] == "learner10" and r[8] == "ERROR"] == [
        ["cgoa-ci", "error", "", "", "ERROR", "grader error: the grading module failed: boom"]
    ]


def test_checks_csv_says_a_lab_is_not_started():
    idle = cgoa(
        step2=[
            check("cgoa-ci", 2, "ci-cannot-write-prod", "FAIL", key="file_missing"),
            check("cgoa-ci", 2, "ci-can-write-dev", "FAIL", key="file_missing"),
        ]
    )
    for step in idle["steps"]:
        for chk in step["checks"]:
            chk.update(status="FAIL", message_key="file_missing")
    rows = table(build_report([record("a", "en", {"capa-src": capa(), "cgoa-ci": idle})], now=NOW)["contents"]["checks.csv"])
    assert {(r[4], r[5]) for r in rows[1:]} == {("capa-src", "started"), ("cgoa-ci", "not_started")}
