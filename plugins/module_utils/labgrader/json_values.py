"""Values parsed from JSON or YAML, navigated safely: dig, JSON types, typed fields, times."""

from __future__ import annotations

import datetime

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed

MISSING = object()


def dig(obj, *keys, default=None):
    """obj[k1][k2]... where every level may be absent or of the wrong type."""
    for key in keys:
        in_dict = isinstance(obj, dict) and key in obj
        in_list = isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj)
        if in_dict or in_list:
            obj = obj[key]
        else:
            return default
    return obj


def json_type(value):
    """The JSON name of a Python value, as a learner would call it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def typed_field(data, key, expected_type, what):
    """Return (value, None) when data[key] has the JSON type, else (None, failing Verdict).

    expected_type: "number", "integer", "string", "boolean", "string-or-null", "object".
    """
    if key not in data:
        return None, failed("missing_key", expected=expected_type, found=None, what=what, key=key)
    value = data[key]
    ok = {
        "number": is_number,
        "integer": is_integer,
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "string-or-null": lambda v: v is None or isinstance(v, str),
        "object": lambda v: isinstance(v, dict),
    }[expected_type](value)
    if not ok:
        return None, failed("wrong_type", expected=expected_type, found=value, what=what,
                            expected_type=expected_type, found_type=json_type(value), hint="json_types")
    return value, None


def parse_time(value):
    """RFC 3339 text -> aware datetime, or None. A value without an offset is not RFC 3339."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.strip().replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def unix(value):
    parsed = parse_time(value)
    return parsed.timestamp() if parsed else None
