"""capa-drift step 8: AppProject drift fences the root's children: a destination outside
`drift-*` is refused before any operation (InvalidSpecError, argo-cd util/argo/argo.go:715), a
cluster-scoped kind fails the sync (controller/sync.go:658); the project itself is judged with
Argo CD's rules (checks/appproject.py) on questions the learner did not ask it."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.appproject import (
    destination_permitted,
    group_kind_permitted,
    source_permitted,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import app_path
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import repo_url, yaml_objects
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import condition
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.application import live_child, repo
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import (
    CHILDREN,
    FENCE_CHILDREN,
    FENCE_CLUSTERROLE,
    FENCE_NAMESPACE,
    IN_CLUSTER,
    PROJECT,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.step7_apps import tracked_by_root
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

OTHER_REPO = "https://github.com/example/other.git"
OTHER_SERVER = "https://other.example.com:6443"
IN_CLUSTER_NAME = "in-cluster"  # the name Argo CD gives the cluster it runs in
# Cluster-scoped kinds a lab's manifests may hold, by (group, kind) (the API server's discovery
# says namespaced: false for these).
CLUSTER_SCOPED = {("", "Namespace"), ("", "Node"), ("", "PersistentVolume"), ("rbac.authorization.k8s.io", "ClusterRole"),
                  ("rbac.authorization.k8s.io", "ClusterRoleBinding"), ("apiextensions.k8s.io", "CustomResourceDefinition"),
                  ("storage.k8s.io", "StorageClass"), ("scheduling.k8s.io", "PriorityClass"),
                  ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
                  ("admissionregistration.k8s.io", "MutatingWebhookConfiguration")}
DESTINATION_REFUSED = "do not match any of the allowed destinations in project '{project}'"
KIND_REFUSED = "resource {resource} is not permitted in project {project}"
# What Argo CD adds to a refused sync's message while it retries (". Retrying attempt #2 at 10:25AM.")
# and once it gave up (" (retried 5 times)."): not part of the refusal.
RETRY_TAIL = re.compile(r"(\. Retrying attempt #\d+.*| \(retried \d+ times\)\.?)$", re.DOTALL)


def refusal(message):
    """A sync message without its retry tail and final period."""
    return RETRY_TAIL.sub("", message.strip()).rstrip(".")


def live_project(state):
    project = state.cluster.get("project")
    stop_if(None if project is not None else failed(
        "live_object_missing_named", kind="AppProject", namespace=state.site.argocd_namespace, name=PROJECT,
        expected=f"{state.site.argocd_namespace}/{PROJECT}", found=None, hint="drift_project_apply"))
    return project


def answers(questions, expected):
    """PASS when every question gets its expected answer, else FAIL naming the wrong ones."""
    wrong = {q: answer for q, answer in questions.items() if answer != expected[q]}
    if wrong:
        return failed("fence_project_wrong", expected={q: expected[q] for q in wrong}, found=wrong, project=PROJECT)
    return passed("fence_project_ok", expected=expected, found=questions, project=PROJECT)


@lab.check(8, "project-repos", hint="drift_project")
def project_repos(state):
    project = live_project(state)
    url = repo_url(state)
    return answers({url: source_permitted(project, url), OTHER_REPO: source_permitted(project, OTHER_REPO)},
                   {url: True, OTHER_REPO: False})


def refused_namespaces(state):
    return ("kube-system", "kube-public", "default", state.site.argocd_namespace, "driftwood")


@lab.check(8, "project-destinations", hint="drift_project")
def project_destinations(state):
    project = live_project(state)
    permitted = (*CHILDREN, FENCE_NAMESPACE)
    questions = {ns: destination_permitted(project, IN_CLUSTER, ns, IN_CLUSTER_NAME)
                 for ns in (*permitted, *refused_namespaces(state))}
    questions[f"{OTHER_SERVER} {CHILDREN[0]}"] = destination_permitted(project, OTHER_SERVER, CHILDREN[0])
    expected = {q: q in permitted for q in questions}
    return answers(questions, expected)


KINDS = {"/Namespace": ("", "Namespace", False), "rbac.authorization.k8s.io/ClusterRole":
         ("rbac.authorization.k8s.io", "ClusterRole", False), "/ConfigMap": ("", "ConfigMap", True),
         "apps/Deployment": ("apps", "Deployment", True), "/Service": ("", "Service", True)}


@lab.check(8, "project-kinds", hint="drift_project")
def project_kinds(state):
    project = live_project(state)
    questions = {name: group_kind_permitted(project, group, kind, namespaced)
                 for name, (group, kind, namespaced) in KINDS.items()}
    return answers(questions, {name: namespaced for name, (_, _, namespaced) in KINDS.items()})


def head_applications(state):
    """{name: Application} of apps/ at bare main's head."""
    return {dig(doc, "metadata", "name"): doc for _, doc in yaml_objects(state.repo.tree, "apps")
            if doc.get("kind") == "Application"}


@lab.check(8, "children-in-project", hint="drift_project_children")
def children_in_project(state):
    repo(state)
    in_git = head_applications(state)
    names = (*CHILDREN, *FENCE_CHILDREN)
    found = {name: {"live": dig(live_child(state, name, 8, blocked_by=7 if name in CHILDREN else None), "spec", "project"),
                    "git": dig(in_git.get(name), "spec", "project")} for name in names}
    wrong = {n: f for n, f in found.items() if f != {"live": PROJECT, "git": PROJECT}}
    if wrong:
        return failed("fence_children_outside", expected={"live": PROJECT, "git": PROJECT}, found=wrong,
                      names=", ".join(wrong), project=PROJECT)
    return passed("fence_children_inside", expected=PROJECT, found=found, names=", ".join(names), project=PROJECT)


def same_text(recorded, live_message):
    """One message is a part of the other, blanks around them ignored (a learner may copy it
    from `argocd app get`, which shows it whole, or from jq, which adds nothing)."""
    recorded, live_message = recorded.strip(), (live_message or "").strip()
    return bool(recorded) and bool(live_message) and (recorded in live_message or live_message in recorded)


@lab.check(8, "destination-refused", hint="drift_fence_destination")
def destination_refused(state):
    name = require(evidence_field(state, "fence.json", "destination_app", "string"))
    message = require(evidence_field(state, "fence.json", "destination_message", "string"))
    child = live_child(state, name, 8)
    project = live_project(state)
    namespace = dig(child, "spec", "destination", "namespace")
    invalid = (condition(child, "InvalidSpecError") or {}).get("message")
    found = {"namespace_permitted": destination_permitted(project, IN_CLUSTER, str(namespace or ""), IN_CLUSTER_NAME),
             "condition": invalid, "operation": dig(child, "status", "operationState", "phase")}
    expected = {"condition": DESTINATION_REFUSED.format(project=PROJECT), "operation": None}
    refused = isinstance(invalid, str) and DESTINATION_REFUSED.format(project=PROJECT) in invalid
    if found["namespace_permitted"] or not refused or found["operation"] is not None:
        return failed("fence_destination_not_refused", expected=expected, found=found, name=name)
    if not same_text(message, invalid):
        return failed("value_mismatch", expected=invalid, found=message,
                      what="fence.json destination_message")
    return passed("fence_destination_refused", expected=expected, found=found, name=name)


def cluster_kinds_in(state, path):
    """'group:Kind' of the cluster-scoped objects under `path` at bare main's head."""
    found = set()
    for _, doc in yaml_objects(state.repo.tree, path):
        api_version = str(doc.get("apiVersion") or "")
        group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
        if (group, doc.get("kind")) in CLUSTER_SCOPED:
            found.add(f"{group}:{doc.get('kind')}")
    return found


@lab.check(8, "kind-refused", hint="drift_fence_kind")
def kind_refused(state):
    name = require(evidence_field(state, "fence.json", "kind_app", "string"))
    resource = require(evidence_field(state, "fence.json", "kind_resource", "string"))
    message = require(evidence_field(state, "fence.json", "kind_message", "string"))
    child = live_child(state, name, 8)
    repo(state)
    path = app_path(dig(child, "spec", "source", "path")) or ""
    live_message = dig(child, "status", "operationState", "message")
    refused = KIND_REFUSED.format(resource=resource, project=PROJECT)
    found = {"in_git": sorted(cluster_kinds_in(state, path)) or None, "operation": live_message,
             FENCE_CLUSTERROLE: state.cluster.get("fence_clusterrole") is not None}
    expected = {"in_git": resource, "operation": refused, FENCE_CLUSTERROLE: False}
    if resource not in cluster_kinds_in(state, path) or not isinstance(live_message, str) \
            or refused not in live_message or found[FENCE_CLUSTERROLE]:
        return failed("fence_kind_not_refused", expected=expected, found=found, name=name)
    if not same_text(refusal(message), refusal(live_message)):
        return failed("value_mismatch", expected=live_message, found=message,
                      what="fence.json kind_message")
    return passed("fence_kind_refused", expected=expected, found=found, name=name)


@lab.check(8, "fence-by-argocd", hint="drift_fence_git")
def fence_by_argocd(state):
    repo(state)
    wrong = tracked_by_root(state, FENCE_CHILDREN, 8)
    in_git = head_applications(state)
    missing = [name for name in FENCE_CHILDREN if name not in in_git]
    if wrong or missing:
        return failed("fence_not_from_git", expected={n: "apps/" for n in FENCE_CHILDREN},
                      found={"untracked": sorted(wrong) or None, "not_in_apps": missing or None},
                      names=", ".join(sorted({*wrong, *missing})))
    return passed("fence_from_git", expected=list(FENCE_CHILDREN), found=list(FENCE_CHILDREN),
                  names=", ".join(FENCE_CHILDREN))

