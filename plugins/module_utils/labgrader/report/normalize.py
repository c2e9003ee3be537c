"""Normalisation: anything a task passed as records -> host records of the contract
(docs/grading-contract.md), one per host, with every problem turned into an ERROR of the grader
(never a learner failure) and a message saying what was wrong."""

from __future__ import annotations

import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.validate import result_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import (
    as_int,
    as_text,
    jsonable,
    natural_key,
    record_lang,
    short_repr,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import summarize
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import (
    ERROR,
    ERROR_KINDS,
    PASS,
    STATUSES,
    worst,
)

LEARNER_ID_MAX = 320  # lab_learner_id: a gradebook id or an e-mail address


def learner_id(raw):
    """The inventory's lab_learner_id a record carries (grades.csv), "" without one; cut to LEARNER_ID_MAX."""
    value = raw.get("learner_id") if isinstance(raw, dict) else None
    return as_text(value)[:LEARNER_ID_MAX] if isinstance(value, (str, int)) and not isinstance(value, bool) else ""


def host_error(name, kind, message, details=None, lang="en", reasons=None):
    return {
        "host": name,
        "lang": lang,
        "state": "error",
        "error": {"kind": kind, "message": message, "details": jsonable(details or {}),
                  **({"reasons": reasons} if reasons else {})},
        "labs": {},
    }


def catalogued_reasons(raw):
    """A host error's reasons ({"key", "params"} each, so learners/<host>.txt says them in the
    learner's language), kept only when every one names a catalogue message; else None and
    the English message stands."""
    if not isinstance(raw, list) or not raw:
        return None
    if not all(isinstance(r, dict) and r.get("key") in i18n.MESSAGES and isinstance(r.get("params"), dict) for r in raw):
        return None
    return [{"key": r["key"], "params": jsonable(r["params"])} for r in raw]


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


def norm_check(lab_id, step, raw, index):
    if not isinstance(raw, dict):
        return _error_check(lab_id, step, index,
                            f"the grader returned a malformed check result: {short_repr(raw)}")
    check_id = raw.get("check")
    check_id = check_id if isinstance(check_id, str) and check_id else f"{lab_id}.{step}.#{index + 1}"
    message = as_text(raw.get("message"))
    status = raw.get("status")
    if isinstance(status, str) and status.upper() in STATUSES:
        status = status.upper()
    else:
        message = f"the grader returned an invalid status {short_repr(status)}" + (
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
        "message_key": as_text(raw.get("message_key")),
        "params": jsonable(params) if isinstance(params, dict) else {},
        "message": message,
        "hint": as_text(raw.get("hint")),
        "hint_key": as_text(raw.get("hint_key")),
    }


def lab_error(message, kind="grader"):
    return {"status": ERROR, "summary": summarize([]), "steps": [],
            "error": {"kind": kind, "message": message}}


def norm_lab(lab_id, raw):
    """A lab result -> {status, summary, steps, error}; None when the lab was not graded."""
    if not isinstance(raw, dict):
        if raw is None:
            return None
        return lab_error(f"the lab result is not a mapping: {short_repr(raw)}")
    steps_raw = raw.get("steps")
    if not isinstance(steps_raw, list):
        if raw.get("skipped") and not raw.get("failed"):
            return None  # the grading task was skipped (when:) -> not graded
        msg = raw.get("msg") or raw.get("message")
        if raw.get("unreachable"):
            return lab_error(as_text(msg) or "host unreachable", "unreachable")
        if msg:
            return lab_error(f"the grading module failed: {as_text(msg)}")
        return lab_error("the lab result has no 'steps' list")
    steps = {}
    for index, step_raw in enumerate(steps_raw):
        if not isinstance(step_raw, dict):
            number = index + 1
            step = steps.setdefault(number, {"step": number, "title": "", "given": None, "checks": []})
            step["checks"].append(_error_check(
                lab_id, number, 0, f"the grader returned a malformed step: {short_repr(step_raw)}"))
            continue
        number = as_int(step_raw.get("step"))
        number = index + 1 if number is None else number
        step = steps.setdefault(number, {"step": number, "title": "", "given": None, "checks": []})
        step["title"] = step["title"] or as_text(step_raw.get("title"))
        given = step_raw.get("status")
        if isinstance(given, str) and given.upper() in STATUSES:
            step["given"] = given.upper()
        checks_raw = step_raw.get("checks")
        if checks_raw is None:
            checks_raw = []
        if not isinstance(checks_raw, list):
            step["checks"].append(_error_check(
                lab_id, number, 0, f"the step's checks are not a list: {short_repr(checks_raw)}"))
            continue
        offset = len(step["checks"])
        for k, check_raw in enumerate(checks_raw):
            step["checks"].append(norm_check(lab_id, number, check_raw, offset + k))
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


def _norm_host(raw, name):
    lang = record_lang(raw)
    state = raw.get("state")
    if state == "error" or (state is None and raw.get("error")):
        error = raw.get("error")
        if not isinstance(error, dict):
            return host_error(name, "grader", "the host is in error but the record has no error details: "
                               + short_repr(error), lang=lang)
        kind = error.get("kind") if error.get("kind") in ERROR_KINDS else "grader"
        message = as_text(error.get("message")) or "(no message)"
        if kind != error.get("kind"):
            message = f"[{as_text(error.get('kind'))}] {message}"
        details = error.get("details")
        reasons = catalogued_reasons(error.get("reasons")) if kind == error.get("kind") else None
        return host_error(name, kind, message, details if isinstance(details, dict) else {}, lang, reasons)
    if state != "graded":
        return host_error(name, "grader", f"the record has an unknown state {short_repr(state)}",
                           lang=lang)
    labs_raw = raw.get("labs")
    if not isinstance(labs_raw, dict):
        return host_error(name, "grader", "the record has no 'labs' mapping", lang=lang)
    labs = {}
    for lab_id, lab_raw in labs_raw.items():
        lab = norm_lab(str(lab_id), lab_raw)
        if lab is not None:
            labs[str(lab_id)] = lab
    if not labs:
        return host_error(name, "grader", "the host was graded but has no lab results", lang=lang)
    return {"host": name, "lang": lang, "state": "graded", "error": None, "labs": labs}


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
            record = (host_error(name, "grader", f"result rejected: {problem}", lang=record_lang(raw)) if problem
                      else _norm_host(raw, name))
        else:
            name = inventory_name or f"record-{index + 1}"
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                record = host_error(name, "grader", "the host produced no grading record")
            else:
                record = host_error(name, "grader",
                                     f"the grading record is not a mapping: {short_repr(raw)}")
        record["learner_id"] = learner_id(raw)
        if name in seen:  # the same host twice: keep both, visibly
            seen[name] += 1
            record["host"] = f"{name} #{seen[name]}"
        else:
            seen[name] = 1
        out.append(record)
    return with_every_host(out, hosts)


def with_every_host(records, hosts):
    """`records` (normalised) with an ERROR row for each host of `hosts` that has none, sorted by
    host name (naturally)."""
    seen = {record["host"] for record in records}
    out = list(records)
    for name in hosts:
        if name not in seen:
            seen.add(name)
            out.append({**host_error(
                name, "grader",
                "the host produced no grading record (unreachable, or grading stopped early)"), "learner_id": ""})
    out.sort(key=lambda r: natural_key(r["host"]))
    return out
