"""Lab capa-src as one Lab object: its steps, its declared reads (evidence files, the bare
repository src, nine GET requests), its messages, what it owns and its reference solution; and the
three Applications the learner writes and applies (ApplicationTwin)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import ApplicationTwin
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Reads, Repo
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import Lab, Owned
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.messages import HINTS, MESSAGES

REPO_NAME = "src"
HELM_APP, KUST_APP, WAVES_APP = "src-helm", "src-kust", "src-waves"


STEP_TITLES = {  # what the learner builds in each step
    1: {"en": "Application src-helm deploying the chart charts/web from git",
        "ja": "Git のチャート charts/web をデプロイする Application src-helm",
        "ko": "Git의 차트 charts/web을 배포하는 Application src-helm"},
    2: {"en": "valuesObject and parameters on src-helm, and which value wins (precedence.json)",
        "ja": "src-helm の valuesObject と parameters、どの値が優先されるか（precedence.json）",
        "ko": "src-helm의 valuesObject와 parameters, 어느 값이 우선하는지 (precedence.json)"},
    3: {"en": "No Helm release, only Argo CD's tracking label/annotation (tracking.json)",
        "ja": "Helm リリースはなく、Argo CD の追跡用ラベル／アノテーションだけ（tracking.json）",
        "ko": "Helm 릴리스 없이 Argo CD의 추적용 레이블/어노테이션만 (tracking.json)"},
    4: {"en": "Application src-kust: a Kustomize overlay whose 1.28 image is set in the Application",
        "ja": "Kustomize のオーバーレイを使い、1.28 のイメージを Application で指定する src-kust",
        "ko": "Kustomize 오버레이를 쓰고 1.28 이미지를 Application에서 지정하는 src-kust"},
    5: {"en": "Application src-waves: sync waves -1/0/1 and a PreSync hook Job (waves.json)",
        "ja": "同期ウェーブ -1/0/1 と PreSync フックの Job を持つ Application src-waves（waves.json）",
        "ko": "동기화 웨이브 -1/0/1과 PreSync 훅 Job이 있는 Application src-waves (waves.json)"},
    6: {"en": "A commit whose PreSync hook fails, then its fix (failed-hook.json)",
        "ja": "PreSync フックが失敗するコミットとその修正（failed-hook.json）",
        "ko": "PreSync 훅이 실패하는 커밋과 그 수정 (failed-hook.json)"},
    7: {"en": "selfHeal with ignoreDifferences on /spec/replicas: replicas scaled to 4 stay (ignore.json)",
        "ja": "/spec/replicas を ignoreDifferences に入れた selfHeal: 4 に増やしたレプリカが残る（ignore.json）",
        "ko": "/spec/replicas를 ignoreDifferences에 넣은 selfHeal: 4로 늘린 레플리카가 유지됨 (ignore.json)"},
    8: {"en": "report.json: who decided each value", "ja": "report.json: それぞれの値を誰が決めたか",
        "ko": "report.json: 각 값을 누가 정했는가"},
}

# The evidence files and the keys the checks read from each (tests/grader/test_hint_pairs.py
# records what the checks read).
EVIDENCE_JSON = {
    "precedence.json": ("replicas", "greeting"),
    "tracking.json": ("helm_release_secrets", "tracking_annotation", "instance_label"),
    "waves.json": ("hook_job", "hook_created", "settings_created"),
    "failed-hook.json": ("commit", "phase", "live_mode"),
    "ignore.json": ("scaled_at", "checked_at", "replicas", "sync_status"),
    "report.json": ("helm_winner", "replicas_winner", "helm_installed", "image_source", "hook_blocked_sync",
                    "replicas_owner"),
}
APP_FILES = ("app-src-helm.yaml", "app-src-kust.yaml", "app-src-waves.yaml")
TRACKED = ("waves/config.yaml", "waves/migrate.yaml")


def cluster_reads(site):
    """The nine requests one grading attempt sends (GET only)."""
    def deployments(ns):
        return (f"/apis/apps/v1/namespaces/{ns}/deployments", None)

    def configmaps(ns):
        return (f"/api/v1/namespaces/{ns}/configmaps", None)

    return {
        "applications": (f"/apis/argoproj.io/v1alpha1/namespaces/{site.argocd_namespace}/applications", None),
        "argocd_cm": (f"/api/v1/namespaces/{site.argocd_namespace}/configmaps/argocd-cm", None),
        "helm_deployments": deployments("src-helm"),
        "helm_configmaps": configmaps("src-helm"),
        "helm_release_secrets": ("/api/v1/namespaces/src-helm/secrets", {"fieldSelector": "type=helm.sh/release.v1"}),
        "kust_deployments": deployments("src-kust"),
        "waves_deployments": deployments("src-waves"),
        "waves_configmaps": configmaps("src-waves"),
        "waves_jobs": ("/apis/batch/v1/namespaces/src-waves/jobs", None),
    }


lab = Lab(
    "capa-src",
    {"en": "Argo CD sources: Helm, Kustomize, waves and hooks", "ja": "Argo CD のソース: Helm・Kustomize・ウェーブ・フック",
     "ko": "Argo CD 소스: Helm, Kustomize, 웨이브, 훅"},
    STEP_TITLES,
    Reads(json_files=EVIDENCE_JSON, yaml_files=APP_FILES,
          repo=Repo(REPO_NAME, prefixes=("charts/web", "kust", "waves"), tracked_paths=TRACKED),
          clone="repo", api=cluster_reads),
    MESSAGES,
    HINTS,
    Owned(applications=(HELM_APP, KUST_APP, WAVES_APP), namespaces=(HELM_APP, KUST_APP, WAVES_APP)),
)


HELM = ApplicationTwin(HELM_APP, "app-src-helm.yaml")
KUST = ApplicationTwin(KUST_APP, "app-src-kust.yaml")
WAVES = ApplicationTwin(WAVES_APP, "app-src-waves.yaml")

