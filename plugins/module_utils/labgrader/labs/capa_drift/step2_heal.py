"""capa-drift step 2: drift-heal with automated.selfHeal; a change by hand reverted by Argo CD's
own operation, which adds no status.history entry (argo-cd controller/sync.go:408 persists
history only for a sync of all resources) and waits out the self-heal backoff (obs §2)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    ARGOCD_MANAGER,
    history,
    live_status,
    self_heal_due,
    self_heal_pending,
    self_heal_wait,
    spec_judge,
    unix_time,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import images
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import field_owners, managed_entries
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.application import (
    TWINS,
    drift_problems,
    existing_web,
    live,
    live_web,
    repo,
    still_syncing,
    web_at,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import HEAL
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

TWINS[HEAL].checks(lab, 2, spec_judge(lambda state, app, where: drift_problems(state, app, where, HEAL, {"selfHeal": True})),
                   hint="drift_heal_app")

# The fields a learner may change for the heal, and where managedFields keeps their owner
# (a container's fields are keyed by its name: k:{"name":"web"}).
FIELDS = {"spec.replicas": ("f:spec", "f:replicas"),
          "image": ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"web"}', "f:image")}
SLACK_SECONDS = 10  # the controller's queue and the learner's `date +%s` around the change
REVERT_SECONDS = 30  # how far reverted_at may be from the operation's finishedAt


def heal_operation_facts(app):
    """{what the last operation of drift-heal shows} as a heal would show it."""
    operation = dig(app, "status", "operationState", default={}) or {}
    entries = history(app)
    started = unix_time(operation.get("startedAt"))
    newest_sync = max((unix_time(e.get("deployStartedAt")) or 0 for e in entries), default=0)
    resources = dig(operation, "operation", "sync", "resources", default=[]) or []
    return {
        "phase": operation.get("phase"),
        "initiatedBy": dig(operation, "operation", "initiatedBy"),
        "resources": [f"{r.get('group', '')}/{r.get('kind')}/{r.get('name')}" for r in resources if isinstance(r, dict)],
        "autoHealAttemptsCount": dig(operation, "operation", "sync", "autoHealAttemptsCount"),
        "after_last_sync": started is not None and started > newest_sync
        and started > (unix_time(dig(app, "metadata", "creationTimestamp")) or 0),
    }


HEAL_SHAPE = {"phase": "Succeeded", "initiatedBy": {"automated": True}, "resources": ["apps/Deployment/web"],
              "autoHealAttemptsCount": "≥ 1", "after_last_sync": True}


def is_heal(facts):
    count = facts["autoHealAttemptsCount"]
    return (facts["phase"] == "Succeeded" and dig(facts["initiatedBy"], "automated") is True
            and "apps/Deployment/web" in facts["resources"] and isinstance(count, int) and count >= 1
            and facts["after_last_sync"])


@lab.check(2, "heal-operation", hint="drift_heal_again")
def heal_operation(state):
    app = live(state, HEAL, 2)
    facts = heal_operation_facts(app)
    if is_heal(facts):
        return passed("heal_found", expected=HEAL_SHAPE, found=facts, name=HEAL, count=facts["autoHealAttemptsCount"])
    if not facts["resources"] and dig(facts["initiatedBy"], "automated") is True:
        return failed("heal_replaced_by_sync", expected=HEAL_SHAPE, found=facts, name=HEAL)
    return failed("heal_not_found", expected=HEAL_SHAPE, found=facts, name=HEAL)


def heal_evidence_values(state):
    keys = (("field", "string"), ("changed_at", "integer"), ("reverted_at", "integer"),
            ("operation_started_at", "string"), ("initiated_by", "object"))
    return {key: require(evidence_field(state, "heal.json", key, kind)) for key, kind in keys}


def heal_or_stop(state):
    """(app, its operationState) when its last operation is a heal, else the check ends."""
    app = live(state, HEAL, 2)
    facts = heal_operation_facts(app)
    if not is_heal(facts):
        stop_if(failed("heal_not_found", expected=HEAL_SHAPE, found=facts, name=HEAL))
    return app, dig(app, "status", "operationState")


@lab.check(2, "heal-evidence", hint="drift_heal_evidence")
def heal_evidence(state):
    values = heal_evidence_values(state)
    if values["field"] not in FIELDS:
        return failed("heal_field_never_reverted" if values["field"].startswith("metadata.") else "value_mismatch",
                      expected=sorted(FIELDS), found=values["field"], what="heal.json field")
    _, operation = heal_or_stop(state)
    started, finished = unix_time(operation.get("startedAt")), unix_time(operation.get("finishedAt"))
    truth = {"initiated_by": dig(operation, "operation", "initiatedBy"), "operation_started_at": operation.get("startedAt")}
    wrong = {k: values[k] for k in truth if values[k] != truth[k]}
    if wrong:
        return failed("value_mismatch", expected={k: truth[k] for k in wrong}, found=wrong,
                      what="heal.json")
    if values["changed_at"] > started + SLACK_SECONDS or finished is None \
            or abs(values["reverted_at"] - finished) > REVERT_SECONDS:
        return failed("heal_times_other_revert", expected={"changed_at": f"≤ {started}", "reverted_at": f"≈ {finished}"},
                      found={"changed_at": values["changed_at"], "reverted_at": values["reverted_at"]},
                      started=operation.get("startedAt"), finished=operation.get("finishedAt"))
    return passed("heal_evidence_ok", expected=truth, found=values, started=operation.get("startedAt"))


@lab.check(2, "heal-timing", hint="drift_heal_backoff")
def heal_timing(state):
    values = heal_evidence_values(state)
    _, operation = heal_or_stop(state)
    count = dig(operation, "operation", "sync", "autoHealAttemptsCount")
    waited = (unix_time(operation.get("startedAt")) or 0) - values["changed_at"]
    limit = self_heal_wait(count) + SLACK_SECONDS
    found = {"waited": waited, "autoHealAttemptsCount": count}
    if -SLACK_SECONDS <= waited <= limit:
        return passed("heal_waited_ok", expected=f"≤ {limit}", found=found, waited=waited, count=count, limit=limit)
    return failed("heal_waited_wrong", expected=f"0..{limit}", found=found, waited=waited, count=count, limit=limit)


@lab.check(2, "heal-managed-fields", hint="drift_heal_managed_fields")
def heal_managed_fields(state):
    field = require(evidence_field(state, "heal.json", "field", "string"))
    _, operation = heal_or_stop(state)
    web = existing_web(state, HEAL)
    started = unix_time(operation.get("startedAt"))
    argocd = [unix_time(e.get("time")) or 0 for e in managed_entries(web) if e.get("manager") == ARGOCD_MANAGER]
    others = sorted({e.get("manager") for e in field_owners(web, *FIELDS.get(field, FIELDS["spec.replicas"]))
                     if e.get("manager") not in (ARGOCD_MANAGER, "kube-controller-manager")})
    found = {"argocd-controller": max(argocd, default=None), "other_owners": others or None}
    expected = {"argocd-controller": f"≥ {started}", "other_owners": None}
    if argocd and max(argocd) >= started and not others:
        return passed("heal_owner_ok", expected=expected, found=found)
    return failed("heal_owner_wrong", expected=expected, found=found, field=field)


@lab.check(2, "live-equals-git", hint="drift_heal_again")
def live_equals_git(state):
    app = live(state, HEAL, 2)
    web = live_web(state, HEAL)
    repo(state)
    revision = dig(app, "status", "sync", "revision")
    git = web_at(state, HEAL, revision) if revision in state.repo.commits else None
    expected = {"replicas": dig(git, "spec", "replicas"), "image": images(git), "sync": "Synced"}
    found = {"replicas": dig(web, "spec", "replicas"), "image": images(web), "sync": live_status(app)[0]}
    if found == expected and git is not None:
        return passed("heal_live_ok", expected=expected, found=found, name=HEAL)
    if self_heal_due(app):
        return self_heal_pending(app, HEAL, expected, found)
    stop_if(still_syncing(state, app, HEAL, expected, found))
    return failed("heal_live_differs", expected=expected, found=found, name=HEAL)
