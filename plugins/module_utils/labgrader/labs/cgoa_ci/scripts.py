"""The learner's scripts as files: there and executable, and saying what the lab asks."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import file_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed


def script_verdict(state, name, hint):
    """None when the script exists and is executable, else the failing Verdict."""
    read = state.files[name]
    if not read.ok:
        return file_problem(read, hint=hint)
    if not read.executable:
        return failed("script_not_executable", expected="executable", found=None, path=read.path, hint=hint)
    return None


def script_text(state, name, wanted_key, pattern, hint, forbidden=None, **phrase_params):
    """What the phrase `wanted_key` (in MESSAGES) says holds when `pattern` is in the script and
    `forbidden` is not. The phrase fills {what} in the learner's language (i18n.message); the
    expected value is the pattern the grader looks for, which reads the same in every language."""
    read = state.files[name]
    if not read.ok:
        return file_problem(read, hint=hint)
    ok = re.search(pattern, read.text) is not None and not (forbidden and re.search(forbidden, read.text))
    key = "script_text_ok" if ok else "script_text_missing"
    return (passed if ok else failed)(key, expected=pattern, found=None, path=read.path, what_key=wanted_key,
                                      **phrase_params)
