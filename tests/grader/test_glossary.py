"""One word per Argo CD term and language, one register per language, and Korean particles that
fit the word they follow.

GLOSSARY is the catalogue's terminology: for each term the word used in Japanese and Korean (as in
the Argo CD UI and docs, which keep kinds, statuses and field names in English: Application,
Synced, Healthy, status.sync.revision) and the alternatives that must not appear. Every ja/ko
message, hint, step title and lab title is scanned.
"""

from __future__ import annotations

import re

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n

from tests.grader.catalogues import texts

# term: (ja, ko, forbidden in ja, forbidden in ko); the forbidden entries are regular expressions.
GLOSSARY = {
    "sync": ("同期", "동기화", [r"シンク", r"同調"], [r"싱크"]),
    "automated sync": ("自動同期", "자동 동기화", [r"自動シンク", r"オート同期"], [r"자동동기화", r"오토 싱크"]),
    "sync phase (PreSync, Sync, PostSync)": (
        "フェーズ", "페이즈", [r"段階", r"局面"],
        # 단계 is the lab's step (below); next to a sync word it would mean the phase
        [r"(?:Sync|PreSync|PostSync|동기화|같은)\s*단계", r"국면"]),
    "sync wave": ("ウェーブ", "웨이브", [r"ウエーブ", r"ウェイブ", r"波"], [r"웨이ブ", r"파도"]),
    "hook": ("フック", "훅", [r"ホック"], [r"후크"]),
    "operation (status.operationState)": ("オペレーション", "오퍼레이션", [r"処理", r"操作"],
                                          [r"작업(?! 공간)"]),
    "revision": ("リビジョン", "리비전", [r"(?<![a-z._])revision(?!s?[._a-zA-Z])", r"版"],
                 [r"(?<![a-z._])revision(?!s?[._a-zA-Z])", r"리비젼", r"개정"]),
    "still syncing (PENDING)": ("同期中", "동기화 중", [r"収束"], [r"수렴"]),
    "retry": ("リトライ", "재시도", [r"再試行"], [r"리트라이"]),
    "step (of the lab)": ("ステップ", "단계", [r"段階", r"手順"], [r"스텝"]),
    "namespace": ("ネームスペース", "네임스페이스", [r"名前空間"], [r"이름공간", r"이름 공간", r"네임 스페이스"]),
    "repository": ("リポジトリ", "저장소", [r"レポジトリ"], [r"리포지토리", r"레포지토리"]),
    "bare repository": ("ベアリポジトリ", "베어 저장소", [r"\bbare\s*(?:の\s*)?main"], [r"\bbare\s+main"]),
    "commit": ("コミット", "커밋", [], []),
    "cluster": ("クラスター", "클러스터", [r"クラスタ(?!ー)"], []),
    "workspace": ("ワークスペース", "작업 공간", [r"作業領域"], [r"워크스페이스"]),
    "evidence file": ("証拠ファイル", "증거 파일", [], []),
    "check (one graded item)": ("チェック", "검사", [r"項目"], [r"항목"]),
}

LANGS = {"ja": 1, "ko": 2}  # index of the language's word in a GLOSSARY entry


TEXTS = texts(LANGS)


def without_code(text):
    """The prose of a text: `code`, {placeholders} and dotted field names removed."""
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\{[a-z_0-9]+\}", " ", text)
    return re.sub(r"\b[a-zA-Z]+(?:\.[a-zA-Z]+)+\b", " ", text)


def test_the_glossary_has_one_word_per_term_and_language():
    for lang, index in LANGS.items():
        words = [entry[index - 1] for entry in GLOSSARY.values()]
        assert len(words) == len(set(words)), lang


@pytest.mark.parametrize("lang", LANGS)
def test_no_forbidden_alternative_of_a_glossary_term(lang):
    index = LANGS[lang] + 1
    found = [(where, term, pattern) for where, text_lang, text in TEXTS if text_lang == lang
             for term, entry in GLOSSARY.items() for pattern in entry[index]
             if re.search(pattern, without_code(text))]
    assert found == []


# English words the catalogue translates with the glossary (word boundaries, prose only).
# A word inside a name (src-waves, waves.json, hook_job) is not prose.
EN_TERMS = {term: r"(?<![-/\w.])" + word + r"(?![-/\w]|\.\w)" for term, word in (
    ("sync wave", r"waves?"), ("hook", r"hooks?"), ("retry", r"retr(?:y|ies|ied)"), ("namespace", r"namespace"))}


@pytest.mark.parametrize("term", sorted(EN_TERMS))
def test_an_english_term_is_translated_with_its_glossary_word(term):
    ja_word, ko_word = GLOSSARY[term][:2]
    missing = []
    for catalogue in (i18n.MESSAGES, i18n.HINTS):
        for key, entry in catalogue.items():
            if re.search(EN_TERMS[term], without_code(entry["en"]), re.IGNORECASE):
                missing += [(key, lang) for lang, word in (("ja", ja_word), ("ko", ko_word)) if word not in entry[lang]]
    assert missing == []


# Japanese: the interface is polite (です/ます), so no sentence ends in plain form (ない, る, た, だ).
PLAIN_ENDING = re.compile(r"(?:ない|[うくつぬぶむるぐ]|(?<![まで])す|(?<!まし)(?<!でし)た|だ|である)(?=。|$|[((:：])")


def test_japanese_is_polite_throughout():
    # `phrase_*` entries are pieces of a sentence ("ベアリポジトリ {path} を読む" + "ことができません
    # でした"): their plain form is what the sentence around them needs.
    plain = [(where, text) for where, lang, text in TEXTS if lang == "ja" and "title" not in where
             and "phrase_" not in where and PLAIN_ENDING.search(re.sub(r"`[^`]*`", "x", text))]
    assert plain == []


def test_every_japanese_message_and_hint_has_a_polite_ending():
    polite = re.compile(r"(?:です|ます|ました|ません|でした|ください)")
    # `phrase_*` entries are pieces of a sentence (what a probe checks), not sentences.
    terse = [(where, text) for where, lang, text in TEXTS if lang == "ja" and "title" not in where
             and "phrase_" not in where and not polite.search(text)]
    assert terse == []


def test_korean_is_in_the_formal_register():
    informal = re.compile(r"(?:해요|어요|아요|이에요|예요|한다|된다|이다|없다|있다|않는다)(?=[.\s)]|$)")
    found = [(where, text) for where, lang, text in TEXTS if lang == "ko" and "title" not in where
             and informal.search(text)]
    assert found == []


# Korean particles whose form depends on the last sound of the word before them (이/가, 은/는,
# 을/를, 과/와, 으로/로, and the copula's 이어야/여야, 이지만/지만, 이었/였). A placeholder's value is
# not known when the catalogue is written, so none of them may follow one; invariant particles
# (의, 에, 에서, 도, 만, 까지, 보다) and 입니다 fit any word.
ALTERNATING = r"(?:이|가|은|는|을|를|과|와|으로|로|이나|나|이어야|여야|이지만|지만|이었|였|이라고|라고)"
AFTER_PLACEHOLDER = re.compile(r"\}[\"')\]]*\s*" + ALTERNATING + r"(?=[\s.,:;)]|$)")
# In Korean a particle is written attached to its word: "Git을", not "Git 을".
DETACHED = re.compile(r"[A-Za-z0-9\"'`)\]}] " + ALTERNATING + r"(?=[\s.,:;)]|$)")


def test_no_korean_particle_is_chosen_for_an_unknown_word():
    found = [(where, m.group(0)) for where, lang, text in TEXTS if lang == "ko"
             for m in AFTER_PLACEHOLDER.finditer(text)]
    assert found == []


def test_korean_particles_are_attached_to_their_word():
    found = [(where, m.group(0)) for where, lang, text in TEXTS if lang == "ko" for m in DETACHED.finditer(text)]
    assert found == []


@pytest.mark.parametrize("text, bad", [
    ("Application {name} 는 Synced 입니다", True),
    ("{step}단계가 끝나지 않았습니다", False),
    ("{path} 가 없습니다", True),
    ("{path} 경로가 없습니다", False),
    ("\"{key}\"가 없습니다", True),
    ("{what}의 값은 {found}입니다", False),
])
def test_the_particle_rule_itself(text, bad):
    assert bool(AFTER_PLACEHOLDER.search(text)) is bad
