"""Evidence files: the JSON/YAML a learner writes in the workspace, read with their JSON types."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, json_type, typed_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed


def file_problem(read, hint=None, **params):
    """A failing Verdict that says why an evidence file could not be used."""
    return failed(f"file_{read.problem}", expected=None, found=read.detail or None,
                  path=read.path, detail=read.detail, hint=hint, **params)


def evidence(state, name):
    """(object, None) for a JSON evidence file holding an object, else (None, failing Verdict);
    a hint names the keys the lab asks of the file (Reads json_files)."""
    read = state.files[name]
    keys = ", ".join(state.evidence_keys.get(name, ()))
    if not read.ok:
        return None, file_problem(read, hint="evidence_files", keys=keys)
    if not isinstance(read.data, dict):
        return None, failed("wrong_type", expected="object", found=read.data, what=name, keys=keys,
                            expected_type="object", found_type=json_type(read.data), hint="json_object")
    return read.data, None


def evidence_field(state, name, key, expected_type):
    """(value, None) for `key` of the JSON evidence file `name` with the right JSON type, else
    (None, failing Verdict)."""
    data, problem = evidence(state, name)
    if problem:
        return None, problem
    return typed_field(data, key, expected_type, f"{name} {key}")


def evidence_fields(state, name, keys, expected_type):
    """({key: value}, None) when every key of the evidence file has the JSON type, else
    (None, the first failing Verdict)."""
    data, problem = evidence(state, name)
    if problem:
        return None, problem
    values = {}
    for key in keys:
        values[key], problem = typed_field(data, key, expected_type, f"{name} {key}")
        if problem:
            return None, problem
    return values, None


def same_value(found, expected, what, hint=None):
    if found != expected:
        return failed("value_mismatch", expected=expected, found=found, what=what, hint=hint)
    return passed("value_ok", expected=expected, found=found, what=what)


def blocked(step, reason, **params):
    """A check that depends on an earlier step: 'blocked by step N: <reason>'."""
    return failed("blocked_by", step=step, reason=reason, **params)


class Agrees:
    """Ties a report answer to the learner's own earlier evidence: `file`'s `key` must satisfy
    `accepts(value)`; `shown` is what the message says is expected there."""

    __slots__ = ("accepts", "file", "key", "shown")

    def __init__(self, file, key, accepts, shown):
        self.file = file
        self.key = key
        self.accepts = accepts
        self.shown = shown


def report_answer(state, key, expected_type, truth, hint=None, agrees_with=None, report="report.json"):
    """The answer `key` of the lab's report file must be `truth` (and, with `agrees_with`, an
    Agrees, consistent with the learner's earlier evidence)."""
    what = f"{report} {key}"
    value = require(evidence_field(state, report, key, expected_type))
    if value != truth:
        return failed("value_mismatch", expected=truth, found=value, what=what, hint=hint)
    if agrees_with:
        other, _ = evidence(state, agrees_with.file)
        found = dig(other, agrees_with.key)
        if other is None or not agrees_with.accepts(found):
            return failed("inconsistent_evidence", expected=agrees_with.shown, found=found, what=what,
                          other=f"{agrees_with.file} {agrees_with.key}")
    return passed("value_ok", expected=truth, found=value, what=what)
