"""What to teach now (issue 19 §2): the checks the class fails most, "not started" apart from
wrong work, the pending filter, hosts in error apart from 0 % learners, a kept earlier grade."""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import normalize, views
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.build import build_report
from report_sample import NOW, capa, cgoa, check, class_records, record

from tests.conftest import WORLDS
from tests.grader.conftest import host_collector


def missing(lab, step, name, key="file_missing"):
    return check(lab, step, name, "FAIL", True, None, f"{name} does not exist", "", key)


def idle_cgoa():
    """cgoa-ci of a learner with no workspace: every check FAILs, step 1 because nothing exists."""
    return cgoa(
        step2=[
            check("cgoa-ci", 2, "ci-cannot-write-prod", "FAIL", "forbidden", None, "x", "", "access_wrong"),
            missing("cgoa-ci", 2, "ci-can-write-dev"),
        ]
    )


def idle(lab_result):
    for step in lab_result["steps"][:1]:
        for chk in step["checks"]:
            chk.update(status="FAIL", message_key="repo_missing", found=None)
    lab_result["steps"][0]["status"] = "FAIL"
    return lab_result


def teach_class():
    """learner01 all pass; 02 fails capa-src 2 precedence-replicas; 03 fails it and
    precedence-image; 04 has not started cgoa-ci (and fails capa-src 2 precedence-replicas);
    05 could not be graded."""
    replicas = check("capa-src", 2, "precedence-replicas", "FAIL", 3, 2, "replicas 2", "", "value_mismatch")
    image = check("capa-src", 2, "precedence-image", "FAIL", "a", "b", "image b", "", "value_mismatch")
    return [
        record("learner01", "en", {"capa-src": capa(), "cgoa-ci": cgoa()}),
        record(
            "learner02",
            "en",
            {"capa-src": capa(step2=[dict(replicas), check("capa-src", 2, "precedence-image")]), "cgoa-ci": cgoa()},
        ),
        record("learner03", "en", {"capa-src": capa(step2=[dict(replicas), dict(image)]), "cgoa-ci": cgoa()}),
        record(
            "learner04",
            "en",
            {"capa-src": capa(step2=[dict(replicas), check("capa-src", 2, "precedence-image")]), "cgoa-ci": idle(idle_cgoa())},
        ),
        {
            "host": "learner05",
            "lang": "en",
            "state": "error",
            "error": {"kind": "unreachable", "message": "ssh: timed out", "details": {}},
            "labs": {},
        },
    ]


def page_of(records):
    return build_report(records, now=NOW, report_dir="/srv/r")["contents"]["index.html"]


def body_rows(page):
    body = page.split('<tbody id="rows">', 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)


# --- not started, decided from the record ------------------------------------------------------


@pytest.mark.parametrize("lab_id", list(LABS))
def test_the_empty_world_of_every_lab_is_not_started_and_golden_and_mistakes_are_started(fake_api, lab_id):
    """The real checks in an empty workspace (fixtures/worlds/<lab>/empty.yaml) read as "not
    started"; the solved lab and a world of classic mistakes (wrong work) do not."""

    def started(world):
        host = fake_api.world(f"{lab_id}/{world}")
        result = grade(LABS[lab_id], host_collector(host, lab_id), "en", settle_seconds=0)
        graded = normalize.normalize_records([record("h", "en", {lab_id: result})])[0]
        return not views.lab_not_started(graded["labs"][lab_id])

    assert started("empty.yaml") is False
    assert started("golden.yaml") is True
    if (WORLDS / lab_id / "classic-mistakes.yaml").exists():
        assert started("classic-mistakes.yaml") is True


def not_started(lab_result):
    return views.lab_not_started(normalize.normalize_records([record("h", "en", {"cgoa-ci": lab_result})])[0]["labs"]["cgoa-ci"])


@pytest.mark.usefixtures("sample_registry")
def test_not_started_needs_every_check_failing_and_the_first_step_absent():
    assert not_started(idle(idle_cgoa()))
    one_pass = idle(idle_cgoa())
    one_pass["steps"][1]["checks"][1]["status"] = "PASS"
    assert not not_started(one_pass)
    wrong_first = idle(idle_cgoa())
    wrong_first["steps"][0]["checks"][0]["message_key"] = "value_mismatch"
    assert not not_started(wrong_first)
    blocked = idle(idle_cgoa())
    blocked["steps"][0]["checks"][0].update(message_key="blocked_by", params={"step": 1, "reason": "live_app_missing"})
    assert not_started(blocked)


@pytest.mark.usefixtures("sample_registry")
def test_not_started_in_the_matrix_the_filter_and_the_csv():
    page = page_of(teach_class())
    rows = body_rows(page)
    assert re.search(r'data-has="([A-Z_ ]*)"', rows[3]).group(1) == "PASS FAIL NOT_STARTED"  # capa-src fails
    assert re.search(r'data-has="([A-Z_ ]*)"', rows[0]).group(1) == "PASS"
    assert (
        '<td class="s-NOT_STARTED" colspan="2"><button type="button" class="c" data-c="3 1 0">\u25cb '
        '<span data-i18n="not_started">Not started</span> 0/3</button></td>'
    ) in rows[3]
    assert '<option value="f_not_started" data-i18n="f_not_started">not started a lab</option>' in page
    grades = json.loads(build_report(teach_class(), now=NOW)["contents"]["grades.json"])
    assert [[lab["not_started"] for lab in h["labs"].values()] for h in grades["hosts"]] == [
        [False, False],
        [False, False],
        [False, False],
        [False, True],
        [],
    ]
    text = build_report(teach_class(), now=NOW)["contents"]["grades.csv"]
    table = list(csv.reader(io.StringIO(text[1:])))
    head, learner04 = table[0], table[4]
    assert [learner04[head.index(f"cgoa-ci step {n}")] for n in (1, 2)] == ["NOT_STARTED", "NOT_STARTED"]
    assert [table[3][head.index(f"capa-src step {n}")] for n in (1, 2)] == ["PASS", "FAIL"]


# --- what the class fails most ------------------------------------------------------------------


@pytest.mark.usefixtures("sample_registry")
def test_most_failed_checks_per_step_with_counts_and_the_learners():
    hosts = normalize.normalize_records(teach_class())
    assert views.most_failed(hosts, views.lab_columns(hosts)) == [
        {
            "lab": "capa-src",
            "step": 2,
            "checks": [
                {"check": "capa-src.2.precedence-replicas", "hosts": ["learner02", "learner03", "learner04"]},
                {"check": "capa-src.2.precedence-image", "hosts": ["learner03"]},
            ],
        },
    ]  # learner04's cgoa-ci is not started: not counted as wrong work


@pytest.mark.usefixtures("sample_registry")
def test_most_failed_checks_open_a_filter_of_the_learners_concerned():
    page = page_of(teach_class())
    teach = page.split('<section class="teach', 1)[1].split("</section>", 1)[0]
    buttons = re.findall(
        r'<button type="button" class="fc" aria-pressed="false" data-rows="([\d ]*)" [^>]*'
        r'title="([^"]*)">(.*?) <b>(\d+)</b></button>',
        teach,
    )
    assert buttons == [
        ("1 2 3", "3 learners fail capa-src.2.precedence-replicas: show them", "precedence-replicas", "3"),
        ("2", "1 learners fail capa-src.2.precedence-image: show them", "precedence-image", "1"),
    ]
    assert "capa-src 2: capa-src step 2 title" in teach


@pytest.mark.usefixtures("sample_registry")
def test_no_failing_check_says_so():
    page = page_of([record("learner01", "en", {"capa-src": capa()})])
    assert "No learner who started a lab fails a check." in page.split('<section class="teach', 1)[1]


# --- the pending filter, the score sort, sortable headers ------------------------------------


@pytest.mark.usefixtures("sample_registry")
def test_a_pending_check_in_a_failing_step_counts_for_the_pending_filter():
    step2 = [
        check("capa-src", 2, "precedence-replicas", "FAIL", 3, 2, "x", "", "value_mismatch"),
        check("capa-src", 2, "precedence-image", "PENDING", "Synced", "Progressing", "y", "", "still_converging"),
    ]
    rows = body_rows(page_of([record("learner01", "en", {"capa-src": capa(step2=step2)})]))
    assert re.search(r'data-has="([A-Z_ ]*)"', rows[0]).group(1) == "PASS FAIL PENDING"


@pytest.mark.usefixtures("sample_registry")
def test_hosts_in_error_have_no_score_to_sort_among_zero_percent_learners():
    zero = capa(step2=[check("capa-src", 2, "precedence-replicas", "FAIL"), check("capa-src", 2, "precedence-image", "FAIL")])
    for step in zero["steps"]:
        for chk in step["checks"]:
            chk.update(status="FAIL", message_key="value_mismatch")
    rows = body_rows(page_of([record("learner01", "en", {"capa-src": zero}), class_records()[2]]))
    scores = [re.search(r'data-score="(\d*)"', r).group(1) for r in rows]
    assert scores == ["0", ""]


@pytest.mark.usefixtures("sample_registry")
def test_column_headers_sort():
    page = page_of(class_records())
    head = page.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert re.findall(r'<th [^>]*aria-sort="(\w+)"[^>]*><button type="button" class="sort" data-sort="([\w:-]+)">', head) == [
        ("ascending", "s_name"),
        ("none", "s_score_asc"),
        *[("none", f"st:{key}") for key in ("0-0", "0-1", "0-2", "1-0", "1-1")],
    ]


# --- a kept grade of an earlier run ------------------------------------------------------------


@pytest.mark.usefixtures("sample_registry")
def test_index_html_marks_a_kept_grade_of_an_earlier_run():
    import datetime
    import json

    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import history

    first = build_report(class_records(), now=NOW)
    previous = {
        "report": "20261130T051200Z",
        "generated_at": first["generated_at"],
        "hosts": history.hosts_from_grades(json.loads(first["contents"]["grades.json"])),
    }
    again = class_records()
    again[0] = {
        "host": "learner01",
        "lang": "en",
        "state": "error",
        "error": {"kind": "health", "message": "the kubeconfig is bad", "details": {}},
        "labs": {},
    }
    later = build_report(again, now=NOW + datetime.timedelta(minutes=5), previous=previous)
    row = body_rows(later["contents"]["index.html"])[0]
    assert row.startswith('<tr class="kept" data-i="0" data-name="learner01"')
    assert (
        'title="grades of 2026-11-30T05:12:00Z: the re-grade of 2026-11-30T05:17:00Z failed '
        '(environment unhealthy)">\u26a0 2026-11-30T05:12:00Z</span>'
    ) in row


@pytest.mark.usefixtures("sample_registry")
@pytest.mark.parametrize(("ascii_only", "mark"), [(False, "\u2218"), (True, "o")])
def test_the_terminal_matrix_shows_a_lab_not_started(ascii_only, mark):
    assert unicodedata.east_asian_width(mark) in ("N", "Na")  # one column in ja/ko terminals too
    lines = build_report(teach_class(), now=NOW, ascii_only=ascii_only)["matrix"].split("\n")
    learner04 = next(line for line in lines if line.startswith("learner04"))
    assert learner04.split()[1:3] == ["+X+" if ascii_only else "\u2713\u2717\u2713", mark * 2]
    assert f" not graded  {mark} not started  (" in next(line for line in lines if line.startswith("legend:"))
