"""Every message a check can produce exists in en, ja and ko with the same placeholders."""

from __future__ import annotations

import re
import string
from pathlib import Path

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n

from tests.grader.catalogues import tables

SOURCES = list((Path(__file__).resolve().parents[2] / "plugins" / "module_utils" / "labgrader").rglob("*.py"))


def used_keys(pattern):
    keys = set()
    for source in SOURCES:
        keys.update(re.findall(pattern, source.read_text()))
    return keys


def fields(template):
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_key_used_in_code_is_translated():
    keys = used_keys(r'(?:failed|passed|pending|errored)\(\s*"([a-z_0-9]+)"')
    keys |= {f"file_{p}" for p in ("missing", "empty", "too_large", "binary", "outside", "not_regular",
                                   "unreadable", "invalid_json", "invalid_yaml")}
    keys |= {f"repo_{p}" for p in ("missing", "not_a_repo", "not_bare", "no_branch", "unreadable")}
    keys |= {f"clone_{p}" for p in ("missing", "not_a_clone", "unreadable")}
    keys |= used_keys(r'blocked\(\d, "([a-z_]+)"')
    missing = sorted(k for k in keys if k not in i18n.MESSAGES)
    assert missing == []


def test_every_hint_key_used_in_code_exists():
    keys = used_keys(r'hint="([a-z_]+)"')
    assert sorted(k for k in keys if k not in i18n.HINTS) == []


def test_every_language_of_an_entry_has_the_same_placeholders():
    differ = [(name, key) for name, table in tables().items() for key, entry in table.items()
              if len({frozenset(fields(text)) for text in entry.values()}) > 1]
    assert differ == []


def test_values_are_shown_as_json_so_types_are_visible():
    params = {"what": "ignore.json replicas", "expected": 4, "found": "4"}
    assert i18n.message("value_mismatch", params, "en") == 'ignore.json replicas: expected 4, found "4"'
    assert i18n.message("value_mismatch", params, "ja") == 'ignore.json replicas: 期待値は 4 ですが、実際は "4" です'
    assert i18n.message("value_mismatch", params, "ko") == 'ignore.json replicas: 기댓값은 4, 실제 값은 "4"입니다'


def test_blocked_by_renders_its_reason():
    params = {"step": 5, "reason": "live_object_missing", "what": "ConfigMap src-waves/settings"}
    assert i18n.message("blocked_by", params, "en") == (
        "blocked by step 5: ConfigMap src-waves/settings does not exist in the cluster")


def test_missing_parameter_and_unknown_key_do_not_crash():
    assert i18n.message("value_mismatch", {}, "en") == "{what}: expected {expected}, found {found}"
    assert i18n.message("no_such_key", {"a": 1}, "en") == 'no_such_key: {"a": 1}'
    assert i18n.hint("no_such_hint", "ja") == ""


def test_unknown_language_falls_back_to_english():
    assert i18n.message("file_missing", {"path": "/x"}, "fr") == "/x does not exist"


def test_long_values_are_shortened():
    shown = i18n.show("x" * 500)
    assert len(shown) == 120 and shown.endswith("...")
