"""The class report: host records of one grading run -> grades.json, grades.csv, junit.xml,
index.html, learners/<host>.txt and the terminal matrix.

Everything here is a pure function of plain data except `read_previous` and `write_report`, the
only functions that touch the file system. Input is the host record of docs/grading-contract.md;
output formats are described in docs/report-format.md.

Bad input is normal input: a record that is missing, not a mapping, or has the wrong shape
becomes an ERROR (of the grader, never a learner failure) with a message saying what was wrong.
"""

from __future__ import annotations

import base64
import csv
import datetime
import hashlib
import html
import io
import json
import math
import os
import re
import unicodedata
import xml.etree.ElementTree as ET

from ansible.module_utils.labgrader import i18n
from ansible.module_utils.labgrader.labs import LABS  # also registers every lab's messages in i18n
from ansible.module_utils.labgrader.limits import BOUND_DEPTH, BOUND_ITEMS, BOUND_NODES, BOUND_STRING, bound
from ansible.module_utils.labgrader.printable import printable, printable_value
from ansible.module_utils.labgrader.redaction import scrub_value
from ansible.module_utils.labgrader.vocabulary import (
    ASCII_SYMBOLS,
    ERROR,
    ERROR_KINDS,
    FAIL,
    LANGUAGE_NAMES,
    LANGUAGES,
    PASS,
    PENDING,
    SEVERITY,
    STATUSES,
    SYMBOLS,
    worst,
)

SCHEMA = "lab-grades/v1"
UTC = datetime.timezone.utc  # noqa: UP017 (module_utils stay importable on Python < 3.11)
FILE_NAMES = ("grades.json", "grades.csv", "junit.xml", "index.html")
LATEST = "latest"
MATRIX_WIDTH = 100
# A previous grades.json larger than this is not read (200 learners x 2 labs is about 10 MB).
PREVIOUS_MAX_BYTES = 64 * 1024 * 1024

# The keys of one check in grades.json `records` (after "host"), in this order.
RECORD_KEYS = ("lab", "step", "check", "status", "expected", "found", "message_key", "params", "message",
               "hint", "hint_key")

# ---------------------------------------------------------------------------------------------
# small helpers


def empty_summary():
    return {PASS: 0, FAIL: 0, PENDING: 0, ERROR: 0, "total": 0}


def summarize(checks):
    summary = empty_summary()
    for check in checks:
        summary[check["status"]] += 1
    summary["total"] = len(checks)
    return summary


def natural_key(text):
    """learner2 sorts before learner10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part.lower())
            for part in re.split(r"(\d+)", text) if part]


def _short_repr(value, limit=120):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def jsonable(value, _depth=0):
    """A copy of `value` that json.dumps accepts and that stays valid JSON (no NaN)."""
    if _depth > 50:
        return _short_repr(value)
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
    return _short_repr(value)


def _text(value):
    """A string field of the contract: None -> '', other types -> their JSON text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return str(value)
    return json.dumps(jsonable(value), ensure_ascii=False)


def _int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


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


# ---------------------------------------------------------------------------------------------
# normalisation: anything -> host records of the contract, with every problem turned into ERROR


def _host_error(name, kind, message, details=None, lang="en"):
    return {
        "host": name,
        "lang": lang,
        "state": "error",
        "error": {"kind": kind, "message": message, "details": jsonable(details or {})},
        "labs": {},
    }


def _error_check(lab_id, step, index, message, raw=None):
    return {
        "lab": lab_id,
        "step": step,
        "check": f"{lab_id}.{step}.#{index + 1}",
        "status": ERROR,
        "expected": None,
        "found": jsonable(raw) if raw is not None else None,
        "message_key": "malformed_check",
        "params": {},
        "message": message,
        "hint": "",
        "hint_key": "",
    }


def _norm_check(lab_id, step, raw, index):
    if not isinstance(raw, dict):
        return _error_check(lab_id, step, index,
                            f"the grader returned a malformed check result: {_short_repr(raw)}")
    check_id = raw.get("check")
    check_id = check_id if isinstance(check_id, str) and check_id else f"{lab_id}.{step}.#{index + 1}"
    message = _text(raw.get("message"))
    status = raw.get("status")
    if isinstance(status, str) and status.upper() in STATUSES:
        status = status.upper()
    else:
        message = f"the grader returned an invalid status {_short_repr(status)}" + (
            f"; {message}" if message else "")
        status = ERROR
    params = raw.get("params")
    return {
        "lab": lab_id,
        "step": step,
        "check": check_id,
        "status": status,
        "expected": jsonable(raw.get("expected")),
        "found": jsonable(raw.get("found")),
        "message_key": _text(raw.get("message_key")),
        "params": jsonable(params) if isinstance(params, dict) else {},
        "message": message,
        "hint": _text(raw.get("hint")),
        "hint_key": _text(raw.get("hint_key")),
    }


def _lab_error(message, kind="grader"):
    return {"status": ERROR, "summary": empty_summary(), "steps": [],
            "error": {"kind": kind, "message": message}}


def _norm_lab(lab_id, raw):
    """A lab result -> {status, summary, steps, error}; None when the lab was not graded."""
    if not isinstance(raw, dict):
        if raw is None:
            return None
        return _lab_error(f"the lab result is not a mapping: {_short_repr(raw)}")
    steps_raw = raw.get("steps")
    if not isinstance(steps_raw, list):
        if raw.get("skipped") and not raw.get("failed"):
            return None  # the grading task was skipped (when:) -> not graded
        msg = raw.get("msg") or raw.get("message")
        if raw.get("unreachable"):
            return _lab_error(_text(msg) or "host unreachable", "unreachable")
        if msg:
            return _lab_error(f"the grading module failed: {_text(msg)}")
        return _lab_error("the lab result has no 'steps' list")
    steps = {}
    for index, step_raw in enumerate(steps_raw):
        if not isinstance(step_raw, dict):
            number = index + 1
            step = steps.setdefault(number, {"step": number, "title": "", "given": None, "checks": []})
            step["checks"].append(_error_check(
                lab_id, number, 0, f"the grader returned a malformed step: {_short_repr(step_raw)}"))
            continue
        number = _int(step_raw.get("step"))
        number = index + 1 if number is None else number
        step = steps.setdefault(number, {"step": number, "title": "", "given": None, "checks": []})
        step["title"] = step["title"] or _text(step_raw.get("title"))
        given = step_raw.get("status")
        if isinstance(given, str) and given.upper() in STATUSES:
            step["given"] = given.upper()
        checks_raw = step_raw.get("checks")
        if checks_raw is None:
            checks_raw = []
        if not isinstance(checks_raw, list):
            step["checks"].append(_error_check(
                lab_id, number, 0, f"the step's checks are not a list: {_short_repr(checks_raw)}"))
            continue
        offset = len(step["checks"])
        for k, check_raw in enumerate(checks_raw):
            step["checks"].append(_norm_check(lab_id, number, check_raw, offset + k))
    out_steps = []
    for number in sorted(steps):
        step = steps[number]
        checks = step["checks"]
        status = worst(c["status"] for c in checks) if checks else (step["given"] or PASS)
        out_steps.append({"step": number, "title": step["title"], "status": status,
                          "summary": summarize(checks), "checks": checks})
    all_checks = [c for s in out_steps for c in s["checks"]]
    return {
        "status": worst((s["status"] for s in out_steps), default=PASS),
        "summary": summarize(all_checks),
        "steps": out_steps,
        "error": None,
    }


def _record_lang(raw):
    return raw.get("lang") if raw.get("lang") in LANGUAGES else "en"


def _norm_host(raw, name):
    lang = _record_lang(raw)
    state = raw.get("state")
    if state == "error" or (state is None and raw.get("error")):
        error = raw.get("error")
        if not isinstance(error, dict):
            return _host_error(name, "grader", "the host is in error but the record has no error details: "
                               + _short_repr(error), lang=lang)
        kind = error.get("kind") if error.get("kind") in ERROR_KINDS else "grader"
        message = _text(error.get("message")) or "(no message)"
        if kind != error.get("kind"):
            message = f"[{_text(error.get('kind'))}] {message}"
        details = error.get("details")
        return _host_error(name, kind, message, details if isinstance(details, dict) else {}, lang)
    if state != "graded":
        return _host_error(name, "grader", f"the record has an unknown state {_short_repr(state)}",
                           lang=lang)
    labs_raw = raw.get("labs")
    if not isinstance(labs_raw, dict):
        return _host_error(name, "grader", "the record has no 'labs' mapping", lang=lang)
    labs = {}
    for lab_id, lab_raw in labs_raw.items():
        lab = _norm_lab(str(lab_id), lab_raw)
        if lab is not None:
            labs[str(lab_id)] = lab
    if not labs:
        return _host_error(name, "grader", "the host was graded but has no lab results", lang=lang)
    return {"host": name, "lang": lang, "state": "graded", "error": None, "labs": labs}


# ---------------------------------------------------------------------------------------------
# validation: a host's result is only what the controller's registry (labs.LABS) declares for
# the labs the host is enrolled in; anything else rejects the whole host (docs/report-format.md)

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
    return _short_repr(value) if not isinstance(value, str) else (value if len(value) <= 120 else value[:120] + "...")


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
        return f"check {check_id} names lab {_short_repr(raw.get('lab'))} step {_short_repr(raw.get('step'))}"
    if raw.get("status") not in STATUSES:
        return f"check {check_id} has status {_short_repr(raw.get('status'))}, not one of {', '.join(STATUSES)}"
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
        return f"lab {lab.id} has no step {_short_repr(number)}"
    if number in seen_steps:
        return f"lab {lab.id} has step {number} twice"
    seen_steps.add(number)
    title = i18n.pick(lab.step_titles[number], lang)
    if raw.get("title") != title:
        return f"lab {lab.id} step {number} is titled {_short_repr(raw.get('title'))}, not {title!r}"
    checks = raw.get("checks")
    if not isinstance(checks, list):
        return f"lab {lab.id} step {number} has no checks list"
    for check in checks:
        problem = _check_problem(lab, number, check, declared, seen_checks)
        if problem:
            return problem
    status = worst(c["status"] for c in checks)
    if raw.get("status") != status:
        return f"lab {lab.id} step {number} has status {_short_repr(raw.get('status'))}, but its checks give {status}"
    return None


def _lab_problem(lab, raw, lang):
    """Why a lab result is not exactly what `lab` declares (every declared step and check once,
    nothing else, statuses and summary consistent with the checks); None when it is."""
    if not isinstance(raw, dict) or not isinstance(raw.get("steps"), list):
        return f"lab {lab.id} has no steps list"
    if raw.get("lab") != lab.id:
        return f"the result of lab {lab.id} names lab {_short_repr(raw.get('lab'))}"
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
        return f"lab {lab.id} has status {_short_repr(raw.get('status'))}, but its steps give {status}"
    summary = summarize([c for s in raw["steps"] for c in s["checks"]])
    if raw.get("summary") != summary:
        return f"lab {lab.id} has summary {_short_repr(raw.get('summary'))}, but its checks give {summary!r}"
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
    lang = _record_lang(raw)
    for lab_id in enrolled:
        if lab_id not in LABS:
            return f"lab {_named(lab_id)} is enrolled but the grader has no such lab"
        if lab_id not in labs_raw:
            return f"lab {lab_id} has no result"
        problem = _lab_problem(LABS[lab_id], labs_raw[lab_id], lang)
        if problem:
            return problem
    return None


def _pairs(records, hosts):
    """(inventory name or None, raw record) pairs from what the task passed."""
    if isinstance(records, str):
        text = records.strip()
        try:
            records = json.loads(text) if text else []
        except ValueError:
            return [(None, records)]
    if records is None:
        return []
    if isinstance(records, dict):
        if isinstance(records.get("host"), str) and ("state" in records or "labs" in records):
            return [(None, records)]
        return [(str(name), rec) for name, rec in records.items()]
    if isinstance(records, (list, tuple)):
        if hosts and len(hosts) == len(records):
            return [(hosts[i], rec) for i, rec in enumerate(records)]
        return [(None, rec) for rec in records]
    return [(None, records)]


def normalize_records(records, hosts=None, enrolled=None):
    """Host records in the contract's shape, one per host, sorted by host name (naturally).

    `records`: a list of host records, a mapping host -> record, or a JSON string of either.
    `hosts`: the hosts that were meant to be graded; one with no record is an ERROR row.
    `enrolled`: {host: [lab id, ...]}, the labs the controller enrolled each host in; when given,
    a record whose result is not what the registry declares for them (result_problem) becomes an
    ERROR row "result rejected: <reason>". None checks only the shape (a previous report, tests
    of the output formats).
    """
    hosts = [str(h) for h in (hosts or []) if h is not None]
    out = []
    seen = {}
    for index, (inventory_name, raw) in enumerate(_pairs(records, hosts)):
        if isinstance(raw, dict):
            name = raw.get("host")
            name = name if isinstance(name, str) and name else (inventory_name or f"record-{index + 1}")
            problem = None if enrolled is None else result_problem(raw, enrolled.get(name))
            record = (_host_error(name, "grader", f"result rejected: {problem}", lang=_record_lang(raw)) if problem
                      else _norm_host(raw, name))
        else:
            name = inventory_name or f"record-{index + 1}"
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                record = _host_error(name, "grader", "the host produced no grading record")
            else:
                record = _host_error(name, "grader",
                                     f"the grading record is not a mapping: {_short_repr(raw)}")
        if name in seen:  # the same host twice: keep both, visibly
            seen[name] += 1
            record["host"] = f"{name} #{seen[name]}"
        else:
            seen[name] = 1
        out.append(record)
    for name in hosts:
        if name not in seen:
            seen[name] = 1
            out.append(_host_error(
                name, "grader",
                "the host produced no grading record (unreachable, or grading stopped early)"))
    out.sort(key=lambda r: natural_key(r["host"]))
    return out


# ---------------------------------------------------------------------------------------------
# derived views


def lab_columns(hosts):
    """[{id, steps: [{step, title, titles}]}]: every lab and step seen in any record, labs in the
    registry's order. `titles` maps a language to the step's title and `title` is the first: the
    registry's titles of a step it declares (a host's result never names a column), otherwise
    (a lab the registry no longer has, in a previous report) the titles hosts of each language gave."""
    labs = {}
    for host in hosts:
        for lab_id, lab in host["labs"].items():
            steps = labs.setdefault(lab_id, {})
            for step in lab["steps"]:
                titles = steps.setdefault(step["step"], {})
                if step["title"]:
                    titles.setdefault(host["lang"], step["title"])
    order = list(LABS)
    columns = []
    for lab_id in sorted(labs, key=lambda lab_id: order.index(lab_id) if lab_id in LABS else len(order)):
        declared = LABS[lab_id].step_titles if lab_id in LABS else {}
        steps = []
        for number in sorted(labs[lab_id]):
            titles = ({lang: i18n.pick(declared[number], lang) for lang in LANGUAGES} if number in declared
                      else labs[lab_id][number])
            steps.append({"step": number, "title": next(iter(titles.values()), ""), "titles": titles})
        columns.append({"id": lab_id, "steps": steps})
    return columns


def step_title(column, lang):
    """A step's title in `lang` (lab_columns), else its first title."""
    return column["titles"].get(lang) or column["title"]


def host_checks(host):
    return [c for lab in host["labs"].values() for s in lab["steps"] for c in s["checks"]]


def host_score(host):
    checks = host_checks(host)
    return {"passed": sum(1 for c in checks if c["status"] == PASS), "total": len(checks)}


def compute_counts(hosts):
    counts = empty_summary()
    labs_in_error = 0
    for host in hosts:
        for check in host_checks(host):
            counts[check["status"]] += 1
            counts["total"] += 1
        labs_in_error += sum(1 for lab in host["labs"].values() if lab["error"])
    counts["hosts"] = len(hosts)
    counts["hosts_graded"] = sum(1 for h in hosts if h["state"] == "graded")
    counts["hosts_in_error"] = counts["hosts"] - counts["hosts_graded"]
    counts["labs_in_error"] = labs_in_error
    return counts


def host_errors(hosts):
    return [{"host": h["host"], "kind": h["error"]["kind"], "message": h["error"]["message"]}
            for h in hosts if h["state"] == "error"]


def learner_failures(hosts):
    return any(c["status"] == FAIL for h in hosts if h["state"] == "graded" for c in host_checks(h))


def iso_utc(now):
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp_utc(now):
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


# ---------------------------------------------------------------------------------------------
# history: the class view of the previous run, partial runs merged into it, who progressed


def hosts_from_grades(grades):
    """The hosts of a grades.json (lab-grades/v1) in the shape normalize_records returns.

    Raises ValueError saying what is wrong when the file is not such a report.
    """
    if not isinstance(grades, dict) or grades.get("schema") != SCHEMA:
        raise ValueError(f"not a {SCHEMA} report")
    hosts_raw, records = grades.get("hosts"), grades.get("records")
    if not isinstance(hosts_raw, list) or not isinstance(records, list):
        raise ValueError("the report has no 'hosts' and 'records' lists")
    checks = {}
    for record in records:
        if not isinstance(record, dict):
            raise ValueError(f"a check record is not a mapping: {_short_repr(record)}")
        key = (record.get("host"), record.get("lab"), record.get("step"))
        checks.setdefault(key, []).append(
            _norm_check(str(record.get("lab")), record.get("step"), record, len(checks.get(key, []))))
    hosts = []
    for raw in hosts_raw:
        if not isinstance(raw, dict) or not isinstance(raw.get("host"), str):
            raise ValueError(f"a host entry has no name: {_short_repr(raw)}")
        name = raw["host"]
        graded_at = _text(raw.get("graded_at")) or _text(grades.get("generated_at"))
        lang = raw.get("lang") if raw.get("lang") in LANGUAGES else "en"
        if raw.get("state") != "graded":
            error = raw.get("error") if isinstance(raw.get("error"), dict) else {}
            host = _host_error(name, error.get("kind") if error.get("kind") in ERROR_KINDS else "grader",
                               _text(error.get("message")) or "(no message)", error.get("details"), lang)
        else:
            labs = {}
            for lab_id, lab in (raw.get("labs") or {}).items():
                if not isinstance(lab, dict) or not isinstance(lab.get("steps"), list):
                    raise ValueError(f"{name}: lab {lab_id} has no steps")
                if lab.get("error"):
                    labs[lab_id] = _lab_error(_text(lab["error"].get("message")), lab["error"].get("kind", "grader"))
                    continue
                steps = [{"step": s.get("step"), "title": _text(s.get("title")), "status": s.get("status"),
                          "checks": checks.get((name, lab_id, s.get("step")), [])} for s in lab["steps"]]
                labs[lab_id] = _norm_lab(lab_id, {"steps": steps})
            host = {"host": name, "lang": lang, "state": "graded", "error": None, "labs": labs}
        host["graded_at"] = graded_at
        hosts.append(host)
    return hosts


def step_statuses(host):
    """{(lab, step): status} of a graded host; empty for a host in error."""
    return {(lab_id, s["step"]): s["status"] for lab_id, lab in host["labs"].items() if not lab["error"]
            for s in lab["steps"]}


def compare_hosts(now, before):
    """What changed for one learner since the previous run.

    `change`: "progressed" (steps newly passed, none lost), "regressed" (steps lost, none gained),
    "mixed", "unchanged", "new" (no graded result before to compare with) or "not_graded" (this
    run could not grade the host, so nothing is known). `up`/`down`: "<lab>.<step>" ids of steps
    that now pass and did not / passed and now do not.
    """
    since = before["graded_at"] if before else ""
    if now["state"] != "graded":
        return {"change": "not_graded", "since": since, "up": [], "down": [], "passed_delta": 0}
    if before is None or before["state"] != "graded":
        return {"change": "new", "since": since, "up": [], "down": [], "passed_delta": 0}
    old, new = step_statuses(before), step_statuses(now)
    up = [f"{lab}.{step}" for (lab, step), status in new.items() if status == PASS and old.get((lab, step)) != PASS]
    down = [f"{lab}.{step}" for (lab, step), status in old.items() if status == PASS and new.get((lab, step)) != PASS]
    change = ("mixed" if up and down else "progressed" if up else "regressed" if down else "unchanged")
    delta = host_score(now)["passed"] - host_score(before)["passed"]
    return {"change": change, "since": since, "up": up, "down": down, "passed_delta": delta}


def merge_partial(graded, previous, class_hosts):
    """The class view after a partial run: this run's hosts, plus the previous view's hosts of
    the class that this run did not grade (carried over with their own `graded_at`)."""
    names = {h["host"] for h in graded}
    carried = [h for h in previous if h["host"] in class_hosts and h["host"] not in names]
    return sorted(graded + carried, key=lambda h: natural_key(h["host"])), [h["host"] for h in carried]


def plan_run(hosts, previous, class_hosts, graded_names):
    """(hosts of the class view, run) for this run; `run` is what grades.json says about it."""
    class_hosts = [str(h) for h in class_hosts or []]
    partial = bool(class_hosts) and not set(class_hosts) <= set(graded_names)
    carried = []
    if partial and previous is not None:
        hosts, carried = merge_partial(hosts, previous["hosts"], set(class_hosts))
    run = {
        "scope": "partial" if partial else "class",
        "graded": [h["host"] for h in hosts if h["host"] not in carried],
        "carried": carried,
        "previous": ({"report": previous["report"], "generated_at": previous["generated_at"]}
                     if previous is not None else None),
    }
    return hosts, run


def attach_changes(hosts, previous, carried):
    """Set host["change"] (compare_hosts) on every host; None when there is no previous run."""
    before = {h["host"]: h for h in previous["hosts"]} if previous is not None else {}
    for host in hosts:
        if previous is None:
            host["change"] = None
        elif host["host"] in carried:
            host["change"] = {"change": "carried", "since": host["graded_at"], "up": [], "down": [],
                              "passed_delta": 0}
        else:
            host["change"] = compare_hosts(host, before.get(host["host"]))


def change_counts(hosts):
    counts = {}
    for host in hosts:
        if host.get("change"):
            counts[host["change"]["change"]] = counts.get(host["change"]["change"], 0) + 1
    return counts


# ---------------------------------------------------------------------------------------------
# grades.json


def build_grades(hosts, generated_at, lang="en", run=None):
    out_hosts = []
    records = []
    for host in hosts:
        labs = {}
        for lab_id, lab in host["labs"].items():
            labs[lab_id] = {
                "status": lab["status"],
                "summary": lab["summary"],
                "error": lab["error"],
                "steps": [{"step": s["step"], "title": s["title"], "status": s["status"],
                           "summary": s["summary"]} for s in lab["steps"]],
            }
            for step in lab["steps"]:
                for c in step["checks"]:
                    records.append({"host": host["host"], **{k: c[k] for k in RECORD_KEYS}})
        out_hosts.append({
            "host": host["host"],
            "lang": host["lang"],
            "state": host["state"],
            "error": host["error"],
            "score": host_score(host),
            "labs": labs,
            "graded_at": host.get("graded_at", generated_at),
            "change": host.get("change"),
        })
    return {
        "schema": SCHEMA,
        "generated_at": generated_at,
        "lang": lang,
        "counts": compute_counts(hosts),
        "labs": lab_columns(hosts),
        "hosts": out_hosts,
        "records": records,
        "run": run or {"scope": "class", "graded": [h["host"] for h in hosts], "carried": [], "previous": None},
    }


def grades_json(grades):
    return json.dumps(grades, ensure_ascii=False, indent=2) + "\n"


# ---------------------------------------------------------------------------------------------
# junit.xml

def xml_safe(value, limit=None):
    """Text XML 1.0 can hold, cut to `limit` characters: printable() escapes every character XML
    forbids (C0 controls, lone surrogates, U+FFFE/U+FFFF) with the rest it neutralises."""
    text = _text(value)
    if limit and len(text) > limit:
        text = text[:limit] + "..."
    return printable(text)


def _check_body(check):
    lines = [f"expected: {show_value(check['expected'])}",
             f"found: {show_value(check['found'])}"]
    if check["hint"]:
        lines.append(f"hint: {check['hint']}")
    if check["message_key"]:
        lines.append(f"message_key: {check['message_key']}")
    return xml_safe("\n".join(lines))


def build_junit(hosts, generated_at):
    """One <testsuite> per host, one <testcase> per check (see docs/report-format.md)."""
    root = ET.Element("testsuites", name="lab-grades", timestamp=generated_at)
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for host in hosts:
        suite = ET.SubElement(root, "testsuite", name=xml_safe(host["host"]),
                              hostname=xml_safe(host["host"]),
                              timestamp=host.get("graded_at") or generated_at)
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="lang", value=host["lang"])
        ET.SubElement(props, "property", name="state", value=host["state"])
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        if host["state"] == "error":
            error = host["error"]
            case = ET.SubElement(suite, "testcase", classname="environment", name=error["kind"])
            node = ET.SubElement(case, "error", type=error["kind"],
                                 message=xml_safe(error["message"], 1000))
            node.text = xml_safe(json.dumps(error["details"], ensure_ascii=False, sort_keys=True))
            counts["tests"] += 1
            counts["errors"] += 1
        for lab_id, lab in host["labs"].items():
            if lab["error"]:
                case = ET.SubElement(suite, "testcase", classname=xml_safe(lab_id), name=xml_safe(lab_id))
                ET.SubElement(case, "error", type=lab["error"]["kind"],
                              message=xml_safe(lab["error"]["message"], 1000))
                counts["tests"] += 1
                counts["errors"] += 1
            for step in lab["steps"]:
                for check in step["checks"]:
                    counts["tests"] += 1
                    case = ET.SubElement(suite, "testcase", classname=xml_safe(f"{lab_id}.step{step['step']}"),
                                         name=xml_safe(check["check"]))
                    status = check["status"]
                    if status == FAIL:
                        node = ET.SubElement(case, "failure", type=FAIL,
                                             message=xml_safe(check["message"], 1000))
                        counts["failures"] += 1
                    elif status == ERROR:
                        node = ET.SubElement(case, "error", type=ERROR,
                                             message=xml_safe(check["message"], 1000))
                        counts["errors"] += 1
                    elif status == PENDING:
                        node = ET.SubElement(case, "skipped", type=PENDING,
                                             message=xml_safe(f"PENDING (not converged): {check['message']}", 1000))
                        counts["skipped"] += 1
                    else:
                        continue
                    node.text = _check_body(check)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ---------------------------------------------------------------------------------------------
# terminal matrix

def term_safe(value):
    """One line of text a terminal shows as is: no escape sequences, no bidi tricks (printable())."""
    return re.sub(r"\s+", " ", printable(_text(value))).strip()


def display_width(text):
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def fit(text, width):
    """Cut `text` to at most `width` terminal columns (wide CJK characters count 2)."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if used + w > width - 2:
            break
        out.append(ch)
        used += w
    return "".join(out) + ".."


def pad(text, width):
    return text + " " * max(0, width - display_width(text))


def build_matrix(hosts, index_path="", ascii_only=False, generated_at="", width=MATRIX_WIDTH, run=None):
    """The compact class matrix for the terminal, one line per host, then a summary."""
    sym = ASCII_SYMBOLS if ascii_only else SYMBOLS
    columns = lab_columns(hosts)
    name_width = min(24, max([4] + [display_width(term_safe(h["host"])) for h in hosts]))
    widths = {lab["id"]: max(1, len(lab["steps"]), min(12, len(lab["id"]))) for lab in columns}
    lines = []
    header = pad("host", name_width)
    for lab in columns:
        w = widths[lab["id"]]
        header += "  " + pad(fit(term_safe(lab["id"]), w), w)
    lines.append((header + "  score").rstrip())
    for host in hosts:
        name = pad(fit(term_safe(host["host"]), name_width), name_width)
        if host["state"] == "error":
            error = host["error"]
            text = f"{name}  {sym[ERROR]} {kind_label(error['kind'])}: {term_safe(error['message'])}"
            lines.append(fit(text, width))
            continue
        line = name
        for lab in columns:
            result = host["labs"].get(lab["id"])
            if result is None:
                cells = sym[None] * max(1, len(lab["steps"]))
            elif result["error"]:
                cells = sym[ERROR] * max(1, len(lab["steps"]))
            else:
                by_step = {s["step"]: s["status"] for s in result["steps"]}
                cells = "".join(sym[by_step.get(s["step"])] for s in lab["steps"])
            line += "  " + pad(cells, widths[lab["id"]])
        score = host_score(host)
        line += f"  {score['passed']}/{score['total']}"
        lab_errors = [f"{term_safe(lab_id)}: {term_safe(lab['error']['message'])}"
                      for lab_id, lab in host["labs"].items() if lab["error"]]
        if lab_errors:
            line += f"  {sym[ERROR]} " + "; ".join(lab_errors)
        if (host.get("change") or {}).get("change") == "carried":
            line += f"  (earlier run, {host['graded_at']})"
        lines.append(fit(line, width))
    if not hosts:
        lines.append("(no host records)")
    counts = compute_counts(hosts)
    lines.append(
        f"hosts: {counts['hosts_graded']} graded, {counts['hosts_in_error']} in error | checks: "
        f"{counts[PASS]} pass, {counts[FAIL]} fail, {counts[PENDING]} pending, {counts[ERROR]} error"
        + (f" | labs in error: {counts['labs_in_error']}" if counts["labs_in_error"] else ""))
    errors = host_errors(hosts)
    if errors:
        line = "hosts in error (not learner failures):"
        for error in errors:
            item = f" {fit(term_safe(error['host']), 40)} ({kind_label(error['kind'])}),"
            if display_width(line + item) > width:
                lines.append(line)
                line = " "
            line += item
        lines.append(line.rstrip(","))
    lines.append(f"legend: {sym[PASS]} pass  {sym[FAIL]} fail  {sym[PENDING]} pending  "
                 f"{sym[ERROR]} error  {sym[None]} not graded"
                 + (f"  ({generated_at})" if generated_at else ""))
    lines += [fit(line, width) for line in run_lines(hosts, run)]
    lines.append(f"report: {term_safe(index_path)}" if index_path else "report: not written (check mode)")
    return "\n".join(lines)


def run_lines(hosts, run):
    """What the terminal says about this run's scope and about progress since the previous run."""
    if not run:
        return []
    lines = []
    previous = run["previous"]
    if run["scope"] == "partial":
        graded = ", ".join(term_safe(h) for h in run["graded"]) or "no host"
        if previous is not None:
            lines.append(f"partial run: graded {graded}; latest shows the class view merged with it")
            lines.append(f"  {len(run['carried'])} learners carried over unchanged from {previous['report']}")
        else:
            lines.append(f"partial run: graded {graded}; no earlier class view to merge into")
    if previous is not None:
        counts = change_counts(hosts)
        progressed = [h for h in hosts if (h.get("change") or {}).get("change") in ("progressed", "mixed")]
        names = ", ".join(f"{term_safe(h['host'])} +{len(h['change']['up'])}" for h in progressed)
        line = (f"since {previous['generated_at']}: {len(progressed)} progressed"
                + (f" ({names})" if names else "")
                + f", {counts.get('regressed', 0) + counts.get('mixed', 0)} lost a step"
                + f", {counts.get('unchanged', 0)} unchanged")
        lines.append(line)
    return lines


# ---------------------------------------------------------------------------------------------
# index.html

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
        "status": "결과", "check": "검사", "message": "메시지", "expected": "기대값",
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

FILTERS = ("f_all", "f_attention", "f_errors", "f_failing", "f_pending", "f_progressed", "f_regressed",
           "f_complete")
SORTS = ("s_name", "s_errors", "s_stuck", "s_score_asc", "s_score_desc", "s_progress")
HOST_ERROR_RANK = len(SEVERITY)  # a host that could not be graded sorts above an ERROR check


def kind_label(kind, lang="en"):
    """The one wording of an error kind (unreachable / environment unhealthy / grader error)."""
    return LABELS[lang].get(kind, kind)


def label(lang, key, **params):
    return LABELS[lang][key].format(**params) if params else LABELS[lang][key]


_CSS = """
:root{--pass:#2e7d32;--pass-bg:#dff3e0;--fail:#c62828;--fail-bg:#fbdcdc;--pend:#8a5a00;
--pend-bg:#ffe9b3;--err:#5e35b1;--err-a:#e4dcf3;--err-b:#cfc2ea;--line:#c9ccd1;--muted:#5f6670;
--head:#eef0f3}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI","Hiragino Sans","Noto Sans CJK JP",
"Noto Sans CJK KR","Malgun Gothic",sans-serif;margin:.8rem 1rem 2rem;color:#1d2126;background:#fff}
h1{font-size:1.35rem;margin:0}
header{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:baseline}
.meta,.note{color:var(--muted);font-size:.88rem}
.partial{background:#fff4d6;border:1px solid #e0b84f;border-radius:4px;padding:.3rem .6rem;margin:.5rem 0;
font-size:.9rem}
.summary,.legend{display:flex;flex-wrap:wrap;gap:.3rem 1.1rem;margin:.5rem 0;padding:0;list-style:none;
font-size:.9rem}
.summary b{font-variant-numeric:tabular-nums}
.legend span.sw{display:inline-block;width:1.6em;height:1.1em;vertical-align:middle;
border:1px solid var(--line);margin-right:.3em;text-align:center;font-size:.8em;line-height:1.1em}
.toolbar{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;margin:.5rem 0;font-size:.88rem}
.toolbar select,.toolbar input{font:inherit;font-size:.85rem}
.toolbar input{width:9rem}
table.matrix{border-collapse:separate;border-spacing:0;font-size:.8rem}
table.matrix th,table.matrix td{border-right:1px solid var(--line);border-bottom:1px solid var(--line);
padding:.12rem .22rem;text-align:center}
table.matrix tr>:first-child{border-left:1px solid var(--line)}
table.matrix thead tr:first-child>*{border-top:1px solid var(--line)}
table.matrix thead{position:sticky;top:0;z-index:3}
table.matrix thead th,table.matrix thead td{background:var(--head);font-weight:600}
table.matrix th.host,table.matrix th.corner{position:sticky;left:0;z-index:2;text-align:left;
white-space:nowrap;max-width:12rem;overflow:hidden;text-overflow:ellipsis;background:#fff}
table.matrix thead th.corner{background:var(--head);z-index:4}
td.score,td.chg{font-variant-numeric:tabular-nums;white-space:nowrap}
.lang{font-size:.68rem;color:var(--muted);border:1px solid var(--line);border-radius:3px;
padding:0 .2rem;margin-left:.3rem}
.old{color:var(--muted);margin-left:.25rem}
tr.carried>*{opacity:.75}
button.c{all:unset;box-sizing:border-box;display:block;width:100%;min-width:2.7rem;cursor:pointer;
font-variant-numeric:tabular-nums;white-space:nowrap;padding:.05rem 0}
button.c:focus-visible,button.c:hover{outline:2px solid #1a73e8;outline-offset:-1px}
td.open{outline:3px solid #1a73e8;outline-offset:-3px}
.s-PASS{background:var(--pass-bg);color:var(--pass)}
.s-FAIL{background:var(--fail-bg);color:var(--fail);font-weight:600}
.s-PENDING{background:var(--pend-bg);color:var(--pend)}
.s-ERROR{background:repeating-linear-gradient(45deg,var(--err-a) 0 6px,var(--err-b) 6px 12px);
color:var(--err);font-weight:600}
.s-none{background:#fff;color:#9aa0a6}
td.up{box-shadow:inset 0 -3px 0 #1a73e8}
tr.host-error th.host{background:#f1eef8}
td.env-error,td.lab-error{text-align:left!important}
td.env-error{background:repeating-linear-gradient(45deg,#eeeeee 0 8px,#e0e0e0 8px 16px);color:#37474f;
outline:2px dashed #7e57c2;outline-offset:-2px}
td.env-error button.c,td.lab-error button.c{white-space:normal;overflow-wrap:anywhere;display:-webkit-box;
-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden;width:0;min-width:100%}
.kind{display:inline-block;background:#5e35b1;color:#fff;border-radius:3px;padding:0 .35rem;
margin-right:.4rem;font-size:.78rem;font-weight:600}
td.rate button{all:unset;cursor:pointer;display:block;font-variant-numeric:tabular-nums;font-weight:600}
td.rate.low{color:var(--fail)}
td.rate.sel{outline:2px solid #1a73e8;outline-offset:-2px}
.chg.c-progressed{color:var(--pass);font-weight:600}.chg.c-regressed,.chg.c-mixed{color:var(--fail);
font-weight:600}.chg.c-unchanged,.chg.c-carried,.chg.c-new,.chg.c-not_graded{color:var(--muted)}
#pop{position:absolute;z-index:10;background:#fff;border:1px solid #8a94a3;border-radius:6px;
box-shadow:0 6px 24px rgba(0,0,0,.22);padding:.5rem .7rem;max-height:70vh;overflow:auto;
width:min(46rem,calc(100vw - 2rem))}
#pop h3{margin:.1rem 2rem .4rem 0;font-size:1rem}
#pop .x{position:absolute;top:.3rem;right:.4rem;font:inherit;font-size:1.1rem;cursor:pointer;
border:1px solid var(--line);background:#fff;border-radius:4px;line-height:1;padding:.1rem .4rem}
#pop .meta{margin:.2rem 0 .4rem}#pop .mlang{margin-left:1.2rem}
table.checks{border-collapse:collapse;width:100%;font-size:.82rem;table-layout:fixed}
table.checks th,table.checks td{border:1px solid var(--line);padding:.25rem .35rem;text-align:left;
vertical-align:top;overflow-wrap:anywhere}
table.checks th{background:#f3f4f6}
table.checks pre{margin:0;white-space:pre-wrap;word-break:break-word;max-height:10rem;overflow:auto;
font-size:.78rem}
.badge{display:inline-block;border-radius:3px;padding:0 .35rem;font-size:.8rem}
code{font-size:.8rem}
@media print{.noprint,#pop{display:none}table.matrix thead{position:static}}
"""

_JS = r"""
(function(){
function $(i){return document.getElementById(i);}
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
if(text!==undefined&&text!==null)e.textContent=text;return e;}
var D=JSON.parse($('data').textContent),L=JSON.parse($('labels').textContent),COLS=[];
D.labs.forEach(function(l,li){l.steps.forEach(function(s,si){COLS.push(li+'-'+si);});});
var root=document.documentElement,ui=root.getAttribute('data-ui'),mode='learner',opened=null;
function t(k,a){var s=(L[ui]&&L[ui][k])||L.en[k]||k;if(a)for(var n in a)s=s.split('{'+n+'}').join(a[n]);
return s;}
function relabel(){document.querySelectorAll('[data-i18n]').forEach(function(e){var a=e.getAttribute('data-args');
var s=t(e.getAttribute('data-i18n'),a?JSON.parse(a):null);
if(e.hasAttribute('data-title'))e.title=s;else e.textContent=s;});
document.querySelectorAll('th[data-st]').forEach(function(e){var p=e.getAttribute('data-st').split('-');
var st=D.labs[+p[0]].steps[+p[1]];e.title=st.titles[ui]||st.title;});}
function setLang(l){if(!L[l])return;ui=l;root.setAttribute('data-ui',l);root.lang=l;relabel();if(opened)show(opened);}
var tbody=$('rows'),rows=[].slice.call(tbody.rows),fShow=$('f-show'),fStep=$('f-step'),fSort=$('f-sort'),
fName=$('f-name');
function has(r,s){return (' '+r.getAttribute('data-has')+' ').indexOf(' '+s+' ')>=0;}
function chg(r){return r.getAttribute('data-chg');}
var SHOW={f_all:function(){return true;},
f_attention:function(r){return has(r,'HOST')||has(r,'ERROR')||has(r,'FAIL');},
f_errors:function(r){return has(r,'HOST')||has(r,'ERROR');},
f_failing:function(r){return has(r,'FAIL');},f_pending:function(r){return has(r,'PENDING');},
f_progressed:function(r){return chg(r)==='progressed'||chg(r)==='mixed';},
f_regressed:function(r){return chg(r)==='regressed'||chg(r)==='mixed';},
f_complete:function(r){return r.getAttribute('data-has')==='PASS';}};
function num(r,a){return +r.getAttribute(a);}
var SORT={s_name:function(a,b){return num(a,'data-i')-num(b,'data-i');},
s_errors:function(a,b){return num(b,'data-sev')-num(a,'data-sev')||num(a,'data-score')-num(b,'data-score')
||num(a,'data-i')-num(b,'data-i');},
s_score_asc:function(a,b){return num(a,'data-score')-num(b,'data-score')||num(a,'data-i')-num(b,'data-i');},
s_score_desc:function(a,b){return num(b,'data-score')-num(a,'data-score')||num(a,'data-i')-num(b,'data-i');},
s_progress:function(a,b){return num(b,'data-up')-num(a,'data-up')||num(a,'data-i')-num(b,'data-i');},
s_stuck:function(a,b){return first(a)-first(b)||num(a,'data-i')-num(b,'data-i');}};
function first(r){var f=r.getAttribute('data-fail');return has(r,'HOST')?-1:f?COLS.indexOf(f.split(' ')[0]):COLS.length;}
function apply(){var keep=SHOW[fShow.value]||SHOW.f_all,step=fStep.value,q=fName.value.trim().toLowerCase(),n=0;
rows.forEach(function(r){var ok=keep(r)&&(!step||(' '+r.getAttribute('data-fail')+' ').indexOf(' '+step+' ')>=0)
&&(!q||r.getAttribute('data-name').toLowerCase().indexOf(q)>=0);r.hidden=!ok;if(ok)n++;});
rows.slice().sort(SORT[fSort.value]||SORT.s_name).forEach(function(r){tbody.appendChild(r);});
$('count').textContent=n+' / '+rows.length;
document.querySelectorAll('td.rate').forEach(function(c){c.classList.toggle('sel',c.getAttribute('data-step')===step);});
if(opened)close();}
[fShow,fStep,fSort].forEach(function(s){s.addEventListener('change',apply);});
fName.addEventListener('input',apply);
$('ui-lang').addEventListener('change',function(){setLang(this.value);});
function pick(v,h){if(typeof v==='string')return [v,mode==='page'&&h.l!==ui];
var i=D.langs.indexOf(mode==='page'?ui:h.l);return [v[i<0?0:i],false];}
function worstFirst(ids){return ids.slice().sort(function(a,b){return D.sev[D.rows[b][1]]-D.sev[D.rows[a][1]];});}
var pop=$('pop');
function show(b){var p=b.getAttribute('data-c').split(' ').map(Number),h=D.hosts[p[0]];
pop.textContent='';var x=el('button','x','\u00d7');x.type='button';x.title=t('close');
x.addEventListener('click',close);pop.appendChild(x);
var head=el('h3');head.appendChild(document.createTextNode(h.n+' '));pop.appendChild(head);
var meta=el('p','meta');meta.appendChild(document.createTextNode(t('graded_at')+': '+h.g+'  '));
if(h.l!==ui){var ls=el('label','mlang');ls.appendChild(document.createTextNode(t('msg_lang')+': '));
var sel=el('select');[['learner',t('msg_learner')+' ('+h.l+')'],['page',t('msg_page')+' ('+ui+')']].forEach(function(o){
var op=el('option',null,o[1]);op.value=o[0];op.selected=o[0]===mode;sel.appendChild(op);});
sel.addEventListener('change',function(){mode=sel.value;show(b);});ls.appendChild(sel);meta.appendChild(ls);}
pop.appendChild(meta);
if(p.length===1){var k=el('span','kind',t(h.e.k));head.appendChild(k);pop.appendChild(el('p',null,h.e.m));
pop.appendChild(el('pre',null,h.e.d));}
else{var lab=D.labs[p[1]],res=h.s[p[1]];head.appendChild(document.createTextNode('\u2014 '+lab.id));
if(p.length===2){head.appendChild(el('span','kind',t(res.k)));pop.appendChild(el('p',null,res.e));}
else{var st=lab.steps[p[2]],step=res[p[2]];
head.appendChild(document.createTextNode(' \u00b7 '+t('step')+' '+st.step+': '+(st.titles[mode==='page'?ui:h.l]||st.title)+' '));
head.appendChild(el('span','badge s-'+step[0],t(step[0])));
if(!step[1].length)pop.appendChild(el('p',null,t('no_checks')));else{
var tb=el('table','checks'),cg=el('colgroup');[11,17,30,13,13,16].forEach(function(w){var c=el('col');
c.style.width=w+'%';cg.appendChild(c);});tb.appendChild(cg);var tr=el('tr');
['status','check','message','expected','found','hint'].forEach(function(k){tr.appendChild(el('th',null,t(k)));});
var th=el('thead');th.appendChild(tr);tb.appendChild(th);var body=el('tbody'),last='';
worstFirst(step[1]).forEach(function(ri){var r=D.rows[ri],row=el('tr'),m=pick(r[2],h),hi=pick(r[5],h);
row.appendChild(el('td','s-'+r[1],D.sym[r[1]]+' '+r[1]));var cc=el('td');cc.appendChild(el('code',null,r[0]));
row.appendChild(cc);row.appendChild(el('td',null,m[0]+(m[1]?' '+t('untranslated'):'')));
[r[3],r[4]].forEach(function(v){var c=el('td');c.appendChild(el('pre',null,v));row.appendChild(c);});
row.appendChild(el('td',null,hi[0]&&hi[0]===last?'\u3003':hi[0]));last=hi[0]||last;body.appendChild(row);});tb.appendChild(body);pop.appendChild(tb);}}}
pop.hidden=false;
var r=b.getBoundingClientRect(),w=pop.offsetWidth,hh=pop.offsetHeight,sx=window.scrollX,sy=window.scrollY;
var left=Math.max(sx+8,Math.min(r.left+sx,sx+document.documentElement.clientWidth-w-8));
var top=r.bottom+sy+4;if(r.bottom+hh+8>window.innerHeight&&r.top-hh-4>0)top=r.top+sy-hh-4;
pop.style.left=left+'px';pop.style.top=top+'px';}
function open(b){if(opened)opened.parentNode.classList.remove('open');opened=b;b.parentNode.classList.add('open');
show(b);pop.focus({preventScroll:true});}
function close(){if(!opened)return;var b=opened;opened=null;pop.hidden=true;b.parentNode.classList.remove('open');
b.focus({preventScroll:true});}
document.addEventListener('click',function(e){var b=e.target.closest('button[data-c]');
if(b){e.preventDefault();if(b===opened)close();else open(b);return;}
var rb=e.target.closest('td.rate button');if(rb){var s=rb.parentNode.getAttribute('data-step');
fStep.value=fStep.value===s?'':s;apply();return;}
if(opened&&!pop.contains(e.target))close();});
document.addEventListener('keydown',function(e){if(e.key==='Escape')close();});
relabel();apply();
})();
"""


def _e(value):
    """HTML-escaped text; control characters become visible \\xNN escapes."""
    return html.escape(xml_safe(value), quote=True)


def _l(lang, key, **params):
    """A UI label, marked so the language switch can replace it (with the same parameters)."""
    args = f" data-args='{_e(json.dumps(params, ensure_ascii=False))}'" if params else ""
    return f'<span data-i18n="{key}"{args}>{_e(label(lang, key, **params))}</span>'


def _title(lang, key, **params):
    """Attributes of an element whose tooltip is a UI label the language switch replaces."""
    return (f'data-i18n="{key}" data-title data-args=\'{_e(json.dumps(params, ensure_ascii=False))}\' '
            f'title="{_e(label(lang, key, **params))}"')


def translations(check, host_lang, render_message=None, render_hint=None):
    """(message, hint) of a check: each an [en, ja, ko] list when the catalogue renders exactly
    the text the learner got (so the instructor reads the same message in another language), else
    the learner's text alone (unknown key, a catalogue that changed since, a malformed check)."""
    render_message = render_message or i18n.message
    render_hint = render_hint or i18n.hint

    def every_language(render, stored):
        try:
            texts = [render(lang) for lang in LANGUAGES]
        except Exception:  # any failure of the catalogue means "not renderable"  # noqa: BLE001
            return stored
        if host_lang not in LANGUAGES or texts[LANGUAGES.index(host_lang)] != stored or len(set(texts)) == 1:
            return stored
        return texts

    message = check["message"]
    if check["message_key"]:
        message = every_language(lambda lang: render_message(check["message_key"], check["params"], lang),
                                 check["message"])
    hint = check["hint"]
    if check["hint"] and check.get("hint_key"):
        hint = every_language(lambda lang: render_hint(check["hint_key"], lang, check["params"]), check["hint"])
    return message, hint


class _Interner:
    """Identical detail rows are stored once in the page (most learners share most rows)."""

    def __init__(self):
        self.items, self.index = [], {}

    def add(self, item):
        key = json.dumps(item, ensure_ascii=False, sort_keys=True)
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(item)
        return self.index[key]


def _shown_cut(value, limit=4000):
    text = xml_safe(show_value(value))
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


def page_data(hosts, columns, render_message=None, render_hint=None):
    """The JSON the page's script reads to show a cell's details: labs, interned check rows, hosts."""
    rows = _Interner()
    out_hosts = []
    for host in hosts:
        entry = {"n": xml_safe(host["host"]), "l": host["lang"], "g": host.get("graded_at", ""), "e": None, "s": []}
        if host["state"] == "error":
            error = host["error"]
            entry["e"] = {"k": error["kind"], "m": xml_safe(error["message"]),
                          "d": xml_safe(json.dumps(error["details"], ensure_ascii=False, indent=2, sort_keys=True))}
        for lab in columns:
            result = host["labs"].get(lab["id"])
            if result is None:
                entry["s"].append(None)
            elif result["error"]:
                entry["s"].append({"k": result["error"]["kind"], "e": xml_safe(result["error"]["message"])})
            else:
                by_step = {s["step"]: s for s in result["steps"]}
                cells = []
                for column in lab["steps"]:
                    step = by_step.get(column["step"])
                    if step is None:
                        cells.append(None)
                        continue
                    ids = []
                    for check in step["checks"]:
                        message, hint = translations(check, host["lang"], render_message, render_hint)
                        ids.append(rows.add([xml_safe(check["check"]), check["status"], _safe_texts(message),
                                             _shown_cut(check["expected"]), _shown_cut(check["found"]),
                                             _safe_texts(hint)]))
                    cells.append([step["status"], ids])
                entry["s"].append(cells)
        out_hosts.append(entry)
    return {
        "langs": list(LANGUAGES),
        "sym": {status: SYMBOLS[status] for status in STATUSES},
        "sev": SEVERITY,
        "labs": [{"id": xml_safe(lab["id"]),
                  "steps": [{"step": s["step"], "title": xml_safe(s["title"]),
                             "titles": {k: xml_safe(v) for k, v in s["titles"].items()}} for s in lab["steps"]]}
                 for lab in columns],
        "rows": rows.items,
        "hosts": out_hosts,
    }


def _safe_texts(texts):
    return xml_safe(texts) if isinstance(texts, str) else [xml_safe(t) for t in texts]


def _script_json(value):
    """JSON for a <script type="application/json">: no record text can end the element or open a
    comment in it, because <, > and & are written as JSON escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def pass_rates(hosts, columns):
    """{(lab index, step index): (passed, graded)} over graded hosts whose lab result has the step."""
    rates = {}
    for li, lab in enumerate(columns):
        for si, column in enumerate(lab["steps"]):
            statuses = [s["status"] for h in hosts if h["state"] == "graded"
                        for result in [h["labs"].get(lab["id"])] if result and not result["error"]
                        for s in result["steps"] if s["step"] == column["step"]]
            rates[(li, si)] = (statuses.count(PASS), len(statuses))
    return rates


def _row_facts(host, columns):
    """Sorting and filtering attributes of a matrix row: severity, statuses present, non-passing steps."""
    if host["state"] == "error":
        return HOST_ERROR_RANK, "HOST", ""
    statuses, not_passing = set(), []
    for li, lab in enumerate(columns):
        result = host["labs"].get(lab["id"])
        if result is None:
            continue
        by_step = {s["step"]: s["status"] for s in result["steps"]}
        for si, column in enumerate(lab["steps"]):
            status = ERROR if result["error"] else by_step.get(column["step"])
            if status is None:
                continue
            statuses.add(status)
            if status != PASS:
                not_passing.append(f"{li}-{si}")
    return SEVERITY[worst(statuses)], " ".join(s for s in STATUSES if s in statuses), " ".join(not_passing)


def _change_cell(change, lang):
    if change is None:
        return ""
    kind = change["change"]
    text = {"progressed": f"+{len(change['up'])}", "regressed": f"\u2212{len(change['down'])}",
            "mixed": f"+{len(change['up'])} \u2212{len(change['down'])}", "unchanged": "=",
            "new": "\u2022", "not_graded": "?", "carried": "\u00b7"}[kind]
    tips = []
    if change["up"]:
        tips.append(label(lang, "c_progressed", up=", ".join(change["up"])))
    if change["down"]:
        tips.append(label(lang, "c_regressed", down=", ".join(change["down"])))
    if not tips:
        tips.append(label(lang, f"c_{kind}"))
    return f'<td class="chg c-{kind}" title="{_e("; ".join(tips))}">{_e(text)}</td>'


def build_html(hosts, generated_at, lang="en", title="", run=None, render_message=None, render_hint=None):
    """The self-contained class report page (no external resources, every record value escaped).

    The matrix is plain HTML; a cell's checks are rendered next to it by the page's script from
    the JSON of `page_data`, with DOM text nodes only (never innerHTML)."""
    lang = lang if lang in LABELS else "en"
    columns = lab_columns(hosts)
    counts = compute_counts(hosts)
    previous = (run or {}).get("previous")
    with_change = previous is not None
    ncols = sum(max(1, len(lab["steps"])) for lab in columns)

    head1 = f'<tr><th class="corner" rowspan="2">{_l(lang, "learner")}</th>'
    head2 = "<tr>"
    for li, lab in enumerate(columns):
        head1 += f'<th colspan="{max(1, len(lab["steps"]))}">{_e(lab["id"])}</th>'
        if not lab["steps"]:
            head2 += "<th></th>"
        for si, step in enumerate(lab["steps"]):
            head2 += f'<th data-st="{li}-{si}" title="{_e(step_title(step, lang))}">{_e(step["step"])}</th>'
    head1 += f'<th rowspan="2">{_l(lang, "score")}</th>'
    if with_change:
        head1 += f'<th rowspan="2" {_title(lang, "change_tip", time=previous["generated_at"])}>\u0394</th>'
    head1 += "</tr>"
    head2 += "</tr>"
    rates = pass_rates(hosts, columns)
    rate_row = f'<tr class="rates"><th class="corner">{_l(lang, "pass_rate")}</th>'
    for li, lab in enumerate(columns):
        if not lab["steps"]:
            rate_row += "<td></td>"
        for si, _step in enumerate(lab["steps"]):
            passed, graded = rates[(li, si)]
            if not graded:
                rate_row += "<td>\u2013</td>"
                continue
            percent = round(100 * passed / graded)
            rate_row += (f'<td class="rate{" low" if percent < 50 else ""}" data-step="{li}-{si}"><button type="button" '
                         f'{_title(lang, "pass_rate_tip", passed=passed, graded=graded)}>{percent}%</button></td>')
    total = counts["total"]
    rate_row += f'<td>{round(100 * counts[PASS] / total) if total else 0}%</td>'
    if with_change:
        progressed = sum(1 for h in hosts if (h.get("change") or {}).get("change") in ("progressed", "mixed"))
        rate_row += f'<td class="chg c-progressed" {_title(lang, "f_progressed")}>+{progressed}</td>'
    rate_row += "</tr>"

    body = []
    for hi, host in enumerate(hosts):
        change = host.get("change")
        carried = (change or {}).get("change") == "carried"
        sev, present, not_passing = _row_facts(host, columns)
        score = host_score(host)
        ratio = round(1000 * score["passed"] / score["total"]) if score["total"] else 0
        attrs = (f' data-i="{hi}" data-name="{_e(host["host"])}" data-sev="{sev}" data-score="{ratio}"'
                 f' data-has="{present}" data-fail="{not_passing}" data-chg="{(change or {}).get("change", "")}"'
                 f' data-up="{len((change or {}).get("up", []))}"')
        classes = " ".join(c for c in ("host-error" if host["state"] == "error" else "", "carried" if carried else "") if c)
        host_cell = (f'<th class="host" scope="row">{_e(host["host"])}<span class="lang">{_e(host["lang"])}</span>'
                     + (f'<span class="old" {_title(lang, "earlier", time=host["graded_at"])}>\u21ba</span>'
                        if carried else "")
                     + "</th>")
        row = f'<tr{f" class={chr(34)}{classes}{chr(34)}" if classes else ""}{attrs}>{host_cell}'
        if host["state"] == "error":
            error = host["error"]
            row += (f'<td class="env-error" colspan="{ncols + 1}"><button type="button" class="c" data-c="{hi}">'
                    f'<span class="kind">{_l(lang, error["kind"])}</span>{_l(lang, "env_error")}: '
                    f'{_e(error["message"])}</button></td>')
            body.append(row + _change_cell(change, lang) + "</tr>")
            continue
        for li, lab in enumerate(columns):
            result = host["labs"].get(lab["id"])
            span = max(1, len(lab["steps"]))
            if result is None:
                row += f'<td class="s-none" colspan="{span}">{_e(SYMBOLS[None])}</td>'
                continue
            if result["error"]:
                row += (f'<td class="s-ERROR lab-error" colspan="{span}"><button type="button" class="c" '
                        f'data-c="{hi} {li}">{_e(SYMBOLS[ERROR])} {_l(lang, "lab_error")}: '
                        f'{_e(result["error"]["message"])}</button></td>')
                continue
            by_step = {s["step"]: s for s in result["steps"]}
            up = set((change or {}).get("up", []))
            for si, column in enumerate(lab["steps"]):
                step = by_step.get(column["step"])
                if step is None:
                    row += f'<td class="s-none">{_e(SYMBOLS[None])}</td>'
                    continue
                summary = step["summary"]
                mark = " up" if f"{lab['id']}.{column['step']}" in up else ""
                row += (f'<td class="s-{step["status"]}{mark}"><button type="button" class="c" data-c="{hi} {li} {si}">'
                        f'{_e(SYMBOLS[step["status"]])} {summary[PASS]}/{summary["total"]}</button></td>')
        row += f'<td class="score">{score["passed"]}/{score["total"]}</td>'
        if with_change:
            row += _change_cell(change, lang)
        body.append(row + "</tr>")
    if not hosts:
        body.append(f'<tr><td colspan="{ncols + 2}">{_l(lang, "no_hosts")}</td></tr>')

    legend = "".join(
        f'<li><span class="sw s-{key}">{_e(SYMBOLS[key])}</span>{_l(lang, key)}</li>'
        for key in STATUSES) + (f'<li><span class="sw s-none">{_e(SYMBOLS[None])}</span>'
                                f'{_l(lang, "none")}</li>')
    summary = (
        f'<ul class="summary"><li>{_l(lang, "hosts_graded")}: <b>{counts["hosts_graded"]}</b></li>'
        f'<li>{_l(lang, "hosts_in_error")}: <b>{counts["hosts_in_error"]}</b></li>'
        f'<li>{_l(lang, "checks")}: '
        + " &middot; ".join(f'{_e(SYMBOLS[s])} <b>{counts[s]}</b> {_l(lang, s)}' for s in STATUSES)
        + "</li></ul>")
    partial = ""
    if run and run["scope"] == "partial":
        graded = ", ".join(run["graded"])
        text = (_l(lang, "partial", graded=graded, carried=len(run["carried"]), time=previous["generated_at"])
                if previous else _l(lang, "partial_alone", graded=graded))
        partial = f'<p class="partial">{text}</p>'
    options = "".join(f'<option value="{code}"{" selected" if code == lang else ""}>{name}</option>'
                      for code, name in LANGUAGE_NAMES.items())
    show_options = "".join(f'<option value="{key}" data-i18n="{key}">{_e(label(lang, key))}</option>' for key in FILTERS)
    sort_options = "".join(f'<option value="{key}" data-i18n="{key}">{_e(label(lang, key))}</option>' for key in SORTS)
    step_options = f'<option value="" data-i18n="any_step">{_e(label(lang, "any_step"))}</option>' + "".join(
        f'<option value="{li}-{si}">{_e(lab["id"])} {_e(step["step"])}</option>'
        for li, lab in enumerate(columns) for si, step in enumerate(lab["steps"]))
    data_json = _script_json(page_data(hosts, columns, render_message, render_hint))
    labels_json = _script_json(LABELS)
    script_hash = base64.b64encode(hashlib.sha256(_JS.encode("utf-8")).digest()).decode("ascii")
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{script_hash}'; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    page_title = title or LABELS[lang]["title"]
    title_html = _e(title) if title else _l(lang, "title")
    return f"""<!DOCTYPE html>
<html lang="{lang}" data-ui="{lang}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="labgrader grade_report ({SCHEMA})">
<title>{_e(page_title)} {_e(generated_at)}</title>
<style>{_CSS}</style>
</head>
<body>
<header><h1>{title_html}</h1>
<span class="meta">{_l(lang, "generated")}: <time datetime="{_e(generated_at)}">{_e(generated_at)}</time></span>
<label class="meta noprint">{_l(lang, "language")}: <select id="ui-lang">{options}</select></label>
<a class="meta noprint" href="grades.csv" download>{_l(lang, "csv")}</a>
</header>
{partial}{summary}
<ul class="legend" aria-label="legend">{legend}</ul>
<div class="toolbar noprint">
<label>{_l(lang, "show")}: <select id="f-show">{show_options}</select></label>
<label>{_l(lang, "failing_step")}: <select id="f-step">{step_options}</select></label>
<label>{_l(lang, "sort")}: <select id="f-sort">{sort_options}</select></label>
<label>{_l(lang, "search")}: <input type="search" id="f-name" autocomplete="off"></label>
<span><span id="count">{len(hosts)} / {len(hosts)}</span> {_l(lang, "shown")}</span>
<span class="note">{_l(lang, "click")}</span>
</div>
<table class="matrix" id="matrix">
<thead>{head1}{head2}{rate_row}</thead>
<tbody id="rows">
{chr(10).join(body)}
</tbody></table>
<div id="pop" role="dialog" tabindex="-1" hidden></div>
<script type="application/json" id="data">{data_json}</script>
<script type="application/json" id="labels">{labels_json}</script>
<script>{_JS}</script>
</body>
</html>
"""


# ---------------------------------------------------------------------------------------------
# grades.csv


def _csv_cell(value):
    """A CSV cell a spreadsheet shows as text: a leading = + - @ (a formula) gets a quote."""
    text = xml_safe(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv_step(host, step, lab_id):
    """(status, checks passed) of one step; ERROR for a lab in error, blanks when not graded."""
    if lab_id in host["labs"] and host["labs"][lab_id]["error"]:
        return ERROR, 0
    return (step["status"], step["summary"][PASS]) if step else ("", "")


def build_csv(hosts):
    """grades.csv: one row per learner for gradebooks and LMS imports (docs/report-format.md)."""
    columns = lab_columns(hosts)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    step_ids = [(lab["id"], s["step"]) for lab in columns for s in lab["steps"]]
    writer.writerow(["learner", "lang", "state", "error", "graded_at", "passed", "total", "percent"]
                    + [f"{lab['id']} passed" for lab in columns] + [f"{lab['id']} total" for lab in columns]
                    + [f"{lab_id} step {step}{suffix}" for lab_id, step in step_ids for suffix in ("", " passed")])
    for host in hosts:
        score = host_score(host)
        percent = f"{100 * score['passed'] / score['total']:.1f}" if score["total"] else ""
        errors = ([f"{kind_label(host['error']['kind'])}: {host['error']['message']}"] if host["error"] else []) + [
            f"{lab_id}: {kind_label(lab['error']['kind'])}: {lab['error']['message']}"
            for lab_id, lab in host["labs"].items() if lab["error"]]
        steps = {(lab_id, s["step"]): s for lab_id, lab in host["labs"].items() for s in lab["steps"]}
        lab_scores = {lab_id: (lab["summary"][PASS], lab["summary"]["total"]) for lab_id, lab in host["labs"].items()}
        writer.writerow(
            [_csv_cell(host["host"]), host["lang"], host["state"], _csv_cell("; ".join(errors)), host.get("graded_at", ""),
             score["passed"], score["total"], percent]
            + [lab_scores.get(lab["id"], ("", ""))[0] for lab in columns]
            + [lab_scores.get(lab["id"], ("", ""))[1] for lab in columns]
            + [value for key in step_ids for value in _csv_step(host, steps.get(key), key[0])])
    return "\ufeff" + out.getvalue()


# ---------------------------------------------------------------------------------------------
# learners/<host>.txt

LEARNER_LABELS = {
    "en": {"not_started": "not started", "same_cause": "same cause as step {step}"},
    "ja": {"not_started": "未着手", "same_cause": "同じ原因: ステップ {step}"},
    "ko": {"not_started": "시작 전", "same_cause": "같은 원인: 단계 {step}"},
}


def learner_file_name(host):
    """learners/<host>.txt, with anything that is not safe in a file name replaced."""
    return "learners/" + (re.sub(r"[^A-Za-z0-9._-]", "_", host).lstrip(".") or "_") + ".txt"


def _evidence_lines(check, labels):
    """expected/found lines a reader needs: none for null, none when the message already says it."""
    lines = []
    for key in ("expected", "found"):
        value = check[key]
        shown = show_value(value)
        if value is None or re.search(rf"(?<!\w){re.escape(shown)}(?!\w)", check["message"]):
            continue
        lines.append(f"      {labels[key]}: {term_safe(shown)}")
    return lines


def _not_started_lines(lab, labels, symbols):
    """A lab with nothing done yet: one line per step (its first reason), and where to start."""
    lines, first_hint = [], ""
    for step in lab["steps"]:
        reasons = [c for c in step["checks"] if c["status"] != PASS]
        reason = f" \u2014 {term_safe(reasons[0]['message'])}" if reasons else ""
        lines.append(f"{symbols[step['status']]} {labels['step']} {step['step']}: {term_safe(step['title'])}{reason}")
        first_hint = first_hint or next((c["hint"] for c in reasons if c["hint"]), "")
        if first_hint and len(lines) == 1:
            lines.append(f"      {labels['hint']}: {term_safe(first_hint)}")
    return lines


def _started_lines(lab, labels, symbols, lang):
    """Every step with its outcome; each distinct problem once, each hint once."""
    lines, seen, hints = [], {}, set()
    for step in lab["steps"]:
        lines.append(f"{symbols[step['status']]} {labels['step']} {step['step']}: {term_safe(step['title'])}")
        problems = {}
        for check in step["checks"]:
            if check["status"] != PASS:
                problems.setdefault((check["status"], check["message"]), []).append(check)
        earlier = sorted({seen[key] for key in problems if key in seen})
        for key, checks in problems.items():
            if key in seen:
                continue
            seen[key] = step["step"]
            first = checks[0]
            times = f" (\u00d7{len(checks)})" if len(checks) > 1 else ""
            lines.append(f"    {symbols[first['status']]} {term_safe(first['message'])}{times}")
            lines += _evidence_lines(first, labels)
            hint = next((c["hint"] for c in checks if c["hint"]), "")
            if hint and hint not in hints:
                hints.add(hint)
                lines.append(f"      {labels['hint']}: {term_safe(hint)}")
        if earlier and all(key in seen and seen[key] != step["step"] for key in problems):
            same = ", ".join(str(n) for n in earlier)
            lines.append(f"    {LEARNER_LABELS[lang]['same_cause'].format(step=same)}")
    return lines


def build_learner_text(host, generated_at):
    """The report one learner reads, in the learner's language: every step with its outcome; for
    what did not pass, each distinct message once with the values it does not already say and its
    hint once; a lab with nothing done yet gets one line per step."""
    lang = host["lang"] if host["lang"] in LABELS else "en"
    labels = LABELS[lang]
    symbols = SYMBOLS
    lines = [f"{host['host']}  ({labels['graded_at']}: {host.get('graded_at') or generated_at})", ""]
    if host["state"] != "graded":
        error = host["error"]
        lines.append(f"{symbols[ERROR]} {labels['env_error']}: {kind_label(error['kind'], lang)}: "
                     f"{term_safe(error['message'])}")
        return "\n".join(lines) + "\n"
    for lab_id, lab in host["labs"].items():
        checks = [c for s in lab["steps"] for c in s["checks"]]
        passed = sum(1 for c in checks if c["status"] == PASS)
        not_started = not passed and any(c["status"] == FAIL for c in checks)
        mark = f"  ({LEARNER_LABELS[lang]['not_started']})" if not_started else ""
        lines.append(f"== {lab_id}  {passed}/{len(checks)}{mark}")
        if lab.get("error"):
            lines.append(f"   {symbols[ERROR]} {labels['lab_error']}: {kind_label(lab['error']['kind'], lang)}: "
                         f"{term_safe(lab['error'].get('message', ''))}")
        lines += (_not_started_lines(lab, labels, symbols) if not_started
                  else _started_lines(lab, labels, symbols, lang))
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# everything at once, the reader of the previous run and the one function that writes


def shown(value):
    """Normalised records as every report format may show them: secrets that have a shape (a
    private key, a JWT, a URL's password, a Bearer value) redacted once more here -- a result is
    only the VM's word -- and every control, bidi and invisible character made visible
    (printable.py), once for all formats."""
    return printable_value(scrub_value(value))


def build_report(records, hosts=None, lang="en", now=None, report_dir="", ascii_only=False, title="",
                 class_hosts=None, previous=None, enrolled=None):
    """All report contents for one run, as strings and summaries (nothing is written).

    `report_dir`: where the files will be written; "" in check mode (the matrix says so).
    `enrolled`: {host: [lab id, ...]} to check each result against (normalize_records).
    `class_hosts`: every host of the class; a run that grades fewer is partial and is merged into
    `previous` (from read_previous: the class view `latest` showed before this run).
    """
    now = now or datetime.datetime.now(UTC)
    generated_at = iso_utc(now)
    graded = shown(normalize_records(records, hosts, enrolled))
    previous = shown(previous)  # written by an earlier version, maybe before shown() existed
    for host in graded:
        host["graded_at"] = generated_at
    graded_names = [str(h) for h in hosts or []] or [h["host"] for h in graded]
    merged, run = plan_run(graded, previous, class_hosts, graded_names)
    attach_changes(merged, previous, set(run["carried"]))
    grades = build_grades(merged, generated_at, lang, run)
    this_run = [h for h in merged if h["host"] not in run["carried"]]  # what the run's outcome is about
    index_path = os.path.join(report_dir, "index.html") if report_dir else ""
    return {
        "generated_at": generated_at,
        "hosts": merged,
        "grades": grades,
        "run": run,
        "contents": {
            "grades.json": grades_json(grades),
            "grades.csv": build_csv(merged),
            "junit.xml": build_junit(merged, generated_at),
            "index.html": build_html(merged, generated_at, lang, title, run),
            **{learner_file_name(h["host"]): build_learner_text(h, generated_at) for h in merged},
        },
        "matrix": build_matrix(merged, index_path, ascii_only, generated_at, run=run),
        "counts": grades["counts"],
        "hosts_in_error": [e["host"] for e in host_errors(this_run)],
        "host_errors": host_errors(this_run),
        "learner_failures": learner_failures(this_run),
        "changes": {h["host"]: h["change"] for h in merged if h.get("change")},
    }


def read_previous(output_dir):
    """(previous, warnings): the class view `<output_dir>/latest` shows before this run.

    `previous` is {"report": folder name, "generated_at", "hosts"} or None when there is no
    earlier run or it cannot be read (then a warning says why; this run is reported on its own).
    """
    latest = os.path.join(output_dir, LATEST)
    path = os.path.join(latest, "grades.json")
    if not os.path.exists(path):  # the first run, or `latest` is not one of our reports
        return None, []
    try:
        if os.path.getsize(path) > PREVIOUS_MAX_BYTES:
            return None, [f"{path} is larger than {PREVIOUS_MAX_BYTES} bytes; not compared with this run"]
        with open(path, encoding="utf-8") as handle:
            grades = json.load(handle)
        hosts = hosts_from_grades(grades)
    except (OSError, ValueError) as exc:
        return None, [f"the previous report {path} cannot be read ({exc}); not compared with this run"]
    report = os.path.basename(os.path.realpath(latest))
    return {"report": report, "generated_at": _text(grades.get("generated_at")), "hosts": hosts}, []


def plan_report_dir(output_dir, now):
    """<output_dir>/<YYYYmmddTHHMMSSZ>, with -2, -3 ... if a run in the same second exists."""
    base = os.path.join(output_dir, stamp_utc(now))
    path, n = base, 1
    while os.path.lexists(path):
        n += 1
        path = f"{base}-{n}"
    return path


def report_files(report_dir):
    return [os.path.join(report_dir, name) for name in FILE_NAMES]


def write_report(report_dir, contents):
    """Write the files into a new `report_dir` and point <parent>/latest at it.

    Returns a list of warnings (the report itself is written or OSError is raised).
    """
    output_dir = os.path.dirname(os.path.abspath(report_dir))
    os.makedirs(output_dir, exist_ok=True)
    os.mkdir(report_dir)
    for name, text in contents.items():  # the class files and learners/<host>.txt
        path = os.path.join(report_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n" if not name.endswith(".csv") else "") as handle:
            handle.write(text)
    warnings = []
    latest = os.path.join(output_dir, LATEST)
    tmp = os.path.join(output_dir, f".{LATEST}.{os.getpid()}.tmp")
    try:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.path.basename(report_dir), tmp)
        os.replace(tmp, latest)  # atomic: readers see the old or the new target, never none
    except OSError as exc:
        warnings.append(f"could not update {latest}: {exc}")
        if os.path.lexists(tmp):
            os.unlink(tmp)
    return warnings
