"""The check families the labs share: require() ends a check with its verdict, and Argo CD's
operation state is one value (checks/require.py, checks/argocd.py Operation/Progress)."""

from __future__ import annotations

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import Operation, Progress
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import (
    ends_with_verdict,
    require,
    stop_if,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import FAIL, PASS, failed, passed

FAILING = "a" * 40
FIX = "b" * 40


def test_require_returns_the_value_or_ends_the_check_with_its_problem():
    problem = failed("value_mismatch", expected=1, found=2)

    @ends_with_verdict
    def check(found):
        value = require(found)
        stop_if(None)
        return passed("value_ok", found=value)

    assert (check((7, None)).status, check((7, None)).found) == (PASS, 7)
    assert check((None, problem)) is problem


def test_stop_if_ends_the_check_only_with_a_problem():
    problem = failed("value_mismatch")

    @ends_with_verdict
    def check(state):
        stop_if(state)
        return passed("value_ok")

    assert check(None).status == PASS
    assert check(problem).status == FAIL


def application(phase=None, revision=None, result=None, desired=None, sync=None, automated=True):
    operation = {"phase": phase, "operation": {"sync": {"revision": revision}}, "syncResult": {"revision": result}}
    return {"spec": {"syncPolicy": {"automated": {} if automated else None}},
            "status": {"operationState": operation, "sync": {"status": sync, "revision": desired}}}


@pytest.mark.parametrize("app, progress", [
    (application("Running", FAILING), Progress.RETRYING),
    (application("Terminating", FAILING), Progress.ENDING_FAILED),
    (application("Running", FIX), Progress.RUNNING),
    (application("Terminating", FIX), Progress.RUNNING),
    (application("Failed", FAILING, FAILING, FIX, "OutOfSync"), Progress.SYNC_DUE),
    (application("Error", FAILING, FAILING, FIX, "OutOfSync"), Progress.SYNC_DUE),
    (application("Failed", FAILING, FAILING, FIX, "OutOfSync", automated=False), Progress.SETTLED),
    (application("Failed", FAILING, FAILING, FAILING, "OutOfSync"), Progress.SETTLED),
    (application("Failed", FAILING, FAILING, FIX, "Synced"), Progress.SETTLED),
    (application("Succeeded", FIX, FIX, FIX, "Synced"), Progress.SETTLED),
    ({}, Progress.SETTLED),
])
def test_operation_progress(app, progress):
    assert Operation.of(app).progress([FAILING]) is progress


def test_without_failing_revisions_a_running_operation_is_just_running():
    assert Operation.of(application("Running", FAILING)).progress() is Progress.RUNNING


def test_the_revision_applied_is_the_desired_one_when_auto_sync_is_due():
    operation = Operation.of(application("Failed", FAILING, FAILING, FIX, "OutOfSync"))
    assert operation.applying(operation.progress([FAILING])) == FIX
    running = Operation.of(application("Running", FIX, desired=FAILING))
    assert running.applying(running.progress([FAILING])) == FIX


def test_progress_groups():
    assert {p for p in Progress if p.on_failing_revision} == {Progress.RETRYING, Progress.ENDING_FAILED}
    assert {p for p in Progress if p.in_flight} == {Progress.RETRYING, Progress.ENDING_FAILED, Progress.RUNNING}
