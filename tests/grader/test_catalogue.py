"""Every message key and hint key the checks use exists in the catalogue (a typo would otherwise
render as "key: {params}" in a learner's report), in every language."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import (
    by_language,
    missing_languages,
    translations,
)

from tests.conftest import REPO_ROOT
from tests.grader.catalogues import tables

SOURCES = sorted((REPO_ROOT / "plugins" / "module_utils" / "labgrader").rglob("*.py"))
MESSAGE_USE = re.compile(r'\b(?:passed|failed|pending|errored)\(\s*"([a-z0-9_]+)"')
BLOCKED_USE = re.compile(r'\bblocked\(\s*\d+\s*,\s*"([a-z0-9_]+)"')
HINT_USE = re.compile(r'\bhint="([a-z0-9_]+)"')


def uses(pattern):
    return {(key, path.name) for path in SOURCES for key in pattern.findall(path.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("pattern", [MESSAGE_USE, BLOCKED_USE], ids=["message", "blocked reason"])
def test_every_message_key_used_exists(pattern):
    assert LABS  # importing the registry adds the labs' messages
    missing = sorted((key, where) for key, where in uses(pattern) if key not in i18n.MESSAGES)
    assert missing == []


def test_every_hint_key_used_exists():
    missing = sorted((key, where) for key, where in uses(HINT_USE) if key not in i18n.HINTS)
    assert missing == []


def test_no_language_lacks_an_entry():
    """What each language lacks, table by table (English stands in at run time); adding a
    language to vocabulary.LANGUAGES makes this list every entry still to translate."""
    lacking = {name: {lang: keys for lang, keys in missing_languages(table).items() if keys}
               for name, table in tables().items()}
    assert {name: lacks for name, lacks in lacking.items() if lacks} == {}


def test_a_language_missing_from_an_entry_is_listed_and_falls_back_to_english():
    table = {"greeting": {"en": "hello", "ja": "こんにちは"}}
    assert missing_languages(translations(table, "test")) == {"en": [], "ja": [], "ko": ["greeting"]}
    assert i18n.pick(table["greeting"], "ko") == "hello"
    assert by_language(table)["ko"] == {"greeting": "hello"}


@pytest.mark.parametrize("entry", [
    {"en": "hello", "jp": "こんにちは"},  # a misspelt language code
    {"ja": "こんにちは"},  # no English to fall back to
    ("hello", "こんにちは", "안녕하세요"),  # the old (en, ja, ko) shape
])
def test_an_entry_in_another_shape_fails_when_its_table_is_declared(entry):
    with pytest.raises(ValueError, match=r"must be \{language: text\}"):
        translations({"greeting": entry}, "test")


def test_a_lab_entry_in_another_shape_fails_at_registration():
    lab = SimpleNamespace(id="hello-lab", messages={"greeting": {"en": "hello", "kr": "안녕하세요"}}, hints={})
    with pytest.raises(ValueError, match="lab hello-lab: 'greeting' must be"):
        i18n.register(lab)


def test_the_scan_sees_the_labs():
    # a lab is a module (labs/<id>.py) or a package (labs/<id>/)
    assert {"capa_src", "cgoa_ci"} <= {path.stem for path in SOURCES} | {path.parent.name for path in SOURCES}
    assert ("live_object_missing", "step7_delivery.py") in uses(BLOCKED_USE)  # labs/cgoa_ci/
