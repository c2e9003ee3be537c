"""The report's formats, one module per format, all behind one interface: their list.

Each module has `host_part(host, ctx)`: a host's part of the format (its rows, its <testsuite>,
its entry...) from the host's record and its views.HostContext, rendered as the host's result
arrives (report/build.py), and `assemble(view, parts)`: the whole from the hosts' parts, in the
class view's order, and the class-level parts of a views.ReportView (counts, columns, totals),
without looking into a host again. The class files also have NAME (how grade_report names the
file's path) and FILE (its name in the report folder). A new format is one module and one entry
here. The terminal matrix (matrix.py) and the learners' own files (learner_text.py) are not
class files.
"""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import (
    checks_csv,
    grades_csv,
    grades_json,
    index_html,
    junit_xml,
    learner_text,
    matrix,
)

# In this order in grade_report's `files` (docs/report-format.md).
CLASS_FILES = (grades_json, grades_csv, checks_csv, junit_xml, index_html)
# Every format a host has a part of.
FORMATS = (*CLASS_FILES, learner_text, matrix)
