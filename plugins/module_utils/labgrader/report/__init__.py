"""The class report: host records of one grading run -> grades.json, grades.csv, junit.xml,
index.html, learners/<host>.txt and the terminal matrix (docs/report-format.md).

    normalize.py   anything a task passed -> host records of the contract, problems as ERROR
    validate.py    a result is only what the controller's lab registry declares
    values.py      how values are shown: JSON-safe, XML/HTML/terminal-safe text
    views.py       what every format derives (columns, scores, counts) and ReportView
    history.py     the previous run's class view, partial runs merged into it, who progressed
    labels.py      the report's own words in every language
    formats/       one module per format: a host's part, the whole from the parts (formats/registry.py)
    build.py       one run's report, host by host as records arrive or all at once (nothing written)
    document.py    a large file as UTF-8 chunks, written without being joined
    files.py       the only writer: the report folder and `latest`

Everything is a pure function of plain data except history.read_previous and files.write_report.
Bad input is normal input: a record that is missing, not a mapping, or has the wrong shape becomes
an ERROR (of the grader, never a learner failure) with a message saying what was wrong.

This file imports nothing: `lab check` on a learner VM imports labels and values, and must not
import the formats (index.html needs Jinja2, which only the controller has).
"""
