"""The terminal format: the compact class matrix that grade_report returns and the grade_matrix
callback prints, one line per host, then a summary."""

from __future__ import annotations

import re
import unicodedata

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import change_counts
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import kind_label
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import display_width, term_safe
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import (
    host_errors,
    host_score,
    lab_not_started,
    name_width,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import (
    ASCII_SYMBOLS,
    ERROR,
    FAIL,
    PASS,
    PENDING,
    SYMBOLS,
)

MATRIX_WIDTH = 100
# A lab not started (views.lab_not_started), by ascii_only: ∘ has East Asian width "neutral" (○ is
# "ambiguous", two columns in many ja/ko terminals).
NOT_STARTED_SYMBOLS = {False: "\u2218", True: "o"}


def fit(text, width):
    """Cut `text` to at most `width` terminal columns (wide CJK characters count 2)."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = char_width(ch)
        if used + w > width - 2:
            break
        out.append(ch)
        used += w
    return "".join(out) + ".."


# What Ansible puts before the cause of a failed or unreachable task (ansible-core 2.19+ "Task
# failed: ...", the ssh connection plugin's "Data could not be sent ..."): the terminal shows the
# cause itself ("ssh: connect to host ... Connection refused"); grades.json keeps the message whole.
ANSIBLE_BOILERPLATE = re.compile(
    r'^(?:Task failed: )?(?:Action failed: )?'
    r'(?:Data could not be sent to remote host "[^"]*"\. Make sure this host can be reached over ssh: '
    r'|Failed to connect to the host via ssh: )?')
CAUSE_INDENT = "    "


def error_cause(message):
    return ANSIBLE_BOILERPLATE.sub("", message.strip(), count=1).strip() or message


def char_width(ch):
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def with_cause(head, cause, width):
    """`head: cause` as lines of at most `width` columns: the cause wrapped at spaces (a word
    longer than a line at its columns), continued under CAUSE_INDENT, and never cut: the reason a
    host was not graded is what the instructor acts on."""
    lines, line = [], f"{head}:"
    for word in cause.strip().split(" "):
        if display_width(f"{line} {word}") <= width:
            line = f"{line} {word}"
            continue
        if display_width(CAUSE_INDENT + word) <= width:
            lines.append(line)
            line = CAUSE_INDENT + word
            continue
        line += " "
        for ch in word:  # longer than a line: cut where the line is full
            if display_width(line) + char_width(ch) > width:
                lines.append(line)
                line = CAUSE_INDENT
            line += ch
    return [*lines, line]


def pad(text, width):
    return text + " " * max(0, width - display_width(text))


def _widths(columns):
    return {lab["id"]: max(1, len(lab["steps"]), min(12, len(lab["id"]))) for lab in columns}


def host_part(host, ctx):
    """A host's lines of the matrix, and whether it has a lab not started (the legend says so)."""
    sym = ASCII_SYMBOLS if ctx.ascii_only else SYMBOLS
    widths, width = _widths(ctx.columns), MATRIX_WIDTH
    idle = any(lab_not_started(lab) for lab in host["labs"].values())
    name = pad(fit(term_safe(host["host"]), ctx.name_width), ctx.name_width)
    if host["state"] == "error":
        error = host["error"]
        return {"lines": with_cause(f"{name}  {sym[ERROR]} {kind_label(error['kind'])}",
                                    term_safe(error_cause(error["message"])), width), "idle": idle}
    line = name
    for lab in ctx.columns:
        result = host["labs"].get(lab["id"])
        if result is None:
            cells = sym[None] * max(1, len(lab["steps"]))
        elif result["error"]:
            cells = sym[ERROR] * max(1, len(lab["steps"]))
        elif lab_not_started(result):
            cells = NOT_STARTED_SYMBOLS[ctx.ascii_only] * len(result["steps"])
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
    attempt = host.get("failed_attempt")
    if attempt:  # the last grades kept (history.kept_grades): say they are not this run's
        line += f"  (grades of {host['graded_at']})"
    lines = [fit(line, width)]
    if attempt:
        lines += with_cause(f"  {sym[ERROR]} re-grade {attempt['at']} failed, {kind_label(attempt['kind'])}",
                            term_safe(error_cause(attempt["message"])), width)
    return {"lines": lines, "idle": idle}


def assemble(view, parts, index_path=""):
    """The compact class matrix for the terminal, one line per host (their parts), then a
    summary; `index_path` is where index.html is written ("" in check mode)."""
    hosts, width, ascii_only = view.hosts, MATRIX_WIDTH, view.ascii_only
    sym = ASCII_SYMBOLS if ascii_only else SYMBOLS
    widths = _widths(view.columns)
    header = pad("host", name_width(h["host"] for h in hosts))
    for lab in view.columns:
        w = widths[lab["id"]]
        header += "  " + pad(fit(term_safe(lab["id"]), w), w)
    lines = [(header + "  score").rstrip()]
    for part in parts:
        lines += part["lines"]
    if not hosts:
        lines.append("(no host records)")
    counts = view.grades["counts"]
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
    idle = any(part["idle"] for part in parts)
    lines.append(f"legend: {sym[PASS]} pass  {sym[FAIL]} fail  {sym[PENDING]} pending  "
                 f"{sym[ERROR]} error  {sym[None]} not graded"
                 + (f"  {NOT_STARTED_SYMBOLS[ascii_only]} not started" if idle else "")
                 + (f"  ({view.generated_at})" if view.generated_at else ""))
    lines += [fit(line, width) for line in run_lines(hosts, view.run)]
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
