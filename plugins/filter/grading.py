"""grade_record: one host's registered lab_grade result -> the host record of the class report;
grade_records: those records for the class report; grade_settings: the run's hosts' enrolled labs
and languages, checked by lab_settings.

Built in Python rather than in nested Jinja: an unreachable host, a module that failed (bad
options, a missing grader runtime, a timeout) and an unhealthy VM each become one ERROR record
with the reason (docs/report-format.md)."""

from __future__ import annotations

import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import DEFAULT_LABS


def grade_record(result, host, lang="en"):
    result = result if isinstance(result, dict) else {}
    record = {"host": host, "lang": lang, "state": "error", "error": None, "labs": {}}
    if result.get("unreachable"):
        record["error"] = {"kind": "unreachable", "message": result.get("msg") or "unreachable"}
    elif result.get("failed") or result.get("state") not in ("graded", "error"):
        record["error"] = {"kind": "grader", "message": result.get("msg") or "the grading module failed"}
    elif result["state"] == "error":
        record["error"] = result.get("error") or {"kind": "health", "message": "the VM failed the health gate"}
    elif isinstance(result.get("labs_json"), str):  # lab_grade's labs_as_json
        try:
            record.update(state="graded", labs=json.loads(result["labs_json"]))
        except ValueError as exc:
            record["error"] = {"kind": "grader", "message": f"the lab results are not JSON: {exc}"}
    else:
        record.update(state="graded", labs=result.get("labs") or {})
    return record


def host_settings(variables, default_labs=DEFAULT_LABS):
    """One host's {"labs": lab_enrolled, "lang": lab_lang}, from its variables."""
    return {"labs": variables.get("lab_enrolled", list(default_labs)), "lang": variables.get("lab_lang", "en")}


def grade_settings(hostvars, hosts, default_labs=DEFAULT_LABS):
    """{host: {"labs": lab_enrolled, "lang": lab_lang}} of the run's hosts, for lab_settings."""
    return {host: host_settings(hostvars[host], default_labs) for host in hosts}


def host_record(variables, host, registered="grade_result"):
    """The record of `host` from its variables, or None when it registered no `registered` result
    (it never ran the grading task)."""
    if registered not in variables:
        return None
    record = grade_record(variables[registered], host, variables.get("lab_lang", "en"))
    if variables.get("lab_learner_id") is not None:  # the gradebook's id or e-mail (grades.csv)
        record["learner_id"] = str(variables["lab_learner_id"])
    return record


def grade_records(hostvars, hosts, registered="grade_result"):
    """The record of every host of `hosts` that registered its lab_grade result as `registered`
    (grade.yml): one call for the class instead of a set_fact task per host, which cost the
    controller a worker and a template of the whole result per learner (docs/performance.md)."""
    records = (host_record(hostvars[host], host, registered) for host in hosts)
    return [record for record in records if record is not None]


class FilterModule:
    def filters(self):
        return {"grade_record": grade_record, "grade_records": grade_records, "grade_settings": grade_settings}
