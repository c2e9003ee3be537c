"""Step 8 of capa-src: who decided each value (report.json), tied to the earlier evidence."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import (
    Agrees,
    blocked,
    evidence_field,
    report_answer,
    same_value,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import replicas_owner
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.step1_helm import PRECEDENCE_GREETING


@lab.check(8, "helm-winner", hint="helm_precedence")
def report_helm_winner(state):
    return report_answer(state, "helm_winner", "string", "parameters", "helm_precedence",
                         Agrees("precedence.json", "greeting", lambda v: v == PRECEDENCE_GREETING, PRECEDENCE_GREETING))


@lab.check(8, "replicas-winner", hint="helm_precedence")
def report_replicas_winner(state):
    return report_answer(state, "replicas_winner", "string", "valuesObject", "helm_precedence")


@lab.check(8, "helm-installed", hint="helm_template_only")
def report_helm_installed(state):
    return report_answer(state, "helm_installed", "boolean", False, "helm_template_only",
                         Agrees("tracking.json", "helm_release_secrets",
                                lambda v: v == 0 and not isinstance(v, bool), 0))


@lab.check(8, "image-source", hint="kustomize_images")
def report_image_source(state):
    return report_answer(state, "image_source", "string", "application", "kustomize_images")


@lab.check(8, "hook-blocked-sync", hint="hook_failed_phase")
def report_hook_blocked(state):
    return report_answer(state, "hook_blocked_sync", "boolean", True, "hook_failed_phase",
                         Agrees("failed-hook.json", "live_mode", lambda v: v != "green", "live_mode != green"))


@lab.check(8, "replicas-owner", hint="managed_fields")
def report_replicas_owner(state):
    value = require(evidence_field(state, "report.json", "replicas_owner", "string"))
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return blocked(4, "live_object_missing", what="Deployment src-kust/prod-api")
    owner = dig(replicas_owner(deployment), "manager")
    return same_value(value, owner, "report.json replicas_owner")


