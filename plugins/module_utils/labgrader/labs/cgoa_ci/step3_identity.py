"""cgoa-ci step 3: a CI identity that cannot write prod (its ServiceAccount, Role and RoleBinding,
the API server's answers about it, its kubeconfig and token) and Argo CD's own kubeconfig."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import file_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.kubeconfig import (
    current_context,
    jwt_claims,
    same_cluster,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, is_integer
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.reads import ACCESS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import (
    CI_NS,
    DRYRUN_NS,
    TOKEN_LIFETIME,
    TOKEN_SKEW,
    VALIDATOR,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import errored, failed, passed


@lab.check(3, "service-account", hint="ci_rbac")
def service_account(state):
    what = f"ServiceAccount {CI_NS}/validator"
    if state.cluster.get("validator_sa") is None:
        return failed("rbac_object_missing", expected=True, found=False, what=what)
    return passed("rbac_object_ok", expected=True, found=True, what=what)


ROLE_RULE = {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "get", "patch"]}


def rule_shape(rule):
    rule = rule if isinstance(rule, dict) else {}
    return {key: sorted(str(v) for v in rule.get(key) or []) for key in ("apiGroups", "resources", "verbs")} | (
        {"resourceNames": rule["resourceNames"]} if rule.get("resourceNames") else {})


@lab.check(3, "role", hint="ci_rbac")
def role(state):
    obj = state.cluster.get("role")
    what = f"Role {DRYRUN_NS}/dryrun-deployments"
    if obj is None:
        return failed("rbac_object_missing", expected=[ROLE_RULE], found=None, what=what)
    rules = [rule_shape(r) for r in obj.get("rules") or []]
    if rules != [ROLE_RULE]:
        return failed("rbac_object_wrong", expected=[ROLE_RULE], found=rules, what=f"{what} rules")
    return passed("rbac_object_ok", expected=[ROLE_RULE], found=rules, what=what)


@lab.check(3, "role-binding", hint="ci_rbac")
def role_binding(state):
    obj = state.cluster.get("binding")
    what = f"RoleBinding {DRYRUN_NS}/validator-dryrun"
    expected = {"roleRef": {"kind": "Role", "name": "dryrun-deployments"},
                "subject": {"kind": "ServiceAccount", "namespace": CI_NS, "name": "validator"}}
    if obj is None:
        return failed("rbac_object_missing", expected=expected, found=None, what=what)
    subjects = [{k: s.get(k) for k in ("kind", "namespace", "name")} for s in obj.get("subjects") or []
                if isinstance(s, dict)]
    found = {"roleRef": {k: dig(obj, "roleRef", k) for k in ("kind", "name")},
             "subject": expected["subject"] if expected["subject"] in subjects else subjects}
    if found != expected:
        return failed("rbac_object_wrong", expected=expected, found=found, what=what)
    return passed("rbac_object_ok", expected=expected, found=found, what=what)


def access_answers(state, allowed):
    """[(verb, resource, namespace or "", answer)] for the SubjectAccessReviews expected to answer
    `allowed`."""
    return [(verb, resource, ns, dig(state.cluster.get(f"sar_{name}"), "allowed"))
            for name, verb, _, resource, ns, expect in ACCESS if expect is allowed]


def access_verdict(state, allowed):
    """Expected and found are keyed by the question as `kubectl auth can-i` asks it (the same in
    every language); the message names the wrong answers in the learner's language."""
    answers = access_answers(state, allowed)
    found = {f"{verb} {resource} " + (f"-n {ns}" if ns else "-A"): answer for verb, resource, ns, answer in answers}
    expected = dict.fromkeys(found, allowed)
    wrong = [{"key": "phrase_access_answer" if ns else "phrase_access_answer_all", "verb": verb,
              "resource": resource, "namespace": ns, "wanted": str(allowed), "answer": str(answer)}
             for verb, resource, ns, answer in answers if answer is not allowed]
    if wrong:
        return failed("access_wrong", expected=expected, found=found, details_items=wrong)
    return passed("access_ok", expected=expected, found=found)


@lab.check(3, "access-dryrun", hint="ci_rbac")
def access_dryrun(state):
    return access_verdict(state, True)


@lab.check(3, "no-access-prod", hint="ci_rbac")
def no_access_prod(state):
    # Refusals of an identity that does not exist prove nothing about the learner's RBAC.
    if state.cluster.get("validator_sa") is None:
        return failed("rbac_object_missing", expected=True, found=None, what="ServiceAccount ci/validator")
    return access_verdict(state, False)


def kubeconfig_context(state, name):
    """The context fields of a workspace kubeconfig, or the check ends with why not. A YAML
    parser's error is not shown: it quotes the text, and a kubeconfig's text holds a token."""
    read = state.files[name]
    if read.problem == "invalid_kubeconfig":
        stop_if(failed("kubeconfig_unreadable", path=read.path, problem=read.detail, hint="ci_kubeconfig"))
    if not read.ok:
        stop_if(file_problem(read, hint="ci_kubeconfig"))
    return current_context(read.data[0])


def admin(state):
    """The VM's admin server and CA, or the check ends in ERROR: it is the grader's environment."""
    k3s = state.probes["k3s"]
    if "error" in k3s:
        stop_if(errored("admin_kubeconfig_unreadable", detail=k3s["error"]))
    return k3s


@lab.check(3, "ci-kubeconfig", hint="ci_kubeconfig")
def ci_kubeconfig(state):
    context = kubeconfig_context(state, "ci-kubeconfig")
    k3s = admin(state)
    found = {**same_cluster(context, k3s), "namespace": context["namespace"], "token": context["token"] is not None}
    expected = {"server": True, "CA data": True, "namespace": DRYRUN_NS, "token": True}
    # (no "bearer" before a word here: the scrubber redacts "Bearer <anything>" from every message)
    if found != expected:
        return failed("kubeconfig_wrong", expected=expected, found=found, what_key="phrase_ci_kubeconfig_parts")
    return passed("kubeconfig_ok", expected=expected, found=found, what_key="phrase_ci_kubeconfig_parts")


@lab.check(3, "ci-token-identity", hint="ci_kubeconfig")
def ci_token_identity(state):
    context = kubeconfig_context(state, "ci-kubeconfig")
    if context["token"] is None:
        return failed("token_missing", expected=VALIDATOR, found=None, path=state.files["ci-kubeconfig"].path)
    review = state.cluster.get("token_review") or {}
    if not review.get("authenticated"):
        # TokenReview status.error, e.g. '[invalid bearer token, serviceaccounts "validator" not
        # found]' once the ServiceAccount is deleted (observed on the plane); "bearer token" is
        # shortened so that the scrubber leaves the reason readable.
        error = dig(review, "error")
        if not error:
            return failed("token_rejected", expected=VALIDATOR, found=None, reason_key="phrase_no_reason")
        return failed("token_rejected", expected=VALIDATOR, found=None,
                      reason=re.sub(r"(?i)\bbearer token\b", "token", str(error)))
    user = dig(review, "user", "username")
    if user != VALIDATOR:
        return failed("token_user_wrong", expected=VALIDATOR, found=user)
    return passed("token_user_ok", expected=VALIDATOR, found=user)


@lab.check(3, "ci-token-lifetime", hint="ci_kubeconfig")
def ci_token_lifetime(state):
    context = kubeconfig_context(state, "ci-kubeconfig")
    if context["token"] is None:
        return failed("token_missing", expected=TOKEN_LIFETIME, found=None, path=state.files["ci-kubeconfig"].path)
    claims = jwt_claims(context["token"]) or {}
    if not (is_integer(claims.get("iat")) and is_integer(claims.get("exp"))):
        return failed("token_not_jwt", expected=TOKEN_LIFETIME, found=None)
    lifetime = claims["exp"] - claims["iat"]
    if abs(lifetime - TOKEN_LIFETIME) > TOKEN_SKEW:
        return failed("token_lifetime_wrong", expected=TOKEN_LIFETIME, found=lifetime)
    return passed("token_lifetime_ok", expected=TOKEN_LIFETIME, found=lifetime)


@lab.check(3, "argocd-kubeconfig", hint="ci_argocd_kubeconfig")
def argocd_kubeconfig(state):
    context = kubeconfig_context(state, "kubeconfig")
    k3s = admin(state)
    found = {**same_cluster(context, k3s), "namespace": context["namespace"]}
    expected = {"server": True, "CA data": True, "namespace": state.site.argocd_namespace}
    if found != expected:
        return failed("kubeconfig_wrong", expected=expected, found=found, what_key="phrase_argocd_kubeconfig_parts")
    return passed("kubeconfig_ok", expected=expected, found=found, what_key="phrase_argocd_kubeconfig_parts")
