"""Reference solution of capa-src (shared/labs/capa-src.md, shared/seeds/capa-src.*.txt), performed
as a learner follows the lab text: git in /root/capa-src/repo pushed to /srv/bare/src.git,
`kubectl apply` of the Application files, waits on what Argo CD reports, and evidence files
written from what the cluster shows at that moment (never constants)."""

from __future__ import annotations

import time

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.machine import SolveError

HELM_APP, KUST_APP, WAVES_APP = "src-helm", "src-kust", "src-waves"
SCALE_WAIT_SECONDS = 41  # the lab text: scale, then wait at least 40 s before checking

CHART = {
    "charts/web/Chart.yaml": "apiVersion: v2\nname: web\ndescription: Greeting web app\nversion: 0.1.0\n",
    "charts/web/values.yaml": "replicaCount: 1\ngreeting: chart-default\n",
    "charts/web/values-prod.yaml": "replicaCount: 2\ngreeting: from-values-file\n",
    "charts/web/templates/configmap.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\n"
        "data:\n  greeting: {{ .Values.greeting | quote }}\n"),
    "charts/web/templates/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\n"
        "spec:\n  replicas: {{ .Values.replicaCount }}\n  selector:\n    matchLabels:\n"
        "      app: {{ .Release.Name }}-web\n  template:\n    metadata:\n      labels:\n"
        "        app: {{ .Release.Name }}-web\n    spec:\n      containers:\n        - name: web\n"
        "          image: nginx:1.27-alpine\n"),
}
KUST = {
    "kust/base/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  labels:\n    app: api\n"
        "spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: api\n  template:\n    metadata:\n"
        "      labels:\n        app: api\n    spec:\n      containers:\n        - name: api\n"
        "          image: nginx:1.27-alpine\n"),
    "kust/base/kustomization.yaml": "resources:\n  - deployment.yaml\n",
    "kust/overlays/prod/kustomization.yaml": (
        "resources:\n  - ../../base\nnamePrefix: prod-\nreplicas:\n  - name: api\n    count: 2\n"),
}


def config_yaml(mode):
    return ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations:\n"
            f"    argocd.argoproj.io/sync-wave: \"-1\"\ndata:\n  mode: {mode}\n")


def migrate_yaml(command):
    # backoffLimit 1: a failing hook fails in seconds instead of the Job default's ~10 minutes.
    return ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\n  annotations:\n"
            "    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation\n"
            "spec:\n  backoffLimit: 1\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n"
            f"        - name: migrate\n          image: busybox:1.36\n          command: [\"sh\", \"-c\", \"{command}\"]\n")


WAVES = {
    "waves/config.yaml": config_yaml("blue"),
    "waves/app.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  annotations:\n"
        "    argocd.argoproj.io/sync-wave: \"0\"\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: app\n"
        "  template:\n    metadata:\n      labels:\n        app: app\n    spec:\n      containers:\n"
        "        - name: app\n          image: nginx:1.27-alpine\n          readinessProbe:\n"
        "            httpGet:\n              path: /\n              port: 80\n"),
    "waves/smoke.yaml": (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: smoke\n  annotations:\n"
        "    argocd.argoproj.io/sync-wave: \"1\"\nspec:\n  backoffLimit: 1\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers:\n        - name: smoke\n          image: busybox:1.36\n"
        "          command: [\"sh\", \"-c\", \"echo smoke ok\"]\n"),
    "waves/migrate.yaml": migrate_yaml("echo migrate ok"),
}
HELM_VALUES = {"valuesObject": {"replicaCount": 3, "greeting": "from-values-object"},
               "parameters": [{"name": "greeting", "value": "from-parameter"}]}
IMAGE_OVERRIDE = "nginx=nginx:1.28-alpine"
IGNORE_REPLICAS = [{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}]


def application(ws, name, path, source_extra=None, sync_options=("CreateNamespace=true",), ignore=None):
    spec = {"project": "default",
            "source": {"repoURL": ws.repo_url, "targetRevision": "main", "path": path, **(source_extra or {})},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": name},
            "syncPolicy": {"automated": {"prune": True, "selfHeal": True}, "syncOptions": list(sync_options)}}
    if ignore:
        spec["ignoreDifferences"] = ignore
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "metadata": {"name": name, "namespace": ws.machine.site.argocd_namespace}, "spec": spec}


def apply_app(ws, filename, manifest):
    ws.write(filename, yaml.safe_dump(manifest, sort_keys=False))
    ws.machine.apply(ws.file(filename))


def status(app):
    return app.get("status", {})


def operation(app):
    return status(app).get("operationState", {})


def deploy(ws, files, message, app):
    """Commit and push `files` and, when `app` exists, make Argo CD read git now; returns bare
    main's head (the callers wait for what they need at it)."""
    head = ws.commit_push(files, message)
    if ws.machine.get("applications.argoproj.io", app, ws.machine.site.argocd_namespace, missing_ok=True):
        ws.machine.hard_refresh(app)
    return head


def step1(m, ws):
    ws.init_repo()
    head = deploy(ws, CHART, "Add web chart", HELM_APP)
    apply_app(ws, "app-src-helm.yaml", application(ws, HELM_APP, "charts/web",
                                                    {"helm": {"valueFiles": ["values-prod.yaml"]}}))
    m.wait_synced_healthy(HELM_APP, head)


def step2(m, ws):
    apply_app(ws, "app-src-helm.yaml", application(ws, HELM_APP, "charts/web",
                                                    {"helm": {"valueFiles": ["values-prod.yaml"], **HELM_VALUES}}))
    # The spec change makes auto-sync start an operation with the new source; wait for that one.
    m.wait_app(HELM_APP, lambda app: operation(app).get("phase") == "Succeeded"
               and operation(app).get("syncResult", {}).get("source", {}).get("helm", {}).get("parameters")
               == HELM_VALUES["parameters"] and status(app).get("sync", {}).get("status") == "Synced"
               and status(app).get("health", {}).get("status") == "Healthy", "synced with the new Helm values")
    deployment = m.get("deployment", f"{HELM_APP}-web", HELM_APP)
    configmap = m.get("configmap", f"{HELM_APP}-greeting", HELM_APP)
    ws.write_json("precedence.json", {"replicas": deployment["spec"]["replicas"],
                                      "greeting": configmap["data"]["greeting"]})


def step3(m, ws):
    releases = m.items("secrets", HELM_APP, "type=helm.sh/release.v1")
    metadata = m.get("configmap", f"{HELM_APP}-greeting", HELM_APP)["metadata"]
    ws.write_json("tracking.json", {
        "helm_release_secrets": len(releases),
        "tracking_annotation": metadata.get("annotations", {}).get("argocd.argoproj.io/tracking-id"),
        "instance_label": metadata.get("labels", {}).get("app.kubernetes.io/instance")})


def step4(m, ws):
    head = deploy(ws, KUST, "Add api kustomize base and prod overlay", KUST_APP)
    apply_app(ws, "app-src-kust.yaml", application(ws, KUST_APP, "kust/overlays/prod",
                                                    {"kustomize": {"images": [IMAGE_OVERRIDE]}}))
    m.wait_synced_healthy(KUST_APP, head)
    def rolled_out():
        deployment = m.get("deployment", "prod-api", KUST_APP)
        return (deployment["status"].get("readyReplicas") == 2
                and deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28-alpine")
    m.wait("Deployment prod-api: 2 ready replicas running nginx:1.28-alpine", rolled_out)


def step5(m, ws):
    head = deploy(ws, WAVES, "Add waves: settings, app, smoke and a PreSync migrate hook", WAVES_APP)
    apply_app(ws, "app-src-waves.yaml", application(ws, WAVES_APP, "waves"))
    m.wait_synced_healthy(WAVES_APP, head)
    # The hook Job Argo CD generated for this commit: migrate-<sha7>-presync-<start> (gitops-engine
    # sync_context.go); `kubectl get jobs` is how the lab text has the learner find it.
    hooks = [job for job in m.items("jobs", WAVES_APP) if job["metadata"]["name"].startswith(f"migrate-{head[:7]}-presync-")
             and any(c["type"] == "Complete" and c["status"] == "True" for c in job.get("status", {}).get("conditions", []))]
    if len(hooks) != 1:
        raise SolveError(f"{WAVES_APP} synced {head[:7]} but {len(hooks)} completed PreSync hook Jobs of it exist")
    job = hooks[0]
    settings = m.get("configmap", "settings", WAVES_APP)
    ws.write_json("waves.json", {"hook_job": job["metadata"]["name"],
                                 "hook_created": job["metadata"]["creationTimestamp"],
                                 "settings_created": settings["metadata"]["creationTimestamp"]})


def hook_failed(app, revision):
    """The operation of `revision` shows its hook failed: it retries, or it ended Failed/Error."""
    op = operation(app)
    return op.get("operation", {}).get("sync", {}).get("revision") == revision and (
        op.get("phase") in ("Failed", "Error") or (op.get("retryCount") or 0) > 0)


def step6(m, ws):
    failing = deploy(ws, {"waves/config.yaml": config_yaml("green"),
                          "waves/migrate.yaml": migrate_yaml("echo migrate failed; exit 1")},
                     "Switch mode to green (migrate now fails)", WAVES_APP)
    app = m.wait_app(WAVES_APP, lambda app: hook_failed(app, failing), f"the operation of {failing[:7]} fails")
    ws.write_json("failed-hook.json", {"commit": failing, "phase": operation(app)["phase"],
                                       "live_mode": m.get("configmap", "settings", WAVES_APP)["data"]["mode"]})
    fixed = deploy(ws, {"waves/migrate.yaml": migrate_yaml("echo migrate ok")}, "Restore the migrate command",
                   WAVES_APP)
    # Auto-sync keeps retrying the failed revision and starts no new one meanwhile (the lab
    # text's common mistake), so end that operation when it still runs.
    current = operation(m.app(WAVES_APP))
    if current.get("phase") == "Running" and current.get("operation", {}).get("sync", {}).get("revision") == failing:
        m.terminate_operation(WAVES_APP)
        m.hard_refresh(WAVES_APP)
    m.wait_synced_healthy(WAVES_APP, fixed)
    m.wait("ConfigMap src-waves/settings mode green",
           lambda: m.get("configmap", "settings", WAVES_APP)["data"]["mode"] == "green")


def step7(m, ws):
    apply_app(ws, "app-src-kust.yaml", application(
        ws, KUST_APP, "kust/overlays/prod", {"kustomize": {"images": [IMAGE_OVERRIDE]}},
        ("CreateNamespace=true", "RespectIgnoreDifferences=true"), IGNORE_REPLICAS))
    m.wait_app(KUST_APP, lambda app: app["spec"].get("ignoreDifferences") == IGNORE_REPLICAS
               and status(app).get("sync", {}).get("status") == "Synced"
               and operation(app).get("phase") not in ("Running", "Terminating"), "Synced with ignoreDifferences")
    m.kubectl("-n", KUST_APP, "scale", "deployment", "prod-api", "--replicas=4")
    scaled_at = int(time.time())
    time.sleep(SCALE_WAIT_SECONDS)
    m.wait("prod-api: 4 ready replicas", lambda: m.get("deployment", "prod-api", KUST_APP)["status"]
           .get("readyReplicas") == 4)
    replicas = m.get("deployment", "prod-api", KUST_APP)["spec"]["replicas"]
    ws.write_json("ignore.json", {"scaled_at": scaled_at, "checked_at": int(time.time()), "replicas": replicas,
                                  "sync_status": status(m.app(KUST_APP))["sync"]["status"]})


def winner(found, sources):
    """The value source (highest precedence first) whose value the cluster shows."""
    return next((name for name, value in sources if value == found), None)


def replicas_owner(deployment):
    for entry in deployment["metadata"].get("managedFields", []):
        if "f:replicas" in entry.get("fieldsV1", {}).get("f:spec", {}):
            return entry["manager"]
    raise SolveError("no managedFields entry of prod-api owns f:spec.f:replicas")


def step8(m, ws):
    precedence, tracking = ws.read_json("precedence.json"), ws.read_json("tracking.json")
    failed_hook = ws.read_json("failed-hook.json")
    values_object = HELM_VALUES["valuesObject"]
    parameter = {p["name"]: p["value"] for p in HELM_VALUES["parameters"]}
    values_file = yaml.safe_load(CHART["charts/web/values-prod.yaml"])
    chart = yaml.safe_load(CHART["charts/web/values.yaml"])
    in_git = ws.git("grep", "-q", "1.28", "origin/main", "--", "kust", check=False).returncode == 0
    ws.write_json("report.json", {
        "helm_winner": winner(precedence["greeting"], [
            ("parameters", parameter.get("greeting")), ("valuesObject", values_object["greeting"]),
            ("valueFiles", values_file["greeting"]), ("chart", chart["greeting"])]),
        "replicas_winner": winner(precedence["replicas"], [
            ("parameters", parameter.get("replicaCount")), ("valuesObject", values_object["replicaCount"]),
            ("valueFiles", values_file["replicaCount"]), ("chart", chart["replicaCount"])]),
        "helm_installed": tracking["helm_release_secrets"] > 0,
        "image_source": "git" if in_git else "application",
        "hook_blocked_sync": failed_hook["live_mode"] != "green",
        "replicas_owner": replicas_owner(m.get("deployment", "prod-api", KUST_APP, managed_fields=True))})


STEPS = (step1, step2, step3, step4, step5, step6, step7, step8)
