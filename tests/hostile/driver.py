"""Run one grader operation on hostile input in a fresh process under an address-space limit,
and print what it returned with the time and peak memory it took (tests/hostile/harness.py).

stdin: {"op": ..., "memory_mb": N, ...op arguments}; stdout: one JSON object.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def limit_memory(megabytes):
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def module_utils():
    """The collection's Python root first on sys.path: the grader's module_utils by their collection name."""

    sys.path.insert(0, str(REPO_ROOT / "collections"))


def op_json(args):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import read_json, read_yaml_documents

    reader = read_json if args["op"] == "json" else read_yaml_documents
    read = reader(args["root"], args["name"])
    return {"problem": read.problem, "detail": read.detail, "ok": read.ok}


def op_repo(args):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.gitstate import collect_repo

    repo = collect_repo(args["path"], "main", prefixes=("charts/web", "kust", "waves"),
                        tracked_paths=("waves/config.yaml", "waves/migrate.yaml"), timeout=args.get("timeout", 20))
    return {"problem": repo.problem, "detail": repo.detail, "commits": len(repo.commits), "tree": len(repo.tree),
            "truncated": repo.truncated}


def op_clone(args):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.gitstate import collect_clone

    clone = collect_clone(args["path"])
    return {"problem": clone.problem, "detail": clone.detail, "remotes": clone.remotes, "push_urls": clone.push_urls}


def op_cluster(args):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import collect_cluster

    state = collect_cluster(args["kubeconfig"], {"cms": ("/api/v1/namespaces/src-helm/configmaps", None),
                                                 "apps": ("/apis/apps/v1/namespaces/src-helm/deployments", None)},
                            timeout=args.get("timeout", 5))
    return {"problem": state.problem, "detail": state.detail, "requests": state.requests}


def op_health(args):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.health import check_health

    return check_health(args["kubeconfig"], timeout=args.get("timeout", 5))


def op_grade(args):
    """The capa-src lab end to end: the module's collector, then grading with no settling."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

    lab = LABS["capa-src"]
    host = Path(args["host_dir"])
    tools = os.environ.get("LAB_TOOLS_BIN")  # the control plane's helm and kustomize (tests/conftest.py)
    site = Site(bare_root=str(host / "srv" / "bare"), workspace_root=str(host / "root"),
                helm_binary=tools and os.path.join(tools, "helm"), kustomize_binary=tools and os.path.join(tools, "kustomize"))
    result = grade(lab, collector(lab, site, str(host / "kubeconfig"), timeout=args.get("timeout", 5)), "en", 0, 1)
    text = json.dumps(result)  # what the module would hand to Ansible
    checks = {c["check"]: [c["status"], c["message"]] for step in result["steps"] for c in step["checks"]}
    return {"checks": checks, "error": result.get("error"), "json_bytes": len(text), "full": result}


def op_grade_host(args):
    """The module's whole grading of one host (runner.grade_host: every lab by one deadline of
    `time_budget` seconds, probes run for real, no settling, no health gate); the answer echoes
    `nonce`, which only this process knows, so that a forged answer can be told from its own."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC, grade_host

    host = Path(args["host_dir"])
    params = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}
    params.update(labs=args["labs"], workspace_root=str(host / "root"), bare_root=str(host / "srv" / "bare"),
                  kubeconfig=str(host / "kubeconfig"), k3s_kubeconfig=args["k3s_kubeconfig"], health=False,
                  settle_timeout=0, api_timeout=args.get("timeout", 5), time_budget=args["time_budget"])
    result = grade_host(params)
    checks = {c["check"]: [c["status"], c["message"]] for lab in result["labs"].values() for step in lab["steps"]
              for c in step["checks"]}
    return {"nonce": args["nonce"], "checks": checks, "full": result}


OPS = {"json": op_json, "yaml": op_json, "repo": op_repo, "clone": op_clone, "cluster": op_cluster,
       "health": op_health, "grade": op_grade, "grade_host": op_grade_host}


def main():
    args = json.load(sys.stdin)
    module_utils()
    limit_memory(args.get("memory_mb", 2048))
    started = time.monotonic()
    answer = OPS[args["op"]](args)
    seconds = time.monotonic() - started
    usage = [resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    print(json.dumps({"answer": answer, "seconds": seconds, "max_rss_mb": max(usage) / 1024}))


if __name__ == "__main__":
    main()
