"""Git content and Applications of the capa-src lab (shared/labs/capa-src.md), as the tests push them."""

from __future__ import annotations

from typing import Any

GIT_BASE = "git://gitd.gitsrv.svc.cluster.local:9418"

CHART = {
    "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "charts/web/values.yaml": "replicaCount: 1\ngreeting: chart-default\n",
    "charts/web/values-prod.yaml": "replicaCount: 2\ngreeting: from-values-file\n",
    "charts/web/templates/configmap.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\n"
        "data:\n  greeting: {{ .Values.greeting | quote }}\n"
    ),
    "charts/web/templates/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\n"
        "spec:\n  replicas: {{ .Values.replicaCount }}\n"
        "  selector:\n    matchLabels:\n      app: {{ .Release.Name }}-web\n"
        "  template:\n    metadata:\n      labels:\n        app: {{ .Release.Name }}-web\n"
        "    spec:\n      containers:\n      - name: web\n        image: nginx:1.27-alpine\n"
    ),
}

KUST = {
    "kust/base/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  labels:\n    app: api\n"
        "spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: api\n"
        "  template:\n    metadata:\n      labels:\n        app: api\n"
        "    spec:\n      containers:\n      - name: api\n        image: nginx:1.27-alpine\n"
    ),
    "kust/base/kustomization.yaml": "resources:\n- deployment.yaml\n",
    "kust/overlays/prod/kustomization.yaml": (
        "resources:\n- ../../base\nnamePrefix: prod-\nreplicas:\n- name: api\n  count: 2\n"
    ),
}


def waves_files(mode: str = "blue", migrate_cmd: str = "echo migrate ok") -> dict[str, str]:
    return {
        "waves/config.yaml": (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations:\n"
            '    argocd.argoproj.io/sync-wave: "-1"\n'
            f"data:\n  mode: {mode}\n"
        ),
        "waves/deployment.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  annotations:\n"
            '    argocd.argoproj.io/sync-wave: "0"\n'
            "spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: app\n"
            "  template:\n    metadata:\n      labels:\n        app: app\n"
            "    spec:\n      containers:\n      - name: app\n        image: nginx:1.27-alpine\n"
            "        readinessProbe:\n          httpGet:\n            path: /\n            port: 80\n"
        ),
        "waves/smoke.yaml": (
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: smoke\n  annotations:\n"
            '    argocd.argoproj.io/sync-wave: "1"\n'
            "spec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n"
            "      containers:\n      - name: smoke\n        image: busybox:1.36\n"
            '        command: ["sh", "-c", "echo smoke ok"]\n'
        ),
        "waves/migrate.yaml": (
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\n  annotations:\n"
            "    argocd.argoproj.io/hook: PreSync\n"
            "    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation\n"
            "spec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n"
            "      containers:\n      - name: migrate\n        image: busybox:1.36\n"
            f'        command: ["sh", "-c", "{migrate_cmd}"]\n'
        ),
    }


def application(
    name: str,
    repo: str,
    path: str,
    namespace: str,
    *,
    source_extra: dict[str, Any] | None = None,
    sync_policy: dict[str, Any] | None = None,
    ignore_differences: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    source: dict[str, Any] = {"repoURL": f"{GIT_BASE}/{repo}.git", "targetRevision": "main", "path": path}
    source.update(source_extra or {})
    policy = sync_policy if sync_policy is not None else {"automated": {}, "syncOptions": ["CreateNamespace=true"]}
    spec: dict[str, Any] = {
        "project": "default",
        "source": source,
        "destination": {"server": "https://kubernetes.default.svc", "namespace": namespace},
        "syncPolicy": policy,
    }
    if ignore_differences is not None:
        spec["ignoreDifferences"] = ignore_differences
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": "argocd"},
        "spec": spec,
    }
