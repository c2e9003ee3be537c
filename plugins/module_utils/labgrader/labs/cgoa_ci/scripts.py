"""The learner's scripts as files: there and executable (what they do, the probes judge)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import file_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed


def script_verdict(state, name, hint):
    """None when the script exists and is executable, else the failing Verdict."""
    read = state.files[name]
    if not read.ok:
        return file_problem(read, hint=hint)
    if not read.executable:
        return failed("script_not_executable", expected="executable", found=None, path=read.path, hint=hint)
    return None

