#!/usr/bin/python
"""Health gate run before grading a learner VM."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: lab_health
short_description: Check that a learner VM can be graded (API server, Argo CD, gitd, grader runtime)
description:
  - Probes, read-only and with bounded timeouts, what every lab grader needs - the grader's Python
    dependencies, the kubeconfig, the Kubernetes API server, the Argo CD Application CRD, the
    application controller and repo server, and the gitd Service.
  - A failing probe makes the host an ERROR of the environment in the report instead of a list
    of learner failures. The module itself does not fail on an unhealthy VM; it returns
    RV(healthy=false) and the problems.
version_added: "1.0.0"
author: Lab grader team
options:
  kubeconfig:
    description: Kubeconfig used for the read-only probes.
    type: path
    default: /etc/rancher/k3s/k3s.yaml
  argocd_namespace:
    description: Namespace of Argo CD.
    type: str
    default: argocd
  gitd_namespace:
    description: Namespace of the gitd Service.
    type: str
    default: gitsrv
  api_timeout:
    description: Read timeout of one API request, in seconds.
    type: float
    default: 10
attributes:
  check_mode:
    support: full
    description: The module never changes anything.
  diff_mode:
    support: none
requirements:
  - kubernetes (Python)
  - GitPython
  - PyYAML
"""

EXAMPLES = r"""
- name: Health gate
  lab_health:
    kubeconfig: /etc/lab-grader/kubeconfig
  register: lab_health_result
"""

RETURN = r"""
healthy:
  description: True when every probe passed.
  returned: always
  type: bool
  sample: false
problems:
  description: The probes that failed, each with a reason.
  returned: always
  type: list
  elements: dict
  sample: [{"probe": "api_server", "detail": "unreachable: connection refused"}]
probes:
  description: Every probe run and its outcome (C(ok) or the reason).
  returned: always
  type: dict
  sample: {"python": "ok", "api_server": "ok", "gitd_service": "ok"}
api_requests:
  description: Number of API requests sent.
  returned: always
  type: int
  sample: 5
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.labgrader.health import check_health


def main():
    module = AnsibleModule(
        argument_spec={
            "kubeconfig": {"type": "path", "default": "/etc/rancher/k3s/k3s.yaml"},
            "argocd_namespace": {"type": "str", "default": "argocd"},
            "gitd_namespace": {"type": "str", "default": "gitsrv"},
            "api_timeout": {"type": "float", "default": 10},
        },
        supports_check_mode=True,
    )
    params = module.params
    if not 0 < params["api_timeout"] <= 600:
        module.fail_json(msg=f"api_timeout must be between 0 and 600 seconds, got {params['api_timeout']}")
    result = check_health(params["kubeconfig"], params["argocd_namespace"], params["gitd_namespace"],
                          params["api_timeout"])
    module.exit_json(changed=False, **result)


if __name__ == "__main__":
    main()
