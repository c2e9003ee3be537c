#!/usr/bin/python
"""A learner VM's push token and the certificate it pins, issued on the controller while the VM is
provisioned (the push design, docs/performance.md)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: push_token
short_description: Issue a learner VM's token for pushing its results, and find the certificate it pins
description:
  - Runs on the controller, once per learner host, while C(provision.yml) sets up the push design
    (only when the inventory sets C(lab_push_collector_url)); an action plugin, in the
    controller's own process.
  - "Keeps the VM's token when O(current_digest), the SHA-256 of the VM's token file, is the one
    recorded for the host in C(<report_dir>/.collector/tokens.json); otherwise issues a new token
    (256 random bits) and records only its SHA-256 there, replacing the host's old one (the old
    token stops working). The file maps each host to its token's SHA-256, mode 0600, changed under an
    exclusive lock (provisioning's forks record their hosts at once) and replaced atomically;
    C(scripts/grade-push) reads it when a run starts."
  - The new token is returned in RV(token) to the task that writes it to the VM, and nowhere else;
    the result is marked C(no_log) whenever it carries one, so no callback shows it.
  - Fails, with what to do, when O(collector_url) is not an http(s) URL, is plain HTTP to a
    collector that is not on loopback, or is HTTPS and the class's certificate
    (C(scripts/grade-push --init --address <host>)) does not exist yet or was made for another
    address than the URL's host.
  - In check mode nothing is recorded; C(changed) says whether a token would be issued.
version_added: "1.1.0"
author: Lab grader team
options:
  collector_url:
    description:
      - The collector the VM pushes to, as the VM reaches it (C(lab_push_collector_url)), for
        example C(https://10.0.0.5:8443).
    type: str
    required: true
  current_digest:
    description:
      - The SHA-256 (hex) of the VM's token file as it is now (M(ansible.builtin.stat)'s
        checksum), or unset when the VM has none. Only a digest - the VM's token itself is never a
        task's argument.
    type: str
  report_dir:
    description:
      - The class's report folder (C(grade_report_dir)), whose C(.collector/) holds the token
        digests and the certificate; C(reports/) of the collection's checkout by default, as
        C(scripts/grade-push) reads it.
    type: path
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: The VM's token file as it is
  ansible.builtin.stat:
    path: /etc/lab-grader/push-token
    checksum_algorithm: sha256
  register: push_token_file

- name: Keep the VM's token, or issue a new one
  gitops_lab.grader.push_token:
    collector_url: "{{ lab_push_collector_url }}"
    current_digest: "{{ push_token_file.stat.checksum | default(omit) }}"
    report_dir: "{{ grade_report_dir | default(omit) }}"
  register: push_token

- name: Write a new token to the VM
  ansible.builtin.copy:
    content: "{{ push_token.token }}"
    dest: /etc/lab-grader/push-token
    mode: "0600"
  no_log: true
  when: push_token.token is not none
"""

RETURN = r"""
token:
  description: The new token, when one was issued; null when the VM's token is kept (or in check mode).
  returned: success
  type: str
  sample: null
certificate:
  description: The class's certificate the VM pins (HTTPS), on the controller; null for a plain HTTP collector.
  returned: success
  type: str
  sample: /home/instructor/lab/reports/.collector/collector.pem
tokens_file:
  description: The class's token digests on the controller.
  returned: success
  type: str
  sample: /home/instructor/lab/reports/.collector/tokens.json
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.push import TOKEN_OPTIONS


def main():
    module = AnsibleModule(argument_spec=TOKEN_OPTIONS, supports_check_mode=True)
    module.fail_json(msg="push_token runs on the controller, as its action plugin: the class's token digests are "
                         "the controller's")


if __name__ == "__main__":
    main()
