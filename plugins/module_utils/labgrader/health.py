"""The health gate: can this learner VM be graded at all?

A broken VM must give one ERROR with one reason, not a FAIL for every check. First the grader's
own Python runtime is verified against pip's RECORD (runtime.py): a learner who is root can plant
a `.pth` file in the grader's venv, and nothing the grader reads afterwards could be trusted.
Then each probe is one GET; the first failure that makes the rest meaningless (no kubeconfig, API
down) stops.
"""

from __future__ import annotations

import importlib.util
import os
import sys

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import ClusterError, KubeReader
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runtime import (
    environment_findings,
    interpreter_site_packages,
    runtime_problem,
    verify_site_packages,
)

PYTHON_DEPENDENCIES = ("kubernetes", "git", "yaml")


def probe_python():
    """The grader's Python dependencies that are not installed. Looked up, not imported: the
    kubernetes package is imported only for a kubeconfig that needs its loader (kubestate)."""
    return [name for name in PYTHON_DEPENDENCIES if importlib.util.find_spec(name) is None]


def probe_runtime(site_packages=None, environ=None):
    """(problem text or None, {"site_packages", "files", "bytes", "seconds"}) for the given
    site-packages folders and environment, by default the running interpreter's (the grader
    venv's python) and os.environ."""
    folders = interpreter_site_packages() if site_packages is None else list(site_packages)
    findings = environment_findings(os.environ if environ is None else environ, sys.flags.ignore_environment)
    stopped = []
    covered = {"site_packages": folders, "files": 0, "bytes": 0, "seconds": 0.0}
    for folder in folders:
        report = verify_site_packages(folder)
        where = "" if len(folders) == 1 else f"{folder}: "
        findings.extend(where + finding for finding in report["findings"])
        stopped.extend([where + report["stopped"]] if report["stopped"] else [])
        for key in ("files", "bytes", "seconds"):
            covered[key] += report[key]
    covered["seconds"] = round(covered["seconds"], 3)
    return runtime_problem(findings, stopped), covered


def _ready(obj, field):
    return isinstance(dig(obj, "status", field), int) and dig(obj, "status", field) >= 1


def cluster_probes(argocd_namespace, gitd_namespace):
    """(name, path, judge) triples; judge(obj) -> None, or the problem as a catalogue entry
    {"key", "params"} (i18n.MESSAGES)."""
    def problem(key, **params):
        return {"key": key, "params": params}

    return [
        ("api_server", "/version", lambda o: None if o and o.get("gitVersion") else problem("host_no_version")),
        ("application_crd", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/applications.argoproj.io",
         lambda o: None if o else problem("host_crd_missing")),
        ("application_controller",
         f"/apis/apps/v1/namespaces/{argocd_namespace}/statefulsets/argocd-application-controller",
         lambda o: problem("host_controller_missing") if o is None else
         (None if _ready(o, "readyReplicas") else problem("host_controller_not_ready"))),
        ("repo_server", f"/apis/apps/v1/namespaces/{argocd_namespace}/deployments/argocd-repo-server",
         lambda o: problem("host_repo_server_missing") if o is None else
         (None if _ready(o, "availableReplicas") else problem("host_repo_server_not_available"))),
        ("gitd_service", f"/api/v1/namespaces/{gitd_namespace}/services/gitd",
         lambda o: None if o else problem("host_gitd_missing", namespace=gitd_namespace)),
    ]


def catalogued(probe, reason):
    """A problem of the health gate from a catalogue entry: its English text as the detail (the
    host record's message), the entry so that a learner reads it in their language."""
    return {"probe": probe, "detail": i18n.message(reason["key"], reason["params"], "en"), "reason": reason}


def check_health(kubeconfig, argocd_namespace="argocd", gitd_namespace="gitsrv", timeout=10.0, site_packages=None,
                 environ=None):
    """Returns {"healthy", "problems": [{"probe", "detail"}], "probes": {name: "ok" | detail},
    "api_requests", "runtime": what the runtime check covered}. `site_packages`, `environ`: what to verify
    instead of the interpreter's own folders and environment (tests)."""
    probes = {}
    problems = []
    runtime, covered = probe_runtime(site_packages, environ)
    probes["runtime"] = runtime or "ok"
    if runtime:
        problems.append({"probe": "runtime", "detail": runtime})
        return {"healthy": False, "problems": problems, "probes": probes, "api_requests": 0, "runtime": covered}
    missing = probe_python()
    probes["python"] = "ok" if not missing else "missing: " + ", ".join(missing)
    if missing:
        problems.append(catalogued("python", {"key": "host_python_missing", "params": {"modules": ", ".join(missing)}}))
        return {"healthy": False, "problems": problems, "probes": probes, "api_requests": 0, "runtime": covered}
    try:
        reader = KubeReader(kubeconfig, timeout)
    except ClusterError as exc:
        problems.append({"probe": "kubeconfig", "detail": exc.detail, **({"reason": exc.reason} if exc.reason else {})})
        probes["kubeconfig"] = exc.detail
        return {"healthy": False, "problems": problems, "probes": probes, "api_requests": 0, "runtime": covered}
    for name, path, judge in cluster_probes(argocd_namespace, gitd_namespace):
        try:
            problem = judge(reader.get(path))
        except ClusterError as exc:
            problem = f"{exc.kind}: {exc.detail}"
            probes[name] = problem
            problems.append({"probe": name, "detail": problem, **({"reason": exc.reason} if exc.reason else {})})
            if exc.kind in ("unreachable", "unauthorized"):
                break  # every other probe would fail the same way
            continue
        if problem:
            problems.append(catalogued(name, problem))
        probes[name] = problems[-1]["detail"] if problem else "ok"
    return {"healthy": not problems, "problems": problems, "probes": probes, "api_requests": reader.requests,
            "runtime": covered}
