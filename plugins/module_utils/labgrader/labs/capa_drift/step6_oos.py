"""capa-drift step 6: drift-oos; with the default (three-way, not server-side) diff only a value
git sets and the API server replaces stays OutOfSync: the Service's `clusterIP: ""` (obs §6;
ServerSideDiff off, argo-cd cmd/argocd-application-controller/commands/
argocd_application_controller.go:305). The API server fills clusterIP on create (k8s
pkg/registry/core/service/storage/alloc.go:305 txnAllocClusterIPs, :340 allocClusterIPs)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    ignored_by,
    live_status,
    spec_judge,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field, same_value
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import repo_blocked
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.application import (
    TWINS,
    at,
    drift_problems,
    live,
    object_in,
    oldest_first,
    repo,
    still_syncing,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import NAMESPACES, OOS, SVC_YAML
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

TWINS[OOS].checks(lab, 6, spec_judge(lambda state, app, where: drift_problems(state, app, where, OOS)), hint="drift_oos_app")

POINTER = "/spec/clusterIP"
DIFF = {"kind": "Service", "name": "web", "namespace": NAMESPACES[OOS], "field": POINTER}


def service_at(state, sha):
    return object_in(at(state, SVC_YAML, sha), "Service", "web")


def empty_cluster_ip(doc):
    return doc is not None and dig(doc, "spec", "clusterIP", default=None) == ""


@lab.check(6, "oos-in-git", hint="drift_oos_git")
def oos_in_git(state):
    repo(state)
    found = [sha for sha in oldest_first(state) if empty_cluster_ip(service_at(state, sha))]
    if found:
        return passed("oos_git_ok", expected='clusterIP: ""', found=found[0][:7], sha=found[0][:7])
    return failed("oos_git_missing", expected='clusterIP: ""', found=None, path=SVC_YAML)


@lab.check(6, "diff-evidence", hint="drift_oos_diff")
def diff_evidence(state):
    values = {key: require(evidence_field(state, "diff.json", key, "string")) for key in DIFF}
    if values == DIFF:
        return passed("value_ok", expected=DIFF, found=values, what="diff.json")
    if values["kind"] == "Deployment" and values["namespace"] == DIFF["namespace"]:
        return failed("oos_diff_normalised", expected=DIFF, found=values, name=OOS)
    return failed("value_mismatch", expected=DIFF, found=values, what="diff.json")


@lab.check(6, "filled-by", hint="drift_oos_filled_by")
def filled_by(state):
    value = require(evidence_field(state, "diff.json", "filled_by", "string"))
    return same_value(value, "api-server", "diff.json filled_by", hint="drift_oos_filled_by")


FIXES = ("ignore-differences", "removed-from-git", "explicit-in-git")


@lab.check(6, "cleared", hint="drift_oos_fix")
def cleared(state):
    fix = require(evidence_field(state, "diff.json", "fix", "string"))
    if fix not in FIXES:
        return failed("value_mismatch", expected=list(FIXES), found=fix, what="diff.json fix")
    app = live(state, OOS, 6)
    repo(state)
    head = service_at(state, state.repo.head)
    live_ip = dig(state.cluster.get("oos_service"), "spec", "clusterIP")
    holding = {
        "ignore-differences": bool(ignored_by(app, "", "Service", "web", NAMESPACES[OOS], POINTER)),
        "removed-from-git": isinstance(dig(head, "spec"), dict) and "clusterIP" not in head["spec"],
        "explicit-in-git": head is not None and live_ip is not None and dig(head, "spec", "clusterIP") == live_ip,
    }
    if holding[fix]:
        return passed("oos_fix_holds", expected=fix, found=holding, fix=fix)
    return failed("oos_fix_missing", expected={fix: True}, found=holding, fix=fix)


@lab.check(6, "all-synced", hint="drift_oos_fix")
def all_synced(state):
    app = live(state, OOS, 6)
    sync = live_status(app)[0]
    resources = [r for r in dig(app, "status", "resources", default=[]) or [] if isinstance(r, dict)]
    drifted = [f"{r.get('kind')}/{r.get('name')}" for r in resources if r.get("status") != "Synced"]
    found = {"sync": sync, "not_synced": drifted or None}
    expected = {"sync": "Synced", "not_synced": None}
    if sync == "Synced" and resources and not drifted:
        return passed("oos_all_synced", expected=expected, found=found, name=OOS)
    if repo_blocked(state) is None:
        stop_if(still_syncing(state, app, OOS, expected, found))
    return failed("oos_not_synced", expected=expected, found=found, name=OOS)
