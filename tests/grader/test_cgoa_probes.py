"""The probes of cgoa-ci run the learner's real scripts (here on a fixture world, no API server
needed): a validate.sh that hangs, forks a daemon, floods its output or reads stdin ends as a FAIL
at its own timeout (SCRIPT_TIMEOUT, made 1 s here), leaves no process behind, and the bare repo
is never written."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import probes
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import LabBudget
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

LAB = LABS["cgoa-ci"]

SCRIPTS = {
    "hangs": "#!/bin/sh\nsleep 600\n",
    "forks a daemon": "#!/bin/sh\n(sleep 600 &)\nsleep 600\n",
    "floods its output": "#!/bin/sh\nyes lab-probe-flood\n",
    "reads stdin": "#!/bin/sh\ncat\nexit 0\n",
}


def grade_with(host, budget_seconds):
    site = Site(bare_root=str(host / "srv" / "bare"), workspace_root=str(host / "root"),
                k3s_kubeconfig=str(host / "kubeconfig"))
    collect = collector(LAB, site, str(host / "kubeconfig"), timeout=5,
                        budget=LabBudget(LAB, budget_seconds, budget_seconds))
    state = collect()
    return {c["check"]: c for c in LAB.judge(state, "en")}


def refs_and_objects(bare):
    return subprocess.run(["git", "--git-dir", str(bare), "for-each-ref"], capture_output=True, text=True,
                          check=True).stdout, sorted(os.listdir(bare / "objects"))


@pytest.mark.parametrize("behaviour", list(SCRIPTS))
def test_a_hostile_validate_sh_is_a_bounded_fail(fake_api, monkeypatch, behaviour):
    monkeypatch.setattr(probes, "SCRIPT_TIMEOUT", 1.0)  # each run's own timeout (probe_timeout reads it), not the deadline
    host = fake_api.world("cgoa-ci/golden.yaml")
    (host / "probes.json").unlink()  # run the probes for real
    script = host / "root" / "cgoa-ci" / "validate.sh"
    script.write_text(SCRIPTS[behaviour])
    before = refs_and_objects(host / "srv" / "bare" / "ci.git")
    started = time.monotonic()
    checks = grade_with(host, 30)
    assert time.monotonic() - started < 120  # 12-14 runs of 1 s; the scripts would run 600 s (slack for a loaded CI)
    valid = checks["cgoa-ci.4.validate-accepts-valid"]
    if behaviour == "reads stdin":  # stdin is closed: cat ends at once; it just validates nothing
        assert (valid["status"], valid["message"]) == ("PASS", "validate.sh accepts a valid Deployment: exit code 0")
        assert checks["cgoa-ci.4.validate-rejects-string-replicas"]["message"].startswith(
            "validate.sh rejects replicas: two, but exited with code 0")
    else:
        reason = "printed too much" if behaviour == "floods its output" else "timed out"
        assert (valid["status"], valid["message"]) == (
            "FAIL", f"validate.sh was stopped ({reason}) before it could show that it accepts a valid Deployment")
    assert refs_and_objects(host / "srv" / "bare" / "ci.git") == before
    assert no_process_left("lab-probe-flood|sleep 600")


def no_process_left(pattern, seconds=10.0):
    """True once no process matches (a killed group may take a moment to be reaped)."""
    deadline = time.monotonic() + seconds
    while True:
        found = subprocess.run(["pgrep", "-af", pattern], capture_output=True, text=True).stdout
        left = [line for line in found.splitlines() if "pgrep" not in line]
        if not left:
            return True
        if time.monotonic() > deadline:
            raise AssertionError(f"left behind: {left}")
        time.sleep(0.2)


@pytest.mark.parametrize("kind", ["a link to a gate outside the repository", "a compiled gate"])
def test_a_hook_that_git_would_run_is_graded_by_running_it(fake_api, kind):
    """git runs hooks/pre-receive when access(2) says it is executable, which follows links and
    does not care whether it is a script (run-command.c find_hook); so does the grader."""
    host = fake_api.world("cgoa-ci/golden.yaml")
    (host / "probes.json").unlink()
    hook = host / "srv" / "bare" / "ci.git" / "hooks" / "pre-receive"
    if kind == "a compiled gate":
        hook.unlink()
        shutil.copy("/bin/false", hook)  # refuses every push
    else:
        gate = host / "gates" / "pre-receive"
        gate.parent.mkdir()
        hook.rename(gate)
        hook.symlink_to(gate)
    checks = grade_with(host, 60)
    assert (checks["cgoa-ci.5.hook-file"]["status"], checks["cgoa-ci.5.hook-file"]["message"]) == (
        "PASS", f"{hook} exists and is executable")
    typo = checks["cgoa-ci.5.hook-rejects-typo-on-main"]
    assert (typo["status"], typo["message"]) == ("PASS", "pre-receive rejects a push to main with replica:: exit code 1")
    if kind == "a compiled gate":
        branch = checks["cgoa-ci.5.hook-accepts-other-branch"]
        assert branch["message"].startswith("pre-receive accepts a push to another branch, but exited with code 1")


def test_setting_a_probe_up_past_the_probe_time_is_the_graders(tmp_path):
    """Our own git commands that stage a probe stop at the lab's probe deadline and say so
    (ProbeOutOfTime, judged ERROR), instead of running their own 30 s and blaming the repo."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import (
        ProbeOutOfTime,
        ProbeUnavailable,
        git,
    )

    fifo = tmp_path / "config"
    os.mkfifo(fifo)  # git blocks reading it: a slow step of ours
    started = time.monotonic()
    with pytest.raises(ProbeOutOfTime, match="git config"):
        git(["config", "--file", str(fifo), "--list"], cwd=str(tmp_path), deadline=time.monotonic() + 1)
    assert time.monotonic() - started < 10
    with pytest.raises(ProbeOutOfTime):
        git(["version"], deadline=time.monotonic() - 1)
    with pytest.raises(ProbeUnavailable, match="git rev-parse failed"):
        git(["rev-parse", "no-such-ref"], cwd=str(tmp_path), deadline=time.monotonic() + 20)
