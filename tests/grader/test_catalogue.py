"""Every message key and hint key the checks use exists in the catalogue (a typo would otherwise
render as "key: {params}" in a learner's report), in every language."""

from __future__ import annotations

import re

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

from tests.conftest import REPO_ROOT

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


def test_every_entry_has_all_languages():
    for catalogue in (i18n.MESSAGES, i18n.HINTS):
        for key, texts in catalogue.items():
            assert len(texts) == len(i18n.LANGUAGES) and all(texts), key


def test_the_scan_sees_the_labs():
    # a lab is a module (labs/<id>.py) or a package (labs/<id>/)
    assert {"capa_src", "cgoa_ci"} <= {path.stem for path in SOURCES} | {path.parent.name for path in SOURCES}
    assert ("live_object_missing", "step7_delivery.py") in uses(BLOCKED_USE)  # labs/cgoa_ci/
