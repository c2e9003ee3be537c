"""Step 7 of capa-src: ignoreDifferences with RespectIgnoreDifferences leaves scaled replicas alone."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    ARGOCD_MANAGER,
    automated_enabled,
    ignore_rule_covers,
    sync_options,
    verdict_from_problems,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import (
    blocked,
    evidence_field,
    evidence_fields,
    same_value,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import replicas_owner
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.definition import KUST, KUST_APP, lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.step4_kustomize import image_problems
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

IGNORE_RULE = {"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}


def ignores_prod_api_replicas(rule):
    """The rule the lab asks for, as Argo CD applies it to prod-api (checks/argocd.py)."""
    return ignore_rule_covers(rule, "apps", "Deployment", "prod-api", KUST_APP, "/spec/replicas")


def ignore_problems(state, app):
    """The problems of step 7's Application settings (the check ends when kustomize cannot run)."""
    problems = []
    rules = dig(app, "spec", "ignoreDifferences", default=[])
    rules = rules if isinstance(rules, list) else []
    if not any(ignores_prod_api_replicas(r) for r in rules):
        problems.append(("spec.ignoreDifferences", [IGNORE_RULE], dig(app, "spec", "ignoreDifferences")))
    options = sync_options(app)
    for option in ("RespectIgnoreDifferences=true", "CreateNamespace=true"):
        if option not in options:
            problems.append(("spec.syncPolicy.syncOptions", option, dig(app, "spec", "syncPolicy", "syncOptions")))
    if not automated_enabled(app) or dig(app, "spec", "syncPolicy", "automated", "selfHeal") is not True:
        problems.append(("spec.syncPolicy.automated.selfHeal", True, dig(app, "spec", "syncPolicy", "automated")))
    return problems + require(image_problems(state, app))


def ignore_verdict(state, app, what):
    problems = ignore_problems(state, app)
    respect_missing = any(f == "spec.syncPolicy.syncOptions" and e == "RespectIgnoreDifferences=true"
                          for f, e, _ in problems)
    verdict = verdict_from_problems(problems, what, "ignore_differences")
    if respect_missing and len(problems) == 1:
        return failed("respect_ignore_missing", expected="RespectIgnoreDifferences=true",
                      found=problems[0][2], what=what, hint="ignore_differences")
    return verdict


KUST.checks(lab, 7, lambda state, app, where: ignore_verdict(state, app, where.what), "ignore_differences",
            blocked_by=4)


@lab.check(7, "live-replicas", hint="ignore_differences")
def kust_live_replicas(state):
    app = KUST.live(state, 7, blocked_by=4)
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return blocked(4, "live_object_missing", what="Deployment src-kust/prod-api")
    expected = {"prod-api spec.replicas": 4, "src-kust sync": "Synced"}
    found = {"prod-api spec.replicas": dig(deployment, "spec", "replicas"),
             "src-kust sync": dig(app, "status", "sync", "status")}
    if found != expected:
        return failed("live_values_mismatch", expected=expected, found=found, what="src-kust / prod-api")
    return passed("live_values_ok", expected=expected, found=found, what="src-kust / prod-api")


@lab.check(7, "ignore-times", hint="json_types")
def ignore_times(state):
    values = require(evidence_fields(state, "ignore.json", ("scaled_at", "checked_at"), "integer"))
    if max(values.values()) > state.now + 300:  # five minutes of clock skew are forgiven
        return failed("time_in_future", expected=f"<= {int(state.now)}", found=values)
    waited = values["checked_at"] - values["scaled_at"]
    if waited < 40:
        return failed("waited_too_short", expected=">= 40", found=waited, waited=waited, hint="ignore_differences")
    return passed("waited_ok", expected=">= 40", found=waited, waited=waited)


@lab.check(7, "ignore-replicas", hint="json_types")
def ignore_replicas(state):
    value = require(evidence_field(state, "ignore.json", "replicas", "integer"))
    return same_value(value, 4, "ignore.json replicas", hint="ignore_differences")


@lab.check(7, "ignore-sync-status", hint="ignore_differences")
def ignore_sync_status(state):
    value = require(evidence_field(state, "ignore.json", "sync_status", "string"))
    return same_value(value, "Synced", "ignore.json sync_status")


# kubectl scale writes the /scale subresource and sets no field manager, so the manager is the
# user-agent prefix: "kubectl" (apiserver managerOrUserAgent). Some reports say "kubectl-scale";
# under k3s it may be "k3s" when run as `k3s kubectl`. UNVERIFIED which one v1.3x k3s shows:
# accept any of them, keyed on subresource "scale" (argocd-facts.md §7.3).
SCALE_MANAGERS = ("kubectl", "kubectl-scale", "k3s")


@lab.check(7, "replicas-owner", hint="managed_fields")
def replicas_owner_live(state):
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return blocked(4, "live_object_missing", what="Deployment src-kust/prod-api")
    owner = replicas_owner(deployment)
    found = {"manager": dig(owner, "manager"), "subresource": dig(owner, "subresource")}
    expected = {"manager": " | ".join(SCALE_MANAGERS), "subresource": "scale"}
    if owner is None or owner.get("manager") == ARGOCD_MANAGER or owner.get("subresource") != "scale":
        return failed("replicas_not_scaled", expected=expected, found=found)
    if owner.get("manager") not in SCALE_MANAGERS:
        return failed("replicas_not_scaled", expected=expected, found=found)
    return passed("live_values_ok", expected=expected, found=found, what="prod-api managedFields")


