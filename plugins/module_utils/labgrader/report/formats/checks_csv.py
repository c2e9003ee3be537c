"""checks.csv: one row per check of every learner, for gradebooks that score checks one by one
(docs/report-format.md); a host or a lab that could not be graded is one ERROR row."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.grades_csv import (
    csv_cell,
    csv_lines,
    csv_text,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import kind_label
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import show_value
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import lab_not_started
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import ERROR

NAME = "checks_csv"
FILE = "checks.csv"
COLUMNS = (
    "learner",
    "learner_id",
    "lang",
    "graded_at",
    "lab",
    "lab_state",
    "step",
    "check",
    "status",
    "message",
    "expected",
    "found",
)
VALUE_MAX = 1000  # expected/found cut in a spreadsheet cell (grades.json has them whole)


def _value(value):
    text = show_value(value) if value is not None else ""
    return text if len(text) <= VALUE_MAX else text[:VALUE_MAX] + "..."


def _error_row(head, lab_id, error):
    """The one row of a host (lab_id "") or a lab that could not be graded."""
    return [*head, csv_cell(lab_id), "error", "", "", ERROR, csv_cell(f"{kind_label(error['kind'])}: {error['message']}"), "", ""]


def host_part(host, ctx):
    """A learner's rows: one per check, or one ERROR row for the host or for a lab in error."""
    head = [csv_cell(host["host"]), csv_cell(host.get("learner_id", "")), host["lang"], host.get("graded_at", "")]
    if host["state"] == "error":
        return csv_lines([_error_row(head, "", host["error"])])
    rows = []
    for lab_id, lab in host["labs"].items():
        if lab["error"]:
            rows.append(_error_row(head, lab_id, lab["error"]))
            continue
        state = "not_started" if lab_not_started(lab) else "started"
        rows += [
            [
                *head,
                csv_cell(lab_id),
                state,
                step["step"],
                csv_cell(check["check"]),
                check["status"],
                csv_cell(check["message"]),
                csv_cell(_value(check["expected"])),
                csv_cell(_value(check["found"])),
            ]
            for step in lab["steps"]
            for check in step["checks"]
        ]
    return csv_lines(rows)


def assemble(view, parts):
    return csv_text(list(COLUMNS), parts)
