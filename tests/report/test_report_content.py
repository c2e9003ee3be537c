"""The pure functions of labgrader.report: records -> grades.json / junit.xml / index.html / matrix."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import history, normalize, values
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.build import build_report
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import page_data
from report_sample import (
    GENERATED_AT,
    JA_HINT,
    JA_MESSAGE,
    NOW,
    SCRIPT,
    STAMP,
    capa,
    cgoa,
    check,
    class_records,
    lab,
    record,
)

REPORT_DIR = f"/srv/reports/{STAMP}"

pytestmark = pytest.mark.usefixtures("sample_registry")


def build(records=None, **kwargs):
    kwargs.setdefault("now", NOW)
    kwargs.setdefault("report_dir", REPORT_DIR)
    return build_report(class_records() if records is None else records, **kwargs)


# --- normalisation -------------------------------------------------------------------------


def test_hosts_sorted_naturally_and_states():
    hosts = normalize.normalize_records(class_records())
    assert [h["host"] for h in hosts] == ["learner01", "learner02", "learner03", "learner04", "learner10"]
    assert [h["state"] for h in hosts] == ["graded", "graded", "error", "graded", "graded"]
    assert hosts[2]["error"] == {"kind": "unreachable",
                                 "message": "ssh: connect to host 10.0.0.3 port 22: timed out",
                                 "details": {"rc": 255}}


@pytest.mark.parametrize("bad, message", [
    (None, "the host produced no grading record"),
    ("", "the host produced no grading record"),
    ("UndefinedMarker", "the grading record is not a mapping: 'UndefinedMarker'"),
    (42, "the grading record is not a mapping: 42"),
    ({"host": "h", "state": "graded"}, "the record has no 'labs' mapping"),
    ({"host": "h", "state": "graded", "labs": {}}, "the host was graded but has no lab results"),
    ({"host": "h", "state": "weird", "labs": {}}, "the record has an unknown state 'weird'"),
    ({"host": "h", "state": "error", "error": "boom"},
     "the host is in error but the record has no error details: 'boom'"),
    ({"host": "h", "state": "error", "error": {"kind": "disk", "message": "full"}}, "[disk] full"),
])
def test_bad_records_become_grader_errors(bad, message):
    (host,) = normalize.normalize_records([bad], hosts=["h"])
    assert host["host"] == "h"
    assert host["state"] == "error"
    assert host["error"]["kind"] == "grader"
    assert host["error"]["message"] == message
    assert host["labs"] == {}


def test_missing_hosts_and_unnamed_records():
    hosts = normalize.normalize_records([record("a", "en", {"capa-src": capa()}), None],
                                     hosts=["a", "b", "c"])
    assert [(h["host"], h["state"]) for h in hosts] == [
        ("a", "graded"), ("b", "error"), ("c", "error"), ("record-2", "error")]
    assert hosts[1]["error"]["message"].startswith("the host produced no grading record (unreachable")


def test_records_paired_with_hosts_by_position_and_mapping_and_json():
    by_position = normalize.normalize_records([None, record("b", "en", {"capa-src": capa()})], hosts=["a", "b"])
    assert [(h["host"], h["state"]) for h in by_position] == [("a", "error"), ("b", "graded")]
    mapping = normalize.normalize_records({"a": None, "b": record("b", "en", {"capa-src": capa()})})
    assert [(h["host"], h["state"]) for h in mapping] == [("a", "error"), ("b", "graded")]
    as_json = normalize.normalize_records(json.dumps([record("b", "en", {"capa-src": capa()})]))
    assert [h["host"] for h in as_json] == ["b"]
    assert normalize.normalize_records(None) == []
    assert normalize.normalize_records("not json")[0]["error"]["message"].startswith("the grading record is not")


def test_duplicate_hosts_are_kept_visibly():
    hosts = normalize.normalize_records([record("a", "en", {"capa-src": capa()})] * 2)
    assert [h["host"] for h in hosts] == ["a", "a #2"]


def test_malformed_labs_steps_and_checks():
    labs = {
        "failed-lab": {"failed": True, "msg": "Traceback: KeyError 'x'"},
        "unreachable-lab": {"unreachable": True, "msg": "ssh died"},
        "skipped-lab": {"skipped": True, "skip_reason": "Conditional result was False"},
        "none-lab": None,
        "string-lab": "oops",
        "odd": {"steps": [
            "not a step",
            {"step": "2", "title": "two", "checks": [
                "not a check",
                {"check": "odd.2.a", "status": "pass", "found": float("nan")},
                {"check": "odd.2.b", "status": "MAYBE", "message": "hm"},
                {"status": "FAIL"},
            ]},
            {"step": 3, "title": "three", "checks": {"not": "a list"}},
            {"step": 4, "title": "four", "status": "PENDING", "checks": []},
        ]},
    }
    (host,) = normalize.normalize_records([record("h", "en", labs)])
    assert set(host["labs"]) == {"failed-lab", "unreachable-lab", "string-lab", "odd"}
    assert host["labs"]["failed-lab"]["error"] == {
        "kind": "grader", "message": "the grading module failed: Traceback: KeyError 'x'"}
    assert host["labs"]["unreachable-lab"]["error"] == {"kind": "unreachable", "message": "ssh died"}
    assert host["labs"]["string-lab"]["error"]["message"] == "the lab result is not a mapping: 'oops'"
    odd = host["labs"]["odd"]
    assert [s["step"] for s in odd["steps"]] == [1, 2, 3, 4]
    assert [s["status"] for s in odd["steps"]] == ["ERROR", "ERROR", "ERROR", "PENDING"]
    step2 = odd["steps"][1]["checks"]
    assert [(c["check"], c["status"]) for c in step2] == [
        ("odd.2.#1", "ERROR"), ("odd.2.a", "PASS"), ("odd.2.b", "ERROR"), ("odd.2.#4", "FAIL")]
    assert step2[1]["found"] == "nan"  # stays valid JSON
    assert step2[2]["message"] == "the grader returned an invalid status 'MAYBE'; hm"
    assert odd["summary"] == {"PASS": 1, "FAIL": 1, "PENDING": 0, "ERROR": 4, "total": 6}
    json.dumps(host, allow_nan=False)


def test_step_and_lab_status_are_recomputed_from_checks():
    result = capa()
    result["status"] = "PASS"
    result["steps"][1]["status"] = "PASS"
    result["steps"][1]["checks"][0]["status"] = "FAIL"
    (host,) = normalize.normalize_records([record("h", "en", {"capa-src": result})])
    assert host["labs"]["capa-src"]["steps"][1]["status"] == "FAIL"
    assert host["labs"]["capa-src"]["status"] == "FAIL"


# --- grades.json ----------------------------------------------------------------------------

RECORD_KEYS = ["host", "lab", "step", "check", "status", "expected", "found", "message_key", "params",
               "message", "hint", "hint_key"]
SUMMARY_KEYS = ["PASS", "FAIL", "PENDING", "ERROR", "total"]


def test_grades_json_shape_and_one_record_per_check():
    built = build()
    grades = json.loads(built["contents"]["grades.json"])
    assert list(grades) == ["schema", "generated_at", "lang", "counts", "labs", "hosts", "records", "run", "history"]
    assert grades["schema"] == "lab-grades/v1"
    assert grades["generated_at"] == GENERATED_AT
    assert grades["labs"] == [
        {"id": "capa-src", "steps": [{"step": n, "title": f"capa-src step {n} title",
                                      "titles": {lang: f"capa-src step {n} title" for lang in ("en", "ja", "ko")}}
                                     for n in (1, 2, 3)]},
        {"id": "cgoa-ci", "steps": [{"step": n, "title": f"cgoa-ci step {n} title",
                                     "titles": {lang: f"cgoa-ci step {n} title" for lang in ("en", "ja", "ko")}}
                                    for n in (1, 2)]},
    ]
    assert grades["counts"] == {"PASS": 26, "FAIL": 2, "PENDING": 1, "ERROR": 0, "total": 29,
                                "hosts": 5, "hosts_graded": 4, "hosts_in_error": 1, "labs_in_error": 0}
    assert grades["run"] == {"scope": "class", "graded": ["learner01", "learner02", "learner03", "learner04",
                                                          "learner10"], "carried": [], "previous": None}
    for host in grades["hosts"]:
        assert list(host) == ["host", "learner_id", "lang", "state", "error", "score", "labs", "graded_at", "change"]
        assert host["graded_at"] == GENERATED_AT and host["change"] is None
        for result in host["labs"].values():
            assert list(result) == ["status", "summary", "error", "not_started", "steps"]
            assert list(result["summary"]) == SUMMARY_KEYS
            for step in result["steps"]:
                assert list(step) == ["step", "title", "status", "summary", "first_passed"]
    l02 = grades["hosts"][1]
    assert l02["labs"]["capa-src"]["status"] == "FAIL"
    assert l02["labs"]["capa-src"]["summary"] == {"PASS": 3, "FAIL": 1, "PENDING": 1, "ERROR": 0, "total": 5}
    assert l02["score"] == {"passed": 6, "total": 8}
    assert grades["hosts"][2] == {
        "host": "learner03", "learner_id": "", "lang": "en", "state": "error",
        "error": {"kind": "unreachable", "message": "ssh: connect to host 10.0.0.3 port 22: timed out",
                  "details": {"rc": 255}},
        "score": {"passed": 0, "total": 0}, "labs": {}, "graded_at": GENERATED_AT, "change": None}
    # one flat record per check of every graded host; none for the host in error
    assert len(grades["records"]) == 8 + 8 + 8 + 5 == grades["counts"]["total"]
    assert all(list(r) == RECORD_KEYS for r in grades["records"])
    assert not [r for r in grades["records"] if r["host"] == "learner03"]
    fail = next(r for r in grades["records"] if r["status"] == "FAIL" and r["host"] == "learner02")
    assert fail == {"host": "learner02", "lab": "capa-src", "step": 2, "check": "capa-src.2.precedence-replicas",
                    "status": "FAIL", "expected": 3, "found": 2, "message_key": "value_mismatch",
                    "params": {"expected": 3, "found": 2}, "message": JA_MESSAGE, "hint": JA_HINT, "hint_key": ""}
    assert JA_MESSAGE in built["contents"]["grades.json"]  # UTF-8, not \\u escapes


def test_summary_values():
    built = build()
    assert built["hosts_in_error"] == ["learner03"]
    assert built["host_errors"] == [{"host": "learner03", "kind": "unreachable",
                                     "message": "ssh: connect to host 10.0.0.3 port 22: timed out"}]
    assert built["learner_failures"] is True
    clean = build([record("a", "en", {"capa-src": capa()})])
    assert clean["learner_failures"] is False
    pending_only = build([record("a", "en", {"capa-src": capa(step3=[check("capa-src", 3, "x", "PENDING")])})])
    assert pending_only["learner_failures"] is False


# --- junit.xml ------------------------------------------------------------------------------


def suites():
    root = ET.fromstring(build()["contents"]["junit.xml"].encode("utf-8"))
    return root, {s.get("name"): s for s in root.findall("testsuite")}


def counts_of(element):
    return {k: int(element.get(k)) for k in ("tests", "failures", "errors", "skipped")}


def test_junit_counts_per_suite_and_total():
    root, by_name = suites()
    assert list(by_name) == ["learner01", "learner02", "learner03", "learner04", "learner10"]
    assert counts_of(by_name["learner01"]) == {"tests": 8, "failures": 0, "errors": 0, "skipped": 0}
    assert counts_of(by_name["learner02"]) == {"tests": 8, "failures": 1, "errors": 0, "skipped": 1}
    assert counts_of(by_name["learner03"]) == {"tests": 1, "failures": 0, "errors": 1, "skipped": 0}
    assert counts_of(by_name["learner04"]) == {"tests": 8, "failures": 1, "errors": 0, "skipped": 0}
    assert counts_of(by_name["learner10"]) == {"tests": 5, "failures": 0, "errors": 0, "skipped": 0}
    assert counts_of(root) == {"tests": 30, "failures": 2, "errors": 1, "skipped": 1}
    for suite in by_name.values():  # the attributes agree with the elements
        cases = suite.findall("testcase")
        assert len(cases) == int(suite.get("tests"))
        assert sum(1 for c in cases if c.find("failure") is not None) == int(suite.get("failures"))
        assert sum(1 for c in cases if c.find("error") is not None) == int(suite.get("errors"))
        assert sum(1 for c in cases if c.find("skipped") is not None) == int(suite.get("skipped"))


def test_junit_failure_pending_and_error_elements():
    _, by_name = suites()
    case = by_name["learner02"].find("testcase[@name='capa-src.2.precedence-replicas']")
    assert case.get("classname") == "capa-src.step2"
    failure = case.find("failure")
    assert failure.get("type") == "FAIL"
    assert failure.get("message") == JA_MESSAGE
    assert failure.text == f"expected: 3\nfound: 2\nhint: {JA_HINT}\nmessage_key: value_mismatch"
    skipped = by_name["learner02"].find("testcase[@name='capa-src.3.no-helm-release']/skipped")
    assert skipped.get("type") == "PENDING"
    assert skipped.get("message").startswith("PENDING (not converged): ")
    (env,) = by_name["learner03"].findall("testcase")
    assert (env.get("classname"), env.get("name")) == ("environment", "unreachable")
    assert env.find("error").get("type") == "unreachable"
    assert env.find("error").get("message") == "ssh: connect to host 10.0.0.3 port 22: timed out"


def test_junit_escapes_markup_and_control_characters():
    xml_text = build()["contents"]["junit.xml"]
    assert "\x1b" not in xml_text and "\x00" not in xml_text and "\x07" not in xml_text
    _, by_name = suites()
    failure = by_name["learner04"].find("testcase[@name='cgoa-ci.2.ci-cannot-write-prod']/failure")
    assert failure.get("message") == "ci 계정이 prod 에 쓸 수 있습니다 \\x1b[31m\\x00bell\\x07"
    assert f"found: {SCRIPT}" in failure.text
    assert "&lt;script&gt;" in xml_text and SCRIPT not in xml_text


def test_junit_lab_error_and_grader_error():
    records = [record("h", "en", {"capa-src": {"failed": True, "msg": "boom"}, "cgoa-ci": cgoa()}), None]
    root = ET.fromstring(build_report(records, hosts=["h", "x"], now=NOW)["contents"]["junit.xml"])
    h = root.find("testsuite[@name='h']")
    assert counts_of(h) == {"tests": 4, "failures": 0, "errors": 1, "skipped": 0}
    lab_case = h.find("testcase[@name='capa-src']")
    assert lab_case.get("classname") == "capa-src"
    assert lab_case.find("error").get("message") == "the grading module failed: boom"
    # paired with `hosts` by position: the None record is host "x"
    x = root.find("testsuite[@name='x']")
    assert counts_of(x) == {"tests": 1, "failures": 0, "errors": 1, "skipped": 0}
    assert x.find("testcase").get("name") == "grader"
    assert x.find("testcase/error").get("message") == "the host produced no grading record"


# --- index.html -----------------------------------------------------------------------------


def html_page(**kwargs):
    return build(**kwargs)["contents"]["index.html"]


def page_json(page, element_id):
    return json.loads(re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', page, re.S)
                      .group(1))


def test_html_escapes_everything_from_the_records():
    page = html_page()
    assert SCRIPT not in page
    assert "RBAC & <Role>" not in page
    assert JA_MESSAGE in page
    # the only scripts are ours: the data and labels (JSON) and the inline code allowed by its CSP hash
    assert len(re.findall(r"<script\b", page)) == 3
    assert "\x1b" not in page and "\x00" not in page
    data = page_json(page, "data")
    row = next(r for r in data["rows"] if r[:2] == ["cgoa-ci.2.ci-cannot-write-prod", "FAIL"])
    assert row[2] == "ci 계정이 prod 에 쓸 수 있습니다 \\x1b[31m\\x00bell\\x07"  # shown as text by the script
    assert row[4] == SCRIPT and row[5] == "RBAC & <Role> 확인"  # text nodes, never markup


def test_html_is_self_contained():
    page = html_page()
    assert "http://" not in page and "https://" not in page
    links = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", page)
    assert links == ["grades.csv"]  # the CSV beside it; nothing is loaded
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "innerHTML" not in page  # details are built from text nodes


def test_html_csp_hash_matches_the_inline_script():
    import base64
    import hashlib
    page = html_page()
    code = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in page


def body_rows(page):
    body = page.split('<tbody id="rows">', 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)


def test_html_rows_cells_and_error_row():
    rows = body_rows(html_page())
    assert len(rows) == 5
    name = r'<th class="host" scope="row">(?:<button type="button" class="hn" data-h="\d">)?(.*?)(?:</button>)?<span'
    names = [re.search(name, r).group(1) for r in rows]
    assert names == ["learner01", "learner02", "learner03", "learner04", "learner10"]
    assert rows[2].startswith('<tr class="host-error" data-i="2" data-name="learner03" data-sev="4" ')
    assert 'class="env-error" colspan="6"' in rows[2]
    assert '<span class="kind"><span data-i18n="unreachable">unreachable</span></span>' in rows[2]
    assert "ssh: connect to host 10.0.0.3 port 22: timed out" in rows[2]
    assert 'td class="s-' not in rows[2]
    cells = re.findall(r'<td class="s-(\w+)"><button type="button" class="c" data-c="1 \d \d">(.*?)</button>', rows[1])
    assert cells == [("PASS", "\u2713 2/2"), ("FAIL", "\u2717 1/2"), ("PENDING", "\u22ef 0/1"),
                     ("PASS", "\u2713 1/1"), ("PASS", "\u2713 2/2")]
    assert rows[4].count('class="s-none"') == 1  # learner10 has no cgoa-ci
    assert '<td class="score">6/8</td>' in rows[1]


def test_html_rows_carry_what_sorting_and_filtering_need():
    rows = body_rows(html_page())
    facts = [re.search(r'data-sev="(\d)" data-score="(\d*)" data-has="([A-Z ]*)" data-fail="([\d -]*)"', r).groups()
             for r in rows]
    assert facts == [
        ("0", "1000", "PASS", ""),
        ("2", "750", "PASS FAIL PENDING", "0-1 0-2"),
        ("4", "", "HOST", ""),
        ("2", "875", "PASS FAIL", "1-1"),
        ("0", "1000", "PASS", ""),
    ]


def test_html_pass_rate_row():
    page = html_page()
    rates = re.findall(r'<td class="rate( low)?" data-step="(\d-\d)"><button [^>]*'
                       r'title="(\d+) of (\d+) learners graded on this step pass it">(\d+)%</button>', page)
    assert rates == [("", "0-0", "4", "4", "100"), ("", "0-1", "3", "4", "75"), ("", "0-2", "3", "4", "75"),
                     ("", "1-0", "3", "3", "100"), ("", "1-1", "2", "3", "67")]
    low = build([record("a", "en", {"cgoa-ci": cgoa(step2=[check("cgoa-ci", 2, "y", "FAIL")])})])
    assert '<td class="rate low" data-step="0-1">' in low["contents"]["index.html"]


def test_html_details_data_per_cell():
    data = page_json(html_page(), "data")
    assert [lab["id"] for lab in data["labs"]] == ["capa-src", "cgoa-ci"]
    l02 = data["hosts"][1]
    assert (l02["n"], l02["l"], l02["g"], l02["e"]) == ("learner02", "ja", GENERATED_AT, None)
    status, rows = l02["s"][0][1]  # capa-src step 2
    assert status == "FAIL"
    assert [data["rows"][i][:2] for i in rows] == [["capa-src.2.precedence-replicas", "FAIL"],
                                                   ["capa-src.2.precedence-image", "PASS"]]
    fail = data["rows"][rows[0]]
    # message_key "value_mismatch" with params {expected, found} renders differently from the
    # sample's text, so the learner's own message is kept (it is not shown as a translation)
    assert fail[2] == JA_MESSAGE and fail[3:] == ["3", "2", JA_HINT]
    assert data["hosts"][2]["e"] == {"k": "unreachable", "m": "ssh: connect to host 10.0.0.3 port 22: timed out",
                                     "d": '{\n  "rc": 255\n}'}
    assert data["hosts"][4]["s"][1] is None  # learner10: cgoa-ci not graded
    assert len(data["rows"]) < 29  # identical rows are stored once


def test_translations_only_when_the_catalogue_reproduces_the_learners_text():
    texts = {"en": "v is 3", "ja": "v は 3 です", "ko": "v 는 3 입니다"}

    def render(key, params, lang):
        return texts[lang]

    def hint(key, lang, params):
        return "hint " + lang

    chk = {"message_key": "k", "params": {}, "message": "v は 3 です", "hint": "hint ja", "hint_key": "h"}
    assert page_data.translations(chk, "ja", render, hint) == (list(texts.values()), ["hint en", "hint ja", "hint ko"])
    changed = dict(chk, message="an older wording")
    assert page_data.translations(changed, "ja", render, hint)[0] == "an older wording"
    no_hint_key = dict(chk, hint_key="")
    assert page_data.translations(no_hint_key, "ja", render, hint)[1] == "hint ja"

    def broken(key, params, lang):
        raise KeyError(key)
    assert page_data.translations(chk, "ja", broken, hint)[0] == "v は 3 です"


def test_translations_with_the_real_catalogue():
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
    params = {"what": "precedence.json replicas", "expected": 3, "found": 2}
    chk = check("capa-src", 2, "x", "FAIL", 3, 2, i18n.message("value_mismatch", params, "ko"),
                i18n.hint("json_types", "ko"), "value_mismatch")
    chk.update(params=params, hint_key="json_types")
    (host,) = normalize.normalize_records([record("h", "ko", {"capa-src": lab("capa-src", {2: [chk]})})])
    message, hint = page_data.translations(host["labs"]["capa-src"]["steps"][0]["checks"][0], "ko")
    assert message == [i18n.message("value_mismatch", params, lang) for lang in ("en", "ja", "ko")]
    assert hint == [i18n.hint("json_types", lang) for lang in ("en", "ja", "ko")]


@pytest.mark.parametrize("lang, label", [("en", "Learner"), ("ja", "受講者"), ("ko", "수강생")])
def test_html_ui_language(lang, label):
    page = html_page(lang=lang)
    assert f'<html lang="{lang}"' in page
    assert f'<span data-i18n="learner">{label}</span>' in page
    assert f'<option value="{lang}" selected>' in page


def test_html_lab_error_and_not_graded_cells():
    records = [record("h", "en", {"capa-src": {"failed": True, "msg": "<b>boom</b>"}}),
               record("k", "en", {"capa-src": capa(), "cgoa-ci": cgoa()})]
    page = build(records)["contents"]["index.html"]
    assert 'class="s-ERROR lab-error" colspan="3"' in page
    assert "the grading module failed: &lt;b&gt;boom&lt;/b&gt;" in page
    assert 'class="s-none" colspan="2"' in page


def test_html_with_no_hosts():
    page = build([])["contents"]["index.html"]
    assert 'data-i18n="no_hosts"' in page


def test_error_kind_has_one_wording_everywhere():
    records = [{"host": "h", "lang": "ja", "state": "error", "error": {"kind": "health", "message": "api down"}},
               {"host": "k", "lang": "en", "state": "error", "error": {"kind": "health", "message": "api down"}}]
    built = build(records)
    assert "h     ! environment unhealthy: api down" in built["matrix"]
    assert "hosts in error (not learner failures): h (environment unhealthy), k (environment unhealthy)" in built["matrix"]
    assert '<span class="kind"><span data-i18n="health">environment unhealthy</span></span>' in built["contents"]["index.html"]
    assert "environment unhealthy: api down" in built["contents"]["learners/k.txt"]
    assert "環境の異常: api down" in built["contents"]["learners/h.txt"]
    assert "environment unhealthy: api down" in built["contents"]["grades.csv"]
    assert ' health' not in built["matrix"] and "health:" not in built["contents"]["grades.csv"]


# --- history ---------------------------------------------------------------------------------


def test_grades_json_reads_back_as_the_same_hosts():
    built = build()
    back = history.hosts_from_grades(json.loads(built["contents"]["grades.json"]))
    for host in built["hosts"]:
        host.pop("change")
    assert back == built["hosts"]


@pytest.mark.parametrize("grades, message", [
    ([], "not a lab-grades/v1 report"),
    ({"schema": "lab-grades/v0"}, "not a lab-grades/v1 report"),
    ({"schema": "lab-grades/v1", "hosts": {}}, "the report has no 'hosts' and 'records' lists"),
    ({"schema": "lab-grades/v1", "hosts": [{}], "records": []}, "a host entry has no name: {}"),
    ({"schema": "lab-grades/v1", "hosts": [], "records": [3]}, "a check record is not a mapping: 3"),
    ({"schema": "lab-grades/v1", "hosts": [{"host": "a", "state": "graded", "labs": {"x": {}}}], "records": []},
     "a: lab x has no steps"),
])
def test_unreadable_previous_reports_say_why(grades, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        history.hosts_from_grades(grades)


def test_compare_hosts():
    def host(step2="PASS", state="graded"):
        (h,) = normalize.normalize_records([record("a", "en", {"capa-src": capa(step2=[check("capa-src", 2, "x", step2)])})]
                                        if state == "graded" else [{"host": "a", "state": "error",
                                                                    "error": {"kind": "health", "message": "m"}}])
        h["graded_at"] = "T0"
        return h
    assert history.compare_hosts(host(), host("FAIL")) == {
        "change": "progressed", "since": "T0", "up": ["capa-src.2"], "down": [], "passed_delta": 1}
    assert history.compare_hosts(host("PENDING"), host())["change"] == "regressed"
    assert history.compare_hosts(host(), host())["change"] == "unchanged"
    assert history.compare_hosts(host(), None)["change"] == "new"
    assert history.compare_hosts(host(), host(state="error"))["change"] == "new"
    assert history.compare_hosts(host(state="error"), host())["change"] == "not_graded"


# --- grades.csv ------------------------------------------------------------------------------


def csv_rows(records=None):
    import csv
    import io
    text = build(records)["contents"]["grades.csv"]
    assert text.startswith("\ufeff")  # so spreadsheet programs read UTF-8 (names, ja/ko messages)
    return list(csv.reader(io.StringIO(text[1:])))


def test_csv_one_row_per_learner_with_step_status_and_points():
    rows = csv_rows()
    assert rows[0] == ["learner", "learner_id", "lang", "state", "error", "graded_at", "passed", "total", "percent",
                       "capa-src passed", "cgoa-ci passed", "capa-src total", "cgoa-ci total",
                       "capa-src percent", "cgoa-ci percent",
                       "capa-src step 1", "capa-src step 1 passed", "capa-src step 2", "capa-src step 2 passed",
                       "capa-src step 3", "capa-src step 3 passed", "cgoa-ci step 1", "cgoa-ci step 1 passed",
                       "cgoa-ci step 2", "cgoa-ci step 2 passed"]
    assert [r[0] for r in rows[1:]] == ["learner01", "learner02", "learner03", "learner04", "learner10"]
    assert rows[2] == ["learner02", "", "ja", "graded", "", GENERATED_AT, "6", "8", "75.0", "3", "3", "5", "3",
                       "60.0", "100.0", "PASS", "2", "FAIL", "1", "PENDING", "0", "PASS", "1", "PASS", "2"]
    assert rows[3][:9] == ["learner03", "", "en", "error", "unreachable: ssh: connect to host 10.0.0.3 port 22: timed out",
                           GENERATED_AT, "0", "0", ""]
    assert rows[3][9:] == [""] * 16
    assert rows[5][-4:] == ["", "", "", ""]  # learner10: cgoa-ci not graded


def test_csv_cells_never_start_a_formula():
    records = [record("=HYPERLINK(\"http://x\")", "en", {"capa-src": {"failed": True, "msg": "boom"},
                                                          "cgoa-ci": cgoa()}),
               {"host": "@SUM(A1)", "state": "error", "error": {"kind": "grader", "message": "-1+1"}},
               record("k", "en", {"capa-src": capa()})]
    rows = csv_rows(records)
    assert [r[0] for r in rows[1:]] == ["'=HYPERLINK(\"http://x\")", "'@SUM(A1)", "k"]
    assert rows[1][4] == "capa-src: grader error: the grading module failed: boom"
    assert rows[1][15:21] == ["ERROR", "0", "ERROR", "0", "ERROR", "0"]  # the lab in error, step by step
    assert rows[2][4] == "grader error: -1+1"


# --- terminal matrix ------------------------------------------------------------------------


def test_matrix_lines_exact():
    assert build()["matrix"].split("\n") == [
        "host       capa-src  cgoa-ci  score",
        "learner01  ✓✓✓       ✓✓       8/8",
        "learner02  ✓✗⋯       ✓✓       6/8",
        "learner03  ! unreachable: ssh: connect to host 10.0.0.3 port 22: timed out",
        "learner04  ✓✓✓       ✓✗       7/8",
        "learner10  ✓✓✓       ∙∙       5/5",
        "hosts: 4 graded, 1 in error | checks: 26 pass, 2 fail, 1 pending, 0 error",
        "hosts in error (not learner failures): learner03 (unreachable)",
        f"legend: ✓ pass  ✗ fail  ⋯ pending  ! error  ∙ not graded  ({GENERATED_AT})",
        f"report: {REPORT_DIR}/index.html",
    ]


def test_matrix_ascii_and_lab_errors():
    records = [record("h", "en", {"capa-src": {"failed": True, "msg": "boom"}, "cgoa-ci": cgoa()}),
               record("k", "en", {"capa-src": capa(step3=[check("capa-src", 3, "x", "PENDING")]),
                                  "cgoa-ci": cgoa(step2=[check("cgoa-ci", 2, "y", "FAIL")])})]
    lines = build(records, ascii_only=True)["matrix"].split("\n")
    assert lines[:3] == [
        "host  capa-src  cgoa-ci  score",
        "h     !!!       ++       3/3  ! capa-src: the grading module failed: boom",
        "k     ++~       +X       5/7",
    ]
    assert lines[3].endswith("| labs in error: 1")
    assert lines[4] == f"legend: + pass  X fail  ~ pending  ! error  . not graded  ({GENERATED_AT})"


def test_matrix_strips_terminal_escapes():
    records = [{"host": "evil", "state": "error",
                "error": {"kind": "health", "message": "api \x1b[2J\x1b]0;pwned\x07 down\u202e\nnext"}}]
    matrix = build(records)["matrix"]
    assert "\x1b" not in matrix and "\x07" not in matrix and "\u202e" not in matrix
    # the same visible escapes as every other format (printable.py), the line break a space
    assert "evil  ! environment unhealthy: api \\x1b[2J\\x1b]0;pwned\\x07 down\\u202e next" in matrix


BIDI = "ok\u202egnp.exe \u2066x\u2069 \x9b31m \x01 \r over \ud800"
BIDI_SHOWN = "ok\\u202egnp.exe \\u2066x\\u2069 \\x9b31m \\x01 \\x0d over \\ud800"
BIDI_RAW = ("\u202e", "\u2066", "\u2069", "\x9b", "\x01", "\ud800")


def bidi_contents():
    """Every report file of a class whose records carry bidi overrides, C1 and C0 controls, a CR and a
    lone surrogate in a host name, a lab id, a step title, a check id, a message, found and a hint."""
    step = [check("cgoa-ci", 2, "p" + BIDI, "FAIL", {BIDI: 1}, BIDI, BIDI, BIDI, "rbac_allows")]
    records = [record("learner" + BIDI, "en", {"cgoa-ci": cgoa(step2=step), "lab" + BIDI: capa()}),
               {"host": "evil", "state": "error", "error": {"kind": "health", "message": BIDI}}]
    records[0]["labs"]["cgoa-ci"]["steps"][0]["title"] = BIDI
    built = build(records)
    return {**built["contents"], "matrix": built["matrix"]}


def test_no_format_carries_a_bidi_override_or_control_character():
    contents = bidi_contents()
    assert len(contents) == 8  # grades.json, .csv, checks.csv, junit.xml, index.html, the matrix and two learner texts
    for name, text in contents.items():
        assert (name, [ch for ch in BIDI_RAW if ch in text]) == (name, [])
        assert (name, "\r" in text.replace("\r\n", "")) == (name, False)  # the CSV's own line ends are CRLF
        text.encode("utf-8")  # a lone surrogate would make the file unwritable


def test_every_format_shows_the_characters_as_the_same_escapes():
    contents = bidi_contents()
    grades = json.loads(contents["grades.json"])
    assert grades["hosts"][1]["host"] == "learner" + BIDI_SHOWN
    (failing,) = [r for r in grades["records"] if r["status"] == "FAIL"]
    assert (failing["check"], failing["message"], failing["found"], failing["hint"]) == (
        f"cgoa-ci.2.p{BIDI_SHOWN}", BIDI_SHOWN, BIDI_SHOWN, BIDI_SHOWN)
    assert failing["expected"] == {BIDI_SHOWN: 1}
    assert grades["hosts"][1]["labs"]["cgoa-ci"]["steps"][0]["title"] == BIDI_SHOWN
    assert "lab" + BIDI_SHOWN in grades["hosts"][1]["labs"]
    root = ET.fromstring(contents["junit.xml"])
    failure = root.find(f"testsuite/testcase[@name='cgoa-ci.2.p{BIDI_SHOWN}']/failure")
    assert failure.get("message") == BIDI_SHOWN
    assert BIDI_SHOWN in contents["grades.csv"].split("\r\n")[2]
    data = page_json(contents["index.html"], "data")
    assert [row[2] for row in data["rows"] if row[1] == "FAIL"] == [BIDI_SHOWN]
    assert "learner" + BIDI_SHOWN in [host["n"] for host in data["hosts"]]
    name = f'<th class="host" scope="row"><button type="button" class="hn" data-h="1">learner{BIDI_SHOWN}'
    assert name in contents["index.html"]
    assert f"! environment unhealthy: {BIDI_SHOWN[:40]}" in contents["matrix"]  # cut at 100 columns


def test_matrix_fits_100_columns_for_a_real_class():
    def full_lab(lab_id, fail_step):
        return lab(lab_id, {n: [check(lab_id, n, f"c{k}", "FAIL" if n == fail_step and k == 0 else "PASS")
                                for k in range(5)] for n in range(1, 9)})
    records = [record(f"learner{n:02d}.class-2026-11.example.org", "ja",
                      {"capa-src": full_lab("capa-src", n % 8), "cgoa-ci": full_lab("cgoa-ci", n % 5)})
               for n in range(1, 31)]
    records.append({"host": "learner99", "state": "error",
                    "error": {"kind": "health", "message": "Kubernetes API が応答しません " * 10}})
    records += [None] * 40
    matrix = build(records)["matrix"]
    for line in matrix.split("\n"):
        assert values.display_width(line) <= 100, line
    assert "learner01.class-2026-1..  ✗✓✓✓✓✓✓✓  ✗✓✓✓✓✓✓✓  78/80" in matrix


def test_matrix_shows_the_cause_of_a_host_error_whole_without_ansibles_words():
    """Reasons were cut at 100 columns after Ansible's "Task failed: Data could not be sent to
    remote host ... Make sur.." (issue 19): the cause is shown, wrapped, never cut."""
    unreachable = ('Task failed: Data could not be sent to remote host "192.0.2.18". Make sure this host can be '
                   "reached over ssh: ssh: connect to host 192.0.2.18 port 22: Connection refused")
    unhealthy = ("unreachable: https://10.0.0.7:6443/api/v1/namespaces/argocd: the API server closed the connection "
                 "without answering (RemoteDisconnected); repo server: no ready replica")
    matrix = build([{"host": "learner07", "state": "error", "error": {"kind": "health", "message": unhealthy}},
                    {"host": "learner08", "state": "error", "error": {"kind": "unreachable", "message": unreachable}}]
                   )["matrix"]
    lines = matrix.split("\n")
    assert lines[1:6] == [
        "learner07  ! environment unhealthy: unreachable: https://10.0.0.7:6443/api/v1/namespaces/argocd: the",
        "    API server closed the connection without answering (RemoteDisconnected); repo server: no ready",
        "    replica",
        "learner08  ! unreachable: ssh: connect to host 192.0.2.18 port 22: Connection refused",
        "hosts: 0 graded, 2 in error | checks: 0 pass, 0 fail, 0 pending, 0 error",
    ]


def test_matrix_no_hosts():
    assert build([])["matrix"].split("\n")[1] == "(no host records)"


def test_matrix_lab_in_error_everywhere_still_shows():
    lines = build([record("h", "en", {"capa-src": {"failed": True, "msg": "boom"}})])["matrix"].split("\n")
    assert lines[:2] == ["host  capa-src  score", "h     !         0/0  ! capa-src: the grading module failed: boom"]


@pytest.mark.parametrize("value, shown", [
    (3, "3"), ("3", '"3"'), ("true", '"true"'), ("Synced", "Synced"), ("", '""'), (" x", '" x"'),
    ("a\nb", '"a\\nb"'), (None, "null"), ({"b": 1, "a": [1, "x"]}, '{"a": [1, "x"], "b": 1}'),
    ("レプリカ", "レプリカ"),
])
def test_show_value_keeps_types_visible(value, shown):
    assert values.show_value(value) == shown
