"""The report's class files, one module per format, all behind one interface.

Each module has NAME (how grade_report names the file's path), FILE (its name in the report
folder) and `render(view)`: the file's text from a views.ReportView. A new format is one module
and one entry here. The terminal matrix (matrix.py) and the learners' own files
(learner_text.py) are rendered from the same view but are not class files.
"""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import (
    checks_csv,
    grades_csv,
    grades_json,
    index_html,
    junit_xml,
)

# In this order in grade_report's `files` (docs/report-format.md).
CLASS_FILES = (grades_json, grades_csv, checks_csv, junit_xml, index_html)
