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
  - Changes nothing.
version_added: "1.0.0"
author: Lab grader team
options:
  hosts:
    description: The hosts of this run, each with C(labs) (its C(lab_enrolled)) and C(lang) (its C(lab_lang)).
    type: dict
    required: true
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
        C(grade_poll_interval), C(grade_task_timeout), C(grade_strict), C(grade_allow_host_errors)).
    type: dict
    default: {}
  report_lang:
    description: The language of the class report (C(grade_report_lang)).
    type: str
    default: en
  group:
    description: The inventory group being graded, named in the message when it is empty.
    type: str
    default: learners
attributes:
  check_mode:
    support: full
    description: Nothing is ever changed.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
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
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import settings_problems


def main():
    module = AnsibleModule(
        argument_spec={
            "hosts": {"type": "dict", "required": True},
            "sites": {"type": "dict", "default": {}},
            "run": {"type": "dict", "default": {}},
            "addresses": {"type": "dict", "default": {}},
            "report_lang": {"type": "str", "default": "en"},
            "group": {"type": "str", "default": "learners"},
        },
        supports_check_mode=True,
    )
    params = module.params
    problems = settings_problems(params["hosts"], params["report_lang"], params["group"], params["sites"], params["run"],
                                 params["addresses"])
    if problems:
        module.fail_json(msg="Grading settings: " + " | ".join(problems), problems=problems, changed=False)
    module.exit_json(changed=False, problems=[])


if __name__ == "__main__":
    main()
