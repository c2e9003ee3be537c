"""How a lab's reference solution (solutions/registry.py: one function per step, called with the
Machine and the lab's Workspace of solutions/machine.py) is run: the grader decides what is left
to do.

`solve` grades the VM first; the first step (up to `last_step`) with a check that does not PASS is
where it starts, and it performs that step and every later one up to `last_step`. A VM whose steps
all PASS is left alone (changed: false), which makes a second run a no-op. Afterwards it grades
again and fails, naming the checks, unless every check up to `last_step` passes: the solution and
the grader prove each other on every run."""

from __future__ import annotations

import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.machine import Machine, SolveError, Workspace
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.registry import SOLUTIONS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import PASS

SETTLE_SECONDS = 90  # how long a grade may wait for Argo CD to finish what the last step started


def unfinished(result, until):
    """{step: ["check id: STATUS message", ...]} of the checks up to step `until` that do not PASS."""
    left = {}
    for step in result["steps"]:
        for check in step["checks"]:
            if check["step"] <= until and check["status"] != PASS:
                left.setdefault(check["step"], []).append(f"{check['check']}: {check['status']} {check['message']}")
    return left


def solve(params, check_mode=False):
    """Perform the lab's reference solution on this VM up to step `until`; returns what was done."""
    lab = LABS[params["lab"]]
    steps = SOLUTIONS[lab.id]
    until = params["last_step"] or len(steps)
    if not 1 <= until <= len(steps):
        raise SolveError(f"last_step must be between 1 and {len(steps)} for {lab.id}, got {until}")
    site = Site(params["argocd_namespace"], params["gitd_namespace"], params["bare_root"], params["workspace_root"],
                k3s_kubeconfig=params["kubeconfig"], helm_binary=params["helm_binary"],
                kustomize_binary=params["kustomize_binary"])
    machine = Machine(params["kubectl"], params["kubeconfig"], params["argocd"], site, params["wait_timeout"])

    def left():
        return unfinished(grade(lab, collector(lab, site, params["kubeconfig"], timeout=params["api_timeout"]),
                                settle_seconds=SETTLE_SECONDS, poll_seconds=3), until)

    before = left()
    start = min(before) if before else None
    todo = list(range(start, until + 1)) if start else []
    performed = []
    if not check_mode:
        workspace = Workspace(machine, lab)
        for step in todo:
            began = time.monotonic()
            try:
                steps[step - 1](machine, workspace)
            except SolveError as exc:
                raise SolveError(f"{lab.id} step {step}: {exc}") from None
            performed.append({"step": step, "seconds": round(time.monotonic() - began, 1)})
        after = left() if todo else {}
        if after:
            lines = [line for step in sorted(after) for line in after[step]]
            raise SolveError(f"{lab.id}: after solving up to step {until} these checks do not pass: " + "; ".join(lines))
    return {"changed": bool(todo), "lab": lab.id, "last_step": until, "steps": todo, "performed": performed}
