"""The only part of the report that writes: the report folder of a run, its files and `latest`."""

from __future__ import annotations

import os

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.document import Document
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.registry import CLASS_FILES
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import LATEST
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import stamp_utc


def plan_report_dir(output_dir, now):
    """<output_dir>/<YYYYmmddTHHMMSSZ>, with -2, -3 ... if a run in the same second exists."""
    base = os.path.join(output_dir, stamp_utc(now))
    path, n = base, 1
    while os.path.lexists(path):
        n += 1
        path = f"{base}-{n}"
    return path


def report_files(report_dir):
    """{format name: path} of the class files of `report_dir`, in the registry's order."""
    return {fmt.NAME: os.path.join(report_dir, fmt.FILE) for fmt in CLASS_FILES}


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
        if isinstance(text, Document):
            with open(path, "wb") as handle:
                text.write_to(handle)
            continue
        with open(path, "w", encoding="utf-8", newline="\n" if not name.endswith(".csv") else "") as handle:
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
