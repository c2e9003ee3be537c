"""Grading settings checked once, on the controller, before any VM is touched: enrolled lab ids,
learner and report languages, where each host's labs live (absolute roots, namespace names), the
run-wide timings and switches, and a class that has learners at all. An instructor's slip in any
of them stops the run with the reason; it must never reach a VM and come back as learner FAILs."""

from __future__ import annotations

import difflib
import ipaddress
import os
import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import enrolled
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import LANGUAGES

# Two-letter codes are one letter apart at best (jp/ja, kr/ko): difflib's ratio for them is 0.5.
LANGUAGE_CUTOFF = 0.5


def did_you_mean(value, known, cutoff=0.6):
    close = difflib.get_close_matches(str(value), list(known), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]}?)" if close else ""


def unknown_lab_message(unknown):
    """'unknown lab capa-sr (did you mean capa-src?); known labs: capa-src, cgoa-ci'."""
    parts = [f"unknown lab {lab_id}{did_you_mean(lab_id, LABS)}" for lab_id in unknown]
    return "; ".join(parts) + f"; known labs: {', '.join(sorted(LABS))}"


# A namespace name is an RFC 1123 label (Kubernetes apimachinery validation.IsDNS1123Label).
DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_LABEL_MAX = 63

# lab_grade's time_budget at most: an hour. A VM 15-25 times slower than a host (QEMU without
# hardware acceleration, docs/real-vm.md) needs minutes for what a k3s VM grades within 240 s.
MAX_TIME_BUDGET = 3600
# Run-wide timings: (lowest, highest) seconds; lab_grade's option_problem bounds the first two and
# the budget too.
RUN_SECONDS = {"grade_settle_timeout": (0, 600), "grade_poll_interval": (0, 600), "grade_task_timeout": (1, 86400),
               "grade_time_budget": (1, MAX_TIME_BUDGET)}
# Seconds grade.yml's task needs beyond the grading's budget: the module's transfer and the
# interpreter's start come before its clock starts (tens of seconds on a slow VM).
TASK_MARGIN = 60
RUN_SWITCHES = ("grade_strict", "grade_allow_host_errors")


def site_problem(option, value):
    """Why a host's workspace_root, bare_root or *_namespace (its lab_<option> variable) cannot be
    right, or None."""
    variable = f"lab_{option}"
    if option.endswith("_root"):
        # A relative root is read from the module's temporary directory: every lab "not found".
        return None if os.path.isabs(str(value)) else f"{variable} {value!r} is not an absolute path"
    if len(str(value)) <= DNS1123_LABEL_MAX and DNS1123_LABEL.fullmatch(str(value)):
        return None
    return (f"{variable} {value!r} is not a namespace name (lowercase letters, digits and '-', "
            f"at most {DNS1123_LABEL_MAX})")


# The documentation networks of RFC 5737 (IPv4) and RFC 3849 (IPv6): inventory/class/hosts.yml's
# example addresses are 192.0.2.x. Nothing answers there: grading them is 5 s of SSH timeout each.
DOCUMENTATION_NETWORKS = tuple(ipaddress.ip_network(net) for net in
                               ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32"))
EXAMPLE_ADDRESSES = ("ansible_host is an example address of the documentation networks (RFC 5737, 3849): "
                     "the inventory still holds the example class; put your VMs' addresses there")


def is_documentation_address(address):
    try:
        ip = ipaddress.ip_address(str(address))
    except ValueError:
        return False  # a DNS name: whatever it resolves to is the instructor's
    return any(ip in network for network in DOCUMENTATION_NETWORKS)


def seconds_of(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def run_problems(run):
    """The run-wide settings (`run`: {variable: value as the playbook saw it}) that are not a number
    of seconds in range or not a boolean Ansible reads as one ('ture' is silently false for `bool`)."""
    problems = []
    seconds = {variable: seconds_of(run[variable]) for variable in RUN_SECONDS if variable in run}
    for variable, value in seconds.items():
        lowest, highest = RUN_SECONDS[variable]
        if value is None or not lowest <= value <= highest:
            problems.append(f"{variable} {run[variable]!r} is not a number of seconds from {lowest} to {highest}")
    if seconds.get("grade_poll_interval") == 0 and (seconds.get("grade_settle_timeout") or 0) > 0:
        problems.append("grade_poll_interval must be more than 0 when grade_settle_timeout is set")
    budget, task = seconds.get("grade_time_budget"), seconds.get("grade_task_timeout")
    if budget is not None and task is not None and budget + TASK_MARGIN > task:
        # Ansible ends the task at its timeout: the host would be an ERROR without its findings.
        problems.append(f"grade_time_budget {run['grade_time_budget']!r} must be at least {TASK_MARGIN} s less than "
                        f"grade_task_timeout {run['grade_task_timeout']!r}: the grading would be ended before it reports")
    # Imported here: runner.py imports this module, and the recorder and the learner's `lab check`
    # import runner.py where ansible-core may not be installed (tests/labworld/test_record.py).
    from ansible.module_utils.parsing.convert_bool import BOOLEANS

    for variable in RUN_SWITCHES:
        value = run.get(variable, False)
        if not isinstance(value, bool) and str(value).lower() not in BOOLEANS:
            problems.append(f"{variable} {value!r} is not a boolean (true or false)")
    return problems


def argument_spec():
    """lab_settings' options (the module and its action plugin, which reads the inventory when
    `hosts` is not given)."""
    return {
        "hosts": {"type": "dict"},
        "sites": {"type": "dict", "default": {}},
        "run": {"type": "dict", "default": {}},
        "addresses": {"type": "dict", "default": {}},
        "report_lang": {"type": "str", "default": "en"},
        "group": {"type": "str", "default": "learners"},
        "limit": {"type": "str"},
    }


def settings_problems(hosts, report_lang, group, sites=None, run=None, addresses=None):
    """Every problem of the run's settings, one line each; [] when grading can start.
    `hosts`: {host: {"labs": lab_enrolled, "lang": lab_lang}}; `sites`: {host: {site option:
    value}} of the site options a host's lab_* variables set; `run`: the run-wide grade_* variables;
    `addresses`: {host: ansible_host}."""
    if not hosts:
        return [f"no hosts to grade: the inventory has no host in group {group!r} (or -l matched none)"]
    problems = run_problems(run or {})
    if report_lang not in LANGUAGES:
        problems.append(f"grade_report_lang {report_lang!r} is not one of {', '.join(LANGUAGES)}"
                        f"{did_you_mean(report_lang, LANGUAGES, LANGUAGE_CUTOFF)}")
    by_problem = {}
    for host, address in sorted((addresses or {}).items()):
        if is_documentation_address(address):
            by_problem.setdefault(EXAMPLE_ADDRESSES, []).append(host)
    for host, options in sorted((sites or {}).items()):
        for option, value in sorted(options.items()):
            message = site_problem(option, value)
            if message:
                by_problem.setdefault(message, []).append(host)
    for host, settings in sorted(hosts.items()):
        unknown = [lab_id for lab_id in enrolled(settings.get("labs")) if lab_id not in LABS]
        if unknown:
            by_problem.setdefault(f"lab_enrolled: {unknown_lab_message(unknown)}", []).append(host)
        if not enrolled(settings.get("labs")):
            by_problem.setdefault("lab_enrolled is empty", []).append(host)
        lang = settings.get("lang")
        if lang not in LANGUAGES:
            message = (f"lab_lang {lang!r} is not one of {', '.join(LANGUAGES)}"
                       f"{did_you_mean(lang, LANGUAGES, LANGUAGE_CUTOFF)}")
            by_problem.setdefault(message, []).append(host)
    for message, where in by_problem.items():
        shown = ", ".join(where[:5]) + (f" and {len(where) - 5} more" if len(where) > 5 else "")
        problems.append(f"{message} (hosts: {shown})")
    return problems
