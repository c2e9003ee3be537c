#!/usr/bin/python
"""Grade the labs a learner is enrolled in, on that learner's VM, in one call."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: lab_grade
short_description: Grade one learner VM - health gate, then every enrolled lab
description:
  - First a health gate (the grader's own Python runtime verified against pip's RECORD hashes,
    grader Python libraries, kubeconfig, API server, the Argo CD Application CRD, application
    controller and repo server, the gitd Service). An unhealthy VM returns
    RV(state=error) with the reason and no lab results - an ERROR of the environment, never a
    list of learner failures.
  - Then, for each lab of O(labs), collects the learner's state once (workspace files, the bare
    repository, a handful of read-only GET requests, and for labs with active probes, runs of the
    learner's programs in a sandbox of their own on throw-away copies, see docs/sandbox.md) and
    judges every check with pure functions.
  - Returns PASS, FAIL, PENDING or ERROR per check with expected and found values, a message and
    a hint in the learner's language. While Argo CD is still converging it collects again until
    O(settle_timeout) and reports the state it finally saw.
  - Read-only. Never writes to the workspace, the repositories or the cluster.
version_added: "1.0.0"
author: Lab grader team
extends_documentation_fragment:
  - gitops_lab.grader.lab_site
  - gitops_lab.grader.lab_site.tools
  - gitops_lab.grader.lab_site.cluster
options:
  labs:
    description:
      - The labs to grade, by id. The known ids are those of the registry in
        C(module_utils/labgrader/labs/__init__.py); an unknown id fails with the known ones and a
        "did you mean".
    type: list
    elements: str
    required: true
  lang:
    description: Language of messages and hints.
    type: str
    choices: [en, ja, ko]
    default: en
  health:
    description: Run the health gate first; V(false) grades even a VM that looks unhealthy.
    type: bool
    default: true
  settle_timeout:
    description: Seconds to keep re-reading while a check is PENDING; 0 judges the first reading.
    type: float
    default: 30
  poll_interval:
    description: Seconds between two readings while settling.
    type: float
    default: 5
  max_file_bytes:
    description: Learner files larger than this are reported as too large, not read.
    type: int
    default: 1048576
  k3s_kubeconfig:
    description:
      - The VM's admin kubeconfig. Only its server and CA are read, to compare the kubeconfigs a
        learner builds (lab V(cgoa-ci)); its credentials are never used or shown.
    type: path
    default: /etc/rancher/k3s/k3s.yaml
  probe_replay:
    description:
      - A JSON file of recorded probe results per lab id (a fixture world's C(probes.json)). When
        it exists and holds the lab, its probes are replayed instead of run; for replaying a
        recorded VM offline, never on a learner VM.
    type: path
  labs_as_json:
    description:
      - Return the lab results as one JSON string, RV(labs_json), instead of the mapping RV(labs).
        Ansible finalises a module's result object by object on the controller, so one string of
        about 100 KB costs it a fraction of the mapping's ~5,600 objects (docs/performance.md).
        C(grade.yml) sets it; the class report decodes it.
    type: bool
    default: false
  time_budget:
    description:
      - Seconds the whole call may take - health gate, every lab's reads, probes and settling;
        at most 3600. C(grade.yml) sets it from C(grade_time_budget). Keep it below the task
        timeout (C(grade_task_timeout), 300 by default) so that the module ends with its findings
        instead of being killed; a VM much slower than a k3s VM (QEMU without hardware
        acceleration) needs more than the default.
      - Each enrolled lab gets its own share, that no other lab can spend - the time left when its
        turn comes, split evenly among it and the labs after it, so a lab's unused time passes on.
        A lab's probes may use a declared part of that share (three quarters by default).
      - What the share's end cuts short (a git read, the API reads, a probe run) is ERROR - "the
        grader ran out of time for lab ... before it could ...", never the learner's FAIL.
    type: float
    default: 240
attributes:
  check_mode:
    support: full
    description: The module never changes anything; check mode runs it unchanged.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Grade the enrolled labs
  gitops_lab.grader.lab_grade:
    labs: [capa-src]
    lang: ja
    kubeconfig: /etc/lab-grader/kubeconfig
  register: grade_result

- name: Grade a learner tree laid out under another root
  gitops_lab.grader.lab_grade:
    labs: [capa-src]
    workspace_root: /data/learner07/root
    bare_root: /data/learner07/srv/bare
    kubeconfig: /data/learner07/kubeconfig
    settle_timeout: 0
"""

RETURN = r"""
state:
  description: C(graded), or C(error) when the VM failed the health gate.
  returned: always
  type: str
  sample: graded
error:
  description: Why the VM could not be graded (kind C(health), message, per-probe details, and reasons, the
      message's parts as catalogue entries C({key, params}) when every part is one, for the learner's
      language), else null.
  returned: always
  type: dict
  sample: {"kind": "health", "message": "unreachable: connection refused", "details": {"api_server": "unreachable"}}
health:
  description: >-
    The health gate's probes and problems, and what the runtime check covered (site-packages
    folders, files and bytes hashed, seconds); null when O(health=false).
  returned: always
  type: dict
  sample: {"healthy": true, "problems": [], "probes": {"runtime": "ok", "python": "ok", "api_server": "ok"},
           "api_requests": 5, "runtime": {"site_packages": ["/opt/lab-grader/venv/lib/python3.12/site-packages"],
                                          "files": 3857, "bytes": 107410194, "seconds": 0.21}}
labs:
  description: >-
    One result per graded lab - lab, lang, status (worst of its checks), summary (count per status),
    steps (title, status, checks with expected, found, message_key, params, message, hint) and collected
    (attempts, api_requests, seconds, cluster_error). See docs/report-format.md.
  returned: unless O(labs_as_json) is true
  type: dict
  sample: {"capa-src": {"status": "FAIL", "summary": {"PASS": 54, "FAIL": 2, "PENDING": 0, "ERROR": 0, "total": 56}}}
labs_json:
  description: RV(labs) as one JSON string, in its place, when O(labs_as_json) is true.
  returned: when O(labs_as_json) is true
  type: str
  sample: '{"capa-src":{"lab":"capa-src","lang":"en","status":"PASS"}}'
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import run_lab_grade


def main():
    run_lab_grade(AnsibleModule)


if __name__ == "__main__":
    main()
