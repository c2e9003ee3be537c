"""One run's report, every format at once, as strings and summaries (nothing is written here)."""

from __future__ import annotations

import datetime
import os

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.printable import printable_value
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import scrub_value
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import (
    CLASS_FILES,
    index_html,
    learner_text,
    matrix,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.grades_json import build_grades
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import (
    attach_changes,
    attach_first_passed,
    class_history,
    keep_last_grades,
    plan_run,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.normalize import (
    normalize_records,
    with_every_host,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import (
    UTC,
    ReportView,
    host_errors,
    iso_utc,
    learner_failures,
)


def shown(value):
    """Normalised records as every report format may show them: secrets that have a shape (a
    private key, a JWT, a URL's password, a Bearer value) redacted once more here -- a result is
    only the VM's word -- and every control, bidi and invisible character made visible
    (printable.py), once for all formats."""
    return printable_value(scrub_value(value))


def build_report(records, hosts=None, lang="en", now=None, report_dir="", ascii_only=False, title="",
                 class_hosts=None, previous=None, enrolled=None, normalized=False):
    """All report contents for one run, as strings and summaries (nothing is written).

    `normalized`: `records` were each validated, normalised and shown already, as they arrived
    (shown(normalize_records(...)) of one host: the push collector); only the hosts without one
    are added here.

    `report_dir`: where the files will be written; "" in check mode (the matrix says so).
    `enrolled`: {host: [lab id, ...]} to check each result against (normalize_records).
    `class_hosts`: every host of the class; a run that grades fewer is partial and is merged into
    `previous` (from read_previous: the class view `latest` showed before this run).
    """
    now = now or datetime.datetime.now(UTC)
    generated_at = iso_utc(now)
    graded = (with_every_host(records, [str(h) for h in hosts or []]) if normalized
              else shown(normalize_records(records, hosts, enrolled)))
    previous = shown(previous)  # written by an earlier version, maybe before shown() existed
    for host in graded:
        host["graded_at"] = generated_at
    graded_names = [str(h) for h in hosts or []] or [h["host"] for h in graded]
    merged, run = plan_run(graded, previous, class_hosts, graded_names)
    attach_changes(merged, previous, set(run["carried"]))
    this_run = [h for h in merged if h["host"] not in run["carried"]]  # what the run's outcome is about
    merged, failed_attempts = keep_last_grades(merged, previous, generated_at)
    if failed_attempts:  # only then: the grades.json of a run without one stays as it was
        run["failed_attempts"] = failed_attempts
    attach_first_passed(merged, previous, generated_at)
    grades = build_grades(merged, generated_at, lang, run, class_history(previous, merged, generated_at))
    view = ReportView(merged, generated_at, lang, title, run, grades)
    index_path = os.path.join(report_dir, index_html.FILE) if report_dir else ""
    return {
        "generated_at": generated_at,
        "hosts": merged,
        "grades": grades,
        "run": run,
        "contents": {**{fmt.FILE: fmt.render(view) for fmt in CLASS_FILES}, **learner_text.render(view)},
        "matrix": matrix.render(view, index_path, ascii_only),
        "counts": grades["counts"],
        "hosts_in_error": [e["host"] for e in host_errors(this_run)],
        "host_errors": host_errors(this_run),
        "learner_failures": learner_failures(this_run),
        "failing_learners": [h["host"] for h in this_run if learner_failures([h])],
        "changes": {h["host"]: h["change"] for h in merged if h.get("change")},
    }
