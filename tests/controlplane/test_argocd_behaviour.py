"""Tests 1-7 of issue 4: what Argo CD v3.5.2 really does, against the running plane.

The tests follow the capa-src lab in order and share one git repo (src.git) per module, like a
learner does. Observations are written to fixtures/recorded/ when LAB_CP_RECORD=1.
"""

from __future__ import annotations

import json
import re
import time
from datetime import datetime
from typing import Any

import pytest
from cpharness import Plane, wait_until
from labrepo import CHART, KUST, application, waves_files

pytestmark = pytest.mark.controlplane

HELM_APP = "src-helm"
KUST_APP = "src-kust"
WAVES_APP = "src-waves"


def ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def op_sample(app: dict[str, Any]) -> dict[str, Any]:
    st = app.get("status", {})
    op = st.get("operationState", {})
    return {
        "t": round(time.time(), 1),
        "phase": op.get("phase"),
        "message": op.get("message"),
        "retryCount": op.get("retryCount"),
        "operation_revision": op.get("operation", {}).get("sync", {}).get("revision"),
        "syncResult_revision": op.get("syncResult", {}).get("revision"),
        "sync_status": st.get("sync", {}).get("status"),
        "sync_revision": st.get("sync", {}).get("revision"),
        "health": st.get("health", {}).get("status"),
        "startedAt": op.get("startedAt"),
        "finishedAt": op.get("finishedAt"),
        "conditions": st.get("conditions"),
    }


@pytest.fixture(scope="module")
def src(plane: Plane):
    clone = plane.new_repo("src")
    plane.commit_push(clone, {"README.md": "capa-src\n"}, "init")
    return clone


# ---------------------------------------------------------------------------------------------
# 1. Helm chart from git://gitd..., tracking-id, no helm release Secret
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def helm_synced(plane: Plane, src):
    rev = plane.commit_push(src, CHART, "helm chart")
    plane.apply(
        application(HELM_APP, "src", "charts/web", "src-helm", source_extra={"helm": {"valueFiles": ["values-prod.yaml"]}})
    )
    app = plane.wait_synced_healthy(HELM_APP, rev, timeout=240)
    return rev, app


def test_1_helm_app_syncs_with_tracking_annotation(plane: Plane, helm_synced):
    rev, app = helm_synced
    plane.record("t1-application-src-helm", app)
    assert app["spec"]["source"]["repoURL"] == "git://gitd.gitsrv.svc.cluster.local:9418/src.git"
    assert app["status"]["sourceType"] == "Helm"
    assert app["status"]["sync"]["revision"] == rev
    cm = plane.get("configmap", "src-helm-greeting", "src-helm")
    plane.record("t1-configmap-src-helm-greeting", cm)
    annotations = cm["metadata"].get("annotations", {})
    assert annotations["argocd.argoproj.io/tracking-id"] == "src-helm:/ConfigMap:src-helm/src-helm-greeting"
    assert "argocd.argoproj.io/installation-id" not in annotations
    assert "app.kubernetes.io/instance" not in cm["metadata"].get("labels", {})
    assert cm["data"] == {"greeting": "from-values-file"}
    dep = plane.get("deployment", "src-helm-web", "src-helm")
    assert dep["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"] == ("src-helm:apps/Deployment:src-helm/src-helm-web")
    assert dep["spec"]["replicas"] == 2
    secrets = plane.list("secrets", "src-helm")
    assert [s for s in secrets if s.get("type") == "helm.sh/release.v1"] == []
    cmcfg = plane.get("configmap", "argocd-cm", "argocd")
    assert "application.resourceTrackingMethod" not in (cmcfg.get("data") or {})


# ---------------------------------------------------------------------------------------------
# 2. valueFiles + valuesObject + parameters on the same keys
# ---------------------------------------------------------------------------------------------
def test_2_helm_precedence(plane: Plane, helm_synced):
    rev, _ = helm_synced
    plane.apply(
        application(
            HELM_APP,
            "src",
            "charts/web",
            "src-helm",
            source_extra={
                "helm": {
                    "valueFiles": ["values-prod.yaml"],
                    "valuesObject": {"replicaCount": 3, "greeting": "from-values-object"},
                    "parameters": [{"name": "greeting", "value": "from-parameter"}],
                }
            },
        )
    )

    def rendered() -> bool:
        cm = plane.get("configmap", "src-helm-greeting", "src-helm")
        dep = plane.get("deployment", "src-helm-web", "src-helm")
        return cm["data"].get("greeting") != "from-values-file" and dep["spec"]["replicas"] != 2

    wait_until("src-helm re-rendered", rendered, 180, 2)
    app = plane.wait_synced_healthy(HELM_APP, rev, timeout=180)
    cm = plane.get("configmap", "src-helm-greeting", "src-helm")
    dep = plane.get("deployment", "src-helm-web", "src-helm")
    plane.record("t2-application-src-helm", app)
    plane.record("t2-configmap-src-helm-greeting", cm)
    assert cm["data"]["greeting"] == "from-parameter"  # parameters beat valuesObject and valueFiles
    assert dep["spec"]["replicas"] == 3  # valuesObject beats valueFiles
    assert dep["status"].get("readyReplicas") == 3


# ---------------------------------------------------------------------------------------------
# 3. kustomize images override: live image differs from git
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kust_synced(plane: Plane, src):
    rev = plane.commit_push(src, KUST, "kustomize overlay")
    plane.apply(
        application(
            KUST_APP, "src", "kust/overlays/prod", "src-kust", source_extra={"kustomize": {"images": ["nginx=nginx:1.28-alpine"]}}
        )
    )
    app = plane.wait_synced_healthy(KUST_APP, rev, timeout=240)
    return rev, app


def test_3_kustomize_images_override(plane: Plane, src, kust_synced):
    rev, app = kust_synced
    plane.record("t3-application-src-kust", app)
    assert app["status"]["sourceType"] == "Kustomize"
    dep = plane.get("deployment", "prod-api", "src-kust")
    plane.record("t3-deployment-prod-api", dep)
    assert [c["image"] for c in dep["spec"]["template"]["spec"]["containers"]] == ["nginx:1.28-alpine"]
    assert dep["spec"]["replicas"] == 2
    assert dep["status"].get("readyReplicas") == 2
    # git is untouched: the override lives only in the Application
    assert "1.28" not in plane.git(src, "grep", "-h", "image", rev, "--", "kust")
    assert plane.git(src, "rev-parse", "HEAD") == rev


# ---------------------------------------------------------------------------------------------
# 4. waves -1/0/1 with a PreSync hook
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def waves_synced(plane: Plane, src):
    rev = plane.commit_push(src, waves_files(), "waves")
    plane.apply(application(WAVES_APP, "src", "waves", "src-waves"))
    app = plane.wait_synced_healthy(WAVES_APP, rev, timeout=240)
    return rev, app


def hook_jobs(plane: Plane, ns: str) -> list[dict[str, Any]]:
    return [j for j in plane.list("jobs", ns) if j["metadata"]["name"].startswith("migrate-")]


def test_4_waves_and_presync_hook(plane: Plane, src, waves_synced):
    rev, app = waves_synced
    plane.record("t4-application-src-waves", app)
    op = app["status"]["operationState"]
    started = int(ts(op["startedAt"]).timestamp())
    jobs = hook_jobs(plane, "src-waves")
    plane.record("t4-hook-jobs", jobs)
    assert [j["metadata"]["name"] for j in jobs] == [f"migrate-{rev[:7]}-presync-{started}"]
    hook = jobs[0]
    assert hook["metadata"]["generateName"] == "migrate-"
    assert hook["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"] == "src-waves:batch/Job:src-waves/"
    assert "argocd.argoproj.io/hook-finalizer" not in hook["metadata"].get("finalizers", [])
    assert [c["type"] for c in hook["status"]["conditions"] if c["status"] == "True"] == ["SuccessCriteriaMet", "Complete"]

    settings = plane.get("configmap", "settings", "src-waves")
    dep = plane.get("deployment", "app", "src-waves")
    smoke = plane.get("job", "smoke", "src-waves")
    plane.record("t4-configmap-settings", settings)
    plane.record("t4-deployment-app", dep)
    plane.record("t4-job-smoke", smoke)
    created = {
        k: ts(o["metadata"]["creationTimestamp"])
        for k, o in {"hook": hook, "settings": settings, "app": dep, "smoke": smoke}.items()
    }
    available = next(c for c in dep["status"]["conditions"] if c["type"] == "Available")
    assert created["hook"] <= created["settings"] <= created["app"] <= created["smoke"]
    assert ts(available["lastTransitionTime"]) <= created["smoke"]

    results = op["syncResult"]["resources"]
    plane.record("t4-syncresult-resources", results)
    order = [(r["kind"], r["name"], r.get("syncPhase"), r.get("hookPhase"), r.get("hookType")) for r in results]
    assert order == [
        ("Namespace", "src-waves", "PreSync", "Running", None),  # CreateNamespace=true
        ("Job", hook["metadata"]["name"], "PreSync", "Succeeded", "PreSync"),
        ("ConfigMap", "settings", "Sync", "Succeeded", None),
        ("Deployment", "app", "Sync", "Succeeded", None),
        ("Job", "smoke", "Sync", "Running", None),  # last wave: not waited for
    ]
    assert op["message"] == "successfully synced (all tasks run)"
    assert op["operation"]["retry"] == {"limit": 5}  # automated sync's default retry, not in the spec
    hook_status = [r for r in app["status"]["resources"] if r["kind"] == "Job" and r.get("hook")]
    assert hook_status == [
        {
            "group": "batch",
            "hook": True,
            "kind": "Job",
            "name": hook["metadata"]["name"],
            "namespace": "src-waves",
            "version": "v1",
        }
    ]  # listed with hook: true, no sync status, no syncWave

    # next sync (new commit touching the ConfigMap): does BeforeHookCreation remove the old hook?
    first = hook["metadata"]["name"]
    rev2 = plane.commit_push(
        src,
        waves_files(mode="blue")
        | {"waves/config.yaml": waves_files()["waves/config.yaml"].replace("mode: blue", "mode: blue\n  note: two")},
        "waves: second sync",
    )
    plane.hard_refresh(WAVES_APP)
    app2 = plane.wait_synced_healthy(WAVES_APP, rev2, timeout=240)
    started2 = int(ts(app2["status"]["operationState"]["startedAt"]).timestamp())
    names = sorted(j["metadata"]["name"] for j in hook_jobs(plane, "src-waves"))
    plane.record("t4-hook-jobs-after-second-sync", hook_jobs(plane, "src-waves"))
    assert names == sorted([first, f"migrate-{rev2[:7]}-presync-{started2}"])  # old hook NOT deleted
    settings2 = plane.get("configmap", "settings", "src-waves")
    assert settings2["metadata"]["creationTimestamp"] == settings["metadata"]["creationTimestamp"]


# ---------------------------------------------------------------------------------------------
# 5. a PreSync hook that exits 1
# ---------------------------------------------------------------------------------------------
def sample_until(
    plane: Plane, name: str, done, timeout: float, samples: list[dict[str, Any]], interval: float = 2.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        app = plane.app(name)
        s = op_sample(app)
        if not samples or {k: v for k, v in s.items() if k != "t"} != {k: v for k, v in samples[-1].items() if k != "t"}:
            samples.append(s)
        if done(app):
            return app
        if time.monotonic() >= deadline:
            raise AssertionError(f"{name}: timed out; samples={json.dumps(samples, indent=1)[-5000:]}")
        time.sleep(interval)


def op_of(a: dict[str, Any]) -> dict[str, Any]:
    return a.get("status", {}).get("operationState", {})


def retry_count(a: dict[str, Any]) -> int:
    return op_of(a).get("retryCount") or 0


RETRY_MSG = re.compile(r"^one or more synchronization tasks completed unsuccessfully\. Retrying attempt #\d+ at ")


def test_5_failed_presync_hook_retries_block_newer_commit_until_terminate_op(plane: Plane, src, waves_synced):
    """The lab's src-waves (automated, no retry in the spec): the default retry limit 5 applies."""
    bad = plane.commit_push(
        src, waves_files(mode="green", migrate_cmd="echo migrate failed; exit 1"), "mode green + failing migrate"
    )
    plane.hard_refresh(WAVES_APP)
    samples: list[dict[str, Any]] = []
    hook_seen: dict[str, dict[str, Any]] = {}

    def watch_hooks(a: dict[str, Any]) -> None:
        for j in hook_jobs(plane, "src-waves"):
            if j["metadata"]["name"].startswith(f"migrate-{bad[:7]}"):
                conds = [c["type"] for c in j["status"].get("conditions", []) if c["status"] == "True"]
                hook_seen[j["metadata"]["uid"]] = {"name": j["metadata"]["name"], "conditions": conds}

    def until_retry(n: int):
        def done(a: dict[str, Any]) -> bool:
            watch_hooks(a)
            return retry_count(a) >= n

        return done

    app = sample_until(plane, WAVES_APP, until_retry(3), 240, samples, interval=1.0)
    op = op_of(app)
    assert op["phase"] == "Running"
    assert op["operation"]["sync"]["revision"] == bad
    assert op["operation"]["retry"] == {"limit": 5}
    assert app["status"]["sync"]["status"] == "OutOfSync"
    msgs = [s["message"] for s in samples if s["operation_revision"] == bad and s["message"]]
    assert any(RETRY_MSG.match(m) for m in msgs), msgs
    assert "Retrying operation. Attempt #1" in msgs
    assert plane.get("configmap", "settings", "src-waves")["data"]["mode"] == "blue"

    # fix only the migrate command (mode stays green): the running operation keeps retrying `bad`
    good = plane.commit_push(src, waves_files(mode="green"), "fix migrate")
    plane.hard_refresh(WAVES_APP)
    t_end = time.monotonic() + 15
    sample_until(plane, WAVES_APP, lambda a: (watch_hooks(a), time.monotonic() >= t_end)[1], 60, samples, 1.0)
    app = plane.app(WAVES_APP)
    plane.record("t5-application-src-waves-retrying", app)
    plane.record("t5-hook-jobs-seen", hook_seen)
    op = op_of(app)
    assert op["phase"] == "Running"
    assert op["operation"]["sync"]["revision"] == bad  # the newer commit is blocked
    assert app["status"]["sync"]["revision"] == good
    assert app["status"]["sync"]["status"] == "OutOfSync"
    assert plane.get("configmap", "settings", "src-waves")["data"]["mode"] == "blue"
    names = {h["name"] for h in hook_seen.values()}
    assert len(names) == 1  # every retry regenerates the same hook name
    assert len(hook_seen) >= 2  # BeforeHookCreation deleted the failed Job; a later retry recreated it
    assert {tuple(h["conditions"]) for h in hook_seen.values()} <= {(), ("FailureTarget", "Failed")}

    proc = plane.argocd("app", "terminate-op", WAVES_APP, "--core")
    plane.record("t5-terminate-op-output", {"rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr[-2000:]})
    assert proc.returncode == 0, proc.stderr
    app = sample_until(
        plane,
        WAVES_APP,
        lambda a: (
            op_of(a).get("syncResult", {}).get("revision") == good
            and op_of(a).get("phase") == "Succeeded"
            and a["status"].get("health", {}).get("status") == "Healthy"
        ),
        240,
        samples,
        interval=0.5,
    )
    plane.record("t5-operation-samples", samples)
    plane.record("t5-application-src-waves-fixed", app)
    assert app["status"]["sync"]["status"] == "Synced"
    assert plane.get("configmap", "settings", "src-waves")["data"]["mode"] == "green"
    # the terminated state (phase Failed) lasts ~1 s before auto-sync starts the newer commit
    terminated = [s for s in samples if (s["message"] or "").startswith("Operation terminated")]
    for s in terminated:
        assert s["phase"] == "Failed" and s["operation_revision"] == bad
        assert re.fullmatch(r"Operation terminated \(retried \d+ times\)\.", s["message"]), s["message"]


RETRY_APP = "retry-waves"


def test_5b_failed_hook_after_retries_exhausted(plane: Plane):
    """Explicit short retry: the final phase is Failed; the failed hook Job is gone; a newer commit syncs."""
    repo = plane.new_repo("retry")
    plane.commit_push(repo, waves_files(), "waves")
    policy = {
        "automated": {},
        "syncOptions": ["CreateNamespace=true"],
        "retry": {"limit": 1, "backoff": {"duration": "2s", "factor": 1, "maxDuration": "2s"}},
    }
    plane.apply(application(RETRY_APP, "retry", "waves", "retry-waves", sync_policy=policy))
    plane.wait_synced_healthy(RETRY_APP, timeout=240)
    bad = plane.commit_push(repo, waves_files(mode="green", migrate_cmd="echo migrate failed; exit 1"), "bad")
    plane.hard_refresh(RETRY_APP)
    samples: list[dict[str, Any]] = []
    sample_until(
        plane,
        RETRY_APP,
        lambda a: (
            op_of(a).get("operation", {}).get("sync", {}).get("revision") == bad and op_of(a).get("phase") in ("Failed", "Error")
        ),
        180,
        samples,
    )
    t_end = time.monotonic() + 30
    sample_until(plane, RETRY_APP, lambda a: time.monotonic() >= t_end, 60, samples)
    app = plane.app(RETRY_APP)
    plane.record("t5b-operation-samples", samples)
    plane.record("t5b-application-failed", app)
    op = op_of(app)
    assert op["phase"] == "Failed"
    assert op["retryCount"] == 1
    assert op["operation"]["sync"]["revision"] == bad
    assert op["message"] == "one or more synchronization tasks completed unsuccessfully (retried 1 times)."
    failed_hook = [r for r in op["syncResult"]["resources"] if r.get("hookType") == "PreSync"]
    assert [(r["hookPhase"], r["status"], r["message"]) for r in failed_hook] == [
        ("Failed", "Synced", "Job has reached the specified backoff limit")
    ]
    assert app["status"]["conditions"] == [
        {
            "lastTransitionTime": app["status"]["conditions"][0]["lastTransitionTime"],
            "message": f"Failed last sync attempt to [{bad}]: "
            "one or more synchronization tasks completed unsuccessfully (retried 1 times).",
            "type": "SyncError",
        }
    ]
    assert plane.get("configmap", "settings", "retry-waves")["data"]["mode"] == "blue"
    # the retry deleted the failed hook (BeforeHookCreation, same name) and did not recreate it
    assert [j for j in hook_jobs(plane, "retry-waves") if j["metadata"]["name"].startswith(f"migrate-{bad[:7]}")] == []
    # no new operation for the failed revision after the final failure
    assert {s["startedAt"] for s in samples if s["operation_revision"] == bad} == {op["startedAt"]}
    # a newer commit is synced automatically once the operation has ended
    good = plane.commit_push(repo, waves_files(mode="green"), "fix migrate")
    plane.hard_refresh(RETRY_APP)
    plane.wait_synced_healthy(RETRY_APP, good, timeout=180)
    assert plane.get("configmap", "settings", "retry-waves")["data"]["mode"] == "green"


# ---------------------------------------------------------------------------------------------
# 6. replicas: two in git
# ---------------------------------------------------------------------------------------------
BAD_APP = "bad-replicas"


def test_6_replicas_two(plane: Plane):
    repo = plane.new_repo("bad")
    dep = KUST["kust/base/deployment.yaml"].replace("replicas: 1", "replicas: two")
    rev = plane.commit_push(repo, {"app/deployment.yaml": dep}, "replicas: two")
    plane.apply(application(BAD_APP, "bad", "app", "bad-replicas"))
    samples: list[dict[str, Any]] = []
    app = sample_until(plane, BAD_APP, lambda a: retry_count(a) >= 1, 120, samples, interval=1.0)
    plane.record("t6-samples", samples)
    plane.record("t6-application-bad-replicas", app)
    st = app["status"]
    assert st["sync"]["revision"] == rev
    assert st["sync"]["status"] == "OutOfSync"
    assert st["health"]["status"] == "Missing"
    assert st.get("conditions") is None  # no ComparisonError: the manifest renders and diffs fine
    op = st["operationState"]
    unmarshal = (
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string '
        "into Go struct field DeploymentSpec.spec.replicas of type int32"
    )
    assert op["phase"] == "Running"  # retrying (default limit 5)
    assert op["message"].startswith(f"one or more objects failed to apply, reason: {unmarshal}. Retrying attempt #")
    assert [
        (r["kind"], r["name"], r["status"], r["hookPhase"], r["message"])
        for r in op["syncResult"]["resources"]
        if r["kind"] != "Namespace"  # the first attempt also lists namespace/bad-replicas created
    ] == [("Deployment", "api", "SyncFailed", "Failed", unmarshal)]
    assert plane.get("deployment", "api", "bad-replicas", missing_ok=True) is None
    plane.kubectl(
        "-n", "argocd", "patch", "applications.argoproj.io", BAD_APP, "--type=merge", "-p", '{"spec":{"syncPolicy":null}}'
    )


# ---------------------------------------------------------------------------------------------
# 7. ignoreDifferences + RespectIgnoreDifferences + selfHeal, then kubectl scale
# ---------------------------------------------------------------------------------------------
def replicas_owners(dep: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: m.get(k) for k in ("manager", "operation", "subresource")}
        for m in dep["metadata"].get("managedFields", [])
        if "f:replicas" in m.get("fieldsV1", {}).get("f:spec", {})
    ]


def test_7_ignore_differences_keeps_scaled_replicas(plane: Plane, src, kust_synced):
    plane.apply(
        application(
            KUST_APP,
            "src",
            "kust/overlays/prod",
            "src-kust",
            source_extra={"kustomize": {"images": ["nginx=nginx:1.28-alpine"]}},
            sync_policy={
                "automated": {"selfHeal": True},
                "syncOptions": ["CreateNamespace=true", "RespectIgnoreDifferences=true"],
            },
            ignore_differences=[{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}],
        )
    )
    plane.wait_synced_healthy(KUST_APP, timeout=120)
    before = plane.get("deployment", "prod-api", "src-kust", managed_fields=True)
    plane.record("t7-deployment-prod-api-before-scale", before)
    plane.kubectl("-n", "src-kust", "scale", "deployment/prod-api", "--replicas=4")
    scaled_at = time.time()
    plane.hard_refresh(KUST_APP)
    wait_until(
        "4 ready replicas", lambda: plane.get("deployment", "prod-api", "src-kust")["status"].get("readyReplicas") == 4, 60, 1
    )
    time.sleep(max(0.0, 45 - (time.time() - scaled_at)))
    app = plane.app(KUST_APP)
    dep = plane.get("deployment", "prod-api", "src-kust", managed_fields=True)
    plane.record("t7-deployment-prod-api-after-scale", dep)
    plane.record("t7-application-src-kust", app)
    assert dep["spec"]["replicas"] == 4
    assert app["status"]["sync"]["status"] == "Synced"
    assert app["status"]["sync"]["revision"] == plane.git(src, "rev-parse", "HEAD")
    owners = replicas_owners(dep)
    assert owners == [{"manager": "kubectl", "operation": "Update", "subresource": "scale"}]
    before_owners = replicas_owners(before)
    assert before_owners == [{"manager": "argocd-controller", "operation": "Update", "subresource": None}]
    assert re.fullmatch(r"\d+", str(dep["metadata"]["generation"]))
