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

# One check per answer of report.json: (check name, key, JSON type, the true answer, hint, the
# earlier evidence file whose value the answer must agree with, or None).
ANSWERS = (
    ("helm-winner", "helm_winner", "string", "parameters", "helm_precedence",
     Agrees("precedence.json", "greeting", lambda v: v == PRECEDENCE_GREETING, PRECEDENCE_GREETING)),
    ("replicas-winner", "replicas_winner", "string", "valuesObject", "helm_precedence", None),
    ("helm-installed", "helm_installed", "boolean", False, "helm_template_only",
     Agrees("tracking.json", "helm_release_secrets", lambda v: v == 0 and not isinstance(v, bool), 0)),
    ("image-source", "image_source", "string", "application", "kustomize_images", None),
    ("hook-blocked-sync", "hook_blocked_sync", "boolean", True, "hook_failed_phase",
     Agrees("failed-hook.json", "live_mode", lambda v: v != "green", "live_mode != green")),
)


def answer_check(key, json_type, truth, hint, agrees_with):
    def check(state):
        return report_answer(state, key, json_type, truth, hint, agrees_with)
    return check


for _name, _key, _type, _truth, _hint, _agrees in ANSWERS:
    lab.check(8, _name, hint=_hint)(answer_check(_key, _type, _truth, _hint, _agrees))


@lab.check(8, "replicas-owner", hint="managed_fields")
def report_replicas_owner(state):
    value = require(evidence_field(state, "report.json", "replicas_owner", "string"))
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return blocked(4, "live_object_missing", what="Deployment src-kust/prod-api")
    owner = dig(replicas_owner(deployment), "manager")
    return same_value(value, owner, "report.json replicas_owner")


