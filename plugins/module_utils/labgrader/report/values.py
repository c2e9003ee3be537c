"""How the report shows values: JSON-safe copies, contract strings, natural sort keys, and text
that XML, HTML and terminals can hold (printable.py does the escaping)."""

from __future__ import annotations

import json
import math
import re
import unicodedata

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.printable import printable
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import LANGUAGES


def natural_key(text):
    """learner2 sorts before learner10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part.lower())
            for part in re.split(r"(\d+)", text) if part]


def short_repr(value, limit=120):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def jsonable(value, _depth=0):
    """A copy of `value` that json.dumps accepts and that stays valid JSON (no NaN)."""
    if _depth > 50:
        return short_repr(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value if not isinstance(value, str) else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [jsonable(v, _depth + 1) for v in items]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return short_repr(value)


def as_text(value):
    """A string field of the contract: None -> '', other types -> their JSON text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return str(value)
    return json.dumps(jsonable(value), ensure_ascii=False)


def as_int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def record_lang(raw):
    """The language of a host record: one the report knows, else English."""
    return raw.get("lang") if raw.get("lang") in LANGUAGES else "en"


def show_value(value):
    """expected/found as a human reads them: JSON text, plain strings unquoted.

    A string stays quoted when it is empty, spans lines, has surrounding blanks or reads as
    another JSON value, so "3" (a string) never looks like 3 (a number).
    """
    if isinstance(value, str) and value and "\n" not in value and value.strip() == value:
        try:
            json.loads(value)
        except ValueError:
            return value
    return json.dumps(jsonable(value), ensure_ascii=False, sort_keys=True)


def xml_safe(value, limit=None):
    """Text XML 1.0 can hold, cut to `limit` characters: printable() escapes every character XML
    forbids (C0 controls, lone surrogates, U+FFFE/U+FFFF) with the rest it neutralises."""
    text = as_text(value)
    if limit and len(text) > limit:
        text = text[:limit] + "..."
    return printable(text)


def term_safe(value):
    """One line of text a terminal shows as is: no escape sequences, no bidi tricks (printable())."""
    return re.sub(r"\s+", " ", printable(as_text(value))).strip()


def display_width(text):
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)
