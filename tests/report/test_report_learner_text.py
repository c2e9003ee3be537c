"""learners/<host>.txt: what one learner reads, in the learner's language."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.learner_text import (
    build_learner_text,
    learner_file_name,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.normalize import normalize_records


def record(lang, checks, state="graded", error=None):
    steps = [{"step": 1, "title": "Chart in git", "status": checks[0]["status"], "checks": checks}]
    return {"host": "learner03", "lang": lang, "state": state, "error": error,
            "labs": {} if error else {"capa-src": {"status": checks[0]["status"], "steps": steps}}}


def check(status, message, expected=None, found=None, hint=""):
    return {"lab": "capa-src", "step": 1, "check": "capa-src.1.x", "status": status, "expected": expected,
            "found": found, "message_key": "k", "params": {}, "message": message, "hint": hint}


def test_failing_check_shows_message_expected_found_and_hint_in_japanese():
    host = normalize_records([record("ja", [
        check("PASS", "ok"),
        check("FAIL", "precedence.json replicas: 期待値 3、実際は 2", 3, 2, "推測せず実物を読む"),
    ])])[0]
    text = build_learner_text(host, "2026-11-30T05:00:00Z")
    assert text.splitlines() == [
        "learner03  (採点日時: 2026-11-30T05:00:00Z)",
        "",
        "== capa-src  1/2",
        "✗ ステップ 1: Chart in git",
        "    ✗ precedence.json replicas: 期待値 3、実際は 2",  # the message says both values already
        "      ヒント: 推測せず実物を読む",
    ]


def test_korean_puts_the_step_number_first_and_says_what_a_repeat_means():
    failing = check("FAIL", "tracking.json 파일이 없습니다", None, None, "파일을 만드세요")
    host = normalize_records([record("ko", [check("PASS", "ok"), failing, dict(failing)])])[0]
    assert build_learner_text(host, "2026-11-30T05:00:00Z").splitlines()[3:] == [
        "✗ 1단계: Chart in git",
        "    ✗ tracking.json 파일이 없습니다 (검사 2개에서 같음)",
        "      힌트: 파일을 만드세요",
    ]


def test_string_and_number_stay_distinguishable():
    host = normalize_records([record("en", [check("PASS", "ok"), check("FAIL", "m", 4, "4")])])[0]
    text = build_learner_text(host, "t")
    assert "      Expected: 4" in text and '      Found: "4"' in text


def test_host_in_error_says_it_is_not_the_learners_fault():
    host = normalize_records([record("ko", [check("PASS", "ok")], state="error",
                                     error={"kind": "unreachable", "message": "ssh: connect refused"})])[0]
    assert build_learner_text(host, "t").splitlines()[2] == (
        "! 채점할 수 없었습니다 (수강생의 실패가 아닙니다): 연결 불가: ssh: connect refused")


def test_file_names_are_safe():
    assert learner_file_name("learner07") == "learners/learner07.txt"
    assert learner_file_name("../etc/passwd") == "learners/_etc_passwd.txt"
    assert learner_file_name("a b/c") == "learners/a_b_c.txt"


def lab_record(lang, steps):
    """steps: {number: [check, ...]}"""
    return {"host": "learner04", "lang": lang, "state": "graded", "error": None, "labs": {"capa-src": {"steps": [
        {"step": n, "title": f"title {n}", "checks": [dict(c, step=n) for c in checks]} for n, checks in steps.items()]}}}


REPO_MISSING = "/srv/bare/src.git does not exist"
REPO_HINT = "Create the server-side repo with `git init --bare /srv/bare/src.git`"


def test_null_values_and_repeats_are_not_noise():
    host = normalize_records([lab_record("en", {
        1: [check("PASS", "ok")] + [check("FAIL", REPO_MISSING, hint=REPO_HINT)] * 6
           + [check("FAIL", "app.yaml: expected 3, found 2", 3, 2, hint="Check the Application file.")],
        2: [check("FAIL", REPO_MISSING, hint=REPO_HINT)] * 4,
        3: [check("FAIL", REPO_MISSING, hint=REPO_HINT), check("FAIL", "tracking.json: key missing", "a", None)],
    })])[0]
    lines = build_learner_text(host, "t").splitlines()
    assert lines[2:] == [
        "== capa-src  1/14",
        "✗ Step 1: title 1",
        f"    ✗ {REPO_MISSING} (the same in 6 checks)",
        f"      Hint: {REPO_HINT}",
        "    ✗ app.yaml: expected 3, found 2",
        "      Hint: Check the Application file.",
        "✗ Step 2: title 2",
        "    same cause as step 1",
        "✗ Step 3: title 3",
        "    ✗ tracking.json: key missing",
        "      Expected: a",
    ]
    assert "null" not in "\n".join(lines)


def test_a_learner_who_has_not_started_gets_one_line_per_step():
    host = normalize_records([lab_record("ja", {
        1: [check("FAIL", "/srv/bare/src.git がありません", hint="git init --bare で作ります")] * 7,
        2: [check("FAIL", "app-src-helm.yaml がありません")] * 4,
        3: [check("FAIL", "tracking.json がありません"), check("PENDING", "同期中です")],
    })])[0]
    assert build_learner_text(host, "t").splitlines()[2:] == [
        "== capa-src  0/13  (未着手)",
        "✗ ステップ 1: title 1 — /srv/bare/src.git がありません",
        "      ヒント: git init --bare で作ります",
        "✗ ステップ 2: title 2 — app-src-helm.yaml がありません",
        "✗ ステップ 3: title 3 — tracking.json がありません",
    ]


def test_a_broken_vm_is_told_in_the_learners_language_from_its_reasons():
    reason = {"key": "host_gitd_missing", "params": {"namespace": "gitsrv"}}
    error = {"kind": "health", "message": "Service gitd is missing in namespace gitsrv", "reasons": [reason]}
    host = normalize_records([{"host": "learner03", "lang": "ja", "state": "error", "error": error}])[0]
    assert build_learner_text(host, "2026-11-30T05:00:00Z").splitlines()[2] == (
        "! 採点できませんでした（受講者の失敗ではありません）: 環境の異常: gitsrv ネームスペースに Service gitd がありません")
    # a reason that names no catalogue message is not trusted: the record's English message stands
    forged = {**error, "reasons": [{"key": "no_such_message", "params": {}}]}
    host = normalize_records([{"host": "learner03", "lang": "ja", "state": "error", "error": forged}])[0]
    assert "reasons" not in host["error"]
    assert build_learner_text(host, "2026-11-30T05:00:00Z").splitlines()[2].endswith(error["message"])
