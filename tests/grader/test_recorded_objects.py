"""The checks against API objects recorded from real Argo CD v3.5.2 on the local control plane
(fixtures/recorded/, docs/argocd-observations.md) instead of hand-written guesses."""

from __future__ import annotations

import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import tracking_id
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import unix
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import replicas_owner
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src import step5_waves, step7_ignore

from tests.conftest import REPO_ROOT
from tests.grader.conftest import judge

RECORDED = REPO_ROOT / "fixtures" / "recorded"


def recorded(name):
    return json.loads((RECORDED / name).read_text())


def test_kubectl_scale_takes_ownership_of_replicas():
    before = replicas_owner(recorded("t7-deployment-prod-api-before-scale.json"))
    after = replicas_owner(recorded("t7-deployment-prod-api-after-scale.json"))
    assert (before["manager"], before.get("subresource")) == ("argocd-controller", None)
    assert (after["manager"], after["subresource"], after["operation"]) == ("kubectl", "scale", "Update")
    assert after["manager"] in step7_ignore.SCALE_MANAGERS


def test_tracking_annotation_format():
    configmap = recorded("t1-configmap-src-helm-greeting.json")
    assert configmap["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"] == tracking_id(
        "src-helm", "", "ConfigMap", "src-helm", "src-helm-greeting")
    assert configmap["metadata"].get("labels") is None  # no instance label under the default method


def test_hook_job_name_is_commit_and_operation_start():
    app = recorded("t4-application-src-waves.json")
    (job,) = recorded("t4-hook-jobs.json")
    match = step5_waves.HOOK_JOB_NAME.match(job["metadata"]["name"])
    operation = app["status"]["operationState"]
    assert match.group(1) == operation["syncResult"]["revision"][:7]
    assert int(match.group(2)) == unix(operation["startedAt"])
    assert 0 <= unix(job["metadata"]["creationTimestamp"]) - int(match.group(2)) <= 3600


def with_live_waves(state, app, failed_sha, fix_sha):
    """Put a recorded src-waves into the golden state, its commits renamed to the golden ones."""
    text = json.dumps(app).replace(failed_sha, state.files["failed-hook.json"].data["commit"])
    text = text.replace(fix_sha, state.repo.head)
    apps = state.cluster.snapshot.reads["applications"]
    apps[:] = [a for a in apps if a["metadata"]["name"] != "src-waves"] + [json.loads(text)]
    return state


def test_recorded_retrying_operation_is_named(state):
    app = recorded("t5-application-src-waves-retrying.json")
    failed_sha = app["status"]["operationState"]["operation"]["sync"]["revision"]
    fix_sha = app["status"]["sync"]["revision"]
    results = judge(with_live_waves(state, app, failed_sha, fix_sha))
    for check_id in ("capa-src.6.live-revision", "capa-src.6.live-operation"):
        assert results[check_id]["status"] == "FAIL"
        assert results[check_id]["message_key"] == "retrying_failed_revision"
        assert "(phase Running)" in results[check_id]["message"]


def test_recorded_state_after_terminate_op_passes(state):
    app = recorded("t5-application-src-waves-fixed.json")
    retrying = recorded("t5-application-src-waves-retrying.json")
    failed_sha = retrying["status"]["operationState"]["operation"]["sync"]["revision"]
    results = judge(with_live_waves(state, app, failed_sha, app["status"]["sync"]["revision"]))
    for check_id in ("capa-src.6.live-revision", "capa-src.6.live-operation"):
        assert results[check_id]["status"] == "PASS", results[check_id]["message"]


def test_history_records_the_start_time_that_names_the_hook():
    """waves-hook-job ties a hook name to status.history: deployStartedAt is the operation's
    startedAt, the time in the hook's name (recorded, not assumed)."""
    app = recorded("t5-application-src-waves-fixed.json")
    started = {(h["revision"][:7], unix(h["deployStartedAt"])) for h in app["status"]["history"]}
    hooks = [r["name"] for r in app["status"]["operationState"]["syncResult"]["resources"] if r.get("hookType")]
    (job,) = recorded("t4-hook-jobs.json")
    for name in [*hooks, job["metadata"]["name"]]:
        match = step5_waves.HOOK_JOB_NAME.match(name)
        assert (match.group(1), int(match.group(2))) in started


def test_recorded_retrying_operation_proves_phase_running(state):
    app = recorded("t5-application-src-waves-retrying.json")
    failed_sha = app["status"]["operationState"]["operation"]["sync"]["revision"]
    state = with_live_waves(state, app, failed_sha, app["status"]["sync"]["revision"])
    state.files["failed-hook.json"].data = {**state.files["failed-hook.json"].data, "phase": "Running"}
    sha7 = state.files["failed-hook.json"].data["commit"][:7]
    # retries delete the failed Job every other attempt: the proof is the recorded retryCount
    jobs = state.cluster.snapshot.reads["waves_jobs"]
    jobs[:] = [j for j in jobs if not j["metadata"]["name"].startswith(f"migrate-{sha7}-")]
    check = judge(state)["capa-src.6.failed-phase"]
    assert (check["status"], check["message"]) == (
        "PASS", f"failed-hook.json phase Running: the operation had already failed (operation of {sha7} retried 3 times)")
