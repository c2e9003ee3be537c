#!/usr/bin/python
"""Check the settings of a grading run once, before any learner VM is touched."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: lab_settings
short_description: Check a grading run's settings before grading (lab ids, languages, the class)
description:
  - Runs on the controller at the start of C(grade.yml). Fails with every problem at once, each with
    a "did you mean" and the hosts it concerns, when a host is enrolled in an unknown lab, a learner
    or report language is not supported, a host's workspace or bare-repo root is not an absolute
    path or a namespace is not a namespace name, a run-wide timing is not a number of seconds in
    range or a run-wide switch not a boolean, a host's address is one of the documentation
    examples (the example inventory's 192.0.2.x), or the run has no learner to grade.
  - "Runs in the controller's own process (an action plugin). Without O(hosts) it reads the run
    from the inventory: the hosts of O(group) that O(limit) keeps, and each host's variables once
    (C(grade.yml); docs/performance.md)."
  - Changes nothing.
version_added: "1.0.0"
author: Lab grader team
options:
  hosts:
    description:
      - The hosts of this run, each with C(labs) (its C(lab_enrolled)) and C(lang) (its C(lab_lang)).
      - "When omitted, the action plugin reads the run from the inventory (O(group), O(limit)):
        C(hosts), O(sites), O(addresses), O(run) and O(report_lang) from each host's variables,
        the run-wide ones from the first host's, as the learners' plays see them (C(group_vars/learners)
        or C(-e)). The module run on its own needs it."
    type: dict
  sites:
    description:
      - Per host, the site options its C(lab_*) variables set (C(workspace_root), C(bare_root),
        C(argocd_namespace), C(gitd_namespace)) and their values.
    type: dict
    default: {}
  addresses:
    description: Per host, its C(ansible_host) (none when it has no such variable).
    type: dict
    default: {}
  run:
    description:
      - The run-wide variables as the playbook sees them (C(grade_settle_timeout),
        C(grade_poll_interval), C(grade_task_timeout), C(grade_time_budget), C(grade_strict),
        C(grade_allow_host_errors)).
    type: dict
    default: {}
  report_lang:
    description: The language of the class report (C(grade_report_lang)).
    type: str
    default: en
  group:
    description:
      - The inventory group (or pattern) being graded, named in the message when it is empty.
      - Without O(hosts), the run's hosts are its hosts, in the inventory's order.
    type: str
    default: learners
  limit:
    description:
      - Without O(hosts), the pattern of C(--limit) (C(ansible_limit)); omitted, every host of O(group).
    type: str
attributes:
  check_mode:
    support: full
    description: Nothing is ever changed.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Check the run's settings, read from the inventory (grade.yml)
  gitops_lab.grader.lab_settings:
    group: learners
    limit: "{{ ansible_limit | default(omit) }}"

- name: Check the settings once
  gitops_lab.grader.lab_settings:
    hosts: {learner01: {labs: [capa-src], lang: ja}}
    report_lang: en
"""

RETURN = r"""
problems:
  description: One line per problem (empty when grading can start).
  returned: always
  type: list
  elements: str
  sample: ["lab_enrolled: unknown lab capa-sr (did you mean capa-src?); known labs: capa-src, cgoa-ci (hosts: learner03)"]
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import (
    argument_spec,
    settings_problems,
)


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    params = module.params
    if params["hosts"] is None:
        module.fail_json(msg="hosts: the run is read from the inventory by the lab_settings action plugin, on the "
                             "controller; this module alone needs hosts")
    problems = settings_problems(params["hosts"], params["report_lang"], params["group"], params["sites"], params["run"],
                                 params["addresses"])
    if problems:
        module.fail_json(msg="Grading settings: " + " | ".join(problems), problems=problems, changed=False)
    module.exit_json(changed=False, problems=[])


if __name__ == "__main__":
    main()
