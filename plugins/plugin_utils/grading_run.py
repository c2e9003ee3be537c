"""What the controller's grading tasks (lab_settings and grade_report, action plugins) read from the
inventory: the hosts of a run and each host's settings, in Python, each host's variables once.

Jinja did this before and it grew faster than the class: `select('in', list)` over Ansible's lazy
lists is a scan per host (N^2 element accesses, most of the settings check's 169 s at N = 1,000),
and each of the task's arguments templated `hostvars[host]` again (docs/performance.md)."""

from __future__ import annotations

from ansible.errors import AnsibleError
from ansible.inventory.manager import InventoryManager
from ansible.module_utils.parsing.convert_bool import boolean
from ansible_collections.gitops_lab.grader.plugins.filter.grading import host_record, host_settings
from ansible_collections.gitops_lab.grader.plugins.filter.lab_options import enrolled_labs, lab_options
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import kind_label

# The run-wide variables lab_settings checks, and the value each has when no inventory sets it
# (grade.yml's defaults).
RUN_DEFAULTS = {"grade_settle_timeout": 30, "grade_poll_interval": 5, "grade_task_timeout": 300, "grade_time_budget": 240,
                "grade_strict": False, "grade_allow_host_errors": False}
# A run's exit codes when it could not grade every host, and in strict mode when learners fail
# (README.md, "Exit codes"; grade.yml's outcome tasks say them as grade_exit_code).
HOSTS_IN_ERROR, STRICT_FAILURES = 2, 3


def run_settings(variables):
    """The run-wide grade_* variables as a learner host's `variables` have them (the learners'
    plays see group_vars/learners or -e there, not in localhost's)."""
    return {name: variables.get(name, default) for name, default in RUN_DEFAULTS.items()}


def run_outcome(report, run_hosts_count, where, run):
    """{"code", "message"} of a run of `run_hosts_count` hosts (grade.yml's and grade-push's last
    word): hosts in error (unless grade_allow_host_errors), then strict mode's failing learners;
    code 0 and no message otherwise. `report`: the class report's summaries (host_errors,
    failing_learners); `where`: the report's index.html, or why there is none; `run`:
    run_settings (the switches as the inventory or -e give them: true, "yes", "false", ...)."""
    errors, failing = report["host_errors"], report["failing_learners"]
    graded = run_hosts_count - len(errors)
    if errors and not boolean(run["grade_allow_host_errors"], strict=False):
        listed = ", ".join(f"{e['host']} ({kind_label(e['kind'])})" for e in errors)
        rest = f"The other {graded} were graded" if graded > 0 else "No learner was graded"
        return {"code": HOSTS_IN_ERROR,
                "message": f"Could not grade {len(errors)} of {run_hosts_count} hosts: {listed}. {rest}; see {where}"}
    if boolean(run["grade_strict"], strict=False) and failing:
        return {"code": STRICT_FAILURES,
                "message": f"Strict mode: failing checks for {len(failing)} of {graded} graded learners: "
                           f"{', '.join(failing)}. See {where}"}
    return {"code": 0, "message": ""}


def run_hosts(group, limit, loader, task_vars):
    """The hosts of `group` (a pattern) that `limit` (-l; None: no limit) keeps, in the inventory's
    order: what query('ansible.builtin.inventory_hostnames', ...) gives, from one inventory."""
    inventory = InventoryManager(loader, parse=False)  # as the inventory_hostnames lookup builds it
    for name, hosts in task_vars["groups"].items():
        inventory.add_group(name)
        for host in hosts:
            inventory.add_host(host, group=name)

    def names(pattern):
        try:
            return [host.name for host in inventory.get_hosts(pattern=pattern)]
        except AnsibleError:  # a pattern that names nothing known (the lookup's answer too)
            return []

    hosts = names(group)
    if limit is None:
        return hosts
    kept = set(names(limit))
    return [host for host in hosts if host in kept]


def grading_options(variables):
    """The lab_grade options grade.yml gives a host with these `variables`: its task's arguments
    (labs, lang, settle_timeout, poll_interval, time_budget; labs_as_json only shapes what Ansible returns) and
    its play's module_defaults (the site, tools and reader options the lab_* variables set)."""
    return {**lab_options(variables, "site", "tools", "reader"),
            "labs": enrolled_labs(variables.get("lab_enrolled")),
            "lang": variables.get("lab_lang", "en"),
            "settle_timeout": variables.get("grade_settle_timeout", RUN_DEFAULTS["grade_settle_timeout"]),
            "poll_interval": variables.get("grade_poll_interval", RUN_DEFAULTS["grade_poll_interval"]),
            "time_budget": variables.get("grade_time_budget", RUN_DEFAULTS["grade_time_budget"])}


def class_settings(hostvars, hosts, grading=False):
    """lab_settings' options for the run's `hosts`, each host's variables read once: hosts ({host:
    {labs, lang}}), sites ({host: {site option: value}}), addresses ({host: ansible_host or None}),
    run (the run-wide grade_* variables as the learners' plays see them: the first host's, which
    group_vars/learners or -e set) and report_lang; with `grading`, also grading ({host: its
    grading_options}: what a pushing VM is told to grade with)."""
    settings = {"hosts": {}, "sites": {}, "addresses": {}, "run": {}, "report_lang": "en"}
    if grading:
        settings["grading"] = {}
    for index, host in enumerate(hosts):
        variables = hostvars[host]
        settings["hosts"][host] = host_settings(variables)
        settings["sites"][host] = lab_options(variables, "site")
        settings["addresses"][host] = variables.get("ansible_host")
        if grading:
            settings["grading"][host] = grading_options(variables)
        if index == 0:
            settings["run"] = run_settings(variables)
            settings["report_lang"] = variables.get("grade_report_lang", "en")
    return settings


def class_records(hostvars, hosts, registered):
    """(records, enrolled) of the run's `hosts` for grade_report, each host's variables read once:
    the record of each host that registered its lab_grade result as `registered` (grade_records),
    and {host: {labs, lang}} (grade_settings)."""
    records, enrolled = [], {}
    for host in hosts:
        variables = hostvars[host]
        enrolled[host] = host_settings(variables)
        record = host_record(variables, host, registered)
        if record is not None:
            records.append(record)
    return records, enrolled
