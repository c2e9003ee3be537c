"""Grading settings checked once, on the controller, before any VM is touched: enrolled lab ids,
learner and report languages, and a class that has learners at all."""

from __future__ import annotations

import difflib

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import enrolled
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import LANGUAGES

# Two-letter codes are one letter apart at best (jp/ja, kr/ko): difflib's ratio for them is 0.5.
LANGUAGE_CUTOFF = 0.5


def did_you_mean(value, known, cutoff=0.6):
    close = difflib.get_close_matches(str(value), list(known), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]}?)" if close else ""


def unknown_lab_message(unknown):
    """'unknown lab capa-sr (did you mean capa-src?); known labs: capa-src, cgoa-ci'."""
    parts = [f"unknown lab {lab_id}{did_you_mean(lab_id, LABS)}" for lab_id in unknown]
    return "; ".join(parts) + f"; known labs: {', '.join(sorted(LABS))}"


def settings_problems(hosts, report_lang, group):
    """Every problem of the run's settings, one line each; [] when grading can start.
    `hosts`: {host: {"labs": lab_enrolled, "lang": lab_lang}}."""
    if not hosts:
        return [f"no hosts to grade: the inventory has no host in group {group!r} (or -l matched none)"]
    problems = []
    if report_lang not in LANGUAGES:
        problems.append(f"grade_report_lang {report_lang!r} is not one of {', '.join(LANGUAGES)}"
                        f"{did_you_mean(report_lang, LANGUAGES, LANGUAGE_CUTOFF)}")
    by_problem = {}
    for host, settings in sorted(hosts.items()):
        unknown = [lab_id for lab_id in enrolled(settings.get("labs")) if lab_id not in LABS]
        if unknown:
            by_problem.setdefault(f"lab_enrolled: {unknown_lab_message(unknown)}", []).append(host)
        if not enrolled(settings.get("labs")):
            by_problem.setdefault("lab_enrolled is empty", []).append(host)
        lang = settings.get("lang")
        if lang not in LANGUAGES:
            message = (f"lab_lang {lang!r} is not one of {', '.join(LANGUAGES)}"
                       f"{did_you_mean(lang, LANGUAGES, LANGUAGE_CUTOFF)}")
            by_problem.setdefault(message, []).append(host)
    for message, where in by_problem.items():
        shown = ", ".join(where[:5]) + (f" and {len(where) - 5} more" if len(where) > 5 else "")
        problems.append(f"{message} (hosts: {shown})")
    return problems
