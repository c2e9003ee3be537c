"""History: the class view of the previous run (read from `latest`), partial runs merged into it,
the last grades of a host this run could not grade kept, and who progressed since."""

from __future__ import annotations

import json
import os

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.normalize import (
    host_error,
    lab_error,
    learner_id,
    norm_check,
    norm_lab,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import (
    as_int,
    as_text,
    natural_key,
    short_repr,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import class_rates, host_score
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import ERROR_KINDS, LANGUAGES, PASS

SCHEMA = "lab-grades/v1"
LATEST = "latest"  # the symlink to the newest report folder
# A previous grades.json larger than this is not read (200 learners x 2 labs is about 10 MB).
PREVIOUS_MAX_BYTES = 64 * 1024 * 1024
# The class's pass rates of this many runs are kept in grades.json `history` (a class day is a few dozen).
HISTORY_MAX = 200


def hosts_from_grades(grades):
    """The hosts of a grades.json (lab-grades/v1) in the shape normalize_records returns.

    Raises ValueError saying what is wrong when the file is not such a report.
    """
    if not isinstance(grades, dict) or grades.get("schema") != SCHEMA:
        raise ValueError(f"not a {SCHEMA} report")
    hosts_raw, records = grades.get("hosts"), grades.get("records")
    if not isinstance(hosts_raw, list) or not isinstance(records, list):
        raise ValueError("the report has no 'hosts' and 'records' lists")
    checks = {}
    for record in records:
        if not isinstance(record, dict):
            raise ValueError(f"a check record is not a mapping: {short_repr(record)}")
        key = (record.get("host"), record.get("lab"), record.get("step"))
        checks.setdefault(key, []).append(
            norm_check(str(record.get("lab")), record.get("step"), record, len(checks.get(key, []))))
    hosts = []
    for raw in hosts_raw:
        if not isinstance(raw, dict) or not isinstance(raw.get("host"), str):
            raise ValueError(f"a host entry has no name: {short_repr(raw)}")
        name = raw["host"]
        graded_at = as_text(raw.get("graded_at")) or as_text(grades.get("generated_at"))
        lang = raw.get("lang") if raw.get("lang") in LANGUAGES else "en"
        if raw.get("state") != "graded":
            error = raw.get("error") if isinstance(raw.get("error"), dict) else {}
            host = host_error(name, error.get("kind") if error.get("kind") in ERROR_KINDS else "grader",
                               as_text(error.get("message")) or "(no message)", error.get("details"), lang)
        else:
            labs = {}
            for lab_id, lab in (raw.get("labs") or {}).items():
                if not isinstance(lab, dict) or not isinstance(lab.get("steps"), list):
                    raise ValueError(f"{name}: lab {lab_id} has no steps")
                if lab.get("error"):
                    labs[lab_id] = lab_error(as_text(lab["error"].get("message")), lab["error"].get("kind", "grader"))
                    continue
                steps = [{"step": s.get("step"), "title": as_text(s.get("title")), "status": s.get("status"),
                          "checks": checks.get((name, lab_id, s.get("step")), [])} for s in lab["steps"]]
                labs[lab_id] = norm_lab(lab_id, {"steps": steps})
                first = {s.get("step"): as_text(s.get("first_passed")) or None for s in lab["steps"] if isinstance(s, dict)}
                for step in labs[lab_id]["steps"]:
                    step["first_passed"] = first.get(step["step"])
            host = {"host": name, "lang": lang, "state": "graded", "error": None, "labs": labs}
        host["graded_at"] = graded_at
        host["learner_id"] = learner_id(raw)
        hosts.append(host)
    return hosts


def step_statuses(host):
    """{(lab, step): status} of a graded host; empty for a host in error."""
    return {(lab_id, s["step"]): s["status"] for lab_id, lab in host["labs"].items() if not lab["error"]
            for s in lab["steps"]}


def compare_hosts(now, before):
    """What changed for one learner since the previous run.

    `change`: "progressed" (steps newly passed, none lost), "regressed" (steps lost, none gained),
    "mixed", "unchanged", "new" (no graded result before to compare with) or "not_graded" (this
    run could not grade the host, so nothing is known). `up`/`down`: "<lab>.<step>" ids of steps
    that now pass and did not / passed and now do not.
    """
    since = before["graded_at"] if before else ""
    if now["state"] != "graded":
        return {"change": "not_graded", "since": since, "up": [], "down": [], "passed_delta": 0}
    if before is None or before["state"] != "graded":
        return {"change": "new", "since": since, "up": [], "down": [], "passed_delta": 0}
    old, new = step_statuses(before), step_statuses(now)
    up = [f"{lab}.{step}" for (lab, step), status in new.items() if status == PASS and old.get((lab, step)) != PASS]
    down = [f"{lab}.{step}" for (lab, step), status in old.items() if status == PASS and new.get((lab, step)) != PASS]
    change = ("mixed" if up and down else "progressed" if up else "regressed" if down else "unchanged")
    delta = host_score(now)["passed"] - host_score(before)["passed"]
    return {"change": change, "since": since, "up": up, "down": down, "passed_delta": delta}


def merge_partial(graded, previous, class_hosts):
    """The class view after a partial run: this run's hosts, plus the previous view's hosts of
    the class that this run did not grade (carried over with their own `graded_at`)."""
    names = {h["host"] for h in graded}
    carried = [h for h in previous if h["host"] in class_hosts and h["host"] not in names]
    return sorted(graded + carried, key=lambda h: natural_key(h["host"])), [h["host"] for h in carried]


def plan_run(hosts, previous, class_hosts, graded_names):
    """(hosts of the class view, run) for this run; `run` is what grades.json says about it."""
    class_hosts = [str(h) for h in class_hosts or []]
    partial = bool(class_hosts) and not set(class_hosts) <= set(graded_names)
    carried = []
    if partial and previous is not None:
        hosts, carried = merge_partial(hosts, previous["hosts"], set(class_hosts))
    run = {
        "scope": "partial" if partial else "class",
        "graded": [h["host"] for h in hosts if h["host"] not in carried],
        "carried": carried,
        "previous": ({"report": previous["report"], "generated_at": previous["generated_at"]}
                     if previous is not None else None),
    }
    return hosts, run


def host_change(host, before, carried):
    """A host's `change` since the previous run (when there is one): "carried" for a host this run
    did not grade, else compare_hosts with its previous view `before` (None when it had none)."""
    if carried:
        return {"change": "carried", "since": host["graded_at"], "up": [], "down": [], "passed_delta": 0}
    return compare_hosts(host, before)


def kept_grades(host, last, attempted_at):
    """(the host in the class view, this run's failed attempt or None): a host this run could not
    grade (a bad kubeconfig, an unreachable VM) keeps in the class view the grades an earlier run
    gave it (`last`, its previous view), marked with this failed attempt {"host", "at", "kind",
    "message"}: the instructor's or the VM's trouble must not wipe a learner's last good grade
    from `latest`. A host never graded stays in error."""
    if host["state"] == "graded" or last is None or last["state"] != "graded":
        return host, None
    attempt = {"host": host["host"], "at": attempted_at, "kind": host["error"]["kind"],
               "message": host["error"]["message"]}
    return {**last, "change": host.get("change"), "failed_attempt": attempt}, attempt


def _first_passes(host):
    """{(lab, step): when it first passed} of a graded host: its steps' first_passed, or for a
    step that passes without one (a report older than first_passed) the time it was graded."""
    if host is None or host["state"] != "graded":
        return {}
    return {(lab_id, s["step"]): s.get("first_passed") or (host["graded_at"] if s["status"] == PASS else None)
            for lab_id, lab in host["labs"].items() if not lab["error"] for s in lab["steps"]}


def attach_first_passed(host, last, graded_at):
    """Set step["first_passed"] on every step of a host of the class view: when the learner first
    passed it (the earliest run the report's history knows it passing, kept when the step fails
    again), None for a step never passed. A host graded by this run (`graded_at`) starts from
    its previous view (`last`); a carried or kept host keeps its own."""
    fresh = host.get("graded_at") == graded_at and not host.get("failed_attempt")
    old = _first_passes(last if fresh else host)
    for lab_id, lab in host["labs"].items():
        for step in lab["steps"]:
            step["first_passed"] = old.get((lab_id, step["step"])) or (
                host["graded_at"] if step["status"] == PASS else None)


def _history(raw):
    """The runs of a grades.json `history` that have the right shape (others are left out)."""
    if not isinstance(raw, list):
        return []
    return [{"at": run["at"], "rates": run["rates"]} for run in raw
            if isinstance(run, dict) and isinstance(run.get("at"), str) and isinstance(run.get("rates"), dict)
            and all(isinstance(v, list) and len(v) == 2 and all(as_int(n) == n for n in v) for v in run["rates"].values())]


def class_history(previous, hosts, generated_at):
    """grades.json `history`: [{at, rates}] the class's pass rate per step (views.class_rates)
    run after run, oldest first, this run last, at most HISTORY_MAX. A previous report without
    a history (older than it) counts as the one run it shows."""
    runs = []
    if previous is not None:
        runs = previous.get("history") or [{"at": previous["generated_at"], "rates": class_rates(previous["hosts"])}]
    return [*runs, {"at": generated_at, "rates": class_rates(hosts)}][-HISTORY_MAX:]


def change_counts(hosts):
    counts = {}
    for host in hosts:
        if host.get("change"):
            counts[host["change"]["change"]] = counts.get(host["change"]["change"], 0) + 1
    return counts


def read_previous(output_dir):
    """(previous, warnings): the class view `<output_dir>/latest` shows before this run.

    `previous` is {"report": folder name, "generated_at", "hosts"} or None when there is no
    earlier run or it cannot be read (then a warning says why; this run is reported on its own).
    """
    latest = os.path.join(output_dir, LATEST)
    path = os.path.join(latest, "grades.json")
    if not os.path.exists(path):  # the first run, or `latest` is not one of our reports
        return None, []
    try:
        if os.path.getsize(path) > PREVIOUS_MAX_BYTES:
            return None, [f"{path} is larger than {PREVIOUS_MAX_BYTES} bytes; not compared with this run"]
        with open(path, encoding="utf-8") as handle:
            grades = json.load(handle)
        hosts = hosts_from_grades(grades)
    except (OSError, ValueError) as exc:
        return None, [f"the previous report {path} cannot be read ({exc}); not compared with this run"]
    report = os.path.basename(os.path.realpath(latest))
    return {"report": report, "generated_at": as_text(grades.get("generated_at")), "hosts": hosts,
            "history": _history(grades.get("history"))}, []
