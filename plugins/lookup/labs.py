"""labs: the ids of every lab the grader knows (the registry, labs.LABS), for playbooks and
scenarios that treat every lab alike."""

from __future__ import annotations

DOCUMENTATION = r"""
name: labs
author: Lab grader team
version_added: "1.0.0"
short_description: The ids of every lab the grader knows
description:
  - The lab ids of the grader's registry (C(LABS) in C(plugins/module_utils/labgrader/labs/__init__.py)), in its
    order. Adding a lab to the registry adds it here; nothing else lists the labs.
options: {}
"""

EXAMPLES = r"""
- name: Grade every lab the grader knows
  ansible.builtin.command:
    argv: [ansible-playbook, grade.yml, -e, "{{ {'lab_enrolled': lookup('gitops_lab.grader.labs', wantlist=True)} | to_json }}"]
"""

RETURN = r"""
_raw:
  description: The lab ids, e.g. V([capa-src, cgoa-ci]).
  type: list
  elements: str
"""

from ansible.plugins.lookup import LookupBase
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        return list(LABS)
