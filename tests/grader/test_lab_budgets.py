"""Budgets per lab (issue 16): each enrolled lab gets its own share of the module's time_budget,
so one lab's slow probes cannot spend another's time; what the grader's own deadline cuts short
(a git read, the API reads, a probe run) is ERROR worded as the grader's deadline, never the
learner's FAIL; a script that hits its own timeout is still the learner's FAIL. Small budgets
(a few seconds) on fixture worlds, the probes run for real."""

from __future__ import annotations

import os
import shutil
import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import collect as collect_module
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Reads, Site
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.gitstate import OUT_OF_TIME
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import (
    ClusterView,
    Declared,
    Lab,
    LabBudget,
    LabState,
    OutOfTime,
    grade,
    lab_budgets,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import ClusterState
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC, grade_host
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import passed, pending

from tests.grader.test_grading import Clock

SLOW_VALIDATE = "#!/bin/sh\nsleep 8\nexit 0\n"  # well inside its own 30 s timeout; two runs (16 s) exceed
# the probes' 15 s (of a 40 s budget) however fast the sandbox is staged, one fits with 7 s to spare
# for staging it (under load 10 staging took more than the 4.5 s that a 6 s run in 10.5 s left)


def host_params(host, labs, time_budget):
    params = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}
    params.update(labs=labs, kubeconfig=str(host / "kubeconfig"), k3s_kubeconfig=str(host / "kubeconfig"),
                  bare_root=str(host / "srv" / "bare"), workspace_root=str(host / "root"), health=False,
                  settle_timeout=0, time_budget=time_budget, helm_binary=repo_server.HELM_BINARY,
                  kustomize_binary=repo_server.KUSTOMIZE_BINARY)  # the tests' builds (tests/conftest.py)
    return params


def checks_of(result):
    return {c["check"]: c for step in result["steps"] for c in step["checks"]}


def shown(result):
    return {check: (c["status"], c["message"]) for check, c in checks_of(result).items()}


def two_lab_host(fake_api):
    """The golden capa-src world plus cgoa-ci's golden workspace and bare repo, whose
    validate.sh (and so the pre-receive gate) takes 8 s a run; no probes.json, so the probes run
    for real: their eight runs would take 64 s."""
    host = fake_api.world("capa-src/golden.yaml")
    ci = fake_api.world("cgoa-ci/golden.yaml")
    shutil.copytree(ci / "root" / "cgoa-ci", host / "root" / "cgoa-ci", symlinks=True)
    shutil.copytree(ci / "srv" / "bare" / "ci.git", host / "srv" / "bare" / "ci.git", symlinks=True)
    hook = host / "srv" / "bare" / "ci.git" / "hooks" / "pre-receive"
    hook.write_text(hook.read_text().replace(str(ci), str(host)))  # the gate calls this host's validate.sh
    (host / "root" / "cgoa-ci" / "validate.sh").write_text(SLOW_VALIDATE)
    return host


def test_a_lab_whose_probes_eat_their_share_leaves_the_next_lab_its_own(fake_api):
    host = two_lab_host(fake_api)
    alone = grade_host(host_params(host, ["capa-src"], 40))["labs"]["capa-src"]
    assert {status for status, _ in shown(alone).values()} == {"PASS"}
    started = time.monotonic()
    both = grade_host(host_params(host, ["cgoa-ci", "capa-src"], 40))["labs"]
    assert time.monotonic() - started < 40
    assert shown(both["capa-src"]) == shown(alone)
    ci = shown(both["cgoa-ci"])
    # The first run (8 s, after 0.3-1 s of staging the sandbox) fits the probes' 15 s and is
    # the script's own verdict; the second cannot finish in what is left and is cut.
    assert ci["cgoa-ci.4.validate-accepts-valid"] == ("PASS", "validate.sh accepts a valid Deployment: exit code 0")
    cut = ("ERROR", "the grader ran out of time for the probes of lab cgoa-ci (15 s of its 20 s share of the 40 s "
                    "budget) before it could run {} to the end")
    for check in ("validate-rejects-string-replicas", "validate-rejects-unknown-field", "validate-rejects-mixed"):
        assert ci[f"cgoa-ci.4.{check}"] == (cut[0], cut[1].format("validate.sh"))
    for check in (c.id for c in LABS["cgoa-ci"].checks if c.id.startswith("cgoa-ci.5.hook-") and c.id != "cgoa-ci.5.hook-file"):
        assert ci[check] == (cut[0], cut[1].format("pre-receive"))


def fifo_head_host(fake_api):
    """The golden capa-src world whose head commit object is a FIFO: git blocks reading it."""
    host = fake_api.world("capa-src/golden.yaml")
    bare = host / "srv" / "bare" / "src.git"
    head = (bare / "refs" / "heads" / "main").read_text().strip()
    loose = bare / "objects" / head[:2] / head[2:]
    loose.unlink()
    os.mkfifo(loose)
    return host


def test_a_git_read_cut_by_the_graders_deadline_is_error_not_the_learners_fail(fake_api):
    host = fifo_head_host(fake_api)
    result = grade_host(host_params(host, ["capa-src"], 1.5))["labs"]["capa-src"]
    checks = shown(result)
    bare = host / "srv" / "bare" / "src.git"
    assert checks["capa-src.1.bare-repo"] == (
        "ERROR", f"the grader ran out of time for lab capa-src (its 1.5 s share of the 1.5 s budget) before it could "
                 f"read the bare repository {bare}")
    assert checks["capa-src.1.live-app"] == (
        "ERROR", "the grader ran out of time for lab capa-src (its 1.5 s share of the 1.5 s budget) before it could "
                 "read the cluster")
    assert "FAIL" not in {status for status, _ in checks.values()}
    assert result["error"] == {"kind": OUT_OF_TIME, "detail": checks["capa-src.1.live-app"][1]}
    check = checks_of(result)["capa-src.1.bare-repo"]
    assert i18n.message(check["message_key"], check["params"], "ja") == (
        "ラボ capa-src の採点時間（全体の 1.5 秒のうち、このラボの持ち分 1.5 秒）が尽きたため、ベアリポジトリ "
        f"{bare} を読むことができませんでした")
    assert i18n.message(check["message_key"], check["params"], "ko") == (
        f"capa-src 랩의 채점 시간(전체 1.5초 중 이 랩의 몫 1.5초)이 다 되어 {bare} 베어 저장소를 읽을 수 없었습니다")


def test_a_git_read_that_exhausts_gits_own_timeout_is_still_the_learners_fail(fake_api, monkeypatch):
    monkeypatch.setattr(collect_module, "GIT_TIMEOUT", 1.0)
    host = fifo_head_host(fake_api)
    checks = shown(grade_host(host_params(host, ["capa-src"], 30))["labs"]["capa-src"])
    assert checks["capa-src.1.bare-repo"] == (
        "FAIL", f"{host / 'srv' / 'bare' / 'src.git'} cannot be read: git rev-list did not finish within 1 s (a FIFO "
                "or a huge object among its objects?)")


def test_a_labs_unused_time_passes_on_and_its_share_ends_first():
    labs = [LABS["cgoa-ci"], LABS["capa-src"]]
    start = time.monotonic()
    budgets = lab_budgets(labs, 10, start + 10)
    lab, first = next(budgets)
    assert lab.id == "cgoa-ci"
    assert 4.9 < first.share <= 5 and first.deadline <= start + 5.01
    assert first.probe_deadline == first.started + 0.75 * first.share
    lab, second = next(budgets)  # the first lab used none of its share: all of it passes on
    assert lab.id == "capa-src" and 9.9 < second.share <= 10


API = {"applications": ("/apis/argoproj.io/v1alpha1/namespaces/argocd/applications", None)}


def converging_lab():
    lab = Lab("demo", {"en": "Demo"}, {1: {"en": "One"}}, Reads(api=lambda site: API))

    @lab.check(1, "live")
    def live(state):
        if state.app("app"):
            return passed("app_synced_healthy", name="app")
        return pending("app_converging", name="app", sync="OutOfSync", health="Progressing")

    return lab


def reading(lab, snapshot, read_seconds=0.0):
    budget = LabBudget(lab, 12, 24)
    return LabState(Site(), "/w", None, Declared(), None, None, ClusterView(snapshot, API), Declared(), budget=budget,
                    read_seconds=read_seconds)


def test_settling_waits_only_while_a_whole_reading_still_fits_the_labs_share():
    lab, clock = converging_lab(), Clock()
    state = reading(lab, ClusterState({"applications": []}), read_seconds=3)
    result = grade(lab, lambda: state, settle_seconds=30, poll_seconds=5, sleep=clock.sleep, clock=clock, deadline=12)
    assert result["collected"]["attempts"] == 2  # t=0 and t=5; one at t=10 would end past 12 s
    assert clock.now == 5


def test_a_re_reading_cut_by_the_deadline_keeps_the_whole_reading_before_it():
    lab, clock = converging_lab(), Clock()
    readings = iter([reading(lab, ClusterState({"applications": []})),
                     reading(lab, ClusterState(problem=OUT_OF_TIME, detail="out of time"))])
    result = grade(lab, lambda: next(readings), settle_seconds=30, poll_seconds=5, sleep=clock.sleep, clock=clock,
                   deadline=100)
    live = checks_of(result)["demo.1.live"]
    assert (live["status"], live["message_key"]) == ("PENDING", "app_converging")
    assert result["collected"]["attempts"] == 2 and "error" not in result


def test_a_probe_cut_in_the_first_reading_does_not_stop_settling():
    lab, clock = converging_lab(), Clock()

    @lab.check(1, "probe")
    def probe(state):
        raise OutOfTime("phrase_run_script", probes=True, script="validate.sh")

    readings = iter([reading(lab, ClusterState({"applications": []})),
                     reading(lab, ClusterState({"applications": [{"metadata": {"name": "app"}}]}))])
    result = grade(lab, lambda: next(readings), settle_seconds=30, poll_seconds=5, sleep=clock.sleep, clock=clock,
                   deadline=100)
    checks = shown(result)
    assert checks["demo.1.live"][0] == "PASS"  # the second reading was used
    assert checks["demo.1.probe"] == ("ERROR", "the grader ran out of time for the probes of lab demo (9 s of its 12 s "
                                               "share of the 24 s budget) before it could run validate.sh to the end")
