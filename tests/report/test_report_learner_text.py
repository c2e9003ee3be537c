"""learners/<host>.txt: what one learner reads, in the learner's language."""

from __future__ import annotations

from ansible.module_utils.labgrader.report import build_learner_text, learner_file_name, normalize_records


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
        "learner03  (作成日時: 2026-11-30T05:00:00Z)",
        "",
        "== capa-src  1/2",
        "✗ ステップ 1: Chart in git",
        "    ✗ precedence.json replicas: 期待値 3、実際は 2",
        "      期待値: 3",
        "      実際の値: 2",
        "      ヒント: 推測せず実物を読む",
    ]


def test_string_and_number_stay_distinguishable():
    host = normalize_records([record("en", [check("FAIL", "m", 4, "4")])])[0]
    text = build_learner_text(host, "t")
    assert "      Expected: 4" in text and '      Found: "4"' in text


def test_host_in_error_says_it_is_not_the_learners_fault():
    host = normalize_records([record("ko", [check("PASS", "ok")], state="error",
                                     error={"kind": "unreachable", "message": "ssh: connect refused"})])[0]
    assert build_learner_text(host, "t").splitlines()[2] == (
        "! 채점할 수 없었습니다 (수강생의 실패가 아닙니다): ssh: connect refused")


def test_file_names_are_safe():
    assert learner_file_name("learner07") == "learners/learner07.txt"
    assert learner_file_name("../etc/passwd") == "learners/_etc_passwd.txt"
    assert learner_file_name("a b/c") == "learners/a_b_c.txt"
