"""capa-drift step 5: drift-hpa; git's replicas below an HPA's minReplicas with selfHeal on is a
fight (obs §5: the HPA raises below-min replicas without metrics, k8s pkg/controller/podautoscaler/
horizontal.go:878-881; selfHeal puts git's value back at the backoff's pace), ended by removing
replicas from git or by ignoreDifferences with RespectIgnoreDifferences=true (argo-cd
controller/sync.go:239)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    ignored_by,
    live_status,
    spec_judge,
    sync_options,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import named_commit
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, is_integer
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import condition
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.application import (
    TWINS,
    at,
    drift_problems,
    live,
    live_web,
    not_full_sha,
    object_in,
    oldest_first,
    repo,
    still_syncing,
    synced_revisions,
    web_at,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import HPA, HPA_YAML, NAMESPACES
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

TWINS[HPA].checks(lab, 5, spec_judge(lambda state, app, where: drift_problems(state, app, where, HPA, {"selfHeal": True})),
                  hint="drift_hpa_app")

RESPECT = "RespectIgnoreDifferences=true"


def min_replicas_at(state, sha):
    """minReplicas of an HPA in hpa/hpa.yaml at `sha` that scales apps/v1 Deployment web, or None."""
    hpa = object_in(at(state, HPA_YAML, sha), "HorizontalPodAutoscaler", "web")
    target = dig(hpa, "spec", "scaleTargetRef")
    if (dig(target, "apiVersion"), dig(target, "kind"), dig(target, "name")) != ("apps/v1", "Deployment", "web"):
        return None
    value = dig(hpa, "spec", "minReplicas", default=1)
    return value if is_integer(value) else None


def fights(state, sha):
    """At `sha`, git's replicas of web are below the HPA's minReplicas."""
    replicas, minimum = dig(web_at(state, HPA, sha), "spec", "replicas"), min_replicas_at(state, sha)
    return is_integer(replicas) and minimum is not None and replicas < minimum


def fight_commits(state):
    return [sha for sha in oldest_first(state) if fights(state, sha)]


@lab.check(5, "fight-commit", hint="drift_hpa_fight")
def fight_commit(state):
    repo(state)
    app = live(state, HPA, 5)
    fighting = fight_commits(state)
    synced = synced_revisions(app, fighting)
    if synced:
        return passed("hpa_fight_synced", expected="replicas < minReplicas", found=synced[0][:7], sha=synced[0][:7])
    stop_if(still_syncing(state, app, HPA, "replicas < minReplicas", None))
    return failed("hpa_no_fight", expected="replicas < minReplicas", found=[s[:7] for s in fighting] or None, name=HPA)


@lab.check(5, "fight-evidence", hint="drift_hpa_evidence")
def fight_evidence(state):
    sha = require(named_commit(state, "hpa.json", lambda found: not_full_sha("hpa.json fight_revision", found),
                               key="fight_revision", hint="drift_hpa_fight"))
    values = {key: require(evidence_field(state, "hpa.json", key, "integer")) for key in ("min_replicas", "rescales")}
    if not fights(state, sha):
        return failed("hpa_not_fight_commit", expected="replicas < minReplicas", found={
            "replicas": dig(web_at(state, HPA, sha), "spec", "replicas"), "minReplicas": min_replicas_at(state, sha)},
            sha=sha[:7])
    hpa = state.cluster.get("hpa")
    if hpa is None:
        return failed("live_object_missing_named", kind="HorizontalPodAutoscaler", namespace=NAMESPACES[HPA], name="web",
                      expected="web", found=None)
    events = [e for e in state.cluster.items("hpa_events") if e.get("reason") == "SuccessfulRescale"]
    counted = max((e.get("count") or 1 for e in events if is_integer(e.get("count") or 1)), default=None)
    truth = {"min_replicas": dig(hpa, "spec", "minReplicas"), "rescales": f"2..{counted}" if counted else "≥ 2"}
    if values["min_replicas"] != truth["min_replicas"]:
        return failed("value_mismatch", expected=truth["min_replicas"], found=values["min_replicas"],
                      what="hpa.json min_replicas")
    if values["rescales"] < 2 or (counted is not None and values["rescales"] > counted):
        return failed("hpa_rescales_wrong", expected=truth["rescales"], found=values["rescales"])
    return passed("value_ok", expected=truth, found=values, what="hpa.json")


def fix_in_force(state, app):
    """{fix name: whether it holds}: replicas gone from git's hpa/web.yaml at head after a fight
    commit, or an ignoreDifferences rule on /spec/replicas of Deployment web with
    RespectIgnoreDifferences=true."""
    head = web_at(state, HPA, state.repo.head)
    removed = head is not None and dig(head, "spec", "replicas") is None and bool(fight_commits(state))
    ignored = bool(ignored_by(app, "apps", "Deployment", "web", NAMESPACES[HPA], "/spec/replicas")) \
        and RESPECT in sync_options(app)
    return {"replicas-removed": removed, "ignore-differences": ignored}


@lab.check(5, "fight-ended", hint="drift_hpa_fix")
def fight_ended(state):
    fix = require(evidence_field(state, "hpa.json", "fix", "string"))
    app = live(state, HPA, 5)
    repo(state)
    holding = fix_in_force(state, app)
    if fix not in holding:
        return failed("value_mismatch", expected=sorted(holding), found=fix, what="hpa.json fix")
    if holding[fix]:
        return passed("hpa_fix_holds", expected=fix, found=holding, fix=fix)
    ignores = bool(ignored_by(app, "apps", "Deployment", "web", NAMESPACES[HPA], "/spec/replicas"))
    key = "hpa_ignore_without_respect" if fix == "ignore-differences" and ignores else "hpa_fix_missing"
    return failed(key, expected={fix: True}, found=holding, fix=fix)


def metric_degraded(hpa):
    """The HPA cannot compute its metric, which Argo CD counts as a Degraded HPA (gitops-engine
    pkg/health/health_hpa.go:108-113): no metrics API on the plane, no CPU request on a VM."""
    active = condition(hpa, "ScalingActive") or {}
    return active.get("status") == "False" and active.get("reason") == "FailedGetResourceMetric"


@lab.check(5, "live-replicas", hint="drift_hpa_fix")
def live_replicas(state):
    app = live(state, HPA, 5)
    repo(state)
    hpa, web = state.cluster.get("hpa"), live_web(state, HPA)
    sync, health, _ = live_status(app)
    desired, minimum = dig(hpa, "status", "desiredReplicas"), dig(hpa, "spec", "minReplicas")
    found = {"replicas": dig(web, "spec", "replicas"), "desiredReplicas": desired, "sync": sync, "health": health}
    expected = {"replicas": desired, "sync": "Synced", "health": "Healthy / Degraded (FailedGetResourceMetric)"}
    revision = dig(app, "status", "sync", "revision")
    if revision in state.repo.commits and fights(state, revision) and not fix_in_force(state, app)["ignore-differences"]:
        return failed("hpa_still_fighting", expected=expected, found=found, name=HPA, sha=revision[:7])
    healthy = health == "Healthy" or (health == "Degraded" and metric_degraded(hpa))
    if hpa is not None and is_integer(desired) and is_integer(minimum) and found["replicas"] == desired >= minimum \
            and sync == "Synced" and healthy:
        return passed("hpa_live_ok", expected=expected, found=found, name=HPA)
    stop_if(still_syncing(state, app, HPA, expected, found))
    return failed("hpa_live_wrong", expected=expected, found=found, name=HPA)
