#!/usr/bin/python
"""Grade lab capa-src on one learner VM."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: capa_src
short_description: Grade the capa-src Argo CD lab (Helm, Kustomize, waves, hooks, ignoreDifferences)
description:
  - Collects the learner's state once (workspace evidence files, the bare repository C(src.git),
    and a handful of read-only Kubernetes GET/LIST requests) and judges every check of the
    8 steps of lab C(capa-src) with pure functions.
  - Returns PASS, FAIL, PENDING or ERROR per check with expected and found values, a message
    and a hint in the learner's language.
  - While Argo CD is still converging (an operation Running, health Progressing) it collects
    again until O(settle_timeout) and reports the state it finally saw.
  - Read-only. Never writes to the workspace, the repositories or the cluster.
version_added: "1.0.0"
author: Lab grader team
options:
  workspace:
    description: The learner's workspace folder.
    type: path
    default: /root/capa-src
  bare_root:
    description: The folder holding the bare repositories served by gitd.
    type: path
    default: /srv/bare
  kubeconfig:
    description: Kubeconfig used for the read-only cluster requests.
    type: path
    default: /etc/rancher/k3s/k3s.yaml
  argocd_namespace:
    description: Namespace of Argo CD and its Applications.
    type: str
    default: argocd
  lang:
    description: Language of messages and hints.
    type: str
    choices: [en, ja, ko]
    default: en
  settle_timeout:
    description: Seconds to keep re-reading while a check is PENDING; 0 judges the first reading.
    type: float
    default: 30
  poll_interval:
    description: Seconds between two readings while settling.
    type: float
    default: 5
  api_timeout:
    description: Read timeout of one Kubernetes API request, in seconds.
    type: float
    default: 10
  max_file_bytes:
    description: Evidence files larger than this are reported as too large, not read.
    type: int
    default: 1048576
attributes:
  check_mode:
    support: full
    description: The module never changes anything; check mode runs it unchanged.
  diff_mode:
    support: none
requirements:
  - kubernetes (Python)
  - GitPython
  - PyYAML
"""

EXAMPLES = r"""
- name: CHECK capa-src
  capa_src:
    lang: ja
  register: capa_src_result

- name: Grade a learner tree laid out under another root
  capa_src:
    workspace: /data/learner07/root/capa-src
    bare_root: /data/learner07/srv/bare
    kubeconfig: /data/learner07/kubeconfig
    settle_timeout: 0
"""

RETURN = r"""
lab:
  description: The lab id.
  returned: always
  type: str
  sample: capa-src
lang:
  description: Language of the messages.
  returned: always
  type: str
  sample: ja
status:
  description: Worst status over all checks (ERROR > FAIL > PENDING > PASS).
  returned: always
  type: str
  sample: FAIL
summary:
  description: Number of checks per status, and the total.
  returned: always
  type: dict
  sample: {"PASS": 50, "FAIL": 2, "PENDING": 0, "ERROR": 0, "total": 52}
steps:
  description: One entry per step with its title, status and check results (docs/grading-contract.md).
  returned: always
  type: list
  elements: dict
collected:
  description: How the state was read (attempts, API requests, seconds, cluster error if any).
  returned: always
  type: dict
  sample: {"attempts": 1, "api_requests": 9, "seconds": 0.4, "cluster_error": null}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.labgrader.labs import capa_src
from ansible.module_utils.labgrader.runner import run_grading_module


def main():
    run_grading_module(AnsibleModule, capa_src)


if __name__ == "__main__":
    main()
