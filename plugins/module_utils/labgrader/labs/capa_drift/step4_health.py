"""capa-drift step 4: drift-health; a commit whose pods no node takes is Synced, Progressing for
progressDeadlineSeconds, then Degraded (gitops-engine pkg/health/health_deployment.go:39, obs
§4), and is fixed through git."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    ARGOCD_MANAGER,
    history,
    spec_judge,
    synced_healthy,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import named_commit
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, is_integer
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import managed_entries
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.application import (
    TWINS,
    drift_problems,
    existing_web,
    first_parent,
    live,
    not_full_sha,
    oldest_first,
    repo,
    still_syncing,
    synced_revisions,
    web_at,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import HEALTH
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

TWINS[HEALTH].checks(lab, 4, spec_judge(lambda state, app, where: drift_problems(state, app, where, HEALTH)),
                     hint="drift_health_app")

DEADLINE_SLACK = (5, 120)  # Degraded came 61 s after the sync for a deadline of 60 s (obs §4)
CONTROLLERS = (ARGOCD_MANAGER, "kube-controller-manager")


def node_labels(state):
    return [dig(n, "metadata", "labels", default={}) or {} for n in state.cluster.items("nodes")]


def schedulable(state, doc):
    """Some node carries every label of the pod template's nodeSelector (no selector: any node)."""
    selector = dig(doc, "spec", "template", "spec", "nodeSelector", default={}) or {}
    if not isinstance(selector, dict):
        return False
    return any(all(labels.get(k) == v for k, v in selector.items()) for labels in node_labels(state))


def is_bad(state, sha):
    """At `sha`, health/web.yaml has a progressDeadlineSeconds and pods no node takes."""
    doc = web_at(state, HEALTH, sha)
    return doc is not None and is_integer(dig(doc, "spec", "progressDeadlineSeconds")) and not schedulable(state, doc)


def bad_commits(state):
    return [sha for sha in oldest_first(state) if is_bad(state, sha)]


def bad_revision(state):
    sha = require(named_commit(state, "health.json", lambda found: not_full_sha("health.json revision", found),
                               key="revision", hint="drift_health_bad"))
    return sha


@lab.check(4, "bad-commit", hint="drift_health_bad")
def bad_commit(state):
    sha = bad_revision(state)
    doc = web_at(state, HEALTH, sha)
    parent = first_parent(state, sha)
    found = {"progressDeadlineSeconds": dig(doc, "spec", "progressDeadlineSeconds"),
             "nodeSelector": dig(doc, "spec", "template", "spec", "nodeSelector"),
             "schedulable": schedulable(state, doc) if doc else None,
             "parent_schedulable": parent is not None and schedulable(state, web_at(state, HEALTH, parent) or {})}
    expected = {"progressDeadlineSeconds": "integer", "schedulable": False, "parent_schedulable": True}
    if is_bad(state, sha) and found["parent_schedulable"] and web_at(state, HEALTH, parent) is not None:
        return passed("health_bad_ok", expected=expected, found=found, sha=sha[:7])
    return failed("health_bad_wrong", expected=expected, found=found, sha=sha[:7])


@lab.check(4, "bad-synced", hint="drift_health_bad")
def bad_synced(state):
    repo(state)
    app = live(state, HEALTH, 4)
    bad = bad_commits(state)
    synced = synced_revisions(app, bad)
    if synced:
        return passed("health_bad_synced", expected=[s[:7] for s in bad], found=synced[0][:7], name=HEALTH)
    stop_if(still_syncing(state, app, HEALTH, [s[:7] for s in bad], None))
    return failed("health_bad_never_synced", expected=[s[:7] for s in bad] or None,
                  found=[str(e.get("revision"))[:7] for e in history(app)], name=HEALTH)


@lab.check(4, "degraded-evidence", hint="drift_health_degraded")
def degraded_evidence(state):
    values = {key: require(evidence_field(state, "health.json", key, kind))
              for key, kind in (("sync", "string"), ("health", "string"), ("degraded_after", "integer"))}
    sha = bad_revision(state)
    deadline = dig(web_at(state, HEALTH, sha), "spec", "progressDeadlineSeconds")
    if not is_integer(deadline):
        return failed("health_bad_wrong", expected={"progressDeadlineSeconds": "integer"},
                      found={"progressDeadlineSeconds": deadline}, sha=sha[:7])
    low, high = deadline - DEADLINE_SLACK[0], deadline + DEADLINE_SLACK[1]
    if values["health"] == "Progressing":
        return failed("health_recorded_too_early", expected="Degraded", found=values["health"], deadline=deadline)
    truth = {"sync": "Synced", "health": "Degraded"}
    wrong = {k: values[k] for k in truth if values[k] != truth[k]}
    if wrong:
        return failed("value_mismatch", expected={k: truth[k] for k in wrong}, found=wrong, what="health.json")
    if not low <= values["degraded_after"] <= high:
        return failed("health_degraded_after_wrong", expected=f"{low}..{high}", found=values["degraded_after"],
                      deadline=deadline)
    return passed("value_ok", expected={**truth, "degraded_after": f"{low}..{high}"}, found=values, what="health.json")


@lab.check(4, "fix-commit", hint="drift_health_fix")
def fix_commit(state):
    repo(state)
    app = live(state, HEALTH, 4)
    bad = bad_commits(state)
    head_ok = not is_bad(state, state.repo.head) and web_at(state, HEALTH, state.repo.head) is not None
    synced = {e.get("revision"): i for i, e in enumerate(history(app))}
    unfixed = []
    for sha in bad:
        fixes = [c for c in state.repo.order if c != sha and state.repo.is_ancestor(sha, c) and not is_bad(state, c)
                 and c in synced and synced[c] > synced.get(sha, -1)]
        if not fixes:
            unfixed.append(sha[:7])
    found = {"head_schedulable": head_ok, "bad_without_synced_fix": unfixed or None}
    expected = {"head_schedulable": True, "bad_without_synced_fix": None}
    if bad and head_ok and not unfixed:
        return passed("health_fixed_in_git", expected=expected, found=found, name=HEALTH)
    stop_if(still_syncing(state, app, HEALTH, expected, found))
    return failed("health_not_fixed_in_git", expected=expected, found=found if bad else None, name=HEALTH)


@lab.check(4, "no-kubectl-fix", hint="drift_health_fix")
def no_kubectl_fix(state):
    live(state, HEALTH, 4)
    web = existing_web(state, HEALTH)
    repo(state)
    by_hand = sorted({e.get("manager") for e in managed_entries(web)
                      if e.get("manager") not in CONTROLLERS and dig(e, "fieldsV1", "f:spec") is not None})
    selector = dig(web, "spec", "template", "spec", "nodeSelector")
    git_selector = dig(web_at(state, HEALTH, state.repo.head), "spec", "template", "spec", "nodeSelector")
    found = {"spec_written_by": by_hand or None, "nodeSelector": selector}
    expected = {"spec_written_by": None, "nodeSelector": git_selector}
    if not by_hand and selector == git_selector:
        return passed("health_no_kubectl", expected=expected, found=found)
    return failed("health_kubectl_fix", expected=expected, found=found)


@lab.check(4, "live-healthy", hint="app_sync_health")
def live_healthy(state):
    app = live(state, HEALTH, 4)
    verdict = synced_healthy(app, HEALTH)
    if verdict.status == "FAIL" and state.repo.ok:
        stop_if(still_syncing(state, app, HEALTH, verdict.expected, verdict.found))
    return verdict
