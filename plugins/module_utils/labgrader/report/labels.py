"""The report's own words (headers, legend, filters) in every language, and the one wording of
an error kind. Learner messages come from i18n, already in each host's language."""

from __future__ import annotations

LABELS = {
    "en": {
        "title": "Class report", "generated": "Generated", "learner": "Learner", "score": "Score",
        "PASS": "Pass", "FAIL": "Fail", "PENDING": "Pending (Argo CD still syncing)",
        "ERROR": "Error of the grader or environment", "none": "Not graded",
        "hosts_graded": "Learners graded", "hosts_in_error": "Could not be graded", "checks": "Checks",
        "status": "Status", "check": "Check", "message": "Message", "expected": "Expected",
        "found": "Found", "hint": "Hint", "step": "Step", "language": "Language",
        "click": "Click a cell to see its checks next to it; Esc closes them.",
        "env_error": "Could not be graded (not a learner failure)",
        "lab_error": "This lab could not be graded", "legend": "Legend",
        "unreachable": "unreachable", "health": "environment unhealthy", "grader": "grader error",
        "no_checks": "This step has no checks.", "no_hosts": "No host records.",
        "pass_rate": "Pass rate", "pass_rate_tip": "{passed} of {graded} learners graded on this step pass it",
        "show": "Show", "f_all": "all learners", "f_attention": "needs attention (error or fail)",
        "f_errors": "could not be graded / grader errors", "f_failing": "failing a step",
        "f_pending": "pending", "f_progressed": "progressed since the last run",
        "f_regressed": "lost a step since the last run", "f_complete": "every step passed",
        "failing_step": "Not passing step", "any_step": "any", "sort": "Sort",
        "s_name": "name", "s_errors": "errors and failures first", "s_score_asc": "lowest score first",
        "s_score_desc": "highest score first", "s_progress": "most progress first",
        "s_stuck": "earliest step not passed first",
        "search": "Learner name", "shown": "shown", "csv": "CSV for gradebooks",
        "msg_lang": "Messages in", "msg_learner": "the learner's language", "msg_page": "the page language",
        "close": "Close", "untranslated": "(only in the learner's language)",
        "earlier": "graded in an earlier run: {time}", "graded_at": "Graded", "change": "Δ",
        "change_tip": "Change since the run of {time}",
        "partial": "Partial run: graded {graded}; {carried} learners carried over from the run of {time}.",
        "partial_alone": "Partial run: graded {graded}; there was no earlier class view to merge into.",
        "c_progressed": "newly passed: {up}", "c_regressed": "no longer passing: {down}",
        "c_unchanged": "no change", "c_new": "first graded result", "c_not_graded": "not graded in this run",
        "c_carried": "not graded in this run",
    },
    "ja": {
        "title": "クラスレポート", "generated": "作成日時", "learner": "受講者", "score": "スコア",
        "PASS": "合格", "FAIL": "不合格", "PENDING": "保留（Argo CD が同期中です）",
        "ERROR": "採点側・環境のエラー", "none": "未採点",
        "hosts_graded": "採点した受講者", "hosts_in_error": "採点できなかった受講者", "checks": "チェック",
        "status": "結果", "check": "チェック", "message": "メッセージ", "expected": "期待値",
        "found": "実際の値", "hint": "ヒント", "step": "ステップ", "language": "表示言語",
        "click": "セルをクリックすると、その横にチェック内容が表示されます。Esc で閉じます。",
        "env_error": "採点できませんでした（受講者の失敗ではありません）",
        "lab_error": "このラボは採点できませんでした", "legend": "凡例",
        "unreachable": "接続不可", "health": "環境の異常", "grader": "採点エラー",
        "no_checks": "このステップにはチェックがありません。", "no_hosts": "ホストの記録がありません。",
        "pass_rate": "合格率", "pass_rate_tip": "このステップを採点した {graded} 人中 {passed} 人が合格しています",
        "show": "表示", "f_all": "全員", "f_attention": "要対応（エラーまたは不合格）",
        "f_errors": "採点できなかった・採点エラー", "f_failing": "不合格のステップがある",
        "f_pending": "保留がある", "f_progressed": "前回から進んだ",
        "f_regressed": "前回から合格でなくなったステップがある", "f_complete": "全ステップ合格",
        "failing_step": "未合格のステップ", "any_step": "指定なし", "sort": "並べ替え",
        "s_name": "名前順", "s_errors": "エラー・不合格を先に", "s_score_asc": "スコアの低い順",
        "s_score_desc": "スコアの高い順", "s_progress": "進んだ順",
        "s_stuck": "未合格の最初のステップが早い順",
        "search": "受講者名", "shown": "件を表示", "csv": "成績表用 CSV",
        "msg_lang": "メッセージの言語", "msg_learner": "受講者の言語", "msg_page": "表示言語",
        "close": "閉じる", "untranslated": "（受講者の言語のみ）",
        "earlier": "以前の実行で採点: {time}", "graded_at": "採点日時", "change": "Δ",
        "change_tip": "{time} の実行からの変化",
        "partial": "一部の採点です: {graded} を採点し、{carried} 人は {time} の実行の結果を引き継いでいます。",
        "partial_alone": "一部の採点です: {graded} を採点しました。引き継ぐ以前のクラスの結果はありません。",
        "c_progressed": "新たに合格: {up}", "c_regressed": "合格でなくなった: {down}",
        "c_unchanged": "変化なし", "c_new": "初めての採点結果", "c_not_graded": "今回は採点できませんでした",
        "c_carried": "今回は採点していません",
    },
    "ko": {
        "title": "클래스 리포트", "generated": "작성 시각", "learner": "수강생", "score": "점수",
        "PASS": "통과", "FAIL": "실패", "PENDING": "보류 (Argo CD가 동기화 중입니다)",
        "ERROR": "채점기·환경 오류", "none": "채점 안 함",
        "hosts_graded": "채점한 수강생", "hosts_in_error": "채점할 수 없었던 수강생", "checks": "검사",
        "status": "결과", "check": "검사", "message": "메시지", "expected": "기댓값",
        "found": "실제 값", "hint": "힌트", "step": "단계", "language": "표시 언어",
        "click": "셀을 클릭하면 그 옆에 검사 내용이 표시됩니다. Esc 키로 닫습니다.",
        "env_error": "채점할 수 없었습니다 (수강생의 실패가 아닙니다)",
        "lab_error": "이 랩은 채점할 수 없었습니다", "legend": "범례",
        "unreachable": "연결 불가", "health": "환경 이상", "grader": "채점 오류",
        "no_checks": "이 단계에는 검사가 없습니다.", "no_hosts": "호스트 기록이 없습니다.",
        "pass_rate": "통과율", "pass_rate_tip": "이 단계를 채점한 {graded}명 중 {passed}명이 통과했습니다",
        "show": "표시", "f_all": "전체", "f_attention": "조치 필요 (오류 또는 실패)",
        "f_errors": "채점할 수 없음·채점 오류", "f_failing": "실패한 단계가 있음",
        "f_pending": "보류가 있음", "f_progressed": "지난 실행 이후 진행함",
        "f_regressed": "지난 실행 이후 통과하지 못하게 된 단계가 있음", "f_complete": "모든 단계 통과",
        "failing_step": "통과하지 못한 단계", "any_step": "지정 안 함", "sort": "정렬",
        "s_name": "이름순", "s_errors": "오류·실패 먼저", "s_score_asc": "점수 낮은 순",
        "s_score_desc": "점수 높은 순", "s_progress": "많이 진행한 순",
        "s_stuck": "통과하지 못한 첫 단계가 빠른 순",
        "search": "수강생 이름", "shown": "명 표시", "csv": "성적부용 CSV",
        "msg_lang": "메시지 언어", "msg_learner": "수강생의 언어", "msg_page": "표시 언어",
        "close": "닫기", "untranslated": "(수강생의 언어로만 있습니다)",
        "earlier": "이전 실행에서 채점: {time}", "graded_at": "채점 시각", "change": "Δ",
        "change_tip": "{time} 실행 이후의 변화",
        "partial": "일부만 채점했습니다. 채점한 수강생: {graded}. {carried}명은 {time} 실행의 결과를 이어받았습니다.",
        "partial_alone": "일부만 채점했습니다. 채점한 수강생: {graded}. 이어받을 이전 클래스 결과가 없습니다.",
        "c_progressed": "새로 통과: {up}", "c_regressed": "더 이상 통과하지 않음: {down}",
        "c_unchanged": "변화 없음", "c_new": "첫 채점 결과", "c_not_graded": "이번에는 채점할 수 없었습니다",
        "c_carried": "이번에는 채점하지 않았습니다",
    },
}

def kind_label(kind, lang="en"):
    """The one wording of an error kind (unreachable / environment unhealthy / grader error)."""
    return LABELS[lang].get(kind, kind)


def label(lang, key, **params):
    return LABELS[lang][key].format(**params) if params else LABELS[lang][key]


# The learner's own report (learners/<host>.txt) needs these few words more.
LEARNER_LABELS = {
    "en": {"not_started": "not started", "same_cause": "same cause as step {step}"},
    "ja": {"not_started": "未着手", "same_cause": "同じ原因: ステップ {step}"},
    "ko": {"not_started": "시작 전", "same_cause": "같은 원인: 단계 {step}"},
}
