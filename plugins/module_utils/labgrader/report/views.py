"""Views every format derives from normalised hosts: lab columns, scores, counts, errors, times,
and the one value a format renders (ReportView)."""

from __future__ import annotations

import datetime

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import summarize
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import FAIL, LANGUAGES, PASS

UTC = datetime.timezone.utc  # noqa: UP017 (module_utils stay importable on Python < 3.11)


def lab_columns(hosts):
    """[{id, steps: [{step, title, titles}]}]: every lab and step seen in any record, labs in the
    registry's order. `titles` maps a language to the step's title and `title` is the first: the
    registry's titles of a step it declares (a host's result never names a column), otherwise
    (a lab the registry no longer has, in a previous report) the titles hosts of each language gave."""
    labs = {}
    for host in hosts:
        for lab_id, lab in host["labs"].items():
            steps = labs.setdefault(lab_id, {})
            for step in lab["steps"]:
                titles = steps.setdefault(step["step"], {})
                if step["title"]:
                    titles.setdefault(host["lang"], step["title"])
    order = list(LABS)
    columns = []
    for lab_id in sorted(labs, key=lambda lab_id: order.index(lab_id) if lab_id in LABS else len(order)):
        declared = LABS[lab_id].step_titles if lab_id in LABS else {}
        steps = []
        for number in sorted(labs[lab_id]):
            titles = ({lang: i18n.pick(declared[number], lang) for lang in LANGUAGES} if number in declared
                      else labs[lab_id][number])
            steps.append({"step": number, "title": next(iter(titles.values()), ""), "titles": titles})
        columns.append({"id": lab_id, "steps": steps})
    return columns


def step_title(column, lang):
    """A step's title in `lang` (lab_columns), else its first title."""
    return column["titles"].get(lang) or column["title"]


def host_checks(host):
    return [c for lab in host["labs"].values() for s in lab["steps"] for c in s["checks"]]


def host_score(host):
    checks = host_checks(host)
    return {"passed": sum(1 for c in checks if c["status"] == PASS), "total": len(checks)}


def compute_counts(hosts):
    counts = summarize([])
    labs_in_error = 0
    for host in hosts:
        for check in host_checks(host):
            counts[check["status"]] += 1
            counts["total"] += 1
        labs_in_error += sum(1 for lab in host["labs"].values() if lab["error"])
    counts["hosts"] = len(hosts)
    counts["hosts_graded"] = sum(1 for h in hosts if h["state"] == "graded")
    counts["hosts_in_error"] = counts["hosts"] - counts["hosts_graded"]
    counts["labs_in_error"] = labs_in_error
    return counts


def host_errors(hosts):
    return [{"host": h["host"], "kind": h["error"]["kind"], "message": h["error"]["message"]}
            for h in hosts if h["state"] == "error"]


def learner_failures(hosts):
    return any(c["status"] == FAIL for h in hosts if h["state"] == "graded" for c in host_checks(h))


def iso_utc(now):
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp_utc(now):
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


class ReportView:
    """What every file format renders: the class view of one run (normalised hosts with their
    changes), when it was generated, the report's language and title, the run (plan_run) and
    grades.json's data (formats.grades_json.build_grades)."""

    __slots__ = ("generated_at", "grades", "hosts", "lang", "run", "title")

    def __init__(self, hosts, generated_at, lang, title, run, grades):
        self.hosts = hosts
        self.generated_at = generated_at
        self.lang = lang
        self.title = title
        self.run = run
        self.grades = grades
