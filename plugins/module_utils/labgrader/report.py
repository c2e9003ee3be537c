"""The class report: host records of one grading run -> grades.json, junit.xml, index.html, matrix.

Everything here is a pure function of plain data except `write_report`, which is the only
function that touches the file system. Input is the host record of docs/grading-contract.md;
output formats are described in docs/report-format.md.

Bad input is normal input: a record that is missing, not a mapping, or has the wrong shape
becomes an ERROR (of the grader, never a learner failure) with a message saying what was wrong.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import html
import json
import math
import os
import re
import unicodedata
import xml.etree.ElementTree as ET

SCHEMA = "lab-grades/v1"
UTC = datetime.timezone.utc  # noqa: UP017 (module_utils stay importable on Python < 3.11)
PASS, FAIL, PENDING, ERROR = "PASS", "FAIL", "PENDING", "ERROR"
STATUSES = (PASS, FAIL, PENDING, ERROR)
SEVERITY = {PASS: 0, PENDING: 1, FAIL: 2, ERROR: 3}
ERROR_KINDS = ("unreachable", "health", "grader")
LANGS = ("en", "ja", "ko")
FILE_NAMES = ("grades.json", "junit.xml", "index.html")
LATEST = "latest"

# Terminal symbols. The Unicode ones all have East Asian width "N" (narrow), so columns stay
# aligned in ja/ko terminals that draw "ambiguous" characters (such as "…" and "·") double wide.
SYMBOLS = {PASS: "\u2713", FAIL: "\u2717", PENDING: "\u22ef", ERROR: "!", None: "\u2219"}
ASCII_SYMBOLS = {PASS: "+", FAIL: "X", PENDING: "~", ERROR: "!", None: "."}
MATRIX_WIDTH = 100

# ---------------------------------------------------------------------------------------------
# small helpers


def worst(statuses, default=PASS):
    """The most severe status (ERROR > FAIL > PENDING > PASS); `default` for none."""
    result = None
    for status in statuses:
        if result is None or SEVERITY[status] > SEVERITY[result]:
            result = status
    return default if result is None else result


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


def _norm_host(raw, name):
    lang = raw.get("lang") if raw.get("lang") in LANGS else "en"
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


def normalize_records(records, hosts=None):
    """Host records in the contract's shape, one per host, sorted by host name (naturally).

    `records`: a list of host records, a mapping host -> record, or a JSON string of either.
    `hosts`: the hosts that were meant to be graded; one with no record is an ERROR row.
    """
    hosts = [str(h) for h in (hosts or []) if h is not None]
    out = []
    seen = {}
    for index, (inventory_name, raw) in enumerate(_pairs(records, hosts)):
        if isinstance(raw, dict):
            name = raw.get("host")
            name = name if isinstance(name, str) and name else (inventory_name or f"record-{index + 1}")
            record = _norm_host(raw, name)
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
    """[{id, steps: [{step, title}]}]: every lab and step seen in any record, in first-seen order."""
    labs = {}
    for host in hosts:
        for lab_id, lab in host["labs"].items():
            steps = labs.setdefault(lab_id, {})
            for step in lab["steps"]:
                if not steps.get(step["step"]):
                    steps[step["step"]] = step["title"]
    return [{"id": lab_id, "steps": [{"step": n, "title": steps[n]} for n in sorted(steps)]}
            for lab_id, steps in labs.items()]


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
# grades.json


def build_grades(hosts, generated_at, lang="en"):
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
                    records.append({"host": host["host"], **{k: c[k] for k in (
                        "lab", "step", "check", "status", "expected", "found", "message_key",
                        "params", "message", "hint")}})
        out_hosts.append({
            "host": host["host"],
            "lang": host["lang"],
            "state": host["state"],
            "error": host["error"],
            "score": host_score(host),
            "labs": labs,
        })
    return {
        "schema": SCHEMA,
        "generated_at": generated_at,
        "lang": lang,
        "counts": compute_counts(hosts),
        "labs": lab_columns(hosts),
        "hosts": out_hosts,
        "records": records,
    }


def grades_json(grades):
    return json.dumps(grades, ensure_ascii=False, indent=2) + "\n"


# ---------------------------------------------------------------------------------------------
# junit.xml

_XML_INVALID = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(value, limit=None):
    """Text XML 1.0 can hold: characters it forbids become visible \\xNN / \\uNNNN escapes."""
    text = _text(value)
    if limit and len(text) > limit:
        text = text[:limit] + "..."

    def esc(match):
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return _XML_INVALID.sub(esc, text)


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
                              hostname=xml_safe(host["host"]), timestamp=generated_at)
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

_TERM_UNSAFE = re.compile("[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def term_safe(value):
    """One line of text a terminal shows as is: no escape sequences, no bidi tricks."""
    text = re.sub(r"\s+", " ", _text(value)).strip()
    return _TERM_UNSAFE.sub("?", text)


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


def build_matrix(hosts, index_path="", ascii_only=False, generated_at="", width=MATRIX_WIDTH):
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
            text = f"{name}  {sym[ERROR]} {error['kind']}: {term_safe(error['message'])}"
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
            item = f" {fit(term_safe(error['host']), 40)} ({error['kind']}),"
            if display_width(line + item) > width:
                lines.append(line)
                line = " "
            line += item
        lines.append(line.rstrip(","))
    lines.append(f"legend: {sym[PASS]} pass  {sym[FAIL]} fail  {sym[PENDING]} pending  "
                 f"{sym[ERROR]} error  {sym[None]} not graded"
                 + (f"  ({generated_at})" if generated_at else ""))
    if index_path:
        lines.append(f"report: {term_safe(index_path)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# index.html

LABELS = {
    "en": {
        "title": "Class report", "generated": "Generated", "learner": "Learner", "score": "Score",
        "PASS": "Pass", "FAIL": "Fail", "PENDING": "Pending (not converged yet)",
        "ERROR": "Error of the grader or environment", "none": "Not graded",
        "hosts_graded": "Hosts graded", "hosts_in_error": "Hosts in error", "checks": "Checks",
        "status": "Status", "check": "Check", "message": "Message", "expected": "Expected",
        "found": "Found", "hint": "Hint", "step": "Step", "language": "Language",
        "click": "Click a cell to see the checks of that step.", "back": "Back to the matrix",
        "env_error": "Could not be graded (not a learner failure)",
        "lab_error": "This lab could not be graded", "details": "Show all details", "legend": "Legend",
        "unreachable": "unreachable", "health": "environment unhealthy", "grader": "grader error",
        "no_checks": "This step has no checks.", "no_hosts": "No host records.",
    },
    "ja": {
        "title": "クラスレポート", "generated": "作成日時", "learner": "受講者", "score": "スコア",
        "PASS": "合格", "FAIL": "不合格", "PENDING": "保留（まだ収束していません）",
        "ERROR": "採点側・環境のエラー", "none": "未採点",
        "hosts_graded": "採点済みホスト", "hosts_in_error": "エラーのホスト", "checks": "チェック",
        "status": "結果", "check": "チェック", "message": "メッセージ", "expected": "期待値",
        "found": "実際の値", "hint": "ヒント", "step": "ステップ", "language": "表示言語",
        "click": "セルをクリックすると、そのステップのチェック内容が表示されます。",
        "back": "マトリクスに戻る",
        "env_error": "採点できませんでした（受講者の失敗ではありません）",
        "lab_error": "このラボは採点できませんでした", "details": "すべての詳細を表示", "legend": "凡例",
        "unreachable": "接続不可", "health": "環境の異常", "grader": "採点エラー",
        "no_checks": "このステップにはチェックがありません。", "no_hosts": "ホストの記録がありません。",
    },
    "ko": {
        "title": "클래스 리포트", "generated": "작성 시각", "learner": "수강생", "score": "점수",
        "PASS": "통과", "FAIL": "실패", "PENDING": "보류 (아직 수렴하지 않음)",
        "ERROR": "채점기·환경 오류", "none": "채점 안 함",
        "hosts_graded": "채점된 호스트", "hosts_in_error": "오류 호스트", "checks": "검사",
        "status": "결과", "check": "검사", "message": "메시지", "expected": "기대값",
        "found": "실제 값", "hint": "힌트", "step": "단계", "language": "표시 언어",
        "click": "셀을 클릭하면 해당 단계의 검사 내용이 표시됩니다.", "back": "매트릭스로 돌아가기",
        "env_error": "채점할 수 없었습니다 (수강생의 실패가 아닙니다)",
        "lab_error": "이 랩은 채점할 수 없었습니다", "details": "모든 상세 보기", "legend": "범례",
        "unreachable": "연결 불가", "health": "환경 이상", "grader": "채점 오류",
        "no_checks": "이 단계에는 검사가 없습니다.", "no_hosts": "호스트 기록이 없습니다.",
    },
}

_CSS = """
:root{--pass:#2e7d32;--pass-bg:#dff3e0;--fail:#c62828;--fail-bg:#fbdcdc;--pend:#8a5a00;
--pend-bg:#ffe9b3;--err:#5e35b1;--err-a:#e4dcf3;--err-b:#cfc2ea;--line:#c9ccd1;--muted:#5f6670}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI","Hiragino Sans","Noto Sans CJK JP",
"Noto Sans CJK KR","Malgun Gothic",sans-serif;margin:1.2rem;color:#1d2126;background:#fff}
h1{font-size:1.4rem;margin:0 0 .3rem}
header{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:baseline}
.meta,.note{color:var(--muted);font-size:.9rem}
.summary{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;margin:.6rem 0;padding:0;list-style:none}
.summary b{font-variant-numeric:tabular-nums}
.legend{display:flex;flex-wrap:wrap;gap:.4rem .9rem;margin:.4rem 0 .8rem;padding:0;list-style:none;
font-size:.9rem}
.legend span.sw{display:inline-block;width:1.6em;height:1.1em;vertical-align:middle;
border:1px solid var(--line);margin-right:.3em;text-align:center;font-size:.8em;line-height:1.1em}
.wrap{overflow-x:auto}
table.matrix{border-collapse:collapse;font-size:.9rem}
table.matrix th,table.matrix td{border:1px solid var(--line);padding:.25rem .4rem;text-align:center}
table.matrix thead th{background:#f3f4f6;font-weight:600}
table.matrix th.host{text-align:left;white-space:nowrap;position:sticky;left:0;background:#fff}
td.score{font-variant-numeric:tabular-nums;white-space:nowrap}
.lang{font-size:.7rem;color:var(--muted);border:1px solid var(--line);border-radius:3px;
padding:0 .2rem;margin-left:.3rem}
.cell a,.cell span.na{display:block;min-width:3.2rem;color:inherit;text-decoration:none;
font-variant-numeric:tabular-nums;white-space:nowrap}
.cell a:hover,.cell a:focus{outline:2px solid #1a73e8}
.s-PASS{background:var(--pass-bg);color:var(--pass)}
.s-FAIL{background:var(--fail-bg);color:var(--fail);font-weight:600}
.s-PENDING{background:var(--pend-bg);color:var(--pend)}
.s-ERROR{background:repeating-linear-gradient(45deg,var(--err-a) 0 6px,var(--err-b) 6px 12px);
color:var(--err);font-weight:600}
.s-none{background:#fff;color:#9aa0a6}
tr.host-error th.host{background:#f1eef8}
td.env-error{text-align:left!important;background:repeating-linear-gradient(45deg,#eeeeee 0 8px,
#e0e0e0 8px 16px);color:#37474f;border:2px dashed #7e57c2!important}
td.env-error a{color:inherit}
.kind{display:inline-block;background:#5e35b1;color:#fff;border-radius:3px;padding:0 .35rem;
margin-right:.4rem;font-size:.8rem}
td.lab-error{text-align:left}
td.lab-error a{white-space:normal}
.detail{display:none;margin:1rem 0;padding:.6rem .8rem;border:1px solid var(--line);border-radius:6px}
.detail:target,body.show-all .detail{display:block}
.detail h3{margin:.1rem 0 .5rem;font-size:1.05rem}
table.checks{border-collapse:collapse;width:100%;font-size:.88rem}
table.checks th,table.checks td{border:1px solid var(--line);padding:.3rem .45rem;text-align:left;
vertical-align:top}
table.checks th{background:#f3f4f6}
table.checks col.c-msg{width:28%}table.checks col.c-val{width:15%}table.checks col.c-hint{width:24%}
td.sel{outline:3px solid #1a73e8;outline-offset:-3px}
table.checks pre{margin:0;white-space:pre-wrap;word-break:break-word;max-height:14rem;overflow:auto;
font-size:.82rem}
td.st{white-space:nowrap}
table.checks td code{white-space:nowrap}
.badge{display:inline-block;border-radius:3px;padding:0 .35rem;font-size:.85rem}
code{font-size:.85rem}
@media print{.detail{display:block;break-inside:avoid}.noprint{display:none}}
"""

_JS = """
(function(){
var L=JSON.parse(document.getElementById('labels').textContent);
function setLang(l){if(!L[l])return;document.documentElement.setAttribute('data-ui',l);
document.querySelectorAll('[data-i18n]').forEach(function(e){var t=L[l][e.getAttribute('data-i18n')];
if(t)e.textContent=t;});}
var s=document.getElementById('ui-lang');
if(s){s.addEventListener('change',function(){setLang(s.value);});}
var a=document.getElementById('show-all');
if(a){a.addEventListener('change',function(){document.body.classList.toggle('show-all',a.checked);});}
function mark(){document.querySelectorAll('.cell.sel').forEach(function(e){e.classList.remove('sel');});
var h=location.hash.slice(1);if(!h)return;var l=document.querySelector('a[href="#'+h+'"]');
if(l&&l.parentNode.classList)l.parentNode.classList.add('sel');}
window.addEventListener('hashchange',mark);mark();
})();
"""


def _e(value):
    """HTML-escaped text; control characters become visible \\xNN escapes."""
    return html.escape(xml_safe(value), quote=True)


def _l(lang, key):
    """A UI label, marked so the language switch can replace it."""
    return f'<span data-i18n="{key}">{_e(LABELS[lang][key])}</span>'


def _value_cell(value, limit=4000):
    text = show_value(value)
    if len(text) > limit:
        text = text[:limit] + f"... ({len(text) - limit} more characters)"
    return f"<pre>{_e(text)}</pre>"


def _check_rows(checks, lang, sym):
    rows = []
    for c in checks:
        rows.append(
            f'<tr><td class="st s-{c["status"]}">{_e(sym[c["status"]])} {_e(c["status"])}</td>'
            f'<td><code>{_e(c["check"])}</code></td><td>{_e(c["message"])}</td>'
            f'<td>{_value_cell(c["expected"])}</td><td>{_value_cell(c["found"])}</td>'
            f'<td>{_e(c["hint"])}</td></tr>')
    head = "".join(f"<th>{_l(lang, k)}</th>" for k in ("status", "check", "message", "expected", "found", "hint"))
    cols = ('<colgroup><col><col><col class="c-msg"><col class="c-val"><col class="c-val">'
            '<col class="c-hint"></colgroup>')
    return f'<table class="checks">{cols}<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def build_html(hosts, generated_at, lang="en", title=""):
    """The self-contained class report page (no external resources, every record value escaped)."""
    lang = lang if lang in LABELS else "en"
    sym = SYMBOLS
    columns = lab_columns(hosts)
    counts = compute_counts(hosts)
    details = []

    head1 = f'<tr><th rowspan="2">{_l(lang, "learner")}</th>'
    head2 = "<tr>"
    for lab in columns:
        head1 += f'<th colspan="{max(1, len(lab["steps"]))}">{_e(lab["id"])}</th>'
        if not lab["steps"]:
            head2 += "<th></th>"
        for step in lab["steps"]:
            head2 += f'<th title="{_e(step["title"])}">{_e(step["step"])}</th>'
    head1 += f'<th rowspan="2">{_l(lang, "score")}</th></tr>'
    head2 += "</tr>"
    ncols = sum(max(1, len(lab["steps"])) for lab in columns)

    body = []
    for hi, host in enumerate(hosts):
        host_cell = (f'<th class="host" scope="row">{_e(host["host"])}'
                     f'<span class="lang">{_e(host["lang"])}</span></th>')
        if host["state"] == "error":
            error = host["error"]
            did = f"d-{hi}"
            body.append(
                f'<tr class="host-error">{host_cell}<td class="env-error" colspan="{ncols + 1}">'
                f'<a href="#{did}"><span class="kind">{_l(lang, error["kind"])}</span>'
                f'{_l(lang, "env_error")}: {_e(error["message"])}</a></td></tr>')
            details.append(
                f'<section class="detail" id="{did}"><h3>{_e(host["host"])} '
                f'<span class="kind">{_e(error["kind"])}</span></h3><p>{_e(error["message"])}</p>'
                f'<pre>{_e(json.dumps(error["details"], ensure_ascii=False, indent=2, sort_keys=True))}</pre>'
                f'<p><a href="#matrix">{_l(lang, "back")}</a></p></section>')
            continue
        cells = []
        for li, lab in enumerate(columns):
            result = host["labs"].get(lab["id"])
            span = max(1, len(lab["steps"]))
            if result is None:
                cells.append(f'<td class="cell s-none" colspan="{span}" title="{_e(LABELS[lang]["none"])}">'
                             f'<span class="na">{_e(sym[None])}</span></td>')
                continue
            if result["error"]:
                did = f"d-{hi}-{li}"
                cells.append(
                    f'<td class="cell s-ERROR lab-error" colspan="{span}"><a href="#{did}">{_e(sym[ERROR])} '
                    f'{_l(lang, "lab_error")}: {_e(result["error"]["message"])}</a></td>')
                details.append(
                    f'<section class="detail" id="{did}" lang="{_e(host["lang"])}"><h3>{_e(host["host"])} '
                    f'&mdash; {_e(lab["id"])} <span class="kind">{_e(result["error"]["kind"])}</span></h3>'
                    f'<p>{_e(result["error"]["message"])}</p>'
                    f'<p><a href="#matrix">{_l(lang, "back")}</a></p></section>')
                continue
            by_step = {s["step"]: s for s in result["steps"]}
            for step_col in lab["steps"]:
                step = by_step.get(step_col["step"])
                if step is None:
                    cells.append(f'<td class="cell s-none" title="{_e(LABELS[lang]["none"])}">'
                                 f'<span class="na">{_e(sym[None])}</span></td>')
                    continue
                did = f"d-{hi}-{li}-{step['step']}"
                summary = step["summary"]
                label = LABELS[lang][step["status"]]
                tip = f"{lab['id']} {LABELS[lang]['step']} {step['step']}: {step['title']} \u2014 {label}"
                cells.append(
                    f'<td class="cell s-{step["status"]}"><a href="#{did}" title="{_e(tip)}">'
                    f'{_e(sym[step["status"]])} {summary[PASS]}/{summary["total"]}</a></td>')
                checks = (_check_rows(step["checks"], lang, sym) if step["checks"]
                          else f'<p>{_l(lang, "no_checks")}</p>')
                details.append(
                    f'<section class="detail" id="{did}" lang="{_e(host["lang"])}"><h3>{_e(host["host"])} '
                    f'&mdash; {_e(lab["id"])} &middot; {_l(lang, "step")} {_e(step["step"])}: '
                    f'{_e(step["title"])} <span class="badge s-{step["status"]}">{_e(step["status"])}</span>'
                    f'</h3>{checks}<p><a href="#matrix">{_l(lang, "back")}</a></p></section>')
        score = host_score(host)
        body.append(f'<tr>{host_cell}{"".join(cells)}<td class="score">'
                    f'{score["passed"]}/{score["total"]}</td></tr>')
    if not hosts:
        body.append(f'<tr><td colspan="{ncols + 2}">{_l(lang, "no_hosts")}</td></tr>')

    legend = "".join(
        f'<li><span class="sw s-{key}">{_e(sym[key])}</span>{_l(lang, key)}</li>'
        for key in STATUSES) + (f'<li><span class="sw s-none">{_e(sym[None])}</span>'
                                f'{_l(lang, "none")}</li>')
    summary = (
        f'<ul class="summary"><li>{_l(lang, "hosts_graded")}: <b>{counts["hosts_graded"]}</b></li>'
        f'<li>{_l(lang, "hosts_in_error")}: <b>{counts["hosts_in_error"]}</b></li>'
        f'<li>{_l(lang, "checks")}: '
        + " &middot; ".join(f'{_e(sym[s])} <b>{counts[s]}</b> <span data-i18n="{s}">{_e(LABELS[lang][s])}</span>'
                            for s in STATUSES)
        + "</li></ul>")
    options = "".join(f'<option value="{code}"{" selected" if code == lang else ""}>{name}</option>'
                      for code, name in (("en", "English"), ("ja", "日本語"), ("ko", "한국어")))
    labels_json = json.dumps(LABELS, ensure_ascii=False).replace("</", "<\\/")
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
<label class="meta noprint"><input type="checkbox" id="show-all"> {_l(lang, "details")}</label>
</header>
{summary}
<ul class="legend" aria-label="legend">{legend}</ul>
<p class="note noprint">{_l(lang, "click")}</p>
<div class="wrap"><table class="matrix" id="matrix">
<thead>{head1}{head2}</thead>
<tbody>
{chr(10).join(body)}
</tbody></table></div>
<div id="details">
{chr(10).join(details)}
</div>
<script type="application/json" id="labels">{labels_json}</script>
<script>{_JS}</script>
</body>
</html>
"""


# ---------------------------------------------------------------------------------------------
# everything at once, and the one function that writes


def learner_file_name(host):
    """learners/<host>.txt, with anything that is not safe in a file name replaced."""
    return "learners/" + (re.sub(r"[^A-Za-z0-9._-]", "_", host).lstrip(".") or "_") + ".txt"


def build_learner_text(host, generated_at):
    """The report one learner reads: every step with its outcome, and for each check that did not
    pass the message, expected and found values and the hint, in the learner's language."""
    lang = host["lang"] if host["lang"] in LABELS else "en"
    labels = LABELS[lang]
    symbols = dict(zip((PASS, FAIL, PENDING, ERROR), "✓✗⋯!", strict=True))
    lines = [f"{host['host']}  ({labels['generated']}: {generated_at})", ""]
    if host["state"] != "graded":
        lines.append(f"! {labels['env_error']}: {term_safe(host['error']['message'])}")
        return "\n".join(lines) + "\n"
    for lab_id, lab in host["labs"].items():
        passed = sum(1 for s in lab["steps"] for c in s["checks"] if c["status"] == PASS)
        total = sum(len(s["checks"]) for s in lab["steps"])
        lines.append(f"== {lab_id}  {passed}/{total}")
        if lab.get("error"):
            lines.append(f"   ! {labels['lab_error']}: {term_safe(lab['error'].get('message', ''))}")
        for step in lab["steps"]:
            lines.append(f"{symbols.get(step['status'], '?')} {labels['step']} {step['step']}: {term_safe(step['title'])}")
            for check in step["checks"]:
                if check["status"] == PASS:
                    continue
                lines.append(f"    {symbols.get(check['status'], '?')} {term_safe(check['message'])}")
                lines.append(f"      {labels['expected']}: {term_safe(show_value(check['expected']))}")
                lines.append(f"      {labels['found']}: {term_safe(show_value(check['found']))}")
                if check.get("hint"):
                    lines.append(f"      {labels['hint']}: {term_safe(check['hint'])}")
        lines.append("")
    return "\n".join(lines)


def build_report(records, hosts=None, lang="en", now=None, report_dir="", ascii_only=False, title=""):
    """All report contents for one run, as strings and summaries (nothing is written)."""
    now = now or datetime.datetime.now(UTC)
    generated_at = iso_utc(now)
    normalized = normalize_records(records, hosts)
    grades = build_grades(normalized, generated_at, lang)
    index_path = os.path.join(report_dir, "index.html") if report_dir else ""
    return {
        "generated_at": generated_at,
        "hosts": normalized,
        "grades": grades,
        "contents": {
            "grades.json": grades_json(grades),
            "junit.xml": build_junit(normalized, generated_at),
            "index.html": build_html(normalized, generated_at, lang, title),
            **{learner_file_name(h["host"]): build_learner_text(h, generated_at) for h in normalized},
        },
        "matrix": build_matrix(normalized, index_path, ascii_only, generated_at),
        "counts": grades["counts"],
        "hosts_in_error": [e["host"] for e in host_errors(normalized)],
        "host_errors": host_errors(normalized),
        "learner_failures": learner_failures(normalized),
    }


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
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
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
