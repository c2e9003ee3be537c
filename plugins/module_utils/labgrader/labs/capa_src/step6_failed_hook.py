"""Step 6 of capa-src: a failed PreSync hook blocks the sync, a fix commit, and Argo CD's operation
until it synced the fix."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    Operation,
    Progress,
    live_status,
    operations_started,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import (
    blocked,
    evidence_field,
    same_value,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import (
    named_commit,
    repo_blocked,
    yaml_documents,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import command_line, condition, containers
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.definition import WAVES, WAVES_APP, lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed, pending


def yaml_mode(text):
    """`data.mode` of the settings ConfigMap in a config.yaml text, or None."""
    for doc in yaml_documents(text):
        if doc.get("kind") == "ConfigMap":
            return dig(doc, "data", "mode")
    return None


def migrate_command(text):
    for doc in yaml_documents(text):
        if doc.get("kind") == "Job":
            return " ".join(command_line(c) for c in containers(doc))
    return None


def failed_commit(state):
    """(commit sha, None) for the commit named in failed-hook.json, else (None, Verdict). A pair,
    not require(): operation_progress reads it without ending its check."""
    return named_commit(state, "failed-hook.json", lambda found: failed(
        "not_full_sha", expected="40 hex characters", found=found))


def parent_of(state, sha):
    parents = state.repo.commits[sha]["parents"]
    return parents[0] if parents else None


@lab.check(6, "failed-commit", hint="failed_hook_commit")
def failing_commit(state):
    sha = require(failed_commit(state))
    parent = parent_of(state, sha)
    after = state.repo.history[sha]
    before = state.repo.history.get(parent, {}) if parent else {}
    found = {
        "waves/config.yaml mode": [yaml_mode(before.get("waves/config.yaml")), yaml_mode(after.get("waves/config.yaml"))],
        "waves/migrate.yaml": migrate_command(after.get("waves/migrate.yaml")),
    }
    mode_changed = found["waves/config.yaml mode"][1] == "green" and found["waves/config.yaml mode"][0] != "green"
    command = found["waves/migrate.yaml"] or ""
    hook_broken = "echo migrate failed" in command and "exit 1" in command
    expected = {"waves/config.yaml mode": ["<not green>", "green"], "waves/migrate.yaml": "echo migrate failed; exit 1"}
    if mode_changed and hook_broken:
        return passed("failed_commit_ok", expected=expected, found=found, sha=sha[:7])
    if mode_changed or hook_broken:
        return failed("failed_commit_split", expected=expected, found=found, sha=sha[:7])
    return failed("failed_commit_wrong", expected=expected, found=found, sha=sha[:7])


@lab.check(6, "failed-phase", hint="hook_failed_phase")
def failed_phase(state):
    phase = require(evidence_field(state, "failed-hook.json", "phase", "string"))
    if phase == "Failed":
        return same_value(phase, "Failed", "failed-hook.json phase")
    if phase != "Running":
        return same_value(phase, "Failed", "failed-hook.json phase")
    # A failed PreSync hook ends the operation Failed (gitops-engine sync_context.go
    # setOperationFailed) only after the automated retries: with the Job's default backoffLimit
    # and 5 retries it reads Running for ~37 minutes (docs/argocd-observations.md). Running is
    # the truth during that time, so it passes once the cluster shows the operation of that
    # commit really failed (shared/labs/capa-src.md step 6).
    sha = require(failed_commit(state))  # the commit's own problem: missing, not a full SHA, not on bare main
    proof = failure_proof(state, sha)
    if proof:
        return passed("phase_running_failed", expected="Failed | Running", found=phase, proof=proof)
    return failed("phase_running_unproven", expected="Failed | Running", found=phase, sha=sha[:7])


def failure_proof(state, sha):
    """What shows that the operation of commit `sha` failed, or None. From the cluster: its
    PreSync hook Job (migrate-<sha7>-presync-<start>, gitops-engine sync_context.go) has condition
    Failed=True (batch/v1 JobCondition), or src-waves' operationState for that revision retried or
    ended Failed/Error (terminate-op ends it Failed "Operation terminated"). The failed Job need
    not remain: retries delete it every other attempt (docs/argocd-observations.md test 5), so
    once a later commit was synced the operation of `sha` must have ended, and it can only have
    failed when the commit's hook exits 1 (checked in git)."""
    for job in state.cluster.items("waves_jobs"):
        name = dig(job, "metadata", "name")
        if isinstance(name, str) and name.startswith(f"migrate-{sha[:7]}-presync-") \
                and dig(condition(job, "Failed"), "status") == "True":
            return f"Job {name} Failed"
    app = state.app(WAVES_APP)
    if app is None:
        return None
    operation = dig(app, "status", "operationState", default={})
    if isinstance(operation, dict) and dig(operation, "operation", "sync", "revision") == sha:
        retries = operation.get("retryCount")
        if operation.get("phase") in ("Failed", "Error"):
            return f"operation of {sha[:7]} {operation['phase']}"
        if isinstance(retries, int) and not isinstance(retries, bool) and retries > 0:
            return f"operation of {sha[:7]} retried {retries} times"
    if "exit 1" not in (migrate_command(state.repo.history[sha].get("waves/migrate.yaml")) or ""):
        return None
    recorded, _ = operations_started(app)
    later = sorted({rev for rev, _ in recorded if rev in state.repo.commits and rev != sha
                    and state.repo.is_ancestor(sha, rev)}, key=lambda rev: state.repo.commits[rev]["time"])
    if later:
        return f"its hook exits 1 and src-waves later synced {later[0][:7]}"
    return None


@lab.check(6, "failed-live-mode", hint="hook_failed_phase")
def failed_live_mode(state):
    live_mode = require(evidence_field(state, "failed-hook.json", "live_mode", "string"))
    sha = require(failed_commit(state))  # the commit's own problem: missing, not a full SHA, not on bare main
    parent = parent_of(state, sha)
    before = yaml_mode(state.repo.history.get(parent, {}).get("waves/config.yaml")) if parent else None
    if live_mode != before:
        return failed("value_mismatch", expected=before, found=live_mode, what="failed-hook.json live_mode",
                      hint="hook_failed_phase")
    return passed("value_ok", expected=before, found=live_mode, what="failed-hook.json live_mode")


def restores_hook(files):
    command = migrate_command(files.get("waves/migrate.yaml")) or ""
    return "echo migrate ok" in command and "exit 1" not in command and yaml_mode(files.get("waves/config.yaml")) == "green"


def fix_commit_sha(state, failed_sha):
    """The first commit after the failing one that restores the migrate command, mode still green."""
    for candidate in reversed(state.repo.order):  # oldest first
        if candidate != failed_sha and state.repo.is_ancestor(failed_sha, candidate) \
                and restores_hook(state.repo.history[candidate]):
            return candidate
    return None


@lab.check(6, "fix-commit", hint="failed_hook_commit")
def fix_commit(state):
    sha = require(failed_commit(state))  # the commit's own problem: missing, not a full SHA, not on bare main
    fix = fix_commit_sha(state, sha)
    if fix:
        return passed("fix_commit_ok", found=fix, sha=fix[:7])
    files = state.repo.history.get(state.repo.head, {})
    found = {"head": state.repo.head, "waves/migrate.yaml": migrate_command(files.get("waves/migrate.yaml")),
             "mode": yaml_mode(files.get("waves/config.yaml"))}
    return failed("fix_commit_missing", expected={"waves/migrate.yaml": "echo migrate ok", "mode": "green"}, found=found)


def operation_progress(state, app):
    """(Progress, Operation, failed commit or None) of src-waves' operation, from the cluster
    alone; the failing revision is the commit failed-hook.json names (checks/argocd.py Operation)."""
    failed_sha, _ = failed_commit(state)
    operation = Operation.of(app)
    return operation.progress([failed_sha] if failed_sha else []), operation, failed_sha


@lab.check(6, "live-revision", hint="sync_revisions")
def waves_live_revision(state):
    """After the fix, Argo CD must have synced the fix commit or a later one. A later commit that
    does not touch waves/ moves status.sync.revision but starts no operation, so each revision
    may be the fix commit or any commit after it on main."""
    app = WAVES.live(state, 6, blocked_by=5)
    stop_if(repo_blocked(state))
    found = {
        "status.sync.revision": dig(app, "status", "sync", "revision"),
        "operationState.operation.sync.revision": dig(app, "status", "operationState", "operation", "sync", "revision"),
        "operationState.syncResult.revision": dig(app, "status", "operationState", "syncResult", "revision"),
    }
    progress, operation, failed_sha = operation_progress(state, app)
    anchor = (fix_commit_sha(state, failed_sha) if failed_sha else None) or state.repo.head
    # "≥ <sha7>": this commit or a later one on bare main, in no language (the message says it in words)
    expected = dict.fromkeys(found, f"≥ {anchor[:7]}")
    if progress is Progress.RETRYING:
        return failed("retrying_failed_revision", expected=expected, found=found, sha=failed_sha[:7], phase="Running",
                      hint="retry_blocks_new_commits")
    if all(isinstance(rev, str) and rev in state.repo.commits and state.repo.is_ancestor(anchor, rev)
           for rev in found.values()):
        return passed("revisions_synced", expected=expected, found=found, sha=anchor[:7])
    if progress.in_flight or progress is Progress.SYNC_DUE:
        return operation_pending(operation, progress, expected, found, what_key="phrase_app_revisions")
    return failed("revisions_behind", expected=expected, found=found, sha=anchor[:7])


def operation_pending(operation, progress, expected, found, **what):
    """PENDING while an operation Argo CD runs, or the auto-sync it is about to start, will change
    what was checked: `what` names it, or `what_key` names the phrase (in MESSAGES) that does."""
    revision = operation.applying(progress)
    return pending("auto_sync_due" if progress is Progress.SYNC_DUE else "operation_in_flight", expected=expected,
                   found=found, **what, name=WAVES_APP, phase=operation.phase, sha=(revision or "?")[:7],
                   hint="operation_in_flight")


@lab.check(6, "live-operation", hint="sync_revisions")
def waves_live_operation(state):
    app = WAVES.live(state, 6, blocked_by=5)
    sync, health, phase = live_status(app)
    expected = {"operation": "Succeeded", "sync": "Synced", "health": "Healthy"}
    found = {"operation": phase, "sync": sync, "health": health}
    if found == expected:
        return passed("live_values_ok", expected=expected, found=found, what=f"Application {WAVES_APP}")
    progress, operation, failed_sha = operation_progress(state, app)
    if progress is Progress.RETRYING:
        return failed("retrying_failed_revision", expected=expected, found=found, sha=failed_sha[:7], phase=phase,
                      hint="retry_blocks_new_commits")
    if progress.in_flight or progress is Progress.SYNC_DUE:
        return operation_pending(operation, progress, expected, found, what_key="phrase_app_status")
    return failed("live_values_mismatch", expected=expected, found=found, what=f"Application {WAVES_APP}")


@lab.check(6, "live-mode-green", hint="sync_revisions")
def waves_live_mode(state):
    settings = state.cluster.find("waves_configmaps", "settings")
    if settings is None:
        return blocked(5, "live_object_missing", what="ConfigMap src-waves/settings")
    mode = dig(settings, "data", "mode")
    what = "ConfigMap src-waves/settings data.mode"
    if mode == "green":
        return passed("value_ok", expected="green", found=mode, what=what)
    app = state.app(WAVES_APP)
    if app is None:
        return failed("value_mismatch", expected="green", found=mode, what=what)
    progress, operation, _ = operation_progress(state, app)
    if progress is Progress.RETRYING:
        return failed("value_mismatch", expected="green", found=mode, what=what, hint="retry_blocks_new_commits")
    changing = progress.in_flight or progress is Progress.SYNC_DUE
    target = state.repo.history.get(operation.applying(progress), {}) if changing and state.repo.ok else {}
    if yaml_mode(target.get("waves/config.yaml")) == "green":
        return operation_pending(operation, progress, "green", mode, what=what)
    return failed("value_mismatch", expected="green", found=mode, what=what)


