"""Progress through the class day (issue 19 §2): per learner and step when it first passed, and
the class's pass rate per step over the runs, kept in grades.json and drawn in index.html."""

from __future__ import annotations

import datetime
import json
import re

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build, files, history
from report_sample import NOW, capa, check, record

pytestmark = pytest.mark.usefixtures("sample_registry")
MINUTE = datetime.timedelta(minutes=1)


def day(step2_status):
    """learner01 passes capa-src step 1 always and step 2 with the status of the run."""
    step2 = [check("capa-src", 2, "precedence-replicas", status, key="value_mismatch") for status in [step2_status]] + [
        check("capa-src", 2, "precedence-image")
    ]
    return [record("learner01", "en", {"capa-src": capa(step2=step2)}), record("learner02", "en", {"capa-src": capa()})]


def run_day(out, statuses):
    """Grade the class once per status, minutes apart, each run reading `latest` as grade_report does."""
    built = None
    for minute, status in enumerate(statuses):
        previous, warnings = history.read_previous(str(out))
        assert warnings == []
        now = NOW + minute * MINUTE
        report_dir = files.plan_report_dir(str(out), now)
        built = build.build_report(day(status), now=now, report_dir=report_dir, previous=previous)
        files.write_report(report_dir, built["contents"])
    return built


def first_passed(built, host):
    grades = json.loads(built["contents"]["grades.json"])
    entry = next(h for h in grades["hosts"] if h["host"] == host)
    return [s["first_passed"] for s in entry["labs"]["capa-src"]["steps"]]


def test_when_each_step_first_passed_is_kept_run_after_run(tmp_path):
    built = run_day(tmp_path, ["FAIL", "PASS", "FAIL"])
    # step 1 passed at the first run; step 2 first passed at the second and keeps it when it fails again
    assert first_passed(built, "learner01") == ["2026-11-30T05:12:00Z", "2026-11-30T05:13:00Z", "2026-11-30T05:12:00Z"]
    assert first_passed(built, "learner02") == ["2026-11-30T05:12:00Z"] * 3
    never = run_day(tmp_path / "b", ["FAIL"])
    assert first_passed(never, "learner01")[1] is None


def test_the_class_pass_rate_per_step_over_the_runs(tmp_path):
    built = run_day(tmp_path, ["FAIL", "PASS", "FAIL"])
    grades = json.loads(built["contents"]["grades.json"])
    assert [(run["at"], run["rates"]["capa-src.2"]) for run in grades["history"]] == [
        ("2026-11-30T05:12:00Z", [1, 2]),
        ("2026-11-30T05:13:00Z", [2, 2]),
        ("2026-11-30T05:14:00Z", [1, 2]),
    ]
    assert all(run["rates"]["capa-src.1"] == [2, 2] for run in grades["history"])


def test_a_previous_report_without_history_counts_as_its_one_run(tmp_path):
    run_day(tmp_path, ["PASS"])
    latest = tmp_path / "latest" / "grades.json"
    grades = json.loads(latest.read_text(encoding="utf-8"))
    del grades["history"]
    for host in grades["hosts"]:
        for step in host["labs"]["capa-src"]["steps"]:
            del step["first_passed"]
    latest.write_text(json.dumps(grades), encoding="utf-8")
    previous, _ = history.read_previous(str(tmp_path))
    later = build.build_report(day("PASS"), now=NOW + 5 * MINUTE, previous=previous)
    assert [run["at"] for run in json.loads(later["contents"]["grades.json"])["history"]] == [
        "2026-11-30T05:12:00Z",
        "2026-11-30T05:17:00Z",
    ]
    assert first_passed(later, "learner01") == ["2026-11-30T05:12:00Z"] * 3  # passing then, so by then


def test_a_malformed_history_is_left_out():
    assert history._history(
        [{"at": "t", "rates": {"a.1": [1, 2]}}, {"at": 3, "rates": {}}, {"at": "u", "rates": {"a.1": ["x", 2]}}, "junk"]
    ) == [{"at": "t", "rates": {"a.1": [1, 2]}}]
    assert history._history({"at": "t"}) == []


def test_the_history_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(history, "HISTORY_MAX", 2)
    built = run_day(tmp_path, ["FAIL", "PASS", "FAIL"])
    assert [run["at"] for run in json.loads(built["contents"]["grades.json"])["history"]] == [
        "2026-11-30T05:13:00Z",
        "2026-11-30T05:14:00Z",
    ]


def test_index_html_draws_the_pass_rate_per_step_and_knows_when_each_step_first_passed(tmp_path):
    page = run_day(tmp_path, ["FAIL", "PASS", "FAIL"])["contents"]["index.html"]
    section = page.split('<section class="progress"', 1)[1].split("</section>", 1)[0]
    assert "Class progress: pass rate per step over 3 runs since 2026-11-30T05:12:00Z" in section
    lines = re.findall(r'<svg [^>]*aria-label="([^"]*)">.*?<polyline points="([^"]*)"', section)
    assert lines[1] == ("Step 2: capa-src step 2 title; pass rate 50% at the first run, 50% now", "3.0,17.0 48.0,3.0 93.0,17.0")
    assert lines[0][1] == "3.0,3.0 48.0,3.0 93.0,3.0"
    assert "<script" not in section and "http" not in section.replace('xmlns="http://www.w3.org/2000/svg"', "")
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1))
    host = data["hosts"][0]
    assert [data["times"][i] if i >= 0 else None for i in host["f"][0]] == [
        "2026-11-30T05:12:00Z",
        "2026-11-30T05:13:00Z",
        "2026-11-30T05:12:00Z",
    ]
    assert '<button type="button" class="hn" data-h="0">learner01</button>' in page


def test_one_run_draws_no_progress_yet(tmp_path):
    assert '<section class="progress"' not in run_day(tmp_path, ["PASS"])["contents"]["index.html"]
