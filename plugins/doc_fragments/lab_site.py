"""The options the lab modules share, with their defaults documented once: where a lab lives on
the VM (group/gitops_lab.grader.site), the tools (group/gitops_lab.grader.tools) and how to reach
the cluster. The defaults are module_utils/labgrader/site_defaults.py's; test_module_docs.py
holds the two equal."""

from __future__ import annotations


class ModuleDocFragment:
    # gitops_lab.grader.lab_site
    DOCUMENTATION = r"""
options:
  workspace_root:
    description: The folder holding the learner's lab workspaces; lab V(capa-src) lives in C(<workspace_root>/capa-src).
    type: path
    default: /root
  bare_root:
    description: The folder holding the bare repositories served by gitd.
    type: path
    default: /srv/bare
  argocd_namespace:
    description: Namespace of Argo CD and its Applications; checks, messages and hints use it.
    type: str
    default: argocd
  gitd_namespace:
    description: Namespace of the gitd Service; the labs' repo URLs are C(git://gitd.<namespace>.svc.cluster.local:9418/<name>.git).
    type: str
    default: gitsrv
notes:
  - The options of this fragment are those of the action group C(gitops_lab.grader.site), so a play sets them
    once for every lab module with C(module_defaults) (C(group/gitops_lab.grader.site)).
"""

    # gitops_lab.grader.lab_site.tools
    TOOLS = r"""
options:
  helm_binary:
    description:
      - The C(helm) the grader runs as Argo CD v3.5.2 runs it (v4.2.1, installed by the grader_runtime role) to render
        the learner's chart from bare main in a sandbox without network.
      - When it is missing, the checks that render the chart are ERROR (the grader's environment), never a learner FAIL.
    type: path
    default: /usr/local/bin/helm
  kustomize_binary:
    description:
      - The C(kustomize) the grader runs as Argo CD v3.5.2 runs it (v5.8.1, installed by the grader_runtime role),
        C(kustomize edit set image) with an Application's images and then C(kustomize build), in a sandbox without
        network.
      - When it is missing, the checks that build a kustomization are ERROR, never a learner FAIL.
    type: path
    default: /usr/local/bin/kustomize
"""

    # gitops_lab.grader.lab_site.cluster
    CLUSTER = r"""
requirements:
  - kubernetes (Python)
  - GitPython
  - PyYAML
options:
  kubeconfig:
    description: Kubeconfig used for the read-only cluster requests (the provisioned grader's token kubeconfig).
    type: path
    default: /etc/rancher/k3s/k3s.yaml
  api_timeout:
    description: Read timeout of one Kubernetes API request, in seconds.
    type: float
    default: 10
"""
