"""Whole learner states from the demo class, graded end to end through collection: bad input is
a FAIL with a reason (never an ERROR or a traceback), unrelated steps stay independent, and a
transitional Argo CD state is PENDING. The empty and golden worlds carry their verdicts and are
graded for every lab by test_every_lab.py."""

from __future__ import annotations

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import capa_src

from tests.grader.conftest import collect_host, host_collector, judge


def grade_world(fake_api, world, settle=0.0):
    host_dir = fake_api.world(f"capa-src/{world}")
    return grade(capa_src.lab, host_collector(host_dir), "en", settle_seconds=settle, poll_seconds=0.1)


def checks(result):
    return {c["check"]: c for s in result["steps"] for c in s["checks"]}


def step_status(result):
    return {s["step"]: s["status"] for s in result["steps"]}


def test_half_done_passes_steps_1_to_4_and_fails_the_rest(fake_api):
    result = grade_world(fake_api, "half-done.yaml")
    assert step_status(result) == {1: "PASS", 2: "PASS", 3: "PASS", 4: "PASS",
                                   5: "FAIL", 6: "FAIL", 7: "FAIL", 8: "FAIL"}
    by_id = checks(result)
    assert by_id["capa-src.5.live-app"]["message"] == "Application src-waves does not exist in namespace argocd"
    # a later step that depends on a missing earlier one says so instead of a misleading reason
    assert by_id["capa-src.6.live-revision"]["message"] == (
        "blocked by step 5: Application src-waves does not exist in namespace argocd")


def test_garbage_files_are_failures_with_reasons(fake_api):
    result = grade_world(fake_api, "garbage.yaml")
    by_id = checks(result)
    assert not [c for c in by_id.values() if c["status"] == "ERROR"]
    messages = {cid: c["message"] for cid, c in by_id.items()}
    assert messages["capa-src.2.precedence-replicas"].endswith("precedence.json is not UTF-8 text")
    assert "tracking.json is too large to be an evidence file (" in messages["capa-src.3.tracking-annotation"]
    assert "waves.json is not valid JSON: " in messages["capa-src.5.waves-times"]
    assert messages["capa-src.8.helm-winner"] == (
        'report.json: the JSON type must be object, found array (["parameters", "valuesObject", false, "application", '
        'true, "kubectl"])')
    assert "failed-hook.json points outside the workspace (/etc/passwd)" in messages["capa-src.6.failed-phase"]
    assert "app-src-kust.yaml is not valid YAML: " in messages["capa-src.4.app-file"]
    assert messages["capa-src.7.ignore-times"].endswith("ignore.json is empty")


def test_mid_sync_is_pending_after_the_bounded_wait(fake_api):
    result = grade_world(fake_api, "mid-sync.yaml", settle=4)
    assert result["collected"]["attempts"] >= 2
    pending = {cid for cid, c in checks(result).items() if c["status"] == "PENDING"}
    assert "capa-src.6.live-operation" in pending
    assert result["status"] in ("PENDING", "FAIL")


# The capa-src checks that judge what they read from the cluster (the evidence files of steps 2,
# 3 and 5 are compared with live objects).
READ_THE_CLUSTER = {
    "capa-src.1.live-app", "capa-src.1.live-app-status", "capa-src.2.live-app-values",
    "capa-src.2.precedence-replicas", "capa-src.2.precedence-greeting", "capa-src.3.helm-release-secrets",
    "capa-src.3.tracking-annotation", "capa-src.3.instance-label", "capa-src.3.tracking-method",
    "capa-src.4.live-app", "capa-src.4.live-deployment", "capa-src.5.live-app", "capa-src.5.waves-hook-job",
    "capa-src.5.waves-settings-created", "capa-src.5.live-hook-job", "capa-src.5.live-order",
    "capa-src.6.live-revision", "capa-src.6.live-operation", "capa-src.6.live-mode-green", "capa-src.7.live-app",
    "capa-src.7.live-replicas", "capa-src.7.replicas-owner", "capa-src.8.replicas-owner"}


def test_broken_cluster_is_error_not_failure(fake_api):
    result = grade_world(fake_api, "broken-cluster.yaml")
    by_id = checks(result)
    live = [c for cid, c in by_id.items() if c["status"] == "ERROR"]
    # Exactly the checks that touch cluster data are ERROR; the file and git checks of this
    # otherwise complete learner still pass (ignore-replicas reads only ignore.json).
    # waves-hook-job reads the live src-waves history and Jobs (a hook name must be one Argo CD made)
    assert {cid: c["status"] for cid, c in by_id.items() if c["status"] != "PASS"} == dict.fromkeys(
        READ_THE_CLUSTER, "ERROR")
    assert {c["message_key"] for c in live} == {"cluster_unreadable"}
    assert by_id["capa-src.7.ignore-replicas"]["status"] == "PASS"
    assert result["error"]["kind"] == "unreachable"
    assert all(c["hint"] == "" for c in live)


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_learner_language(fake_api, lang):
    host_dir = fake_api.world("capa-src/half-done.yaml")
    by_id = judge(collect_host(host_dir), lang)
    message = by_id["capa-src.5.live-app"]["message"]
    assert message == {"ja": "Application src-waves が argocd ネームスペースにありません",
                       "ko": "argocd 네임스페이스에 src-waves Application이 없습니다"}[lang]


def test_step6_still_retrying_the_failed_revision_is_named(fake_api):
    result = grade_world(fake_api, "step6-retrying.yaml", settle=0.3)
    by_id = checks(result)
    assert by_id["capa-src.6.live-revision"]["status"] == "FAIL"
    assert by_id["capa-src.6.live-revision"]["message"].startswith(
        "the operation still retries the failed revision c267229 (phase ")
    assert by_id["capa-src.6.live-revision"]["message"].endswith(
        "the app may look Synced, but the new commit is not applied")
    assert by_id["capa-src.6.live-operation"]["message_key"] == "retrying_failed_revision"
    assert result["collected"]["attempts"] == 1  # waiting cannot fix it: no settle re-reads
