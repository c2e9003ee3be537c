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


STEP_TITLES = {
    1: {"en": "Chart in git, Application points at it", "ja": "チャートを Git に置き Application で指す",
        "ko": "차트를 Git에 두고 Application으로 가리키기"},
    2: {"en": "Which Helm value source wins", "ja": "どの Helm の値が優先されるか", "ko": "어느 Helm 값이 우선하는가"},
    3: {"en": "No Helm release, only tracking marks", "ja": "Helm リリースはなく追跡の目印だけ",
        "ko": "Helm 릴리스 없이 추적 표시만"},
    4: {"en": "Image from the Application, not from git", "ja": "イメージは Git ではなく Application から",
        "ko": "이미지는 Git이 아니라 Application에서"},
    5: {"en": "Sync waves and a PreSync hook", "ja": "同期ウェーブと PreSync フック", "ko": "동기화 웨이브와 PreSync 훅"},
    6: {"en": "A failed hook blocks the sync", "ja": "失敗したフックが同期を止める", "ko": "실패한 훅이 동기화를 막는다"},
    7: {"en": "selfHeal leaves scaled replicas alone", "ja": "selfHeal は手動で増やしたレプリカを戻さない",
        "ko": "selfHeal이 수동으로 늘린 레플리카를 되돌리지 않는다"},
    8: {"en": "Who decided each value", "ja": "誰がそれぞれの値を決めたか", "ko": "누가 각 값을 정했는가"},
}

EVIDENCE_JSON = ("precedence.json", "tracking.json", "waves.json", "failed-hook.json", "ignore.json", "report.json")
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

