"""grades.json: the whole report as data (schema lab-grades/v1, docs/report-format.md)."""

from __future__ import annotations

import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import SCHEMA
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import (
    compute_counts,
    host_score,
    lab_columns,
    lab_not_started,
)

NAME = "json"
FILE = "grades.json"
# The keys of one check in grades.json `records` (after "host"), in this order.
RECORD_KEYS = ("lab", "step", "check", "status", "expected", "found", "message_key", "params", "message",
               "hint", "hint_key")


def build_grades(hosts, generated_at, lang="en", run=None, history=None):
    out_hosts = []
    records = []
    for host in hosts:
        labs = {}
        for lab_id, lab in host["labs"].items():
            labs[lab_id] = {
                "status": lab["status"],
                "summary": lab["summary"],
                "error": lab["error"],
                "not_started": lab_not_started(lab),
                "steps": [{"step": s["step"], "title": s["title"], "status": s["status"],
                           "summary": s["summary"], "first_passed": s.get("first_passed")} for s in lab["steps"]],
            }
            for step in lab["steps"]:
                for c in step["checks"]:
                    records.append({"host": host["host"], **{k: c[k] for k in RECORD_KEYS}})
        out_hosts.append({
            "host": host["host"],
            "learner_id": host.get("learner_id", ""),
            "lang": host["lang"],
            "state": host["state"],
            "error": host["error"],
            "score": host_score(host),
            "labs": labs,
            "graded_at": host.get("graded_at", generated_at),
            "change": host.get("change"),
        })
    return {
        "schema": SCHEMA,
        "generated_at": generated_at,
        "lang": lang,
        "counts": compute_counts(hosts),
        "labs": lab_columns(hosts),
        "hosts": out_hosts,
        "records": records,
        "run": run or {"scope": "class", "graded": [h["host"] for h in hosts], "carried": [], "previous": None},
        "history": history or [],
    }


def grades_json(grades):
    return json.dumps(grades, ensure_ascii=False, indent=2) + "\n"


def render(view):
    return grades_json(view.grades)
