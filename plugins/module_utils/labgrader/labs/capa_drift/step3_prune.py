"""capa-drift step 3: drift-prune; a ConfigMap removed from git stays, OutOfSync with
requiresPruning (argo-cd controller/state.go:950), until automated.prune deletes it (obs §3)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    POLL_SECONDS,
    history,
    live_status,
    spec_judge,
    unix_time,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import named_commit
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import managed_entries
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.application import (
    TWINS,
    at,
    descendants,
    drift_problems,
    first_parent,
    live,
    live_web,
    not_full_sha,
    object_in,
    still_syncing,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import EXTRA_YAML, PRUNE
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed, pending

TWINS[PRUNE].checks(lab, 3, spec_judge(lambda state, app, where: drift_problems(state, app, where, PRUNE, {"prune": True})),
                    hint="drift_prune_app")


def has_extra(state, sha):
    return sha is not None and object_in(at(state, EXTRA_YAML, sha), "ConfigMap", "extra") is not None


def removal_commit(state):
    """prune.json removed_in, a commit on main that removes ConfigMap extra, or the check ends."""
    sha = require(named_commit(state, "prune.json", lambda found: not_full_sha("prune.json removed_in", found),
                               key="removed_in", hint="drift_prune_commit"))
    if has_extra(state, sha) or not has_extra(state, first_parent(state, sha)):
        stop_if(failed("prune_not_removal", expected={"parent": True, "commit": False},
                       found={"parent": has_extra(state, first_parent(state, sha)), "commit": has_extra(state, sha)},
                       sha=sha[:7]))
    return sha


@lab.check(3, "removal-commit", hint="drift_prune_commit")
def removal_commit_check(state):
    sha = removal_commit(state)
    return passed("prune_removal_ok", expected=EXTRA_YAML, found=sha, sha=sha[:7])


IN_BETWEEN = {"resource": "ConfigMap/extra", "sync_status": "OutOfSync", "requires_pruning": True, "still_live": True}


@lab.check(3, "in-between-evidence", hint="drift_prune_in_between")
def in_between_evidence(state):
    values = {key: require(evidence_field(state, "prune.json", key, "boolean" if isinstance(truth, bool) else "string"))
              for key, truth in IN_BETWEEN.items()}
    wrong = {k: v for k, v in values.items() if v != IN_BETWEEN[k]}
    if wrong:
        return failed("value_mismatch", expected={k: IN_BETWEEN[k] for k in wrong}, found=wrong, what="prune.json")
    return passed("value_ok", expected=IN_BETWEEN, found=values, what="prune.json")


def prune_syncs(state, app, sha):
    """status.history entries at `sha` or a later commit: the syncs after the removal."""
    later = descendants(state, sha)
    return [e for e in history(app) if e.get("revision") in later]


@lab.check(3, "evidence-before-prune", hint="drift_prune_in_between")
def evidence_before_prune(state):
    observed = require(evidence_field(state, "prune.json", "observed_at", "integer"))
    sha = removal_commit(state)
    app = live(state, PRUNE, 3)
    committed = state.repo.commits[sha]["time"]
    pruned = min((unix_time(e.get("deployStartedAt")) for e in prune_syncs(state, app, sha)
                  if unix_time(e.get("deployStartedAt")) is not None), default=None)
    expected = {"after": committed, "before": pruned if pruned is not None else int(state.now)}
    if committed <= observed < expected["before"]:
        return passed("prune_observed_between", expected=expected, found=observed, sha=sha[:7])
    return failed("prune_observed_outside", expected=expected, found=observed, sha=sha[:7])


def prune_just_enabled(state, app):
    """automated.prune is on and the Application was changed by someone but Argo CD less than a
    refresh period ago: switching prune on forces no comparison (argo-cd
    controller/appcontroller.go:2757 automatedSyncEnabled looks at automated and selfHeal only),
    so the prune waits for the next periodic refresh (170 s observed, obs §3)."""
    if dig(app, "spec", "syncPolicy", "automated", "prune") is not True:
        return False
    changed = [unix_time(e.get("time")) or 0 for e in managed_entries(app)
               if not str(e.get("manager") or "").startswith("argocd")]
    return bool(changed) and 0 <= state.now - max(changed) < POLL_SECONDS


@lab.check(3, "live-pruned", hint="drift_prune_live")
def live_pruned(state):
    app = live(state, PRUNE, 3)
    configmaps = [c.get("metadata", {}).get("name") for c in state.cluster.items("prune_configmaps")]
    sync, health, _ = live_status(app)
    found = {"extra": "extra" in configmaps, "web": live_web(state, PRUNE) is not None, "sync": sync}
    expected = {"extra": False, "web": True, "sync": "Synced"}
    sha = removal_commit(state)
    synced_after = bool(prune_syncs(state, app, sha))
    if found == expected and synced_after:
        return passed("prune_done", expected=expected, found=found, name=PRUNE)
    stop_if(still_syncing(state, app, PRUNE, expected, found))
    if prune_just_enabled(state, app):
        return pending("app_converging", expected=expected, found=found, name=PRUNE, sync=sync, health=health)
    return failed("prune_not_done", expected=expected, found={**found, "synced_after_removal": synced_after}, name=PRUNE,
                  sha=sha[:7])
