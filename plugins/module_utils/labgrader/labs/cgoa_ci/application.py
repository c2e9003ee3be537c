"""The Application ci-web as the cgoa-ci checks judge it: written to app.yaml and live (one
ApplicationTwin), its operation against bare main's broken commits, Synced and Healthy at a
commit or later, or still to read a commit just pushed."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    ApplicationTwin,
    Operation,
    live_status,
    self_heal_due,
    self_heal_pending,
    unread_commit,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.history import history_broken
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import APP
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed, pending

# Read as the lab declared it (reads.py "app"); a missing live twin's verdict names no step.
APPLICATION = ApplicationTwin(APP, "app.yaml", read=lambda state: state.cluster.get("app"), step_param=False)


def operation_progress(state, app):
    """(Operation, Progress) of the live Application, bare main's broken commits being the
    revisions known to fail."""
    operation = Operation.of(app)
    return operation, operation.progress(history_broken(state))


def app_at_revision(state, app, anchor, ok_key, behind_key):
    """Synced and Healthy at `anchor` or a later commit on main; PENDING while an operation on a
    newer revision runs; the broken commit still retrying is named."""
    sync, health, phase = live_status(app)
    operation, progress = operation_progress(state, app)
    revision = operation.desired
    found = {"sync": sync, "health": health, "revision": revision, "operation": phase}
    expected = {"sync": "Synced", "health": "Healthy", "revision": f"≥ {anchor[:7]}"}
    at_or_after = isinstance(revision, str) and revision in state.repo.commits and state.repo.is_ancestor(anchor, revision)
    if sync == "Synced" and health == "Healthy" and at_or_after:
        return passed(ok_key, expected=expected, found=found, name=APP, sha=anchor[:7])
    if progress.on_failing_revision:
        return failed("broken_still_retrying", expected=expected, found=found, name=APP, sha=operation.revision[:7],
                      phase=phase, hint="ci_terminate")
    if operation.active or health == "Progressing":
        return pending("app_converging", expected=expected, found=found, name=APP, sync=sync, health=health)
    unread = unread_commit(state, app, anchor)
    if unread:
        return pending("app_not_polled_yet", expected=expected, found=found, name=APP, **unread)
    if at_or_after and self_heal_due(app):
        return self_heal_pending(app, APP, expected, found)
    return failed(behind_key, expected=expected, found=found, name=APP, sha=anchor[:7], hint="app_sync_health")
