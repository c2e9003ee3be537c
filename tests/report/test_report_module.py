"""The grade_report module through AnsibleModule (patch_module_args + main())."""

from __future__ import annotations

import datetime
import json
import os
import xml.etree.ElementTree as ET

import pytest
import yaml
from ansible.module_utils.testing import patch_module_args
from report_sample import NOW, STAMP, capa, cgoa, check, class_records, enrolment, record

from tests.conftest import load_plugin

grade_report = load_plugin("plugins/modules/grade_report.py", "grade_report_under_test")

pytestmark = pytest.mark.usefixtures("sample_registry")


class FixedDateTime(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return NOW


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch):
    monkeypatch.setattr(grade_report.datetime, "datetime", FixedDateTime)


def run(args, capsys, check_mode=False):
    args = {"enrolled": enrolment(args["records"]), **args}
    if check_mode:
        args = dict(args, _ansible_check_mode=True)
    with patch_module_args(args), pytest.raises(SystemExit) as exc:
        grade_report.main()
    return exc.value.code, json.loads(capsys.readouterr().out)


def test_writes_the_class_files_learner_files_and_latest(tmp_path, capsys):
    out = tmp_path / "reports"
    rc, result = run({"records": class_records(), "output_dir": str(out), "lang": "ja",
                      "hosts": ["learner01", "learner02", "learner03", "learner04", "learner10"]}, capsys)
    assert rc == 0, result
    report_dir = out / STAMP
    assert result["changed"] is True
    assert result["report_dir"] == str(report_dir)
    names = ("grades.json", "grades.csv", "checks.csv", "junit.xml", "index.html")
    assert result["files"] == [str(report_dir / n) for n in names]
    assert result["index_html"] == str(report_dir / "index.html")
    assert result["latest"] == str(out / "latest")
    assert sorted(os.listdir(report_dir)) == ["checks.csv", "grades.csv", "grades.json", "index.html", "junit.xml", "learners"]
    assert sorted(os.listdir(report_dir / "learners")) == [
        "learner01.txt", "learner02.txt", "learner03.txt", "learner04.txt", "learner10.txt"]
    assert os.readlink(out / "latest") == STAMP
    assert (out / "latest" / "index.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    grades = json.loads((report_dir / "grades.json").read_text(encoding="utf-8"))
    assert grades["schema"] == "lab-grades/v1" and len(grades["records"]) == 29
    ET.parse(report_dir / "junit.xml")
    assert result["counts"] == grades["counts"]
    assert result["hosts_in_error"] == ["learner03"]
    assert result["learner_failures"] is True
    assert result["failing_learners"] == ["learner02", "learner04"]
    assert result["matrix"].endswith(f"report: {report_dir}/index.html")
    assert result["generated_at"] == "2026-11-30T05:12:00Z"
    assert (result["written"], result["scope"], result["carried_hosts"], result["changes"]) == (True, "class", [], {})


def test_check_mode_writes_nothing(tmp_path, capsys):
    out = tmp_path / "reports"
    rc, result = run({"records": class_records(), "output_dir": str(out)}, capsys, check_mode=True)
    assert rc == 0
    assert result["changed"] is True
    assert result["files"][0] == str(out / STAMP / "grades.json")
    assert "learner02" in result["matrix"]
    assert result["written"] is False
    # the path of a report that does not exist is not printed
    assert result["matrix"].endswith("\nreport: not written (check mode)")
    assert str(out) not in result["matrix"]
    assert not out.exists()


def test_second_run_in_the_same_second_and_latest_replaced(tmp_path, capsys):
    out = tmp_path / "reports"
    args = {"records": [record("a", "en", {"capa-src": capa()})], "output_dir": str(out)}
    run(args, capsys)
    rc, result = run(args, capsys)
    assert rc == 0
    assert result["report_dir"] == str(out / f"{STAMP}-2")
    assert os.readlink(out / "latest") == f"{STAMP}-2"
    assert sorted(os.listdir(out)) == [STAMP, f"{STAMP}-2", "latest"]


@pytest.fixture
def warnings(monkeypatch):
    """The module's warnings (recorded here: once the controller's Display is imported, they go to it)."""
    recorded = []
    monkeypatch.setattr(grade_report.AnsibleModule, "warn", lambda self, msg: recorded.append(msg))
    return recorded


def test_latest_that_is_a_directory_gives_a_warning(tmp_path, capsys, warnings):
    out = tmp_path / "reports"
    (out / "latest").mkdir(parents=True)
    (out / "latest" / "keep").write_text("x")
    rc, _result = run({"records": [record("a", "en", {"capa-src": capa()})], "output_dir": str(out)}, capsys)
    assert rc == 0
    assert len(warnings) == 1 and warnings[0].startswith(f"could not update {out / 'latest'}: ")
    assert (out / STAMP / "index.html").exists()
    assert sorted(os.listdir(out)) == [STAMP, "latest"]  # no temporary symlink left behind


@pytest.mark.parametrize("records", [
    [None, "UndefinedMarker", 7, {"host": "x"}, {"state": "graded", "labs": {"capa-src": "nope"}}],
    "not json at all",
    {"learner01": None},
    None,
    [],
])
def test_bad_records_give_error_rows_not_a_traceback(tmp_path, capsys, records):
    rc, result = run({"records": records, "hosts": ["learner01"], "output_dir": str(tmp_path)}, capsys)
    assert rc == 0, result
    assert "exception" not in result
    assert "learner01" in result["hosts_in_error"]
    assert result["learner_failures"] is False
    grades = json.loads((tmp_path / STAMP / "grades.json").read_text(encoding="utf-8"))
    assert all(h["state"] == "error" for h in grades["hosts"] if h["host"] != "record-5")
    assert "learner01  ! grader error: " in result["matrix"]


def test_unwritable_output_dir_fails_cleanly(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    rc, result = run({"records": [], "output_dir": str(blocker / "reports")}, capsys)
    assert rc == 1
    assert result["failed"] is True
    assert result["msg"].startswith("grade_report could not write ")
    assert "matrix" in result


def test_missing_required_options(capsys):
    rc, result = run({"records": []}, capsys)
    assert rc == 1 and "output_dir" in result["msg"]


def test_documentation_matches_argument_spec():
    doc = yaml.safe_load(grade_report.DOCUMENTATION)
    spec = grade_report.argument_spec()
    assert set(doc["options"]) == set(spec)
    for name, option in doc["options"].items():
        assert option["type"] == spec[name]["type"], name
        assert option.get("default") == spec[name].get("default"), name
        assert option.get("required", False) == spec[name].get("required", False), name
        assert option.get("choices") == spec[name].get("choices"), name
    yaml.safe_load(grade_report.EXAMPLES)
    returned = yaml.safe_load(grade_report.RETURN)
    assert set(returned) == {"report_dir", "latest", "files", "index_html", "generated_at", "counts",
                             "matrix", "hosts_in_error", "host_errors", "learner_failures", "failing_learners",
                             "written", "scope", "outcome",
                             "carried_hosts", "changes"}


def run_at(monkeypatch, capsys, minutes, args):
    class At(FixedDateTime):
        @classmethod
        def now(cls, tz=None):
            return NOW + datetime.timedelta(minutes=minutes)
    monkeypatch.setattr(grade_report.datetime, "datetime", At)
    rc, result = run(args, capsys)
    assert rc == 0, result
    return result


CLASS = ["learner01", "learner02", "learner03", "learner04", "learner10"]


def test_second_run_says_who_progressed(tmp_path, capsys, monkeypatch):
    out = tmp_path / "reports"
    records = class_records()
    before = [dict(r) for r in records]
    before[3] = record("learner04", "ko", {"capa-src": capa("ko", step3=[check("capa-src", 3, "no-helm-release", "FAIL")]),
                                           "cgoa-ci": cgoa("ko")})
    run_at(monkeypatch, capsys, 0, {"records": before, "hosts": CLASS, "output_dir": str(out)})
    result = run_at(monkeypatch, capsys, 30, {"records": records, "hosts": CLASS, "output_dir": str(out)})
    assert result["changes"]["learner04"] == {"change": "mixed", "since": "2026-11-30T05:12:00Z",
                                              "up": ["capa-src.3"], "down": ["cgoa-ci.2"], "passed_delta": 0}
    assert result["changes"]["learner01"]["change"] == "unchanged"
    assert result["changes"]["learner03"]["change"] == "not_graded"
    assert "since 2026-11-30T05:12:00Z: 1 progressed (learner04 +1), 1 lost a step, 3 unchanged" in result["matrix"]
    grades = json.loads((out / "latest" / "grades.json").read_text(encoding="utf-8"))
    assert grades["run"]["previous"] == {"report": STAMP, "generated_at": "2026-11-30T05:12:00Z"}
    page = (out / "latest" / "index.html").read_text(encoding="utf-8")
    assert '<td class="chg c-mixed" title="newly passed: capa-src.3; no longer passing: cgoa-ci.2">+1 \u22121</td>' in page


def test_partial_run_is_merged_into_the_class_view(tmp_path, capsys, monkeypatch):
    out = tmp_path / "reports"
    records = class_records()
    run_at(monkeypatch, capsys, 0, {"records": records, "hosts": CLASS, "class_hosts": CLASS, "output_dir": str(out)})
    # -l learner02: learner02 fixed its step 2, nobody else was graded
    fixed = record("learner02", "ja", {"capa-src": capa("ja"), "cgoa-ci": cgoa("ja")})
    result = run_at(monkeypatch, capsys, 5, {"records": [fixed], "hosts": ["learner02"], "class_hosts": CLASS,
                                             "output_dir": str(out)})
    assert result["scope"] == "partial"
    assert result["carried_hosts"] == ["learner01", "learner03", "learner04", "learner10"]
    assert ("\npartial run: graded learner02; latest shows the class view merged with it\n"
            f"  4 learners carried over unchanged from {STAMP}\n") in result["matrix"]
    grades = json.loads((out / "latest" / "grades.json").read_text(encoding="utf-8"))
    assert [h["host"] for h in grades["hosts"]] == CLASS  # the class view is kept
    by_host = {h["host"]: h for h in grades["hosts"]}
    assert by_host["learner02"]["graded_at"] == "2026-11-30T05:17:00Z"
    assert by_host["learner02"]["score"] == {"passed": 8, "total": 8}
    assert by_host["learner02"]["change"]["up"] == ["capa-src.2", "capa-src.3"]
    assert by_host["learner04"]["graded_at"] == "2026-11-30T05:12:00Z"  # carried over, with its own time
    assert by_host["learner04"]["change"]["change"] == "carried"
    assert by_host["learner03"]["state"] == "error"
    # the outcome of this run is about learner02 only: learner03's old error does not fail it
    assert (result["hosts_in_error"], result["learner_failures"]) == ([], False)
    assert len(grades["records"]) == 29  # learner02: 8 checks before and after
    # the carried learners keep their checks and their own text
    assert "learner04  (Graded: 2026-11-30T05:12:00Z)" in (out / "latest" / "learners" / "learner04.txt").read_text(
        encoding="utf-8").replace("채점 시각", "Graded")
    page = (out / "latest" / "index.html").read_text(encoding="utf-8")
    assert "Partial run: graded learner02; 4 learners carried over from the run of 2026-11-30T05:12:00Z." in page
    assert sorted(os.listdir(out)) == [STAMP, "20261130T051700Z", "latest"]


def test_a_regrade_that_errors_keeps_the_last_good_grade_marked_with_the_attempt(tmp_path, capsys, monkeypatch):
    """-l learner01 with a bad kubeconfig replaced its 8/8 in latest/ with error,...,0,0 (issue 19)."""
    out = tmp_path / "reports"
    run_at(monkeypatch, capsys, 0, {"records": class_records(), "hosts": CLASS, "class_hosts": CLASS,
                                    "output_dir": str(out)})
    failed = {"host": "learner01", "lang": "en", "state": "error", "labs": {},
              "error": {"kind": "health", "message": "the kubeconfig /root/nope does not exist"}}
    result = run_at(monkeypatch, capsys, 5, {"records": [failed], "hosts": ["learner01"], "class_hosts": CLASS,
                                             "output_dir": str(out)})
    assert result["hosts_in_error"] == ["learner01"]  # the run's outcome: this attempt failed
    grades = json.loads((out / "latest" / "grades.json").read_text(encoding="utf-8"))
    learner01 = next(h for h in grades["hosts"] if h["host"] == "learner01")
    assert (learner01["state"], learner01["score"], learner01["graded_at"]) == (
        "graded", {"passed": 8, "total": 8}, "2026-11-30T05:12:00Z")
    assert learner01["change"]["change"] == "not_graded"
    assert grades["run"]["failed_attempts"] == [{"host": "learner01", "at": "2026-11-30T05:17:00Z", "kind": "health",
                                                 "message": "the kubeconfig /root/nope does not exist"}]
    assert len([r for r in grades["records"] if r["host"] == "learner01"]) == 8
    assert ("8/8  (grades of 2026-11-30T05:12:00Z)\n  ! re-grade 2026-11-30T05:17:00Z failed, environment "
            "unhealthy: the kubeconfig /root/nope does not\n    exist\n") in result["matrix"]
    # a learner never graded before stays in error, and a run without a failed re-grade says nothing
    first = json.loads((out / STAMP / "grades.json").read_text(encoding="utf-8"))
    assert "failed_attempts" not in first["run"]
    assert next(h for h in first["hosts"] if h["host"] == "learner03")["state"] == "error"


def test_partial_run_without_an_earlier_class_view(tmp_path, capsys, monkeypatch):
    out = tmp_path / "reports"
    result = run_at(monkeypatch, capsys, 0, {"records": [record("learner02", "en", {"capa-src": capa()})],
                                             "hosts": ["learner02"], "class_hosts": CLASS, "output_dir": str(out)})
    assert result["scope"] == "partial" and result["carried_hosts"] == []
    assert "partial run: graded learner02; no earlier class view to merge into" in result["matrix"]


def test_unreadable_previous_report_gives_a_warning(tmp_path, capsys, monkeypatch, warnings):
    out = tmp_path / "reports"
    (out / "old").mkdir(parents=True)
    (out / "old" / "grades.json").write_text("{not json")
    os.symlink("old", out / "latest")
    result = run_at(monkeypatch, capsys, 0, {"records": [record("a", "en", {"capa-src": capa()})],
                                             "output_dir": str(out)})
    assert result["changes"] == {}
    assert len(warnings) == 1
    assert warnings[0].startswith(f"the previous report {out / 'latest' / 'grades.json'} cannot be read (")
    assert warnings[0].endswith("); not compared with this run")
    assert os.readlink(out / "latest") == STAMP
