"""The reference solutions' runner (solutions/solve.py) without a cluster: the grader decides
where solving starts, check mode changes nothing, and failures name the lab, the step and the
command. The solutions themselves run on the real control plane (tests/controlplane/test_labs_plane.py)."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.machine import SolveError
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.registry import SOLUTIONS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.solve import solve, unfinished

from tests.conftest import REPO_ROOT


def params(host, lab="capa-src", until=0, kubectl=("kubectl",)):
    return {"lab": lab, "last_step": until, "kubectl": list(kubectl), "argocd": ["argocd"],
            "kubeconfig": str(host / "kubeconfig"), "api_timeout": 5, "workspace_root": str(host / "root"),
            "bare_root": str(host / "srv" / "bare"), "argocd_namespace": "argocd", "gitd_namespace": "gitsrv",
            "wait_timeout": 5, "helm_binary": repo_server.HELM_BINARY, "kustomize_binary": repo_server.KUSTOMIZE_BINARY}


def tree(host):
    """The learner's files and repositories with their modification times."""
    return {os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime_ns
            for top in ("root", "srv") for d, _, files in os.walk(host / top) for f in files}


def test_every_lab_has_a_solution_with_one_function_per_step():
    assert set(SOLUTIONS) == set(LABS)
    for lab_id, lab in LABS.items():
        assert len(SOLUTIONS[lab_id]) == max(check.step for check in lab.checks), lab_id


PACKAGE = ["ansible_collections", "gitops_lab", "grader", "plugins", "module_utils", "labgrader"]


def shipped(module_path):
    """The labgrader modules AnsiballZ ships with a module: every import statement of the package
    (PACKAGE), at any depth of the syntax tree (as ansible-core's ModuleDepFinder visits them),
    followed from file to file."""
    base = REPO_ROOT / "plugins" / "module_utils"
    seen, todo = set(), [Path(module_path)]
    while todo:
        tree = ast.parse(todo.pop().read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            for name in names:
                parts = name.split(".")
                if parts[:len(PACKAGE)] != PACKAGE:
                    continue
                for depth in range(len(PACKAGE), len(parts) + 1):
                    path = base.joinpath(*parts[len(PACKAGE) - 1:depth])
                    for candidate in (path / "__init__.py", path.with_suffix(".py")):
                        if candidate.is_file() and candidate not in seen:
                            seen.add(candidate)
                            todo.append(candidate)
    return {str(path.relative_to(base)) for path in seen}


@pytest.mark.parametrize("program", ["plugins/modules/lab_grade.py", "plugins/modules/lab_info.py",
                                     "plugins/module_utils/labgrader/lab_command.py"])
def test_no_reference_solution_reaches_a_learners_vm(program):
    modules = shipped(REPO_ROOT / program)
    assert "labgrader/labs/capa_src/definition.py" in modules  # the walk follows the lab packages
    assert not [module for module in modules if "solution" in module]


def test_the_solve_module_ships_every_solution():
    modules = shipped(REPO_ROOT / "plugins/modules/lab_solve.py")
    assert {f"labgrader/labs/{lab_id.replace('-', '_')}/solution.py" for lab_id in LABS} <= modules


@pytest.mark.parametrize("world, until, steps", [
    ("capa-src/golden.yaml", 0, []),
    ("capa-src/half-done.yaml", 0, [5, 6, 7, 8]),
    ("capa-src/half-done.yaml", 4, []),
    ("capa-src/empty.yaml", 3, [1, 2, 3]),
])
def test_check_mode_starts_at_the_first_step_that_does_not_pass_and_changes_nothing(fake_api, world, until, steps):
    host = fake_api.world(world)
    before = tree(host)
    done = solve(params(host, until=until), check_mode=True)
    assert (done["steps"], done["changed"], done["performed"]) == (steps, bool(steps), [])
    assert tree(host) == before


def test_until_beyond_the_last_step_is_refused(fake_api):
    host = fake_api.world("capa-src/empty.yaml")
    with pytest.raises(SolveError) as caught:
        solve(params(host, until=9), check_mode=True)
    assert str(caught.value) == "last_step must be between 1 and 8 for capa-src, got 9"


def test_a_failing_command_names_the_lab_the_step_and_the_command(fake_api, tmp_path):
    host = fake_api.world("capa-src/empty.yaml")
    kubectl = tmp_path / "kubectl"
    kubectl.write_text("#!/bin/sh\necho 'error: the server is unreachable' >&2\nexit 1\n", encoding="utf-8")
    kubectl.chmod(kubectl.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(SolveError) as caught:
        solve(params(host, kubectl=[str(kubectl)]))
    assert str(caught.value) == ("capa-src step 1: kubectl get applications.argoproj.io src-helm: "
                                 "error: the server is unreachable")


def test_unfinished_lists_the_checks_up_to_until_that_do_not_pass():
    result = {"steps": [{"checks": [
        {"step": 1, "check": "a.1.x", "status": "PASS", "message": "ok"},
        {"step": 2, "check": "a.2.y", "status": "PENDING", "message": "syncing"},
        {"step": 3, "check": "a.3.z", "status": "FAIL", "message": "missing"}]}]}
    assert unfinished(result, 2) == {2: ["a.2.y: PENDING syncing"]}
    assert unfinished(result, 3) == {2: ["a.2.y: PENDING syncing"], 3: ["a.3.z: FAIL missing"]}
