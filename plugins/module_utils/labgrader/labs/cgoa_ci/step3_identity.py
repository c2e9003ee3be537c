"""cgoa-ci step 3: a CI identity that cannot write prod (its ServiceAccount, Role and RoleBinding,
the API server's answers about it, its kubeconfig and token) and Argo CD's own kubeconfig."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import file_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.kubeconfig import (
    current_context,
    jwt_claims,
    same_cluster,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import OutOfTime
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, is_integer
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.reads import access_questions
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import (
    CI_NS,
    DRYRUN_NS,
    TOKEN_LIFETIME,
    TOKEN_SKEW,
    VALIDATOR,
    VALIDATOR_GROUPS,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import errored, failed, passed


@lab.check(3, "service-account", hint="ci_rbac")
def service_account(state):
    what = f"ServiceAccount {CI_NS}/validator"
    if state.cluster.get("validator_sa") is None:
        return failed("rbac_object_missing", expected=True, found=False, what=what)
    return passed("rbac_object_ok", expected=True, found=True, what=what)


ROLE_VERBS = ("create", "get", "patch")


def rule_allows(rule, verb, group, resource):
    """Whether one PolicyRule allows `verb` on `resource` of `group` (no name), as the RBAC
    authorizer decides it: pkg/apis/rbac/v1/evaluation_helpers.go VerbMatches, APIGroupMatches,
    ResourceMatches ("*" matches any) and ResourceNameMatches (a rule naming resourceNames never
    matches a request without a name, such as a create)."""
    rule = rule if isinstance(rule, dict) else {}

    def has(key, value):
        values = rule.get(key) if isinstance(rule.get(key), list) else []
        return "*" in values or value in values
    return (has("verbs", verb) and has("apiGroups", group) and has("resources", resource)
            and not rule.get("resourceNames"))


def role_grants(role):
    """{verb: bool} for the verbs the lab's Role must allow on deployments.apps, by its rules
    however they are split or ordered."""
    rules = role.get("rules") if isinstance(role.get("rules"), list) else []
    return {verb: any(rule_allows(rule, verb, "apps", "deployments") for rule in rules) for verb in ROLE_VERBS}


@lab.check(3, "role", hint="ci_rbac")
def role(state):
    """The Role named by the lab, judged by what its rules allow; what the identity may do beyond
    that (a "*", a second binding) is what the API server answers (no-access-prod)."""
    obj = state.cluster.get("role")
    expected = dict.fromkeys(ROLE_VERBS, True)
    if obj is None:
        return failed("rbac_object_missing", expected=expected, found=None, what=f"Role {DRYRUN_NS}/dryrun-deployments")
    found = role_grants(obj)
    if found != expected:
        return failed("rbac_object_wrong", expected=expected, found=found, what_key="phrase_role_grants")
    return passed("rbac_object_ok", expected=expected, found=found, what_key="phrase_role_grants")


def applies_to_validator(subject, namespace):
    """Whether a binding's subject (in a binding of `namespace`) names ci:validator as the RBAC
    authorizer matches it (pkg/registry/rbac/validation/rule.go appliesToUser): a User by its
    user name, a Group by one of the identity's groups, a ServiceAccount by namespace (the
    binding's own when it names none) and name."""
    subject = subject if isinstance(subject, dict) else {}
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "User":
        return name == VALIDATOR
    if kind == "Group":
        return name in VALIDATOR_GROUPS
    if kind == "ServiceAccount":
        return f"system:serviceaccount:{subject.get('namespace') or namespace}:{name}" == VALIDATOR
    return False


@lab.check(3, "role-binding", hint="ci_rbac")
def role_binding(state):
    """The RoleBinding named by the lab: its roleRef, and a subject that is ci:validator however
    it is spelled (found: the identity, or the subjects as written when none applies)."""
    obj = state.cluster.get("binding")
    what = f"RoleBinding {DRYRUN_NS}/validator-dryrun"
    expected = {"roleRef": {"kind": "Role", "name": "dryrun-deployments"}, "subject": VALIDATOR}
    if obj is None:
        return failed("rbac_object_missing", expected=expected, found=None, what=what)
    subjects = obj.get("subjects") if isinstance(obj.get("subjects"), list) else []
    binds = any(applies_to_validator(s, DRYRUN_NS) for s in subjects)
    found = {"roleRef": {k: dig(obj, "roleRef", k) for k in ("kind", "name")},
             "subject": VALIDATOR if binds else [{k: s.get(k) for k in ("kind", "namespace", "name")}
                                                 for s in subjects if isinstance(s, dict)]}
    if found != expected:
        return failed("rbac_object_wrong", expected=expected, found=found, what=what)
    return passed("rbac_object_ok", expected=expected, found=found, what=what)


def access_answers(state, allowed):
    """[(verb, resource, namespace, answer)] for the SubjectAccessReviews expected to answer
    `allowed`; namespace "" is every namespace, None a cluster-scoped resource."""
    return [(verb, resource, ns, dig(state.cluster.get(f"sar_{name}"), "allowed"))
            for name, verb, _, resource, ns, expect in access_questions(state.site) if expect is allowed]


ANSWER_PHRASES = {None: "phrase_access_answer_cluster", "": "phrase_access_answer_all"}


def question(verb, resource, ns):
    """The question as `kubectl auth can-i` asks it."""
    return f"{verb} {resource}" + {None: "", "": " -A"}.get(ns, f" -n {ns}")


def access_verdict(state, allowed):
    """Expected and found are keyed by the question as `kubectl auth can-i` asks it (the same in
    every language); the message names the wrong answers in the learner's language."""
    answers = access_answers(state, allowed)
    found = {question(verb, resource, ns): answer for verb, resource, ns, answer in answers}
    expected = dict.fromkeys(found, allowed)
    wrong = [{"key": ANSWER_PHRASES.get(ns, "phrase_access_answer"), "verb": verb, "resource": resource,
              "namespace": ns, "wanted": str(allowed), "answer": str(answer)}
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
        stop_if(failed("kubeconfig_unreadable", path=read.path, problem=read.detail, hint="ci_kubeconfig",
                       **i18n.phrase("problem", read.reason)))
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


def token_user(state):
    """(user name or None, why not) of the TokenReview of the ci-kubeconfig token alone. Its
    status.error is e.g. '[invalid bearer token, serviceaccounts "validator" not found]' once the
    ServiceAccount is deleted (observed on the plane); "bearer token" is shortened so that the
    scrubber leaves the reason readable."""
    review = state.cluster.get("token_review") or {}
    if review.get("authenticated"):
        return dig(review, "user", "username"), None
    error = dig(review, "error")
    return None, re.sub(r"(?i)\bbearer token\b", "token", str(error)) if error else None


@lab.check(3, "ci-token-identity", hint="ci_kubeconfig")
def ci_token_identity(state):
    """Who the API server authenticates for ci-kubeconfig as a whole (kubectl auth whoami with
    every credential of the file, run in the sandbox: a client certificate beside the token is
    authenticated first and wins), and, to say why, who its token alone is (TokenReview)."""
    context = kubeconfig_context(state, "ci-kubeconfig")
    if context["token"] is None:
        return failed("token_missing", expected=VALIDATOR, found=None, path=state.files["ci-kubeconfig"].path)
    whoami = state.probes.get("whoami") or {"error": "no record of kubectl auth whoami"}
    if "error" in whoami:
        stop_if(errored("sandbox_unavailable", detail=whoami["error"]))
    if whoami.get("out_of_time"):
        raise OutOfTime("phrase_run_script", probes=True, script="kubectl auth whoami")
    user, reason = token_user(state)
    whole = whoami.get("username")
    if whole == VALIDATOR:
        return passed("kubeconfig_identity_ok", expected=VALIDATOR, found=whole)
    if whole is not None and whole != user:
        return failed("kubeconfig_identity_wrong", expected=VALIDATOR, found=whole, groups=whoami.get("groups") or [],
                      credentials=[key for key in context["credentials"] if key != "token"])
    if user is None:
        extra = {"reason": reason} if reason else {"reason_key": "phrase_no_reason"}
        return failed("token_rejected", expected=VALIDATOR, found=None, **extra)
    if user != VALIDATOR:
        return failed("token_user_wrong", expected=VALIDATOR, found=user)
    output = whoami.get("failed") or whoami.get("not_run")
    extra = {"output": output} if output else {"output_key": "phrase_no_output"}
    return failed("kubeconfig_whoami_failed", expected=VALIDATOR, found=None, **extra)


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
