"""The words every part of the grader shares, defined once: statuses and their severity, error
kinds, languages and terminal symbols (docs/grading-contract.md, docs/report-format.md).

No imports beyond the standard library: the grade_matrix callback and the filter plugins import
it on the controller.
"""

from __future__ import annotations

PASS = "PASS"  # the learner's work is right
FAIL = "FAIL"  # the learner's work is wrong or missing
PENDING = "PENDING"  # Argo CD was still converging when the grader looked
ERROR = "ERROR"  # the grader could not judge: never the learner's fault
STATUSES = (PASS, FAIL, PENDING, ERROR)

# Rank of each status, higher is worse; the dict is written worst first, so iterating it gives
# the order a report sorts by. An ERROR hides nothing about the learner, so it outranks FAIL.
SEVERITY = {ERROR: 3, FAIL: 2, PENDING: 1, PASS: 0}

# Why a host (or a lab on a host) could not be graded.
ERROR_KINDS = ("unreachable", "health", "grader")

LANGUAGES = ("en", "ja", "ko")
LANGUAGE_NAMES = {"en": "English", "ja": "日本語", "ko": "한국어"}


def translation(texts, name):
    """One entry, {lang: text}, checked: it has English and names only the languages above, so a
    misspelt language code or an entry in another shape fails where it is declared instead of
    showing a learner English. A language it lacks falls back to English (pick)."""
    if not isinstance(texts, dict) or not isinstance(texts.get("en"), str) or not set(texts) <= set(LANGUAGES):
        raise ValueError(f"{name} must be {{language: text}} with English and languages of {LANGUAGES}")
    return texts


def translations(table, name):
    """`table`, {key: {lang: text}}, every entry checked (translation) when its module is
    imported (`missing_languages` lists what a language lacks; a test keeps that list empty)."""
    for key, texts in table.items():
        translation(texts, f"{name}: {key!r}")
    return table


def pick(texts, lang):
    """One language's text of a {lang: text} entry; English where the entry lacks `lang`."""
    return texts.get(lang) or texts["en"]


def missing_languages(table):
    """{lang: [keys whose entry lacks it]} of a translation table."""
    return {lang: [key for key, texts in table.items() if not texts.get(lang)] for lang in LANGUAGES}


def by_language(table):
    """A translation table indexed the other way, {lang: {key: text}}, English where a language
    lacks an entry: the view a page or a report in one language reads."""
    return {lang: {key: pick(texts, lang) for key, texts in table.items()} for lang in LANGUAGES}

# Terminal symbols; None is "not graded". The Unicode ones all have East Asian width "N" (narrow),
# so columns stay aligned in ja/ko terminals that draw "ambiguous" characters (such as "…" and
# "·") double wide.
SYMBOLS = {PASS: "\u2713", FAIL: "\u2717", PENDING: "\u22ef", ERROR: "!", None: "\u2219"}
ASCII_SYMBOLS = {PASS: "+", FAIL: "X", PENDING: "~", ERROR: "!", None: "."}
# Terminal colours (ansible.utils.color names) of the statuses.
COLORS = {PASS: "green", FAIL: "red", PENDING: "yellow", ERROR: "magenta"}


def worst(statuses, default=PASS):
    """The most severe status of an iterable (ERROR > FAIL > PENDING > PASS); `default` for none."""
    result = None
    for status in statuses:
        if result is None or SEVERITY[status] > SEVERITY[result]:
            result = status
    return default if result is None else result
