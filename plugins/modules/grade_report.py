"""Write the class report of one grading run (controller side)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: grade_report
short_description: Write the class report of one grading run
description:
  - Turns the host records of one grading run (see C(docs/grading-contract.md)) into a report
    folder C(<output_dir>/<YYYYmmddTHHMMSSZ>/) holding C(grades.json), C(grades.csv), C(junit.xml),
    C(index.html) and C(learners/<host>.txt), and points C(<output_dir>/latest) at it (the symlink
    is replaced atomically).
  - Compares each learner with the class view C(latest) showed before this run (who progressed).
  - A partial run (O(hosts) is fewer than O(class_hosts), for example C(-l learner03)) is merged
    into that class view, so C(latest) keeps showing the whole class; the learners this run did not
    grade are carried over with the time they were graded.
  - Also returns a compact text matrix of the class, which the C(grade_matrix) callback prints.
  - "Runs on the controller (C(run_once: true)), in the controller's own process (an action
    plugin: the records are never sent as a module's arguments). It is a writer, not a grader, so
    it reports C(changed=true) when it writes a report."
  - Bad input never raises. A record that is missing, not a mapping or has the wrong shape
    becomes a host (or lab, or check) in ERROR of kind C(grader), kept apart from learner failures.
  - The controller trusts nothing it did not expect. A host's result must hold exactly the labs
    O(enrolled) gives for it, each with exactly the steps (titled as the registry titles them in the
    host's language) and checks the controller's lab registry declares, statuses from the
    vocabulary, step and lab statuses and the summary as its checks give them, and no string or
    value larger than the grading module returns. Otherwise the host is in ERROR of kind
    C(grader) with the message C(result rejected:) and the first reason. Lab columns and step
    titles of the report come from the registry, so one host's result cannot change another
    host's row or the report's columns.
  - The file layout and the C(lab-grades/v1) schema are described in C(docs/report-format.md).
options:
  records:
    description:
      - The host records, as a list (one per host), a mapping host name -> record, or a JSON
        string of either.
      - An item that is C(null), empty or not a mapping becomes a host in ERROR.
      - Required, unless O(registered) is given (one of the two).
    type: raw
  registered:
    description:
      - The variable in which each host of O(hosts) registered its M(gitops_lab.grader.lab_grade)
        result. The records are then built on the controller from each host's variables, as the
        P(gitops_lab.grader.grade_records#filter) filter builds them, instead of being passed as O(records)
        (C(grade.yml); docs/performance.md).
      - Read by the action plugin of this module, which runs the report in the controller's process;
        the module run on its own fails with it.
    type: str
  enrolled:
    description:
      - The labs each host is enrolled in, as the C(grade_settings) filter returns them
        (host -> C({labs, lang})), or host -> labs. Labs are a list or a comma-separated string
        (C(lab_enrolled)).
      - Each record is checked against its host's labs; a graded record of a host not in this
        mapping is rejected.
      - Required, unless O(group) is given (one of the two).
    type: dict
  group:
    description:
      - "The inventory group (or pattern) being graded. The action plugin then reads the run from the
        inventory instead of O(hosts), O(class_hosts) and O(enrolled): the hosts of O(group) that
        O(limit) keeps, the whole group as the class, and each host's registered result (O(registered),
        required with it) and enrolled labs, each host's variables once (C(grade.yml); docs/performance.md)."
      - The module run on its own fails with it.
    type: str
  limit:
    description: With O(group), the pattern of C(--limit) (C(ansible_limit)); omitted, every host of O(group).
    type: str
  hosts:
    description:
      - The hosts that were meant to be graded, usually C(ansible_play_hosts_all).
      - A host in this list with no record becomes a host in ERROR (kind C(grader), "the host
        produced no grading record").
      - When it has the same length as a list O(records), items are paired by position, which
        names records that lack a C(host) key.
    type: list
    elements: str
    default: []
  class_hosts:
    description:
      - Every host of the class, usually the inventory group being graded (without C(--limit)).
      - When some of them are not in O(hosts), the run is partial and is merged into the class
        view of the previous run. Empty means O(hosts) is the whole class.
    type: list
    elements: str
    default: []
  output_dir:
    description:
      - The folder that holds the timestamped report folders and the C(latest) symlink.
        Created when missing.
    type: path
    required: true
  lang:
    description:
      - Language of the report's own labels (headers, legend). Learner messages are already in
        each host's language.
    type: str
    choices: [en, ja, ko]
    default: en
  title:
    description:
      - Page title of C(index.html). Defaults to "Class report" in O(lang).
    type: str
    default: ""
  ascii:
    description:
      - Use ASCII symbols in the terminal matrix (C(+ X ~ ! .)) instead of C(✓ ✗ ⋯ ! ∙).
    type: bool
    default: false
extends_documentation_fragment:
  - action_common_attributes
attributes:
  check_mode:
    support: full
    details: In check mode nothing is written (RV(written) is false, the matrix says so); the
      would-be paths and the matrix are returned.
  diff_mode:
    support: none
  platform:
    platforms: posix
author:
  - Lab grader team
"""

EXAMPLES = r"""
- name: CHECK write the class report
  gitops_lab.grader.grade_report:
    # hosts without a grade_record fact are dropped here and reported as ERROR through `hosts`
    records: >-
      {{ ansible_play_hosts_all | map('extract', hostvars)
         | selectattr('grade_record', 'defined') | map(attribute='grade_record') | list }}
    hosts: "{{ ansible_play_hosts_all }}"
    enrolled: "{{ hostvars | grade_settings(ansible_play_hosts_all) }}"
    output_dir: "{{ grade_report_dir | default(playbook_dir ~ '/reports') }}"
    lang: "{{ grade_report_lang | default('en') }}"
  delegate_to: localhost
  run_once: true
  register: class_report

- name: Fail the run in strict mode when a learner failed
  ansible.builtin.fail:
    msg: "learner failures, see {{ class_report.index_html }}"
  when: grade_strict | default(false) | bool and class_report.learner_failures
  run_once: true
"""

RETURN = r"""
written:
  description: True when the report was written (false in check mode).
  returned: always
  type: bool
outcome:
  description:
    - The run's last word, as C(grade.yml) fails with it and C(scripts/grade-push) says it.
      C(code) 2 with the hosts that could not be graded (unless the learners' C(grade_allow_host_errors)),
      else 3 in strict mode (C(grade_strict)) with the failing learners, else 0 and no message.
  returned: when O(group) is given (the run read from the inventory)
  type: dict
  sample: {code: 2, message: "Could not grade 1 of 8 hosts: learner07 (unreachable). The other 7 were graded;
           see /srv/grader/reports/20261130T051200Z/index.html"}
scope:
  description:
    - C(class) when this run graded the whole class, C(partial) when it graded only some of
      O(class_hosts) and was merged into the previous class view.
  returned: always
  type: str
  sample: partial
carried_hosts:
  description: Learners of a partial run's class view that this run did not grade (carried over).
  returned: always
  type: list
  elements: str
changes:
  description:
    - Per learner, what changed since the previous run (C(grades.json) C(hosts[].change)); empty
      when there is no previous run.
  returned: always
  type: dict
  sample: {learner02: {change: progressed, since: "2026-11-30T05:12:00Z", up: [capa-src.5],
           down: [], passed_delta: 4}}
report_dir:
  description: The report folder of this run (not created in check mode).
  returned: always
  type: str
  sample: /srv/grader/reports/20261130T051200Z
latest:
  description: The symlink that points at the newest report folder.
  returned: always
  type: str
  sample: /srv/grader/reports/latest
files:
  description: Paths of grades.json, grades.csv, checks.csv, junit.xml and index.html, in that order.
  returned: always
  type: list
  elements: str
  sample:
    - /srv/grader/reports/20261130T051200Z/grades.json
    - /srv/grader/reports/20261130T051200Z/grades.csv
    - /srv/grader/reports/20261130T051200Z/checks.csv
    - /srv/grader/reports/20261130T051200Z/junit.xml
    - /srv/grader/reports/20261130T051200Z/index.html
index_html:
  description: Path of index.html (also in RV(files)).
  returned: always
  type: str
  sample: /srv/grader/reports/20261130T051200Z/index.html
generated_at:
  description: UTC time of the report, ISO 8601.
  returned: always
  type: str
  sample: "2026-11-30T05:12:00Z"
counts:
  description:
    - Check outcomes over all graded hosts (PASS, FAIL, PENDING, ERROR, total) and host counts
      (hosts, hosts_graded, hosts_in_error), plus labs_in_error (lab results that could not be read).
  returned: always
  type: dict
  sample: {PASS: 160, FAIL: 3, PENDING: 1, ERROR: 0, total: 164, hosts: 5, hosts_graded: 4,
           hosts_in_error: 1, labs_in_error: 0}
matrix:
  description: The compact class matrix for a terminal, one string with newlines.
  returned: always
  type: str
hosts_in_error:
  description:
    - Names of the hosts this run could not grade (environment or grader errors); hosts a partial
      run carried over are not counted here (nor in RV(host_errors) and RV(learner_failures)).
  returned: always
  type: list
  elements: str
  sample: [learner03]
host_errors:
  description: The same hosts with their error kind and message.
  returned: always
  type: list
  elements: dict
  sample: [{host: learner03, kind: unreachable, message: "ssh: connect timed out"}]
learner_failures:
  description: True when any check of a graded host is FAIL.
  returned: always
  type: bool
failing_learners:
  description: The graded hosts of this run with a FAIL check (what strict mode names).
  returned: always
  type: list
  elements: str
  sample: [learner03]
"""

import datetime

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.run import (
    ONE_ENROLMENT,
    ONE_SOURCE,
    ReportFailed,
    argument_spec,
    class_report,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import UTC


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True,
                           required_one_of=ONE_SOURCE + ONE_ENROLMENT, mutually_exclusive=ONE_SOURCE + ONE_ENROLMENT,
                           required_by={"group": "registered"})
    if module.params["registered"]:
        module.fail_json(msg="registered: the hosts' results are read by the grade_report action plugin, on the "
                             "controller; this module alone takes records")
    try:
        result, warnings = class_report(module.params, module.check_mode, now=datetime.datetime.now(UTC))
    except ReportFailed as failure:
        module.fail_json(msg=str(failure), exception=failure.exception, **failure.result)
    for warning in warnings:
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
