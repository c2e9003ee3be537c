"""grades.csv: one row per learner for gradebooks and LMS imports (docs/report-format.md)."""

from __future__ import annotations

import csv
import io

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.document import Document
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import kind_label
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import xml_safe
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import (
    NOT_STARTED,
    host_score,
    lab_not_started,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import ERROR, PASS

NAME = "csv"
FILE = "grades.csv"


def csv_cell(value):
    """A CSV cell a spreadsheet shows as text: a leading = + - @ (a formula) gets a quote."""
    text = xml_safe(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv_step(host, step, lab_id):
    """(status, checks passed) of one step; ERROR for a lab in error, NOT_STARTED for a lab not
    started (views.lab_not_started), blanks when not graded."""
    if lab_id in host["labs"] and host["labs"][lab_id]["error"]:
        return ERROR, 0
    if step and lab_not_started(host["labs"][lab_id]):
        return NOT_STARTED, 0
    return (step["status"], step["summary"][PASS]) if step else ("", "")


def percent(passed, total):
    return f"{100 * passed / total:.1f}" if total else ""


def csv_lines(rows):
    """CSV lines with CRLF line ends, UTF-8 (a host's part of a CSV file)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue().encode("utf-8")


def csv_text(header, parts):
    """A CSV file spreadsheets open as UTF-8 (a BOM): `header`'s line, then `parts`."""
    return Document(["\ufeff".encode("utf-8"), csv_lines([header]), *parts])


def _step_ids(columns):
    return [(lab["id"], s["step"]) for lab in columns for s in lab["steps"]]


def host_part(host, ctx):
    """A learner's row."""
    columns = ctx.columns
    score = host_score(host)
    errors = ([f"{kind_label(host['error']['kind'])}: {host['error']['message']}"] if host["error"] else []) + [
        f"{lab_id}: {kind_label(lab['error']['kind'])}: {lab['error']['message']}"
        for lab_id, lab in host["labs"].items() if lab["error"]]
    steps = {(lab_id, s["step"]): s for lab_id, lab in host["labs"].items() for s in lab["steps"]}
    lab_scores = {lab_id: (lab["summary"][PASS], lab["summary"]["total"]) for lab_id, lab in host["labs"].items()}
    return csv_lines([
        [csv_cell(host["host"]), csv_cell(host.get("learner_id", "")), host["lang"], host["state"],
         csv_cell("; ".join(errors)), host.get("graded_at", ""), score["passed"], score["total"],
         percent(score["passed"], score["total"])]
        + [lab_scores.get(lab["id"], ("", ""))[0] for lab in columns]
        + [lab_scores.get(lab["id"], ("", ""))[1] for lab in columns]
        + [percent(*lab_scores[lab["id"]]) if lab["id"] in lab_scores else "" for lab in columns]
        + [value for key in _step_ids(columns) for value in _csv_step(host, steps.get(key), key[0])]])


def assemble(view, parts):
    """grades.csv: one row per learner for gradebooks and LMS imports (docs/report-format.md)."""
    columns = view.columns
    header = (["learner", "learner_id", "lang", "state", "error", "graded_at", "passed", "total", "percent"]
              + [f"{lab['id']} {what}" for what in ("passed", "total", "percent") for lab in columns]
              + [f"{lab_id} step {step}{suffix}" for lab_id, step in _step_ids(columns) for suffix in ("", " passed")])
    return csv_text(header, parts)
