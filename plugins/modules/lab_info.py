#!/usr/bin/python
"""What a lab puts on a learner VM, from the lab's own object: for reset.yml and other tooling."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: lab_info
short_description: Where a lab lives on a learner VM (workspace, bare repository, Applications, AppProjects, namespaces)
description:
  - Returns, from the lab's object in the registry, the learner's workspace folder, the lab's bare
    repository, the Argo CD Applications and AppProjects and the namespaces the lab creates. Reads nothing and
    changes nothing; C(playbooks/reset.yml) uses it to remove one lab's state.
version_added: "1.0.0"
author: Lab grader team
extends_documentation_fragment:
  - gitops_lab.grader.lab_site
options:
  lab:
    description: The lab id (an unknown id fails with the known ones and a "did you mean").
    type: str
    required: true
attributes:
  check_mode:
    support: full
    description: Nothing is read or changed.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Where cgoa-ci lives
  gitops_lab.grader.lab_info:
    lab: cgoa-ci
  register: lab
"""

RETURN = r"""
workspace:
  description: The learner's workspace folder of the lab.
  returned: always
  type: str
  sample: /root/cgoa-ci
bare_repo:
  description: The lab's bare repository, or null when the lab has none.
  returned: always
  type: str
  sample: /srv/bare/ci.git
repo_url:
  description: The URL Argo CD reads the lab's repository from (gitd), or null when the lab has none.
  returned: always
  type: str
  sample: git://gitd.gitsrv.svc.cluster.local:9418/ci.git
argocd_namespace:
  description: The namespace of the lab's Applications (O(argocd_namespace)).
  returned: always
  type: str
  sample: argocd
applications:
  description: The Argo CD Applications the lab creates (in RV(argocd_namespace)).
  returned: always
  type: list
  elements: str
  sample: [ci-web]
projects:
  description: The Argo CD AppProjects the lab creates (in RV(argocd_namespace)); reset.yml deletes them after the Applications.
  returned: always
  type: list
  elements: str
  sample: [drift]
namespaces:
  description: The namespaces the lab creates.
  returned: always
  type: list
  elements: str
  sample: [ci-web, ci-dryrun, ci]
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import unknown_lab_message
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import SITE_OPTIONS


def main():
    module = AnsibleModule(
        argument_spec={
            **SITE_OPTIONS,
            "lab": {"type": "str", "required": True},
        },
        supports_check_mode=True,
    )
    lab = LABS.get(module.params["lab"])
    if lab is None:
        module.fail_json(msg=unknown_lab_message([module.params["lab"]]), changed=False)
    site = Site(module.params["argocd_namespace"], module.params["gitd_namespace"], module.params["bare_root"],
                module.params["workspace_root"])
    repo = lab.reads.repo
    module.exit_json(changed=False, workspace=site.workspace(lab),
                     bare_repo=site.bare_path(repo.name) if repo else None,
                     repo_url=site.repo_url(repo.name) if repo else None, argocd_namespace=site.argocd_namespace,
                     applications=list(lab.owns.applications), projects=list(lab.owns.projects),
                     namespaces=list(lab.owns.namespaces))


if __name__ == "__main__":
    main()
