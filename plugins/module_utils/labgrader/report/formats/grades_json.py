"""grades.json: the whole report as data (schema lab-grades/v1, docs/report-format.md)."""

from __future__ import annotations

import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.memo import first_seen
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.document import Document
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


def host_entry(host, generated_at):
    """A host's entry of grades.json `hosts`."""
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
    return {
        "host": host["host"],
        "learner_id": host.get("learner_id", ""),
        "lang": host["lang"],
        "state": host["state"],
        "error": host["error"],
        "score": host_score(host),
        "labs": labs,
        "graded_at": host.get("graded_at", generated_at),
        "change": host.get("change"),
    }


def host_records(host):
    """A host's check records of grades.json `records`."""
    return [{"host": host["host"], **{k: c[k] for k in RECORD_KEYS}}
            for lab in host["labs"].values() for step in lab["steps"] for c in step["checks"]]


def grades_data(hosts, entries, records, generated_at, lang="en", run=None, history=None):
    """grades.json's data: the class-level keys around the hosts' entries and records."""
    return {
        "schema": SCHEMA,
        "generated_at": generated_at,
        "lang": lang,
        "counts": compute_counts(hosts),
        "labs": lab_columns(hosts),
        "hosts": entries,
        "records": records,
        "run": run or {"scope": "class", "graded": [h["host"] for h in hosts], "carried": [], "previous": None},
        "history": history or [],
    }


def _nested(value, depth):
    """json.dumps(value, indent=2) as it reads `depth` levels deep in the file."""
    return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + "  " * depth)


# Distinct checks a collector keeps as text (memo.first_seen): most learners share most checks,
# so most of a push's records are texts already made (json's indented encoder is pure Python).
RECORD_MEMO, RECORD_MEMO_TEXT = 16384, 2048


def _record_text(record):
    """"    " + _nested(record, 2): one record of `records` as the file has it."""
    fields = json.dumps([record[key] for key in RECORD_KEYS], ensure_ascii=False, separators=(",", ":"))
    return '    {\n      "host": ' + json.dumps(record["host"], ensure_ascii=False) + ",\n" + _fields_text(fields)


@first_seen(RECORD_MEMO, RECORD_MEMO_TEXT)
def _fields_text(fields_text):
    """The lines after "host" of a record whose RECORD_KEYS values are the JSON list `fields_text`."""
    text = _nested(dict(zip(RECORD_KEYS, json.loads(fields_text), strict=True)), 2)
    return text[len("{\n"):]


def host_part(host, ctx):
    """(entry, records, the text of each in the file, UTF-8): a host's part of grades.json."""
    entry, records = host_entry(host, ctx.generated_at), host_records(host)
    return {"entry": entry, "records": records, "entry_text": ("    " + _nested(entry, 2)).encode("utf-8"),
            "records_text": ",\n".join(_record_text(record) for record in records).encode("utf-8")}


def _list_chunks(texts):
    """A list of the top-level object as UTF-8 chunks (`texts`: its items', two levels deep)."""
    texts = [text for text in texts if text]
    if not texts:
        return [b"[]"]
    chunks = [b"[\n"]
    for index, text in enumerate(texts):
        chunks += [b",\n" if index else b"", text]
    return [*chunks, b"\n  ]"]


def assemble(view, parts):
    """The file, json.dumps(view.grades, indent=2) byte for byte, with each host's entry and
    records taken from its part (host_part): only the class-level keys are dumped here, and the
    hosts' texts are never joined (it is the report's largest file: report/document.py)."""
    lists = {"hosts": [p["entry_text"] for p in parts], "records": [p["records_text"] for p in parts]}
    chunks = [b"{\n"]
    for index, (key, value) in enumerate(view.grades.items()):
        chunks.append(((",\n" if index else "") + f"  {json.dumps(key)}: ").encode("utf-8"))
        chunks += _list_chunks(lists[key]) if key in lists else [_nested(value, 1).encode("utf-8")]
    return Document([*chunks, b"\n}\n"])
