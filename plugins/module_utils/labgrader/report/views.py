"""Views every format derives from normalised hosts: lab columns, scores, counts, errors, times,
and the one value a format renders (ReportView)."""

from __future__ import annotations

import datetime

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import display_width, term_safe
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
    return _columns(labs)


def registry_columns(lab_ids):
    """lab_columns of a class whose results are what the registry declares for `lab_ids` (each
    lab's every step: report/validate.py holds a result to that)."""
    return _columns({lab_id: {number: {} for number in LABS[lab_id].step_titles} for lab_id in lab_ids if lab_id in LABS})


def _columns(labs):
    """lab_columns of {lab id: {step number: {lang: title hosts gave}}}."""
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


# Message keys of a FAIL that says the learner's work is not there at all (a file, a repository,
# a clone, an Application or object that does not exist), as the labs' checks write them in an
# empty workspace (fixtures/worlds/<lab>/empty.yaml); blocked_by counts by its reason.
ABSENT_KEYS = frozenset({"file_missing", "repo_missing", "clone_missing", "git_file_missing", "git_dir_missing",
                         "live_app_missing", "live_object_missing", "live_objects_missing", "rbac_object_missing"})
NOT_STARTED = "NOT_STARTED"  # a lab's state in the views: the learner has no work for it yet


def _absent(check):
    key = check["params"].get("reason") if check["message_key"] == "blocked_by" else check["message_key"]
    return check["status"] == FAIL and isinstance(key, str) and key in ABSENT_KEYS


def lab_not_started(lab):
    """A lab result of a learner who has not started it (no workspace, no repository for it), as
    opposed to wrong work: every check FAILs (none passes, none pending or in error) and every
    check of its first step says what it needs does not exist (ABSENT_KEYS). The first step
    is where a lab's workspace and repository are made; a learner who made them is started."""
    if lab is None or lab["error"] or not lab["steps"]:
        return False
    checks = [c for s in lab["steps"] for c in s["checks"]]
    first = lab["steps"][0]["checks"]
    return bool(first) and all(c["status"] == FAIL for c in checks) and all(_absent(c) for c in first)


def most_failed(hosts, columns, limit=3):
    """[{lab, step, checks: [{check, hosts}]}]: per step of `columns` (lab_columns), the checks
    that most learners FAIL, at most `limit`, most first (then by check id), with the names of
    those learners; over graded hosts that started the lab (a learner with no work for a lab is
    not what to teach: lab_not_started). Steps no learner fails are left out."""
    failing = {}
    for host in hosts:
        if host["state"] != "graded":
            continue
        for lab_id, lab in host["labs"].items():
            if lab["error"] or lab_not_started(lab):
                continue
            for step in lab["steps"]:
                for check in step["checks"]:
                    if check["status"] == FAIL:
                        failing.setdefault((lab_id, step["step"]), {}).setdefault(check["check"], []).append(host["host"])
    out = []
    for lab in columns:
        for column in lab["steps"]:
            checks = failing.get((lab["id"], column["step"]), {})
            ranked = sorted(checks.items(), key=lambda item: (-len(item[1]), item[0]))[:limit]
            if ranked:
                out.append({"lab": lab["id"], "step": column["step"],
                            "checks": [{"check": check_id, "hosts": names} for check_id, names in ranked]})
    return out


def host_checks(host):
    return [c for lab in host["labs"].values() for s in lab["steps"] for c in s["checks"]]


def host_score(host):
    checks = host_checks(host)
    return {"passed": sum(1 for c in checks if c["status"] == PASS), "total": len(checks)}


def class_rates(hosts):
    """{"<lab>.<step>": [passed, graded]}: per step, how many graded learners whose lab result has
    it (the lab not in error) pass it."""
    rates = {}
    for host in hosts:
        if host["state"] != "graded":
            continue
        for lab_id, lab in host["labs"].items():
            if lab["error"]:
                continue
            for step in lab["steps"]:
                rate = rates.setdefault(f"{lab_id}.{step['step']}", [0, 0])
                rate[0] += step["status"] == PASS
                rate[1] += 1
    return rates


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


def column_shape(columns):
    """What of lab_columns a host's part of a format depends on: the labs and their step numbers
    (the titles are the class-level parts')."""
    return tuple((lab["id"], tuple(step["step"] for step in lab["steps"])) for lab in columns)


NAME_WIDTH_MAX = 24  # the terminal matrix's host column, at most


def name_width(names):
    """The terminal matrix's host column: the longest name shown, within 4..NAME_WIDTH_MAX columns."""
    return min(NAME_WIDTH_MAX, max([4] + [display_width(term_safe(name)) for name in names]))


class HostContext:
    """What a host's part of every format depends on besides the host itself (formats/): the
    run's time and language, the terminal's symbols, the class's lab columns, the host's row in
    the class view and the matrix's name column. A part rendered before the class was complete
    is rendered again when `key` differs from the finished class's (build.py ClassReport.finish)."""

    __slots__ = ("ascii_only", "columns", "generated_at", "key", "lang", "name_width", "row")

    def __init__(self, generated_at, lang, ascii_only, columns, row, width):
        self.generated_at = generated_at
        self.lang = lang
        self.ascii_only = ascii_only
        self.columns = columns
        self.row = row
        self.name_width = width
        self.key = (generated_at, lang, ascii_only, column_shape(columns), row, width)


def host_contexts(hosts, generated_at, lang, ascii_only, columns):
    """The HostContext of each of `hosts` (the class view, in its order)."""
    width = name_width(h["host"] for h in hosts)
    return [HostContext(generated_at, lang, ascii_only, columns, row, width) for row in range(len(hosts))]


class ReportView:
    """What every format assembles from the hosts' parts: the class view of one run (normalised
    hosts with their changes), when it was generated, the report's language, title and
    terminal symbols, the run (plan_run), grades.json's data (formats.grades_json.grades_data)
    and the lab columns (lab_columns)."""

    __slots__ = ("ascii_only", "columns", "generated_at", "grades", "hosts", "lang", "run", "title")

    def __init__(self, hosts, generated_at, lang, title, run, grades, ascii_only, columns):
        self.hosts = hosts
        self.generated_at = generated_at
        self.lang = lang
        self.title = title
        self.run = run
        self.grades = grades
        self.ascii_only = ascii_only
        self.columns = columns
