"""What cgoa-ci reads from the API server: its objects, and the questions (SubjectAccessReview,
TokenReview) about the CI identity; and the lab's whole declared reads."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.kubeconfig import current_context
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Reads, Repo
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probes import run_probes
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import (
    APP,
    CI_NS,
    DRYRUN_NS,
    PROD_NS,
    REPO_NAME,
    VALIDATOR,
    VALIDATOR_GROUPS,
    WEB_YAML,
)

SAR_PATH = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
TOKEN_REVIEW_PATH = "/apis/authentication.k8s.io/v1/tokenreviews"
RBAC = "rbac.authorization.k8s.io"
# (name, verb, group, resource, namespace, allowed?): what ci:validator may do, and the writes
# that matter that it may not: "nothing more" than get/create/patch Deployments in ci-dryrun (no
# delete there, no other kind there, no write in another namespace, nothing cluster-wide, no
# RBAC escalation or impersonation). "" asks about every namespace at once (what a
# ClusterRoleBinding grants); None marks a cluster-scoped resource. ARGOCD_NS stands for the
# site's Argo CD namespace (access_questions).
ARGOCD_NS = "{argocd}"
ACCESS = (
    ("get-dryrun", "get", "apps", "deployments", DRYRUN_NS, True),
    ("create-dryrun", "create", "apps", "deployments", DRYRUN_NS, True),
    ("patch-dryrun", "patch", "apps", "deployments", DRYRUN_NS, True),
    ("delete-dryrun", "delete", "apps", "deployments", DRYRUN_NS, False),
    ("create-dryrun-pods", "create", "", "pods", DRYRUN_NS, False),
    ("create-dryrun-secrets", "create", "", "secrets", DRYRUN_NS, False),
    ("patch-dryrun-configmaps", "patch", "", "configmaps", DRYRUN_NS, False),
    ("create-dryrun-roles", "create", RBAC, "roles", DRYRUN_NS, False),
    ("create-dryrun-rolebindings", "create", RBAC, "rolebindings", DRYRUN_NS, False),
    ("escalate-dryrun-roles", "escalate", RBAC, "roles", DRYRUN_NS, False),
    ("bind-dryrun-clusterroles", "bind", RBAC, "clusterroles", DRYRUN_NS, False),
    ("create-prod", "create", "apps", "deployments", PROD_NS, False),
    ("patch-prod", "patch", "apps", "deployments", PROD_NS, False),
    ("delete-prod", "delete", "apps", "deployments", PROD_NS, False),
    ("create-prod-configmaps", "create", "", "configmaps", PROD_NS, False),
    ("create-default", "create", "apps", "deployments", "default", False),
    ("create-kube-system", "create", "apps", "deployments", "kube-system", False),
    ("patch-argocd-applications", "patch", "argoproj.io", "applications", ARGOCD_NS, False),
    ("create-all-namespaces", "create", "apps", "deployments", "", False),
    ("create-namespaces", "create", "", "namespaces", None, False),
    ("create-clusterroles", "create", RBAC, "clusterroles", None, False),
    ("create-clusterrolebindings", "create", RBAC, "clusterrolebindings", None, False),
    ("patch-nodes", "patch", "", "nodes", None, False),
    ("impersonate-users", "impersonate", "", "users", None, False),
    ("impersonate-serviceaccounts", "impersonate", "", "serviceaccounts", "", False),
)


def access_questions(site):
    """ACCESS with the site's Argo CD namespace in place of ARGOCD_NS."""
    return [(name, verb, group, resource, site.argocd_namespace if ns == ARGOCD_NS else ns, allowed)
            for name, verb, group, resource, ns, allowed in ACCESS]


def cluster_reads(site):
    return {
        "app": (f"/apis/argoproj.io/v1alpha1/namespaces/{site.argocd_namespace}/applications/{APP}", None),
        "web": (f"/apis/apps/v1/namespaces/{PROD_NS}/deployments/web", None),
        # Namespace ci exists when its ServiceAccount does, ci-dryrun when its Role does: no GET of
        # their own (15 requests per reading).
        "validator_sa": (f"/api/v1/namespaces/{CI_NS}/serviceaccounts/validator", None),
        "role": (f"/apis/rbac.authorization.k8s.io/v1/namespaces/{DRYRUN_NS}/roles/dryrun-deployments", None),
        "binding": (f"/apis/rbac.authorization.k8s.io/v1/namespaces/{DRYRUN_NS}/rolebindings/validator-dryrun", None),
        # Read after the probes ran validate.sh: a probe object here was really created.
        "dryrun_deployments": (f"/apis/apps/v1/namespaces/{DRYRUN_NS}/deployments", None),
    }


def access_review(verb, group, resource, namespace):
    return (SAR_PATH, {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                       "spec": {"user": VALIDATOR, "groups": VALIDATOR_GROUPS,
                                "resourceAttributes": {"verb": verb, "group": group, "resource": resource,
                                                       "namespace": namespace or ""}}})


def reviews(site, files):
    """Questions to the API server: what ci:validator may do, and who the ci-kubeconfig token is."""
    questions = {f"sar_{name}": access_review(verb, group, resource, ns)
                 for name, verb, group, resource, ns, _ in access_questions(site)}
    read = files["ci-kubeconfig"]
    token = current_context(read.data[0]).get("token") if read.ok and read.data else None
    if token:
        questions["token_review"] = (TOKEN_REVIEW_PATH, {"apiVersion": "authentication.k8s.io/v1",
                                                         "kind": "TokenReview", "spec": {"token": token}})
    return questions


# The evidence files and the keys the checks read from each (tests/grader/test_hint_pairs.py
# records what the checks read).
EVIDENCE_JSON = {
    "broken.json": ("commit", "sync_status", "operation_message", "live_replicas"),
    "report.json": ("ci_writes", "cd_writes", "ci_can_write_prod", "gate", "deployed_revision", "broken_reached_git"),
}

READS = Reads(json_files=EVIDENCE_JSON, yaml_files=("app.yaml",),
              text_files=("validate.sh", "bump.sh", "blocked.txt"), kubeconfig_files=("ci-kubeconfig", "kubeconfig"),
              repo=Repo(REPO_NAME, prefixes=("deploy",), tracked_paths=(WEB_YAML,), files=("hooks/pre-receive",)),
              clone="repo", clone_refs=("refs/heads/main", "refs/remotes/origin/main"),
              api=cluster_reads, reviews=reviews, probes=run_probes)
