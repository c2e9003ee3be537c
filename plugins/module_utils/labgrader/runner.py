"""The lab_grade module's work: validate options, gate on the VM's health, grade each enrolled
lab, return one compact host record. Never writes."""

from __future__ import annotations

import functools
import json
import os
import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade, lab_budgets
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.health import check_health
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import MAX_TIME_BUDGET, unknown_lab_message
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import (
    CLUSTER_OPTIONS,
    KUBECONFIG,
    SITE_OPTIONS,
    TOOL_OPTIONS,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import LANGUAGES

ARGUMENT_SPEC = {
    **CLUSTER_OPTIONS,
    **SITE_OPTIONS,
    **TOOL_OPTIONS,
    # Checked against the registry by option_problem (with "did you mean"), so that adding a lab
    # edits no module documentation.
    "labs": {"type": "list", "elements": "str", "required": True},
    "lang": {"type": "str", "default": "en", "choices": list(LANGUAGES)},
    "health": {"type": "bool", "default": True},
    "settle_timeout": {"type": "float", "default": 30},
    "poll_interval": {"type": "float", "default": 5},
    "max_file_bytes": {"type": "int", "default": 1024 * 1024},
    "time_budget": {"type": "float", "default": 240},
    "k3s_kubeconfig": {"type": "path", "default": KUBECONFIG},
    "probe_replay": {"type": "path"},
    "labs_as_json": {"type": "bool", "default": False},
}


def module_params(options):
    """lab_grade's options as AnsibleModule hands them to it: every default, then `options`, each
    path with ~ and $VAR expanded here, on the VM, as Ansible's check_type_path does
    (ansible/module_utils/common/validation.py: expanduser(expandvars(value)))."""
    params = {**{name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}, **options}
    return {name: os.path.expanduser(os.path.expandvars(value))
            if ARGUMENT_SPEC.get(name, {}).get("type") == "path" and isinstance(value, str) else value
            for name, value in params.items()}


def option_problem(params):
    """The first option out of range, as a message, or None."""
    for name, highest in (("settle_timeout", 600), ("poll_interval", 600), ("api_timeout", 600),
                          ("time_budget", MAX_TIME_BUDGET)):
        if params[name] < 0 or params[name] > highest:
            return f"{name} must be between 0 and {highest} seconds, got {params[name]}"
    if params["api_timeout"] == 0:
        return "api_timeout must be more than 0 seconds"
    if params["poll_interval"] == 0 and params["settle_timeout"] > 0:
        return "poll_interval must be more than 0 when settle_timeout is set"
    for name in ("workspace_root", "bare_root"):
        if not os.path.isabs(params[name]):
            # Relative to the module's temporary directory: every lab would be "not found", a
            # FAIL for finished work.
            return f"{name} must be an absolute path, got {params[name]!r}"
    unknown = [lab_id for lab_id in params["labs"] if lab_id not in LABS]
    if unknown:
        return f"labs: {unknown_lab_message(unknown)}"
    return None


def grade_host(params, progress=None):
    """{"state": "graded" | "error", "error", "health", "labs": {lab id: result}}. Everything ends
    by one deadline, `time_budget` seconds from the start; after the health gate, each enrolled
    lab gets its own share of what is left (grading.lab_budgets), so that one lab's slow probes
    or reads cannot spend another's time. `progress`, when given, hears what is going on:
    progress(lab) as a lab's grading starts, progress(lab, pending, waited, settle) as it waits for
    Argo CD (grading.grade on_wait)."""
    deadline = time.monotonic() + params["time_budget"]
    site = Site(params["argocd_namespace"], params["gitd_namespace"], params["bare_root"], params["workspace_root"],
                params["k3s_kubeconfig"], params["probe_replay"], params["helm_binary"], params["kustomize_binary"])
    health = None
    if params["health"]:
        health = check_health(params["kubeconfig"], params["argocd_namespace"], params["gitd_namespace"],
                              params["api_timeout"])
        # health's problems carry their catalogue entries (the learner's language); a site root's do not
        problems = [(p["detail"], p.get("reason")) for p in health["problems"]]
        problems += [(detail, None) for detail in site.root_problems()]
        if problems:
            reasons = [reason for _, reason in problems]
            error = {"kind": "health", "message": "; ".join(detail for detail, _ in problems),
                     "details": health["probes"], "reasons": reasons if all(reasons) else None}
            return {"state": "error", "error": error, "health": health, "labs": {}}
    results = {}
    labs = [LABS[lab_id] for lab_id in dict.fromkeys(params["labs"])]
    for lab, budget in lab_budgets(labs, params["time_budget"], deadline):
        collect = collector(lab, site, params["kubeconfig"], params["api_timeout"], params["max_file_bytes"], budget)
        on_wait = None
        if progress is not None:
            progress(lab)
            on_wait = functools.partial(progress, lab)
        results[lab.id] = grade(lab, collect, params["lang"], params["settle_timeout"], params["poll_interval"],
                                deadline=budget.deadline, on_wait=on_wait)
    return {"state": "graded", "error": None, "health": health, "labs": results}


def run_lab_grade(module_class):
    module = module_class(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    problem = option_problem(module.params)
    if problem:
        module.fail_json(msg=problem, changed=False)
    result = grade_host(module.params)
    if module.params["labs_as_json"]:
        # One string instead of ~5,600 objects: Ansible finalises a module's result object by
        # object on the controller (docs/performance.md); the report decodes it (grade_record).
        result["labs_json"] = json.dumps(result.pop("labs"), ensure_ascii=False, separators=(",", ":"))
    module.exit_json(changed=False, **result)
