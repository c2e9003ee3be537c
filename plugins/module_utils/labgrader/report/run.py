"""One grading run's class report, from the grade_report task's options to its result: what the
grade_report module and its action plugin (which runs it in the controller's process) share."""

from __future__ import annotations

import datetime
import os
import traceback

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.build import build_report
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.files import (
    plan_report_dir,
    report_files,
    write_report,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import LATEST, read_previous
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import UTC
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import enrolled as enrolled_labs
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import LANGUAGES


class ReportFailed(Exception):
    """The task fails with this message; `result` holds what is known (may be empty) and
    `exception` a traceback for a grader bug."""

    def __init__(self, msg, result=None, exception=None):
        super().__init__(msg)
        self.result = result or {}
        self.exception = exception


# Records are given, or read from what each host registered (the action plugin; grade.yml).
ONE_SOURCE = [("records", "registered")]
# The enrolled labs are given, or read with the run's hosts from the inventory (the action plugin).
ONE_ENROLMENT = [("enrolled", "group")]


def argument_spec():
    return {
        "records": {"type": "raw"},
        "registered": {"type": "str"},
        "enrolled": {"type": "dict"},
        "group": {"type": "str"},
        "limit": {"type": "str"},
        "hosts": {"type": "list", "elements": "str", "default": []},
        "class_hosts": {"type": "list", "elements": "str", "default": []},
        "output_dir": {"type": "path", "required": True},
        "lang": {"type": "str", "choices": list(LANGUAGES), "default": "en"},
        "title": {"type": "str", "default": ""},
        "ascii": {"type": "bool", "default": False},
    }


def host_labs(enrolled):
    """({host: [lab id, ...]}, None) from `enrolled` (grade_settings' {host: {labs, lang}} or
    {host: labs}), or (None, why not)."""
    out = {}
    for host, value in enrolled.items():
        labs = value.get("labs") if isinstance(value, dict) else value
        if not isinstance(labs, (str, list)):
            return None, f"enrolled: the labs of host {host} are not a list or a comma-separated string: {labs!r:.120}"
        out[str(host)] = enrolled_labs(labs)
    return out, None


def class_report(params, check_mode, now=None):
    """Build the report of `params` (argument_spec's options, validated) and, unless `check_mode`,
    write it. Returns (the task's result, warnings); raises ReportFailed."""
    now = now or datetime.datetime.now(UTC)
    output_dir = os.path.abspath(params["output_dir"])
    report_dir = plan_report_dir(output_dir, now)
    enrolled, problem = host_labs(params["enrolled"])
    if problem:
        raise ReportFailed(problem)
    previous, warnings = read_previous(output_dir)
    try:
        report = build_report(params["records"], hosts=params["hosts"], lang=params["lang"], now=now,
                              report_dir="" if check_mode else report_dir, ascii_only=params["ascii"],
                              title=params["title"], class_hosts=params["class_hosts"], previous=previous,
                              enrolled=enrolled, text=False)
    except Exception as exc:  # a bug of the report writer, never a learner outcome
        raise ReportFailed(f"grade_report could not build the report (grader bug): {exc}",
                           exception=traceback.format_exc()) from exc
    files = report_files(report_dir)  # {format name: path}
    result = {
        "changed": True,
        "report_dir": report_dir,
        "latest": os.path.join(output_dir, LATEST),
        "files": list(files.values()),
        "index_html": files["html"],
        "generated_at": report["generated_at"],
        "counts": report["counts"],
        "matrix": report["matrix"],
        "hosts_in_error": report["hosts_in_error"],
        "host_errors": report["host_errors"],
        "learner_failures": report["learner_failures"],
        "failing_learners": report["failing_learners"],
        "written": not check_mode,
        "scope": report["run"]["scope"],
        "carried_hosts": report["run"]["carried"],
        "changes": report["changes"],
    }
    if not check_mode:
        try:
            warnings += write_report(report_dir, report["contents"])
        except OSError as exc:
            raise ReportFailed(f"grade_report could not write {report_dir}: {exc}", result) from exc
    return result, warnings
