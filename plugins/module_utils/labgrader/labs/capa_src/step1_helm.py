"""Steps 1-3 of capa-src: the chart in git and Application src-helm, which Helm value source wins,
and the tracking marks Argo CD writes instead of a Helm release."""

from __future__ import annotations

import posixpath
import secrets

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    DEFAULT_TRACKING_METHOD,
    INSTANCE_LABEL,
    TRACKING_ANNOTATION,
    TRACKING_METHOD_KEY,
    spec_judge,
    spec_problems,
    synced_healthy,
    tracking_id,
    tracking_marks,
    verdict_from_problems,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import (
    blocked,
    evidence,
    evidence_field,
    same_value,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import (
    images,
    object_verdict,
    repo_blocked,
    repo_url,
    repository_checks,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.helm import chart_name, template_path
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.repo_server import (
    helm_template,
    resolve_value_files,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.i18n import show
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import annotation
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.definition import HELM, HELM_APP, lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import errored, failed, passed
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import parse_yaml_text


def repo_tree(state):
    """bare main's files, or {} when the repository cannot be read (other checks say why)."""
    return state.repo.tree if state.repo.ok else {}


repository_checks(lab)


def chart_values(state, filename, expected):
    stop_if(repo_blocked(state))
    path = f"charts/web/{filename}"
    text = state.repo.tree.get(path)
    if text is None:
        return failed("git_file_missing", expected=expected, found=None, path=path)
    documents, error = parse_yaml_text(text)
    if error or not documents or not isinstance(documents[0], dict):
        return failed("git_file_invalid", expected=expected, found=error, path=path, detail=error or "")
    found = {key: documents[0].get(key) for key in expected}
    return object_verdict(path, expected, found)


@lab.check(1, "chart-yaml", hint="helm_chart")
def chart_yaml(state):
    return chart_values(state, "Chart.yaml", {"name": "web", "version": "0.1.0"})


@lab.check(1, "chart-values", hint="helm_chart")
def chart_default_values(state):
    return chart_values(state, "values.yaml", {"replicaCount": 1, "greeting": "chart-default"})


@lab.check(1, "chart-values-prod", hint="helm_chart")
def chart_prod_values(state):
    return chart_values(state, "values-prod.yaml", {"replicaCount": 2, "greeting": "from-values-file"})


CHART_DIR = "charts/web"
VALUES_PROD = f"{CHART_DIR}/values-prod.yaml"
# Values the grader passes as Application parameters (`--set`, as Argo CD passes
# spec.source.helm.parameters) to see which rendered fields follow them: unlike anything a
# learner writes, chosen per module call.
PROBE_GREETING = f"greeting-{secrets.token_hex(4)}"
PROBE_REPLICAS = 5 + secrets.randbelow(5)

TEMPLATE_FIELDS = {  # kind: [(what must hold, test on the object helm rendered)]
    "ConfigMap": [("data.greeting from .Values.greeting",
                   lambda doc: dig(doc, "data", "greeting") == PROBE_GREETING)],
    "Deployment": [("spec.replicas from .Values.replicaCount",
                    lambda doc: dig(doc, "spec", "replicas") == PROBE_REPLICAS
                    and not isinstance(dig(doc, "spec", "replicas"), bool)),
                   ("image nginx:1.27-alpine", lambda doc: "nginx:1.27-alpine" in images(doc))],
}


def chart_rendered(state):
    """charts/web at bare main rendered by helm as Argo CD renders Application src-helm (release
    src-helm, namespace src-helm), the chart's own values.yaml plus the grader's two parameters."""
    source = {"path": CHART_DIR, "helm": {"parameters": [
        {"name": "greeting", "value": PROBE_GREETING}, {"name": "replicaCount", "value": str(PROBE_REPLICAS)}]}}
    return helm_template(state.site.helm_binary, state.repo.tree, source, HELM_APP, HELM_APP)


def chart_template(state, kind, name_suffix):
    """A template under charts/web/templates that renders `kind` named `<release>-<suffix>` with
    the fields the lab asks for, judged on what `helm template` renders (helpers, include, tpl,
    toYaml and values.yaml as Helm reads them)."""
    stop_if(repo_blocked(state))
    templates = {p: t for p, t in state.repo.tree.items() if p.startswith(f"{CHART_DIR}/templates/") and t}
    fields = TEMPLATE_FIELDS[kind]
    expected = f"kind: {kind}, name: {{{{ .Release.Name }}}}-{name_suffix}, " + ", ".join(w for w, _ in fields)
    rendered = chart_rendered(state)
    if rendered.unavailable:
        return errored("tool_unavailable", tool="helm", detail=rendered.unavailable)
    if rendered.problem:
        return failed("helm_template_failed", expected=expected, found=rendered.problem, detail=rendered.problem)
    name = chart_name(state.repo.tree, CHART_DIR)
    for doc, source in zip(rendered.objects, rendered.sources, strict=True):
        if doc.get("kind") != kind or dig(doc, "metadata", "name") != f"{HELM_APP}-{name_suffix}":
            continue
        path = template_path(source, name, CHART_DIR)
        missing = [what for what, holds in fields if not holds(doc)]
        if missing:
            return failed("template_incomplete", expected=expected, found=missing, path=path,
                          missing=", ".join(missing))
        return passed("template_ok", expected=expected, found=path, path=path)
    return failed("template_missing", expected=expected, found=sorted(templates) or None, kind=kind,
                  name=f"{{{{ .Release.Name }}}}-{name_suffix}")


@lab.check(1, "template-configmap", hint="helm_chart")
def template_configmap(state):
    return chart_template(state, "ConfigMap", "greeting")


@lab.check(1, "template-deployment", hint="helm_chart")
def template_deployment(state):
    return chart_template(state, "Deployment", "web")


def value_files_resolve_to_prod(app, tree):
    helm = dig(app, "spec", "source", "helm")
    resolved, _ = resolve_value_files(helm if isinstance(helm, dict) else {}, tree, CHART_DIR)
    return resolved == [VALUES_PROD]


def value_files_verdict(app, what, tree):
    value_files = dig(app, "spec", "source", "helm", "valueFiles")
    if value_files_resolve_to_prod(app, tree):
        return passed("value_files_ok", expected=["values-prod.yaml"], found=value_files, what=what)
    if isinstance(value_files, list) and any(
            isinstance(v, str) and not v.startswith("/") and posixpath.normpath(v) == VALUES_PROD
            for v in value_files):
        return failed("value_files_repo_root", expected=["values-prod.yaml"], found=value_files, what=what,
                      hint="value_files_relative")
    return failed("value_mismatch", expected=["values-prod.yaml"], found=value_files,
                  what=f"{what} spec.source.helm.valueFiles", hint="value_files_relative")


def helm_app(state, app, where):
    """The Application src-helm renders charts/web; the live one also reads values-prod.yaml (the
    file's valueFiles are a check of their own)."""
    problems = spec_problems(app, state.site, repo_url(state), CHART_DIR, HELM_APP, where.live)
    if problems or not where.live:
        return verdict_from_problems(problems, where.what, where.hint)
    return value_files_verdict(app, where.what, repo_tree(state))


HELM.file_check(lab, 1, "app-file", helm_app, "application_manifest")


@lab.check(1, "app-file-value-files", hint="value_files_relative")
def helm_app_file_value_files(state):
    return value_files_verdict(HELM.in_file(state), HELM.file, repo_tree(state))


HELM.live_check(lab, 1, "live-app", helm_app, "application_apply")


@lab.check(1, "live-app-status", hint="app_sync_health")
def helm_live_status(state):
    return synced_healthy(HELM.live(state, 1), HELM_APP)


# ---------------------------------------------------------------- step 2

HELM_VALUES_OBJECT = {"replicaCount": 3, "greeting": "from-values-object"}
HELM_PARAMETER = {"name": "greeting", "value": "from-parameter"}
# Argo CD's order of Helm values: checks/helm.py.
PRECEDENCE_REPLICAS = 3
PRECEDENCE_GREETING = "from-parameter"


def helm_values_problems(app, tree):
    helm = dig(app, "spec", "source", "helm", default={})
    helm = helm if isinstance(helm, dict) else {}
    problems = []
    values_object = helm.get("valuesObject")
    found_values = {k: dig(values_object, k) for k in HELM_VALUES_OBJECT}
    if found_values != HELM_VALUES_OBJECT:
        problems.append(("spec.source.helm.valuesObject", HELM_VALUES_OBJECT, values_object))
    parameters = helm.get("parameters")
    named = [p for p in parameters if isinstance(p, dict)] if isinstance(parameters, list) else []
    if not any(p.get("name") == "greeting" and str(p.get("value")) == "from-parameter" for p in named):
        problems.append(("spec.source.helm.parameters", [HELM_PARAMETER], parameters))
    if not value_files_resolve_to_prod(app, tree):
        problems.append(("spec.source.helm.valueFiles", ["values-prod.yaml"], helm.get("valueFiles")))
    return problems


HELM.checks(lab, 2, spec_judge(lambda state, app, where: helm_values_problems(app, repo_tree(state))),
            "helm_precedence", names=("app-file-values", "live-app-values"), blocked_by=1)


def recorded_vs_live(recorded, truth, live, what, truth_hint):
    """The learner's value must equal Argo CD's precedence result and the live cluster."""
    if recorded != truth or type(recorded) is bool:
        return failed("value_mismatch", expected=truth, found=recorded, what=what, hint=truth_hint)
    if live is None:
        return blocked(1, "live_object_missing", what=what)
    if live != truth:
        return failed("live_disagrees", expected=truth, found=live, what=what, recorded=show(recorded),
                      hint="app_sync_health")
    return passed("value_ok", expected=truth, found=recorded, what=what)


@lab.check(2, "precedence-replicas", hint="helm_precedence")
def precedence_replicas(state):
    value = require(evidence_field(state, "precedence.json", "replicas", "number"))
    deployment = state.cluster.find("helm_deployments", f"{HELM_APP}-web")
    live = dig(deployment, "spec", "replicas") if deployment else None
    return recorded_vs_live(value, PRECEDENCE_REPLICAS, live, "precedence.json replicas", "helm_precedence")


@lab.check(2, "precedence-greeting", hint="helm_precedence")
def precedence_greeting(state):
    value = require(evidence_field(state, "precedence.json", "greeting", "string"))
    configmap = state.cluster.find("helm_configmaps", f"{HELM_APP}-greeting")
    live = dig(configmap, "data", "greeting") if configmap else None
    return recorded_vs_live(value, PRECEDENCE_GREETING, live, "precedence.json greeting", "helm_precedence")


# ---------------------------------------------------------------- step 3


def greeting_configmap(state):
    return state.cluster.find("helm_configmaps", f"{HELM_APP}-greeting")


@lab.check(3, "helm-release-secrets", hint="helm_template_only")
def helm_release_secrets(state):
    value = require(evidence_field(state, "tracking.json", "helm_release_secrets", "integer"))
    live = len(state.cluster.items("helm_release_secrets"))
    return same_value(value, live, "tracking.json helm_release_secrets")


@lab.check(3, "tracking-annotation", hint="resource_tracking")
def tracking_annotation(state):
    value = require(evidence_field(state, "tracking.json", "tracking_annotation", "string-or-null"))
    configmap = greeting_configmap(state)
    if configmap is None:
        return blocked(1, "live_object_missing", what=f"ConfigMap {HELM_APP}/{HELM_APP}-greeting")
    live = annotation(configmap, TRACKING_ANNOTATION)
    return same_value(value, live, "tracking.json tracking_annotation")


@lab.check(3, "instance-label", hint="resource_tracking")
def instance_label(state):
    data = require(evidence(state, "tracking.json"))
    if "instance_label" not in data:
        return failed("missing_key", expected="string-or-null", found=None, what="tracking.json",
                      key="instance_label", hint="null_not_missing")
    value = data["instance_label"]
    configmap = greeting_configmap(state)
    if configmap is None:
        return blocked(1, "live_object_missing", what=f"ConfigMap {HELM_APP}/{HELM_APP}-greeting")
    live = dig(configmap, "metadata", "labels", INSTANCE_LABEL)
    if live is None and value == "":
        return failed("empty_not_null", expected=None, found="", what="tracking.json instance_label",
                      hint="null_not_missing")
    return same_value(value, live, "tracking.json instance_label")


TRACKING_KEYS = {"annotation": "tracking_annotation", "label": "instance_label"}  # tracking.json's names


@lab.check(3, "tracking-method", hint="resource_tracking")
def tracking_method(state):
    data = require(evidence(state, "tracking.json"))
    argocd_cm = state.cluster.get("argocd_cm")
    if not isinstance(argocd_cm, dict):
        return errored("argocd_cm_missing", namespace=state.site.argocd_namespace)
    method = dig(argocd_cm, "data", TRACKING_METHOD_KEY) or DEFAULT_TRACKING_METHOD
    marks = tracking_marks(method, HELM_APP, tracking_id(HELM_APP, "", "ConfigMap", HELM_APP, f"{HELM_APP}-greeting"))
    expected = {TRACKING_KEYS[mark]: value for mark, value in marks.items()}
    found = {key: data.get(key) for key in expected}
    if found != expected:
        return failed("tracking_method_mismatch", expected=expected, found=found, method=method)
    return passed("tracking_method_ok", expected=expected, found=found, method=method)


