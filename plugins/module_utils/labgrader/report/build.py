"""One run's report, every format, as strings and summaries (nothing is written here), built host
by host: ClassReport.add renders a host's record into its part of every format (formats/:
host_part) as it arrives -- the push collector adds each record as it accepts it -- and
ClassReport.finish assembles the documents from those parts and the class-level parts (counts,
columns, what to teach, the class's history) with O(N) joins: what is left after the last host.
build_report is the same with every record at once (the pull path's grade_report)."""

from __future__ import annotations

import datetime
import os

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.printable import printable
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import scrub
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.document import as_text
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import (
    grades_json,
    index_html,
    learner_text,
    matrix,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.registry import CLASS_FILES, FORMATS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import (
    attach_first_passed,
    class_history,
    host_change,
    kept_grades,
    plan_run,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.normalize import (
    normalize_records,
    with_every_host,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import natural_key
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import (
    UTC,
    HostContext,
    ReportView,
    host_contexts,
    host_errors,
    iso_utc,
    lab_columns,
    learner_failures,
    name_width,
)


def shown(value):
    """Normalised records as every report format may show them: secrets that have a shape (a
    private key, a JWT, a URL's password, a Bearer value) redacted once more here -- a result is
    only the VM's word -- and every control, bidi and invisible character made visible
    (printable.py), once for all formats; every string, dict keys included, in one walk (a
    class's records are the collector's largest work per push)."""
    if isinstance(value, str):
        return printable(scrub(value))
    if isinstance(value, dict):
        return {shown(key): shown(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [shown(item) for item in value]
    return value


def render_parts(host, ctx):
    """{format module's name: the host's part of it} (formats/): data a worker process can send."""
    return {fmt.__name__: fmt.host_part(host, ctx) for fmt in FORMATS}


class ClassReport:
    """The report of one grading run, host by host.

    `hosts`: the hosts this run grades (one without a record is an ERROR row "no grading
    record"; empty: the hosts of the records added); `class_hosts`: every host of the class (a
    run that grades fewer is partial and is merged into `previous`, from read_previous: the class
    view `latest` showed before this run); `columns`: the lab columns the results are expected
    to have (views.registry_columns), so that a host's parts are rendered for the finished class
    as it arrives. The report's time, `generated_at`, is `now`: every host this run grades is
    `graded_at` it, whenever its record arrives. `report_dir`: where the files will be written;
    "" in check mode (the matrix says so).
    """

    def __init__(self, hosts=None, lang="en", now=None, report_dir="", ascii_only=False, title="",
                 class_hosts=None, previous=None, columns=None):
        self.generated_at = iso_utc(now or datetime.datetime.now(UTC))
        self.hosts = [str(h) for h in hosts or []]
        self.class_hosts = class_hosts
        self.lang, self.report_dir, self.ascii_only, self.title = lang, report_dir, ascii_only, title
        self.previous = shown(previous)  # written by an earlier version, maybe before shown() existed
        self.before = {h["host"]: h for h in self.previous["hosts"]} if self.previous is not None else {}
        self.runs = {}  # host -> (this run's record, the host in the class view)
        self.parts = {}  # host -> (the HostContext key its parts were rendered for, the parts)
        # What a part rendered before the last host is rendered for: the rows of this run's hosts
        # and of those a partial run carries over (plan_run), and the columns expected.
        names = sorted({*self.hosts, *self._carried(self.hosts)}, key=natural_key)
        self.rows = {name: row for row, name in enumerate(names)}
        self.width = name_width(names)
        self.columns = columns or []

    def _carried(self, graded_names):
        return plan_run([], self.previous, self.class_hosts, graded_names)[1]["carried"]

    def add(self, record, render=True):
        """Take one host's record (normalised and shown: normalize_records, shown; the report owns
        it from now on) and, when `render`, render its parts. A host added again replaces its
        record."""
        self.keep(*self.host_view(record, render))

    def host_view(self, record, render=True):
        """(record, the host in the class view, (HostContext key, its parts) or None when not
        `render`): what add keeps of a host's record. It keeps nothing in the report (its only
        write into it, the first-pass times of the previous view's steps a kept host's view
        shares, is the same whoever makes it), so threads may call it at once and a collector's
        worker process may compute it from a copy (keep takes it)."""
        name = record["host"]
        record["graded_at"] = self.generated_at
        record["change"] = (host_change(record, self.before.get(name), carried=False) if self.previous is not None
                            else None)
        view, _ = kept_grades(record, self.before.get(name), self.generated_at)
        attach_first_passed(view, self.before.get(name), self.generated_at)
        if not render:
            return record, view, None
        ctx = HostContext(self.generated_at, self.lang, self.ascii_only, self.columns, self.rows.get(name, -1),
                          self.width)
        return record, view, (ctx.key, render_parts(view, ctx))

    def keep(self, record, view, parts):
        """Keep a host's host_view, replacing what the report had of the host."""
        self.runs[record["host"]] = (record, view)
        if parts is None:
            self.parts.pop(record["host"], None)
        else:
            self.parts[record["host"]] = parts

    def finish(self):
        """All report contents of the run (build_report's result), from the parts rendered so far;
        a part rendered for another row or other columns than the finished class's, and the parts
        of the hosts without a record or carried over, are rendered here."""
        this_run = with_every_host([record for record, _ in self.runs.values()], self.hosts)
        for record in this_run:
            if record["host"] not in self.runs:
                self.add(record, render=False)
        merged, run = plan_run(this_run, self.previous, self.class_hosts,
                               self.hosts or [h["host"] for h in this_run])
        carried = set(run["carried"])
        hosts = []
        for host in merged:
            if host["host"] in carried:
                host["change"] = host_change(host, None, carried=True)
                attach_first_passed(host, self.before.get(host["host"]), self.generated_at)
                hosts.append(host)
            else:
                hosts.append(self.runs[host["host"]][1])
        this_run = [self.runs[host["host"]][0] for host in merged if host["host"] not in carried]
        failed_attempts = [h["failed_attempt"] for h in hosts if h.get("failed_attempt")]
        if failed_attempts:  # only then: the grades.json of a run without one stays as it was
            run["failed_attempts"] = failed_attempts
        columns = lab_columns(hosts)
        parts = []
        for host, ctx in zip(hosts, host_contexts(hosts, self.generated_at, self.lang, self.ascii_only, columns), strict=True):
            key, rendered = self.parts.get(host["host"], (None, None))
            parts.append(rendered if key == ctx.key and host["host"] not in carried else render_parts(host, ctx))
        of = {fmt: [p[fmt.__name__] for p in parts] for fmt in FORMATS}
        grades = grades_json.grades_data(
            hosts, [p["entry"] for p in of[grades_json]], [r for p in of[grades_json] for r in p["records"]],
            self.generated_at, self.lang, run, class_history(self.previous, hosts, self.generated_at))
        view = ReportView(hosts, self.generated_at, self.lang, self.title, run, grades, self.ascii_only, columns)
        index_path = os.path.join(self.report_dir, index_html.FILE) if self.report_dir else ""
        errors = host_errors(this_run)
        return {
            "generated_at": self.generated_at,
            "hosts": hosts,
            "grades": grades,
            "run": run,
            "contents": {**{fmt.FILE: fmt.assemble(view, of[fmt]) for fmt in CLASS_FILES},
                         **learner_text.assemble(view, of[learner_text])},
            "matrix": matrix.assemble(view, of[matrix], index_path),
            "counts": grades["counts"],
            "hosts_in_error": [e["host"] for e in errors],
            "host_errors": errors,
            "learner_failures": learner_failures(this_run),
            "failing_learners": [h["host"] for h in this_run if learner_failures([h])],
            "changes": {h["host"]: h["change"] for h in hosts if h.get("change")},
        }


def build_report(records, hosts=None, lang="en", now=None, report_dir="", ascii_only=False, title="",
                 class_hosts=None, previous=None, enrolled=None, text=True):
    """All report contents for one run, as strings and summaries (nothing is written): every
    record at once (anything a task passed: normalize_records) through ClassReport, whose
    arguments are build_report's. `enrolled`: {host: [lab id, ...]} to check each result against
    (normalize_records). `text=False`: the largest files as ClassReport.finish leaves them,
    Documents, for a caller that only writes them (report/document.py).
    """
    report = ClassReport(hosts, lang, now, report_dir, ascii_only, title, class_hosts, previous)
    for record in shown(normalize_records(records, hosts, enrolled)):
        report.add(record, render=False)
    finished = report.finish()
    if not text:
        return finished
    return {**finished, "contents": {name: as_text(content) for name, content in finished["contents"].items()}}
