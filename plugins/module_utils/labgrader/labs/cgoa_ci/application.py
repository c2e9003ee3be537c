"""The live Application ci-web as the cgoa-ci checks judge it: present, its operation still
retrying a broken commit, Synced and Healthy at a commit or later."""

from __future__ import annotations

from ansible.module_utils.labgrader.checks.argocd import live_status, self_heal_due, self_heal_pending
from ansible.module_utils.labgrader.checks.evidence import blocked
from ansible.module_utils.labgrader.facts import dig
from ansible.module_utils.labgrader.labs.cgoa_ci.history import history_broken
from ansible.module_utils.labgrader.labs.cgoa_ci.spec import APP, REPO_NAME
from ansible.module_utils.labgrader.result import failed, passed, pending


def repo_url(state):
    return state.site.repo_url(REPO_NAME)


def operation_revision(app):
    return dig(app, "status", "operationState", "operation", "sync", "revision")


def retrying_broken(state, app):
    """The broken sha when the app's operation still runs on it, else None."""
    revision = operation_revision(app)
    phase = dig(app, "status", "operationState", "phase")
    if revision in history_broken(state) and phase in ("Running", "Terminating"):
        return revision
    return None


def live_app(state, step):
    app = state.cluster.get("app")
    if app is None:
        return None, (failed("live_app_missing", expected=APP, found=None, name=APP, hint="application_apply")
                      if step == 1 else blocked(1, "live_app_missing", name=APP))
    return app, None


def app_at_revision(state, app, anchor, ok_key, behind_key):
    """Synced and Healthy at `anchor` or a later commit on main; PENDING while an operation on a
    newer revision runs; the broken commit still retrying is named."""
    sync, health, phase = live_status(app)
    revision = dig(app, "status", "sync", "revision")
    found = {"sync": sync, "health": health, "revision": revision, "operation": phase}
    expected = {"sync": "Synced", "health": "Healthy", "revision": f"{anchor[:7]} or later"}
    at_or_after = isinstance(revision, str) and revision in state.repo.commits and state.repo.is_ancestor(anchor, revision)
    if sync == "Synced" and health == "Healthy" and at_or_after:
        return passed(ok_key, expected=expected, found=found, name=APP, sha=anchor[:7])
    broken = retrying_broken(state, app)
    if broken:
        return failed("broken_still_retrying", expected=expected, found=found, name=APP, sha=broken[:7], phase=phase,
                      hint="ci_terminate")
    if phase in ("Running", "Terminating") or health == "Progressing":
        return pending("app_converging", expected=expected, found=found, name=APP, sync=sync, health=health)
    if at_or_after and self_heal_due(app):
        return self_heal_pending(app, APP, expected, found)
    return failed(behind_key, expected=expected, found=found, name=APP, sha=anchor[:7], hint="app_sync_health")
