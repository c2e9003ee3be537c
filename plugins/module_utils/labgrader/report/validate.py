"""Validation: a host's result is only what the controller's registry (labs.LABS) declares for
the labs the host is enrolled in; anything else rejects the whole host (docs/report-format.md)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import (
    LABS,  # also registers every lab's messages in i18n
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import (
    BOUND_DEPTH,
    BOUND_ITEMS,
    BOUND_NODES,
    BOUND_STRING,
    bound,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import record_lang, short_repr
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import summarize
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import STATUSES, worst

# What lab_grade can legitimately return (grading.render): expected, found and params are
# limits.bound() copies (params hold expected and found one level down), with bound's "…[…]"
# markers and scrub's "<redacted>" on top; so a value is accepted when bound() with these wider
# limits leaves it unchanged. A message or hint is a catalogue template (under 300 characters,
# at most 4 placeholders; blocked_by nests one more message) filled with such values.
RESULT_VALUE_LIMITS = {"max_depth": BOUND_DEPTH + 1, "max_items": 2 * BOUND_ITEMS, "max_string": 2 * BOUND_STRING,
                       "max_nodes": 4 * BOUND_NODES}
RESULT_TEXT_MAX = 10 * BOUND_STRING
RESULT_KEY_MAX = 200  # message_key and hint_key: catalogue keys such as "value_mismatch"
# The string fields of a check: the longest each may be, and whether null is allowed (a PASS has
# no hint_key).
CHECK_TEXTS = {"message": (RESULT_TEXT_MAX, False), "hint": (RESULT_TEXT_MAX, False),
               "message_key": (RESULT_KEY_MAX, False), "hint_key": (RESULT_KEY_MAX, True)}
CHECK_VALUES = ("expected", "found", "params")


def _named(value):
    """A value of the result named in a rejection message: strings as they are, cut short."""
    return short_repr(value) if not isinstance(value, str) else (value if len(value) <= 120 else value[:120] + "...")


def _value_problem(what, value):
    if bound(value, **RESULT_VALUE_LIMITS) != value:
        return f"{what} is larger or deeper than the grader returns"
    return None


def _text_problem(what, value, limit, nullable=False):
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        return f"{what} is not a string"
    if len(value) > limit:
        return f"{what} has {len(value)} characters, more than {limit}"
    return None


def _check_problem(lab, number, raw, declared, seen):
    """Why one check of step `number` is not a check `lab` declares there, once, in the shape
    lab_grade returns; None when it is."""
    if not isinstance(raw, dict):
        return f"lab {lab.id} step {number} has a check that is not a mapping"
    check_id = raw.get("check")
    if not isinstance(check_id, str) or check_id not in declared:
        return f"lab {lab.id} has no check {_named(check_id)}"
    if declared[check_id] != number:
        return f"check {check_id} is in step {number}, but lab {lab.id} declares it in step {declared[check_id]}"
    if check_id in seen:
        return f"lab {lab.id} has check {check_id} twice"
    seen.add(check_id)
    if raw.get("lab") != lab.id or raw.get("step") != number:
        return f"check {check_id} names lab {short_repr(raw.get('lab'))} step {short_repr(raw.get('step'))}"
    if raw.get("status") not in STATUSES:
        return f"check {check_id} has status {short_repr(raw.get('status'))}, not one of {', '.join(STATUSES)}"
    for field, (limit, nullable) in CHECK_TEXTS.items():
        problem = _text_problem(f"check {check_id}: {field}", raw.get(field), limit, nullable)
        if problem:
            return problem
    if not isinstance(raw.get("params"), dict):
        return f"check {check_id}: params is not a mapping"
    for field in CHECK_VALUES:
        problem = _value_problem(f"check {check_id}: {field}", raw.get(field))
        if problem:
            return problem
    return None


def _step_problem(lab, raw, lang, declared, seen_steps, seen_checks):
    """Why one step of a lab result is not a step `lab` declares, titled as the registry titles
    it in `lang`, with only declared checks and the status they give; None when it is."""
    if not isinstance(raw, dict):
        return f"lab {lab.id} has a step that is not a mapping"
    number = raw.get("step")
    if not isinstance(number, int) or isinstance(number, bool) or number not in lab.step_titles:
        return f"lab {lab.id} has no step {short_repr(number)}"
    if number in seen_steps:
        return f"lab {lab.id} has step {number} twice"
    seen_steps.add(number)
    title = i18n.pick(lab.step_titles[number], lang)
    if raw.get("title") != title:
        return f"lab {lab.id} step {number} is titled {short_repr(raw.get('title'))}, not {title!r}"
    checks = raw.get("checks")
    if not isinstance(checks, list):
        return f"lab {lab.id} step {number} has no checks list"
    for check in checks:
        problem = _check_problem(lab, number, check, declared, seen_checks)
        if problem:
            return problem
    status = worst(c["status"] for c in checks)
    if raw.get("status") != status:
        return f"lab {lab.id} step {number} has status {short_repr(raw.get('status'))}, but its checks give {status}"
    return None


def _lab_problem(lab, raw, lang):
    """Why a lab result is not exactly what `lab` declares (every declared step and check once,
    nothing else, statuses and summary consistent with the checks); None when it is."""
    if not isinstance(raw, dict) or not isinstance(raw.get("steps"), list):
        return f"lab {lab.id} has no steps list"
    if raw.get("lab") != lab.id:
        return f"the result of lab {lab.id} names lab {short_repr(raw.get('lab'))}"
    declared = {check.id: check.step for check in lab.checks}
    seen_steps, seen_checks = set(), set()
    for step in raw["steps"]:
        problem = _step_problem(lab, step, lang, declared, seen_steps, seen_checks)
        if problem:
            return problem
    missing_steps = [n for n in sorted(lab.step_titles) if n not in seen_steps]
    if missing_steps:
        return f"lab {lab.id} has no step {missing_steps[0]}"
    missing_checks = [check.id for check in lab.checks if check.id not in seen_checks]
    if missing_checks:
        return f"lab {lab.id} has no result for check {missing_checks[0]}"
    status = worst(s["status"] for s in raw["steps"])
    if raw.get("status") != status:
        return f"lab {lab.id} has status {short_repr(raw.get('status'))}, but its steps give {status}"
    summary = summarize([c for s in raw["steps"] for c in s["checks"]])
    if raw.get("summary") != summary:
        return f"lab {lab.id} has summary {short_repr(raw.get('summary'))}, but its checks give {summary!r}"
    return None


def _error_problem(error):
    """Why a host error's message or details are not what a grading run returns; None when they are."""
    if not isinstance(error, dict):
        return None  # _norm_host words a missing or malformed error
    return (_text_problem("the error message", error.get("message"), RESULT_TEXT_MAX, nullable=True)
            or _value_problem("the error details", error.get("details")))


def result_problem(raw, enrolled):
    """The first reason a host record's result is not what the controller expects, or None.

    `enrolled`: the labs the controller enrolled the host in (None: not enrolled at all). A graded
    host has a result for exactly those labs, each as the registry declares it; a host in error
    has a message and details no larger than a grading run returns."""
    if raw.get("state") != "graded":
        return _error_problem(raw.get("error"))
    if enrolled is None:
        return "the host is not enrolled in any lab"
    labs_raw = raw.get("labs")
    if not isinstance(labs_raw, dict):
        return None  # _norm_host words it
    for lab_id in labs_raw:
        if lab_id not in enrolled:
            return f"lab {_named(lab_id)} is not enrolled on this host"
    lang = record_lang(raw)
    for lab_id in enrolled:
        if lab_id not in LABS:
            return f"lab {_named(lab_id)} is enrolled but the grader has no such lab"
        if lab_id not in labs_raw:
            return f"lab {lab_id} has no result"
        problem = _lab_problem(LABS[lab_id], labs_raw[lab_id], lang)
        if problem:
            return problem
    return None
