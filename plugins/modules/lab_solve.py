#!/usr/bin/python
"""Perform a lab's reference solution on a learner VM (playbooks/solve.yml)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: lab_solve
short_description: Perform a lab's reference solution on a learner VM, as a learner would
description:
  - Performs the steps of one lab the way its text tells a learner - git in the workspace, pushes to
    the bare repository, C(kubectl apply) of the Application files, bounded waits on what Argo CD
    reports, evidence files written from what the cluster shows, C(argocd app terminate-op --core)
    only when an operation still retries a failed revision.
  - The grader decides what is left to do. The VM is graded first; solving starts at the first step
    (up to O(last_step)) with a check that does not pass and performs every later step up to O(last_step).
    A VM whose steps all pass is left alone, so a second run changes nothing.
  - Afterwards the VM is graded again; the task fails, naming the checks, unless every check up to
    O(last_step) passes.
  - For instructors' demo VMs and tests. It writes to the learner's workspace, the bare repository
    and the cluster; never run it on a VM a learner is graded on.
version_added: "1.0.0"
author: Lab grader team
extends_documentation_fragment:
  - gitops_lab.grader.lab_site
  - gitops_lab.grader.lab_site.tools
  - gitops_lab.grader.lab_site.cluster
options:
  lab:
    description: The lab id (an unknown id fails with the known ones and a "did you mean").
    type: str
    required: true
  last_step:
    description: The last step to perform; V(0) means every step. Steps after it are left undone.
    type: int
    default: 0
  kubeconfig:
    description: The VM's admin kubeconfig (the solution creates Applications, namespaces and RBAC).
    type: path
    default: /etc/rancher/k3s/k3s.yaml
  kubectl:
    description: The kubectl command, as an argv prefix.
    type: list
    elements: str
    default: [kubectl]
  argocd:
    description: The argocd CLI, as an argv prefix (used with C(--core) only).
    type: list
    elements: str
    default: [argocd]
  wait_timeout:
    description: Seconds one wait on the cluster (a sync, a rollout, a failing hook) may take.
    type: float
    default: 300
attributes:
  check_mode:
    support: full
    description: Grades the VM and returns the steps it would perform; changes nothing.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Solve capa-src up to step 5 (a half-done learner for a demo)
  gitops_lab.grader.lab_solve:
    lab: capa-src
    last_step: 5
    kubectl: [/usr/local/bin/k3s, kubectl]
"""

RETURN = r"""
lab:
  description: The lab id.
  returned: always
  type: str
  sample: capa-src
last_step:
  description: The last step solved.
  returned: always
  type: int
  sample: 8
steps:
  description: The steps that were (in check mode, would be) performed; empty when all passed already.
  returned: always
  type: list
  elements: int
  sample: [6, 7, 8]
performed:
  description: Each performed step with its wall time in seconds.
  returned: always
  type: list
  elements: dict
  sample: [{"step": 6, "seconds": 41.3}]
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import unknown_lab_message
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import (
    CLUSTER_OPTIONS,
    SITE_OPTIONS,
    TOOL_OPTIONS,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.machine import SolveError
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.solve import solve


def main():
    module = AnsibleModule(
        argument_spec={
            **CLUSTER_OPTIONS,
            **SITE_OPTIONS,
            **TOOL_OPTIONS,
            "lab": {"type": "str", "required": True},
            "last_step": {"type": "int", "default": 0},
            "kubectl": {"type": "list", "elements": "str", "default": ["kubectl"]},
            "argocd": {"type": "list", "elements": "str", "default": ["argocd"]},
            "wait_timeout": {"type": "float", "default": 300},
        },
        supports_check_mode=True,
    )
    if module.params["lab"] not in LABS:
        module.fail_json(msg=unknown_lab_message([module.params["lab"]]), changed=False)
    try:
        module.exit_json(**solve(module.params, check_mode=module.check_mode))
    except SolveError as exc:
        module.fail_json(msg=str(exc), changed=True)


if __name__ == "__main__":
    main()
