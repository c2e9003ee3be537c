"""capa-drift step 1: drift-oneway, automated without selfHeal, pinned to the layout commit; a
`kubectl scale` stays, Argo CD shows it OutOfSync and does nothing (obs §1: autoSync skips a
revision it already synced, argo-cd controller/appcontroller.go:2396)."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    ARGOCD_MANAGER,
    history,
    live_status,
    spec_judge,
    unix_time,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import images, repository_checks
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, is_integer
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import field_owners
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.application import (
    TWINS,
    adding_commit,
    drift_problems,
    existing_web,
    live,
    repo,
    web_at,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import (
    IMAGE,
    ONEWAY,
    WEB,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

repository_checks(lab)

BASELINE = {"replicas": 2, "image": IMAGE}
# Managers that are not a person: Argo CD's applies and the Deployment controller's status.
CONTROLLERS = (ARGOCD_MANAGER, "kube-controller-manager")


def baseline_of(doc):
    return {"replicas": dig(doc, "spec", "replicas"), "image": (images(doc) or [None])[0]}


@lab.check(1, "oneway-commit", hint="drift_layout")
def oneway_commit(state):
    repo(state)
    sha = adding_commit(state, WEB[ONEWAY])
    if sha is None:
        return failed("drift_no_adding_commit", expected=BASELINE, found=None, path=WEB[ONEWAY])
    found = baseline_of(web_at(state, ONEWAY, sha))
    if found != BASELINE or not is_integer(found["replicas"]):
        return failed("drift_adding_commit_wrong", expected=BASELINE, found=found, path=WEB[ONEWAY], sha=sha[:7])
    return passed("drift_adding_commit_ok", expected=BASELINE, found=found, path=WEB[ONEWAY], sha=sha[:7])


def pinned_revision(state, app):
    """The full SHA drift-oneway's targetRevision names, lower case, or None."""
    revision = dig(app, "spec", "source", "targetRevision")
    return revision.lower() if isinstance(revision, str) and re.fullmatch(r"[0-9a-fA-F]{40}", revision) else None


def oneway_problems(state, app, where):
    problems = drift_problems(state, app, where, ONEWAY, {"selfHeal": False, "prune": False}, revision=None)
    revision = dig(app, "spec", "source", "targetRevision")
    sha = pinned_revision(state, app)
    baseline = state.repo.ok and sha in state.repo.commits and baseline_of(web_at(state, ONEWAY, sha)) == BASELINE
    if not baseline:
        problems.append(("spec.source.targetRevision", "<SHA: oneway/web.yaml replicas 2>", revision))
    return problems


TWINS[ONEWAY].checks(lab, 1, spec_judge(oneway_problems), hint="drift_oneway_app")


def web_resource(app):
    """drift-oneway's status.resources entry of Deployment web, or None."""
    for entry in dig(app, "status", "resources", default=[]) or []:
        if isinstance(entry, dict) and (entry.get("group"), entry.get("kind"), entry.get("name")) == ("apps", "Deployment",
                                                                                                      "web"):
            return entry
    return None


def drift_facts(state, step=1):
    """(app, live Deployment, git replicas at the synced revision) or the check ends."""
    app = live(state, ONEWAY, step)
    web = existing_web(state, ONEWAY)
    repo(state)
    revision = dig(app, "status", "sync", "revision")
    git = dig(web_at(state, ONEWAY, revision), "spec", "replicas") if revision in state.repo.commits else None
    return app, web, git


@lab.check(1, "drift-live", hint="drift_oneway_scale")
def drift_live(state):
    app, web, git = drift_facts(state)
    sync, health, _ = live_status(app)
    found = {"sync": sync, "health": health, "web": dig(web_resource(app), "status"),
             "live_replicas": dig(web, "spec", "replicas"), "git_replicas": git}
    expected = {"sync": "OutOfSync", "health": "Healthy", "web": "OutOfSync", "live_replicas": f"≠ {git}",
                "git_replicas": git}
    drifted = is_integer(found["live_replicas"]) and found["live_replicas"] != git
    if (sync, health, found["web"]) == ("OutOfSync", "Healthy", "OutOfSync") and drifted:
        return passed("drift_still_there", expected=expected, found=found, name=ONEWAY)
    return failed("drift_gone", expected=expected, found=found, name=ONEWAY)


@lab.check(1, "drift-by-hand", hint="drift_oneway_untouched")
def drift_by_hand(state):
    app, web, _ = drift_facts(state)
    entries = history(app)
    operation = dig(app, "status", "operationState", default={}) or {}
    finished = unix_time(operation.get("finishedAt"))
    first_sync = bool(entries) and not dig(operation, "operation", "sync", "resources") \
        and operation.get("startedAt") == entries[0].get("deployStartedAt")
    # The last writer of a field owns it, so a non-controller owner of replicas means Argo CD has
    # not written them since. `kubectl scale` (an Update of the scale subresource) leaves its entry
    # without a `time` (observed on the plane, docs/argocd-observations.md, question F): only an
    # entry that has a time must be later than the creation sync.
    by_hand = [e.get("manager") for e in field_owners(web, "f:spec", "f:replicas")
               if e.get("manager") not in CONTROLLERS and finished is not None
               and (unix_time(e.get("time")) or finished) >= finished]
    found = {"history": len(entries), "operation": "creation-sync" if first_sync else "later-sync",
             "replicas_owner": by_hand or None}
    expected = {"history": 1, "operation": "creation-sync", "replicas_owner": "≠ argocd-controller"}
    if len(entries) == 1 and first_sync and by_hand:
        return passed("drift_untouched", expected=expected, found=found, name=ONEWAY, manager=by_hand[0])
    return failed("drift_touched", expected=expected, found=found, name=ONEWAY)


@lab.check(1, "oneway-evidence", hint="drift_oneway_evidence")
def oneway_evidence(state):
    values = {key: require(evidence_field(state, "oneway.json", key, kind)) for key, kind in (
        ("sync", "string"), ("health", "string"), ("git_replicas", "integer"), ("live_replicas", "integer"))}
    app, web, _ = drift_facts(state)
    sync, health, _ = live_status(app)
    sha = pinned_revision(state, app)
    truth = {"sync": sync, "health": health,
             "git_replicas": dig(web_at(state, ONEWAY, sha), "spec", "replicas") if sha in state.repo.commits else None,
             "live_replicas": dig(web, "spec", "replicas")}
    wrong = {k: v for k, v in values.items() if v != truth[k]}
    if wrong:
        return failed("value_mismatch", expected={k: truth[k] for k in wrong}, found=wrong,
                      what="oneway.json")
    return passed("value_ok", expected=truth, found=values, what="oneway.json")
