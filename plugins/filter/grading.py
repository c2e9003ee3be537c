"""grade_record: one host's registered lab_grade result -> the host record of the class report.

Built in Python rather than in nested Jinja: an unreachable host, a module that failed (bad
options, a missing grader runtime, a timeout) and an unhealthy VM each become one ERROR record
with the reason (docs/report-format.md)."""

from __future__ import annotations


def grade_record(result, host, lang="en"):
    result = result if isinstance(result, dict) else {}
    record = {"host": host, "lang": lang, "state": "error", "error": None, "labs": {}}
    if result.get("unreachable"):
        record["error"] = {"kind": "unreachable", "message": result.get("msg") or "unreachable"}
    elif result.get("failed") or result.get("state") not in ("graded", "error"):
        record["error"] = {"kind": "grader", "message": result.get("msg") or "the grading module failed"}
    elif result["state"] == "error":
        record["error"] = result.get("error") or {"kind": "health", "message": "the VM failed the health gate"}
    else:
        record.update(state="graded", labs=result.get("labs") or {})
    return record


class FilterModule:
    def filters(self):
        return {"grade_record": grade_record}
