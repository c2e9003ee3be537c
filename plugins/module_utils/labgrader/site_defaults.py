"""Where a provisioned learner VM keeps what the labs touch: the defaults of the lab modules'
options (plugins/doc_fragments/lab_site.py documents them, tests/grader/test_module_docs.py
holds the two equal), of the Site the checks read and of the recorder; and the labs a host is
enrolled in. Standard library only: the filter plugins read it on the controller."""

from __future__ import annotations

# Where k3s writes the VM's admin kubeconfig (its default --write-kubeconfig).
KUBECONFIG = "/etc/rancher/k3s/k3s.yaml"
API_TIMEOUT = 10
ARGOCD_NAMESPACE = "argocd"
GITD_NAMESPACE = "gitsrv"
BARE_ROOT = "/srv/bare"  # gitd's --base-path (roles/gitd)
WORKSPACE_ROOT = "/root"  # lab <id> lives in <workspace_root>/<id>
HELM_BINARY = "/usr/local/bin/helm"
KUSTOMIZE_BINARY = "/usr/local/bin/kustomize"
# The labs of a host whose inventory names none (no lab_enrolled).
DEFAULT_LABS = ("capa-src",)

# group/gitops_lab.grader.site (meta/runtime.yml): where a lab lives on the VM.
SITE_OPTIONS = {
    "workspace_root": {"type": "path", "default": WORKSPACE_ROOT},
    "bare_root": {"type": "path", "default": BARE_ROOT},
    "argocd_namespace": {"type": "str", "default": ARGOCD_NAMESPACE},
    "gitd_namespace": {"type": "str", "default": GITD_NAMESPACE},
}
# group/gitops_lab.grader.tools: the helm and kustomize the grader runs as Argo CD runs them.
TOOL_OPTIONS = {
    "helm_binary": {"type": "path", "default": HELM_BINARY},
    "kustomize_binary": {"type": "path", "default": KUSTOMIZE_BINARY},
}
# How a module reaches the VM's cluster.
CLUSTER_OPTIONS = {
    "kubeconfig": {"type": "path", "default": KUBECONFIG},
    "api_timeout": {"type": "float", "default": API_TIMEOUT},
}


def enrolled(value):
    """lab_enrolled as a list: a YAML list, or a comma-separated string from -e."""
    items = value.split(",") if isinstance(value, str) else list(value or [])
    return [str(item).strip() for item in items if str(item).strip()]
