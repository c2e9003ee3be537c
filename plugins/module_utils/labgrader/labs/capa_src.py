"""Lab capa-src: Helm value precedence, resource tracking, Kustomize overrides, sync waves and
hooks, a failed PreSync hook, ignoreDifferences + RespectIgnoreDifferences.

Specification: shared/labs/capa-src.md. The final state is graded: a check for step N accepts
what later steps legitimately changed (step 2 adds Helm values, step 6 adds commits, step 7
scales prod-api to 4).
"""

from __future__ import annotations

import posixpath
import re
import secrets

from ansible.module_utils.labgrader.checks.argocd import (
    ApplicationTwin,
    Operation,
    Progress,
    automated_enabled,
    live_status,
    spec_judge,
    spec_problems,
    sync_options,
    synced_healthy,
    verdict_from_problems,
)
from ansible.module_utils.labgrader.checks.evidence import (
    Agrees,
    blocked,
    evidence,
    evidence_field,
    evidence_fields,
    report_answer,
    same_value,
)
from ansible.module_utils.labgrader.checks.git import (
    find_object,
    images,
    object_verdict,
    repo_blocked,
    repo_url,
    repository_checks,
    wanted_or_first,
    yaml_documents,
    yaml_objects,
)
from ansible.module_utils.labgrader.checks.repo_server import helm_template, kustomize_build, resolve_value_files
from ansible.module_utils.labgrader.checks.require import require, stop_if
from ansible.module_utils.labgrader.collect import Reads, Repo
from ansible.module_utils.labgrader.facts import (
    DEFAULT_TRACKING_METHOD,
    INSTANCE_LABEL,
    TRACKING_ANNOTATION,
    TRACKING_METHOD_KEY,
    annotation,
    command_line,
    condition,
    containers,
    dig,
    parse_time,
    replicas_owner,
    tracking_id,
    typed_field,
)
from ansible.module_utils.labgrader.grading import Lab, Owned
from ansible.module_utils.labgrader.i18n import show
from ansible.module_utils.labgrader.result import errored, failed, passed, pending
from ansible.module_utils.labgrader.solutions import capa_src as solution
from ansible.module_utils.labgrader.workspace import parse_yaml_text

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


MESSAGES = {  # this lab's own; the shared ones are in i18n.py
    "empty_not_null": ("{what}: the label is absent, so the value must be JSON null, not \"\"",
                       "{what}: ラベルがないので、値は \"\" ではなく JSON の null にしてください",
                       "{what}: 레이블이 없으므로 값은 \"\"가 아니라 JSON null이어야 합니다"),
    "value_files_ok": ("{what} valueFiles is [values-prod.yaml]",
                       "{what} の valueFiles は [values-prod.yaml] です",
                       "{what}의 valueFiles: [values-prod.yaml]"),
    "value_files_repo_root": ("{what}: valueFiles {found} is written from the repository root; it is relative to "
                              "the chart directory, so write {expected}",
                              "{what}: valueFiles {found} はリポジトリのルートを基準に書かれています。"
                              "チャートのディレクトリが基準なので、{expected} と書いてください",
                              "{what}: valueFiles {found} 값이 저장소 루트 기준입니다. 차트 디렉터리가 기준이므로 "
                              "{expected} 값으로 쓰세요"),
    "template_ok": ("{path} renders the expected object",
                    "{path} は期待するオブジェクトを生成します",
                    "{path} 템플릿이 기대한 오브젝트를 만듭니다"),
    "template_missing": ("no template in charts/web/templates renders {kind} {name}",
                         "charts/web/templates に {kind} {name} を生成するテンプレートがありません",
                         "charts/web/templates에 {kind} {name} 리소스를 만드는 템플릿이 없습니다"),
    "helm_template_failed": ("`helm template` of charts/web at bare main fails, as it fails in Argo CD: {detail}",
                             "ベアリポジトリの main の charts/web で `helm template` が失敗します(Argo CD でも同じく"
                             "失敗します): "
                             "{detail}",
                             "베어 저장소 main의 charts/web에서 `helm template`이 실패합니다 (Argo CD에서도 똑같이 "
                             "실패합니다): {detail}"),
    "tool_unavailable": ("the grader cannot run {tool} on this VM: {detail}",
                         "この VM では採点ツールが {tool} を実行できません: {detail}",
                         "이 VM에서 채점기가 {tool} 도구를 실행할 수 없습니다: {detail}"),
    "template_incomplete": ("{path} does not render {missing}",
                            "{path} が {missing} を生成していません",
                            "{path} 템플릿이 다음을 만들지 않습니다: {missing}"),
    "tracking_method_ok": ("your evidence matches the tracking method in force ({method})",
                           "記録は有効な追跡方式({method})と一致しています",
                           "기록이 적용 중인 추적 방식과 일치합니다 ({method})"),
    "tracking_method_mismatch": ("the tracking method in force is {method}; it writes {expected}, you recorded "
                                 "{found}",
                                 "有効な追跡方式は {method} です。書き込まれる値は {expected} ですが、記録は "
                                 "{found} です",
                                 "적용 중인 추적 방식: {method}. 기록되어야 할 값은 {expected}, 기록한 값은 "
                                 "{found}입니다"),
    "argocd_cm_missing": ("ConfigMap argocd-cm is missing in {namespace}: the Argo CD install is broken",
                          "{namespace} に ConfigMap argocd-cm がありません。Argo CD のインストールが壊れています",
                          "{namespace} 네임스페이스에 ConfigMap argocd-cm이 없습니다. Argo CD 설치가 깨졌습니다"),
    "override_in_git": ("the 1.28 override is committed under kust/ ({paths}); it must live in the Application",
                        "kust/ に 1.28 の上書きがコミットされています({paths})。上書きは Application "
                        "に書いてください",
                        "kust/에 1.28 덮어쓰기가 커밋되어 있습니다({paths}). 덮어쓰기는 Application에 있어야 합니다"),
    "override_not_in_git": ("nothing under kust/ sets the 1.28 image",
                            "kust/ のどこにも 1.28 のイメージの設定はありません",
                            "kust/ 어디에서도 1.28 이미지를 설정하지 않습니다"),
    "hook_name_format": ("waves.json hook_job {found} is not a name Argo CD generates ({expected})",
                         "waves.json の hook_job {found} は Argo CD が生成する名前ではありません({expected})",
                         "waves.json의 hook_job 값 {found}: Argo CD가 만드는 이름이 아닙니다 ({expected})"),
    "hook_commit_unknown": ("waves.json hook_job {found}: {sha7} is not a commit on bare main",
                            "waves.json の hook_job {found}: {sha7} はベアリポジトリの main "
                            "のコミットではありません",
                            "waves.json의 hook_job 값 {found}: 베어 저장소 main에 {sha7} 커밋이 없습니다"),
    "hook_commit_without_hook": ("waves.json hook_job {found}: commit {sha7} has no PreSync hook migrate- in "
                                 "waves/migrate.yaml, so no sync of it ran that hook",
                                 "waves.json の hook_job {found}: コミット {sha7} の waves/migrate.yaml には "
                                 "PreSync フック migrate- がないため、"
                                 "そのコミットの同期でこのフックは実行されていません",
                                 "waves.json의 hook_job 값 {found}: {sha7} 커밋의 waves/migrate.yaml에 PreSync 훅 "
                                 "migrate-가 없으므로 그 커밋의 동기화에서 이 훅은 실행되지 않았습니다"),
    "hook_before_commit": ("waves.json hook_job {found}: the sync started at {started}, before commit {sha7} "
                           "existed ({committed})",
                           "waves.json の hook_job {found}: 同期の開始時刻 {started} が、コミット {sha7} "
                           "の作成時刻 ({committed})より前です",
                           "waves.json의 hook_job 값 {found}: 동기화가 {started}에 시작되어 {sha7} 커밋이 만들어진 "
                           "시각({committed})보다 이릅니다"),
    "hook_not_synced": ("waves.json hook_job {found}: Application src-waves has no sync of {sha7} started at "
                        "{started} (status.history, operationState) and no such Job exists",
                        "waves.json の hook_job {found}: Application src-waves には、{started} に始まった {sha7} "
                        "の同期の記録(status.history、operationState)も、その名前の Job もありません",
                        "waves.json의 hook_job 값 {found}: src-waves Application에 {started}에 시작된 {sha7} "
                        "커밋의 동기화 기록(status.history, operationState)도, 그런 이름의 Job도 없습니다"),
    "hook_name_time": ("waves.json hook_job {found} started at {started}, but hook_created is {created}",
                       "waves.json の hook_job {found} の開始時刻は {started} ですが、hook_created は {created} "
                       "です",
                       "waves.json의 hook_job 값 {found}: 시작 시각은 {started}, hook_created는 {created}입니다"),
    "hook_after_settings": ("the PreSync hook was created after ConfigMap settings: {found}",
                            "PreSync フックが ConfigMap settings より後に作成されています: {found}",
                            "PreSync 훅이 ConfigMap settings보다 나중에 만들어졌습니다: {found}"),
    "hook_before_settings": ("the PreSync hook was created before ConfigMap settings",
                             "PreSync フックは ConfigMap settings より前に作成されました",
                             "PreSync 훅이 ConfigMap settings보다 먼저 만들어졌습니다"),
    "hook_job_gone": ("the hook Job is no longer in the cluster, which is fine",
                      "フックの Job はもうクラスターにありません(問題ありません)",
                      "훅 Job이 클러스터에 더 이상 없습니다 (문제없음)"),
    "wave_order_ok": ("creation times follow the waves: {found}",
                      "作成時刻はウェーブの順になっています: {found}",
                      "생성 시각이 웨이브 순서를 따릅니다: {found}"),
    "wave_order_wrong": ("creation times do not follow the waves ({expected}): {found}",
                         "作成時刻がウェーブの順になっていません({expected}): {found}",
                         "생성 시각이 웨이브 순서가 아닙니다 ({expected}): {found}"),
    "not_full_sha": ("failed-hook.json commit must be a full 40-character SHA, found {found}",
                     "failed-hook.json の commit は 40 文字の完全な SHA にしてください。実際は {found} です",
                     "failed-hook.json의 commit은 40자 전체 SHA여야 합니다. 실제 값: {found}"),
    "failed_commit_ok": ("commit {sha} changes mode to green and breaks the hook in one commit",
                         "コミット {sha} は、1 つのコミットで mode を green にし、フックを壊しています",
                         "{sha} 커밋이 한 커밋에서 mode를 green으로 바꾸고 훅을 깨뜨립니다"),
    "failed_commit_split": ("commit {sha} makes only one of the two changes; both belong in one commit: {found}",
                            "コミット {sha} には 2 つの変更のうち片方しかありません。1 "
                            "つのコミットにまとめてください: {found}",
                            "{sha} 커밋에는 두 변경 중 하나만 있습니다. 한 커밋에 둘 다 있어야 합니다: {found}"),
    "failed_commit_wrong": ("commit {sha} does not change mode to green nor break the hook: {found}",
                            "コミット {sha} は mode を green にしておらず、フックも壊していません: {found}",
                            "{sha} 커밋은 mode를 green으로 바꾸지도, 훅을 깨뜨리지도 않습니다: {found}"),
    "phase_running_failed": ("failed-hook.json phase Running: the operation had already failed ({proof})",
                             "failed-hook.json の phase は Running ですが、"
                             "オペレーションはすでに失敗していました({proof})",
                             "failed-hook.json의 phase는 Running이지만 오퍼레이션은 이미 실패했습니다 ({proof})"),
    "phase_running_unproven": ("failed-hook.json phase Running, but nothing in the cluster shows that the "
                               "operation of {sha} failed (no failed Job migrate-{sha}-presync-*, no retry, no "
                               "later sync)",
                               "failed-hook.json の phase は Running ですが、{sha} "
                               "のオペレーションが失敗したことを示すものがクラスターにありません(失敗した Job "
                               "migrate-{sha}-presync-* も、リトライも、その後の同期もありません)",
                               "failed-hook.json의 phase는 Running이지만 {sha} 커밋의 오퍼레이션이 실패했다는 "
                               "흔적이 클러스터에 없습니다 (실패한 Job migrate-{sha}-presync-*도, 재시도도, 이후 "
                               "동기화도 없음)"),
    "operation_in_flight": ("{what} is about to change: Application {name} runs an operation on {sha} ({phase}); "
                            "graded as seen",
                            "{what} はこれから変わります。Application {name} が {sha} "
                            "のオペレーションを実行中です({phase})。現在の状態で採点しました",
                            "{what}: 곧 바뀝니다. {name} Application이 {sha} 커밋의 오퍼레이션을 실행 중입니다 "
                            "({phase}). 현재 상태로 채점했습니다"),
    "auto_sync_due": ("{what} is about to change: Application {name} is OutOfSync at {sha} after an operation "
                      "{phase}, and automated sync starts that revision next; graded as seen",
                      "{what} はこれから変わります。Application {name} のオペレーションは終了しました({phase})。"
                      "自動同期が次に同期する OutOfSync のリビジョン: {sha}。現在の状態で採点しました",
                      "{what}: 곧 바뀝니다. {name} Application의 오퍼레이션이 끝났습니다({phase}). "
                      "자동 동기화가 다음에 동기화할 OutOfSync 리비전: {sha}. 현재 상태로 채점했습니다"),
    "fix_commit_ok": ("commit {sha} restores the migrate command and keeps mode green",
                      "コミット {sha} は migrate のコマンドを戻し、mode は green のままです",
                      "{sha} 커밋이 migrate 명령을 되돌리고 mode는 green으로 유지합니다"),
    "fix_commit_missing": ("no commit after the failing one restores `echo migrate ok` with mode green: {found}",
                           "失敗したコミットの後に、mode を green のまま `echo migrate ok` "
                           "に戻したコミットがありません: {found}",
                           "실패한 커밋 이후에 mode green을 유지하며 `echo migrate ok`로 되돌린 커밋이 없습니다: "
                           "{found}"),
    "revisions_synced": ("sync, operation and result revisions are at {sha} (the fix) or later on bare main",
                         "sync・オペレーション・結果のリビジョンは、{sha}(修正コミット)以降のベアリポジトリの main "
                         "のコミットです",
                         "sync, 오퍼레이션, 결과 리비전이 {sha} 커밋(수정 커밋) 이후의 베어 저장소 main 커밋입니다"),
    "revisions_behind": ("revisions must be {sha} (the fix) or a later commit on bare main: {found}",
                         "リビジョンは {sha}(修正コミット)以降のベアリポジトリの main "
                         "のコミットである必要があります: {found}",
                         "리비전은 {sha} 커밋(수정 커밋) 이후의 베어 저장소 main 커밋이어야 합니다: {found}"),
    "retrying_failed_revision": ("the operation still retries the failed revision {sha} (phase {phase}); the app "
                                 "may look Synced, but the new commit is not applied",
                                 "オペレーションがまだ失敗したリビジョン {sha} をリトライしています(フェーズ "
                                 "{phase})。Synced に見えても、新しいコミットは適用されていません",
                                 "오퍼레이션이 아직 실패한 리비전 {sha}의 재시도를 계속하고 있습니다 (페이즈 "
                                 "{phase}). Synced로 보여도 새 커밋은 적용되지 않았습니다"),
    "respect_ignore_missing": ("{what}: ignoreDifferences is set but syncOptions lacks "
                               "RespectIgnoreDifferences=true",
                               "{what}: ignoreDifferences はありますが、syncOptions に "
                               "RespectIgnoreDifferences=true がありません",
                               "{what}: ignoreDifferences는 있지만 syncOptions에 RespectIgnoreDifferences=true가 "
                               "없습니다"),
    "waited_too_short": ("checked_at - scaled_at is {waited} s; wait at least 40 s",
                         "checked_at - scaled_at は {waited} 秒です。40 秒以上待ってください",
                         "checked_at - scaled_at 값이 {waited}초입니다. 40초 이상 기다리세요"),
    "waited_ok": ("you waited {waited} s after scaling",
                  "scale の後 {waited} 秒待ちました",
                  "scale 후 {waited}초 기다렸습니다"),
    "replicas_not_scaled": ("f:spec.f:replicas of prod-api is owned by {found}, expected {expected}",
                            "prod-api の f:spec.f:replicas の所有者は {found} ですが、期待値は {expected} です",
                            "prod-api의 f:spec.f:replicas 소유자: {found}. 기대값은 {expected}입니다"),
}

HINTS = {
    "helm_chart": ("Argo CD treats a path with Chart.yaml as a Helm chart; values come from values.yaml and the "
                   "templates reference them as .Values.<key>.",
                   "Chart.yaml があるパスは Helm チャートとして扱われます。値は values.yaml から来て、"
                   "テンプレートは .Values.<キー> で値を参照します。",
                   "Chart.yaml이 있는 경로는 Helm 차트로 처리됩니다. 값은 values.yaml에서 오고, 템플릿은 "
                   ".Values.<키>로 값을 참조합니다."),
    "value_files_relative": ("helm.valueFiles paths are relative to the chart directory (spec.source.path), not to "
                             "the repository root.",
                             "helm.valueFiles のパスは、リポジトリのルートではなくチャートのディレクトリ(spec.sourc"
                             "e.path)が基準です。",
                             "helm.valueFiles 경로는 저장소 루트가 아니라 차트 디렉터리(spec.source.path) "
                             "기준입니다."),
    "helm_precedence": ("Argo CD runs `helm template`: parameters (--set) beat valuesObject, which beats "
                        "valueFiles, which beat the chart's values.yaml. Read the live objects, do not guess.",
                        "Argo CD は `helm template` を実行します。parameters(--set)> valuesObject > valueFiles > "
                        "チャートの values.yaml の順に優先されます。推測せず、"
                        "クラスターの実際の値を読んでください。",
                        "Argo CD는 `helm template`을 실행합니다. parameters(--set) > valuesObject > valueFiles > "
                        "차트의 values.yaml 순서로 우선합니다. 추측하지 말고 클러스터의 실제 값을 읽으세요."),
    "helm_template_only": ("Argo CD only renders charts; it never runs helm install, so no helm.sh/release.v1 "
                           "Secret is created.",
                           "Argo CD はチャートをレンダリングするだけで helm install はしないため、"
                           "helm.sh/release.v1 の Secret は作成されません。",
                           "Argo CD는 차트를 렌더링만 하고 helm install은 하지 않으므로 helm.sh/release.v1 "
                           "Secret은 만들어지지 않습니다."),
    "resource_tracking": ("Read the live ConfigMap with `kubectl -n src-helm get cm src-helm-greeting -o yaml`; "
                          "the tracking method is argocd-cm application.resourceTrackingMethod (annotation by "
                          "default in v3).",
                          "`kubectl -n src-helm get cm src-helm-greeting -o yaml` "
                          "で実際のオブジェクトを読んでください。追跡方式は argocd-cm の "
                          "application.resourceTrackingMethod です(v3 のデフォルトは annotation)。",
                          "`kubectl -n src-helm get cm src-helm-greeting -o yaml` 명령으로 실제 오브젝트를 "
                          "읽으세요. 추적 방식은 argocd-cm의 application.resourceTrackingMethod입니다(v3 기본값은 "
                          "annotation)."),
    "null_not_missing": ("An absent label is written as JSON null: \"instance_label\": null.",
                         "ラベルがないときは JSON の null と書いてください: \"instance_label\": null。",
                         "레이블이 없으면 JSON null로 쓰세요: \"instance_label\": null."),
    "kustomize_layout": ("kust/base holds Deployment api and a kustomization; kust/overlays/prod points at "
                         "../../base with namePrefix prod- and a replicas entry for api.",
                         "kust/base には Deployment api と kustomization を置きます。kust/overlays/prod は "
                         "../../base を指し、namePrefix prod- と api の replicas を持ちます。",
                         "kust/base에는 Deployment api와 kustomization을 둡니다. kust/overlays/prod는 ../../base를 "
                         "가리키고 namePrefix prod-와 api의 replicas 설정을 가집니다."),
    "kustomize_images": ("spec.source.kustomize.images is applied by Argo CD with `kustomize edit set image` right "
                         "before rendering: the 1.28 tag lives in the Application, not in git.",
                         "spec.source.kustomize.images は、Argo CD がレンダリングの直前に `kustomize edit set "
                         "image` で適用します。1.28 のタグは Git ではなく Application に書きます。",
                         "spec.source.kustomize.images는 Argo CD가 렌더링 직전에 `kustomize edit set image` "
                         "명령으로 적용합니다. 1.28 태그는 Git이 아니라 Application에 씁니다."),
    "sync_waves": ("Within a phase Argo CD applies lower waves first and waits until a wave is Healthy before the "
                   "next one; record times from the live objects' creationTimestamp.",
                   "同じフェーズの中では、Argo CD は小さいウェーブから適用し、ウェーブが Healthy "
                   "になるまで次のウェーブに進みません。時刻は実際のオブジェクトの creationTimestamp "
                   "から記録してください。",
                   "같은 페이즈 안에서 Argo CD는 작은 웨이브부터 적용하고, 웨이브가 Healthy가 될 때까지 다음 "
                   "웨이브로 가지 않습니다. 시각은 실제 오브젝트의 creationTimestamp에서 기록하세요."),
    "sync_hooks": ("A generateName hook is named generateName + <7 hex of the commit>-presync-<start unix time>; "
                   "copy the name of the Job that ran for your commit.",
                   "generateName のフックの名前は generateName + <コミットの 7 桁>-presync-<開始 Unix 時刻> です。"
                   "自分のコミットで実行された Job の名前を写してください。",
                   "generateName 훅의 이름은 generateName + <커밋 7자리>-presync-<시작 Unix 시각>입니다. 자신의 "
                   "커밋으로 실행된 Job 이름을 옮겨 쓰세요."),
    "failed_hook_commit": ("Step 6 needs one commit that both sets mode: green and makes migrate exit 1, then a "
                           "later commit that restores only the migrate command.",
                           "ステップ 6 では、mode: green と migrate の exit 1 を 1 つのコミットにまとめ、その後 "
                           "migrate のコマンドだけを戻す別のコミットが必要です。",
                           "6단계에는 mode: green과 migrate의 exit 1을 한 커밋에 담고, 이후 migrate 명령만 "
                           "되돌리는 커밋이 필요합니다."),
    "hook_failed_phase": ("When a PreSync hook fails, the Sync phase never starts: ConfigMap settings keeps its "
                          "old mode; status.operationState.phase reads Running while automated retries run and "
                          "Failed after them or after terminate-op. Either is right once the hook Job has failed.",
                          "PreSync フックが失敗すると、Sync フェーズは始まらず、ConfigMap settings の mode "
                          "は古いままです。status.operationState.phase は、自動同期のリトライ中は Running、"
                          "リトライの後や terminate-op の後は Failed です。フックの Job が失敗した後なら、"
                          "どちらも正解です。",
                          "PreSync 훅이 실패하면 Sync 페이즈는 시작되지 않고 ConfigMap settings의 mode는 "
                          "그대로입니다. status.operationState.phase는 자동 동기화의 재시도 중에는 Running, 재시도 "
                          "후나 terminate-op 후에는 Failed입니다. 훅 Job이 실패한 뒤라면 둘 다 맞습니다."),
    "retry_blocks_new_commits": ("An automated sync retries the failed revision (5 times by default) and a new "
                                 "commit waits; check status.operationState.operation.sync.revision and end it "
                                 "with `argocd app terminate-op src-waves --core`.",
                                 "自動同期は失敗したリビジョンを(デフォルトで 5 回)リトライし、"
                                 "新しいコミットは待たされます。status.operationState.operation.sync.revision "
                                 "を確認し、`argocd app terminate-op src-waves --core` "
                                 "でオペレーションを終わらせてください。",
                                 "자동 동기화는 실패한 리비전을 (기본 5회) 재시도하고 새 커밋은 기다립니다. "
                                 "status.operationState.operation.sync.revision을 확인하고 `argocd app "
                                 "terminate-op src-waves --core` 명령으로 오퍼레이션을 끝내세요."),
    "sync_revisions": ("After the fix commit, automated sync brings src-waves to it; compare status.sync.revision "
                       "and status.operationState with `git log` on bare main.",
                       "修正コミットの後、自動同期が src-waves をそのコミットに合わせます。status.sync.revision と "
                       "status.operationState を、ベアリポジトリの main の `git log` と比べてください。",
                       "수정 커밋 이후 자동 동기화가 src-waves를 그 커밋으로 맞춥니다. status.sync.revision과 "
                       "status.operationState를 베어 저장소 main의 `git log`와 비교하세요."),
    "operation_in_flight": ("Argo CD is still applying this revision; let the operation finish and grade again.",
                            "Argo CD はこのリビジョンをまだ適用中です。オペレーションが終わってから、"
                            "もう一度採点してください。",
                            "Argo CD가 아직 이 리비전을 적용 중입니다. 오퍼레이션이 끝난 뒤 다시 채점하세요."),
    "ignore_differences": ("ignoreDifferences only hides the field from the diff; RespectIgnoreDifferences=true "
                           "also keeps a sync from overwriting it. Keep automated.selfHeal: true.",
                           "ignoreDifferences は差分の比較から外すだけです。RespectIgnoreDifferences=true "
                           "にすると、同期でも上書きしません。automated.selfHeal: true はそのままにしてください。",
                           "ignoreDifferences는 차이 비교에서만 제외합니다. RespectIgnoreDifferences=true여야 "
                           "동기화 때도 덮어쓰지 않습니다. automated.selfHeal: true는 그대로 두세요."),
    "managed_fields": ("Run `kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` and find the "
                       "entry whose fieldsV1 has f:spec → f:replicas; use its manager.",
                       "`kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` で、fieldsV1 の "
                       "f:spec の下に f:replicas を持つ managedFields のエントリを探し、その manager "
                       "を使ってください。",
                       "`kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` 출력에서 "
                       "fieldsV1의 f:spec 아래 f:replicas를 가진 managedFields 엔트리를 찾아 그 manager를 쓰세요."),
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
    solution=solution.STEPS,
)


HELM = ApplicationTwin(HELM_APP, "app-src-helm.yaml")
KUST = ApplicationTwin(KUST_APP, "app-src-kust.yaml")
WAVES = ApplicationTwin(WAVES_APP, "app-src-waves.yaml")


def repo_tree(state):
    """bare main's files, or {} when the repository cannot be read (other checks say why)."""
    return state.repo.tree if state.repo.ok else {}


def yaml_mode(text):
    """`data.mode` of the settings ConfigMap in a config.yaml text, or None."""
    for doc in yaml_documents(text):
        if doc.get("kind") == "ConfigMap":
            return dig(doc, "data", "mode")
    return None


def migrate_command(text):
    for doc in yaml_documents(text):
        if doc.get("kind") == "Job":
            return " ".join(command_line(c) for c in containers(doc))
    return None


def str_list(value):
    return [v.rstrip("/") for v in value if isinstance(v, str)] if isinstance(value, list) else []


# ---------------------------------------------------------------- step 1


repository_checks(lab)


def chart_values(state, filename, expected):
    stop_if(repo_blocked(state))
    path = f"charts/web/{filename}"
    text = state.repo.tree.get(path)
    if text is None:
        return failed("git_file_missing", expected=expected, found=None, path=path)
    documents, error = parse_yaml_text(text)
    if error or not documents or not isinstance(documents[0], dict):
        return failed("git_file_invalid", expected=expected, found=error, path=path, detail=error or "")
    found = {key: documents[0].get(key) for key in expected}
    return object_verdict(path, expected, found)


@lab.check(1, "chart-yaml", hint="helm_chart")
def chart_yaml(state):
    return chart_values(state, "Chart.yaml", {"name": "web", "version": "0.1.0"})


@lab.check(1, "chart-values", hint="helm_chart")
def chart_default_values(state):
    return chart_values(state, "values.yaml", {"replicaCount": 1, "greeting": "chart-default"})


@lab.check(1, "chart-values-prod", hint="helm_chart")
def chart_prod_values(state):
    return chart_values(state, "values-prod.yaml", {"replicaCount": 2, "greeting": "from-values-file"})


CHART_DIR = "charts/web"
VALUES_PROD = f"{CHART_DIR}/values-prod.yaml"
# Values the grader passes as Application parameters (`--set`, as Argo CD passes
# spec.source.helm.parameters) to see which rendered fields follow them: unlike anything a
# learner writes, chosen per module call.
PROBE_GREETING = f"greeting-{secrets.token_hex(4)}"
PROBE_REPLICAS = 5 + secrets.randbelow(5)

TEMPLATE_FIELDS = {  # kind: [(what must hold, test on the object helm rendered)]
    "ConfigMap": [("data.greeting from .Values.greeting",
                   lambda doc: dig(doc, "data", "greeting") == PROBE_GREETING)],
    "Deployment": [("spec.replicas from .Values.replicaCount",
                    lambda doc: dig(doc, "spec", "replicas") == PROBE_REPLICAS
                    and not isinstance(dig(doc, "spec", "replicas"), bool)),
                   ("image nginx:1.27-alpine", lambda doc: "nginx:1.27-alpine" in images(doc))],
}


def chart_rendered(state):
    """charts/web at bare main rendered by helm as Argo CD renders Application src-helm (release
    src-helm, namespace src-helm), the chart's own values.yaml plus the grader's two parameters."""
    source = {"path": CHART_DIR, "helm": {"parameters": [
        {"name": "greeting", "value": PROBE_GREETING}, {"name": "replicaCount", "value": str(PROBE_REPLICAS)}]}}
    return helm_template(state.site.helm_binary, state.repo.tree, source, HELM_APP, HELM_APP)


def template_path(source, chart_name):
    """helm names a template <chart name>/templates/<file>; the repository path is under charts/web."""
    if isinstance(source, str) and isinstance(chart_name, str) and source.startswith(chart_name + "/"):
        return f"{CHART_DIR}/{source[len(chart_name) + 1:]}"
    return source or CHART_DIR


def chart_template(state, kind, name_suffix):
    """A template under charts/web/templates that renders `kind` named `<release>-<suffix>` with
    the fields the lab asks for, judged on what `helm template` renders (helpers, include, tpl,
    toYaml and values.yaml as Helm reads them)."""
    stop_if(repo_blocked(state))
    templates = {p: t for p, t in state.repo.tree.items() if p.startswith(f"{CHART_DIR}/templates/") and t}
    fields = TEMPLATE_FIELDS[kind]
    expected = f"kind: {kind}, name: {{{{ .Release.Name }}}}-{name_suffix}, " + ", ".join(w for w, _ in fields)
    rendered = chart_rendered(state)
    if rendered.unavailable:
        return errored("tool_unavailable", tool="helm", detail=rendered.unavailable)
    if rendered.problem:
        return failed("helm_template_failed", expected=expected, found=rendered.problem, detail=rendered.problem)
    chart, _ = parse_yaml_text(state.repo.tree.get(f"{CHART_DIR}/Chart.yaml") or "")
    chart_name = dig(chart[0], "name") if chart and isinstance(chart[0], dict) else None
    for doc, source in zip(rendered.objects, rendered.sources, strict=True):
        if doc.get("kind") != kind or dig(doc, "metadata", "name") != f"{HELM_APP}-{name_suffix}":
            continue
        path = template_path(source, chart_name)
        missing = [what for what, holds in fields if not holds(doc)]
        if missing:
            return failed("template_incomplete", expected=expected, found=missing, path=path,
                          missing=", ".join(missing))
        return passed("template_ok", expected=expected, found=path, path=path)
    return failed("template_missing", expected=expected, found=sorted(templates) or None, kind=kind,
                  name=f"{{{{ .Release.Name }}}}-{name_suffix}")


@lab.check(1, "template-configmap", hint="helm_chart")
def template_configmap(state):
    return chart_template(state, "ConfigMap", "greeting")


@lab.check(1, "template-deployment", hint="helm_chart")
def template_deployment(state):
    return chart_template(state, "Deployment", "web")


def value_files_resolve_to_prod(app, tree):
    helm = dig(app, "spec", "source", "helm")
    resolved, _ = resolve_value_files(helm if isinstance(helm, dict) else {}, tree, CHART_DIR)
    return resolved == [VALUES_PROD]


def value_files_verdict(app, what, tree):
    value_files = dig(app, "spec", "source", "helm", "valueFiles")
    if value_files_resolve_to_prod(app, tree):
        return passed("value_files_ok", expected=["values-prod.yaml"], found=value_files, what=what)
    if isinstance(value_files, list) and any(
            isinstance(v, str) and not v.startswith("/") and posixpath.normpath(v) == VALUES_PROD
            for v in value_files):
        return failed("value_files_repo_root", expected=["values-prod.yaml"], found=value_files, what=what,
                      hint="value_files_relative")
    return failed("value_mismatch", expected=["values-prod.yaml"], found=value_files,
                  what=f"{what} spec.source.helm.valueFiles", hint="value_files_relative")


def helm_app(state, app, where):
    """The Application src-helm renders charts/web; the live one also reads values-prod.yaml (the
    file's valueFiles are a check of their own)."""
    problems = spec_problems(app, state.site, repo_url(state), CHART_DIR, HELM_APP, where.live)
    if problems or not where.live:
        return verdict_from_problems(problems, where.what, where.hint)
    return value_files_verdict(app, where.what, repo_tree(state))


HELM.file_check(lab, 1, "app-file", helm_app, "application_manifest")


@lab.check(1, "app-file-value-files", hint="value_files_relative")
def helm_app_file_value_files(state):
    return value_files_verdict(HELM.in_file(state), HELM.file, repo_tree(state))


HELM.live_check(lab, 1, "live-app", helm_app, "application_apply")


@lab.check(1, "live-app-status", hint="app_sync_health")
def helm_live_status(state):
    return synced_healthy(HELM.live(state, 1), HELM_APP)


# ---------------------------------------------------------------- step 2

HELM_VALUES_OBJECT = {"replicaCount": 3, "greeting": "from-values-object"}
HELM_PARAMETER = {"name": "greeting", "value": "from-parameter"}
# Argo CD's order (docs/user-guide/helm.md; util/helm/cmd.go template()): parameters (--set)
# > valuesObject/values (last --values) > valueFiles > chart values.yaml.
PRECEDENCE_REPLICAS = 3
PRECEDENCE_GREETING = "from-parameter"


def helm_values_problems(app, tree):
    helm = dig(app, "spec", "source", "helm", default={})
    helm = helm if isinstance(helm, dict) else {}
    problems = []
    values_object = helm.get("valuesObject")
    found_values = {k: dig(values_object, k) for k in HELM_VALUES_OBJECT}
    if found_values != HELM_VALUES_OBJECT:
        problems.append(("spec.source.helm.valuesObject", HELM_VALUES_OBJECT, values_object))
    parameters = helm.get("parameters")
    named = [p for p in parameters if isinstance(p, dict)] if isinstance(parameters, list) else []
    if not any(p.get("name") == "greeting" and str(p.get("value")) == "from-parameter" for p in named):
        problems.append(("spec.source.helm.parameters", [HELM_PARAMETER], parameters))
    if not value_files_resolve_to_prod(app, tree):
        problems.append(("spec.source.helm.valueFiles", ["values-prod.yaml"], helm.get("valueFiles")))
    return problems


HELM.checks(lab, 2, spec_judge(lambda state, app, where: helm_values_problems(app, repo_tree(state))),
            "helm_precedence", names=("app-file-values", "live-app-values"), blocked_by=1)


def recorded_vs_live(recorded, truth, live, what, truth_hint):
    """The learner's value must equal Argo CD's precedence result and the live cluster."""
    if recorded != truth or type(recorded) is bool:
        return failed("value_mismatch", expected=truth, found=recorded, what=what, hint=truth_hint)
    if live is None:
        return blocked(1, "live_object_missing", what=what)
    if live != truth:
        return failed("live_disagrees", expected=truth, found=live, what=what, recorded=show(recorded),
                      hint="app_sync_health")
    return passed("value_ok", expected=truth, found=recorded, what=what)


@lab.check(2, "precedence-replicas", hint="helm_precedence")
def precedence_replicas(state):
    value = require(evidence_field(state, "precedence.json", "replicas", "number"))
    deployment = state.cluster.find("helm_deployments", f"{HELM_APP}-web")
    live = dig(deployment, "spec", "replicas") if deployment else None
    return recorded_vs_live(value, PRECEDENCE_REPLICAS, live, "precedence.json replicas", "helm_precedence")


@lab.check(2, "precedence-greeting", hint="helm_precedence")
def precedence_greeting(state):
    value = require(evidence_field(state, "precedence.json", "greeting", "string"))
    configmap = state.cluster.find("helm_configmaps", f"{HELM_APP}-greeting")
    live = dig(configmap, "data", "greeting") if configmap else None
    return recorded_vs_live(value, PRECEDENCE_GREETING, live, "precedence.json greeting", "helm_precedence")


# ---------------------------------------------------------------- step 3


def greeting_configmap(state):
    return state.cluster.find("helm_configmaps", f"{HELM_APP}-greeting")


@lab.check(3, "helm-release-secrets", hint="helm_template_only")
def helm_release_secrets(state):
    value = require(evidence_field(state, "tracking.json", "helm_release_secrets", "integer"))
    live = len(state.cluster.items("helm_release_secrets"))
    return same_value(value, live, "tracking.json helm_release_secrets")


@lab.check(3, "tracking-annotation", hint="resource_tracking")
def tracking_annotation(state):
    value = require(evidence_field(state, "tracking.json", "tracking_annotation", "string-or-null"))
    configmap = greeting_configmap(state)
    if configmap is None:
        return blocked(1, "live_object_missing", what=f"ConfigMap {HELM_APP}/{HELM_APP}-greeting")
    live = annotation(configmap, TRACKING_ANNOTATION)
    return same_value(value, live, "tracking.json tracking_annotation")


@lab.check(3, "instance-label", hint="resource_tracking")
def instance_label(state):
    data = require(evidence(state, "tracking.json"))
    if "instance_label" not in data:
        return failed("missing_key", expected="string-or-null", found=None, what="tracking.json",
                      key="instance_label", hint="null_not_missing")
    value = data["instance_label"]
    configmap = greeting_configmap(state)
    if configmap is None:
        return blocked(1, "live_object_missing", what=f"ConfigMap {HELM_APP}/{HELM_APP}-greeting")
    live = dig(configmap, "metadata", "labels", INSTANCE_LABEL)
    if live is None and value == "":
        return failed("empty_not_null", expected=None, found="", what="tracking.json instance_label",
                      hint="null_not_missing")
    return same_value(value, live, "tracking.json instance_label")


@lab.check(3, "tracking-method", hint="resource_tracking")
def tracking_method(state):
    data = require(evidence(state, "tracking.json"))
    argocd_cm = state.cluster.get("argocd_cm")
    if not isinstance(argocd_cm, dict):
        return errored("argocd_cm_missing", namespace=state.site.argocd_namespace)
    method = dig(argocd_cm, "data", TRACKING_METHOD_KEY) or DEFAULT_TRACKING_METHOD
    # util/argo/resource_tracking.go SetAppInstance switches on the exact string (util/settings
    # GetTrackingMethod passes argocd-cm's value as is): "label" writes only the label,
    # "annotation+label" both, anything else (also "Label" or " label") only the annotation.
    expected = {}
    if method != "label":
        expected["tracking_annotation"] = tracking_id(HELM_APP, "", "ConfigMap", HELM_APP, f"{HELM_APP}-greeting")
    if method in ("label", "annotation+label"):
        expected["instance_label"] = HELM_APP
    found = {key: data.get(key) for key in expected}
    if found != expected:
        return failed("tracking_method_mismatch", expected=expected, found=found, method=method)
    return passed("tracking_method_ok", expected=expected, found=found, method=method)


# ---------------------------------------------------------------- step 4


@lab.check(4, "kust-base", hint="kustomize_layout")
def kust_base(state):
    stop_if(repo_blocked(state))
    objects = yaml_objects(state.repo.tree, "kust/base")
    path, deployment = find_object(objects, "Deployment", name="api")
    expected = {"replicas": 1, "label app": "api", "image": "nginx:1.27-alpine", "kustomization": True}
    if deployment is None:
        return failed("git_object_missing", expected=expected, found=None, kind="Deployment", name="api",
                      path="kust/base")
    labels = {**(dig(deployment, "metadata", "labels", default={}) or {}),
              **(dig(deployment, "spec", "template", "metadata", "labels", default={}) or {})}
    found = {
        "replicas": dig(deployment, "spec", "replicas"),
        "label app": labels.get("app") if isinstance(labels, dict) else None,
        "image": wanted_or_first(images(deployment), "nginx:1.27-alpine"),
        "kustomization": any(p in state.repo.tree for p in kustomization_paths("kust/base")),
    }
    return object_verdict(path, expected, found)


def kustomization_paths(directory):
    return [f"{directory}/{name}" for name in ("kustomization.yaml", "kustomization.yml", "Kustomization")]


def kustomization(state, directory):
    for path in kustomization_paths(directory):
        text = state.repo.tree.get(path)
        if text is not None:
            documents, _ = parse_yaml_text(text)
            if documents and isinstance(documents[0], dict):
                return path, documents[0]
            return path, None
    return None, None


@lab.check(4, "kust-overlay", hint="kustomize_layout")
def kust_overlay(state):
    stop_if(repo_blocked(state))
    path, overlay = kustomization(state, "kust/overlays/prod")
    expected = {"resources": "../../base", "namePrefix": "prod-", "replicas": {"name": "api", "count": 2}}
    if overlay is None:
        return failed("git_file_missing" if path is None else "git_file_invalid", expected=expected, found=None,
                      path=path or "kust/overlays/prod/kustomization.yaml", detail="")
    resources = str_list(overlay.get("resources")) + str_list(overlay.get("bases"))
    replicas = overlay.get("replicas") if isinstance(overlay.get("replicas"), list) else []
    # kustomize's ReplicaCountTransformer matches a resource by any of its ids
    # (resmap GetMatchingResourcesByAnyId: the base's name or the prefixed one), so `api` and
    # `prod-api` both set api's replicas (observed with the plane's kustomize v5.8.1).
    names = ("api", f"{overlay.get('namePrefix') or ''}api{overlay.get('nameSuffix') or ''}")
    found = {
        "resources": "../../base" if "../../base" in resources else resources,
        "namePrefix": overlay.get("namePrefix"),
        "replicas": next(({"name": "api", "count": r.get("count")} for r in replicas
                          if isinstance(r, dict) and r.get("name") in names), replicas or None),
    }
    return object_verdict(path, expected, found)


@lab.check(4, "no-override-in-git", hint="kustomize_images")
def no_override_in_git(state):
    stop_if(repo_blocked(state))
    if not any(p.startswith("kust/") for p in state.repo.tree):
        return failed("git_dir_missing", expected="kust/", found=None, path="kust/")
    mentions, error = override_in_git(state)
    if error:
        return error
    if mentions:
        return failed("override_in_git", expected=[], found=mentions, paths=", ".join(mentions))
    return passed("override_not_in_git", expected=[], found=[])


OVERRIDE_TAG = "1.28"
KUST_PATH = "kust/overlays/prod"


def build_options(state):
    """argocd-cm `kustomize.buildOptions`, which Argo CD adds to every `kustomize build`
    (util/kustomize/kustomize.go parseKustomizeBuildOptions). When the cluster cannot be read
    the other checks say so, and git is judged with kustomize's defaults."""
    if not state.cluster.ok:
        return ""
    return dig(state.cluster.get("argocd_cm"), "data", "kustomize.buildOptions") or ""


def override_in_git(state):
    """(the kustomization files under kust/ whose `kustomize build`, as Argo CD runs it without
    the Application's images, renders an image tagged 1.28..., ERROR verdict or None). What git
    alone makes kustomize render decides, not the text: a comment or a README mentioning 1.28
    renders nothing, an inline patch or an images entry does. A directory kustomize cannot build
    renders nothing (kust-base and kust-overlay say what is wrong with it)."""
    mentions = []
    for directory in sorted({posixpath.dirname(p) for p in state.repo.tree if p.startswith("kust/")}):
        path = next((p for p in kustomization_paths(directory) if p in state.repo.tree), None)
        if path is None:
            continue
        rendered = kustomize_build(state.site.kustomize_binary, state.repo.tree, {"path": directory}, KUST_APP,
                                   KUST_APP, state.repo.head or "", build_options(state))
        if rendered.unavailable:
            return None, errored("tool_unavailable", tool="kustomize", detail=rendered.unavailable)
        if any(image_tag(i).startswith(OVERRIDE_TAG) for o in rendered.objects or [] for i in images(o)
               if isinstance(i, str)):
            mentions.append(path)
    return mentions, None


def image_tag(reference):
    """The tag of a rendered image reference, name[:tag][@digest], as the OCI distribution
    reference grammar reads it: after the ":" in the last path component (a registry port is in
    the first). A reference kustomize made invalid (newName nginx:1.28-alpine renders
    nginx:1.28-alpine:1.27-alpine) keeps everything after that ":" as its tag."""
    last = reference.split("@", 1)[0].rsplit("/", 1)[-1]
    return last.partition(":")[2]


KUST_IMAGE = "nginx:1.28-alpine"
KUST_IMAGE_ENTRY = "nginx=nginx:1.28-alpine"
# The lab's base as shared/labs/capa-src.md step 4 asks for it (kust-base checks the learner's):
# what the Application's kustomize.images do is judged on it, so a mistake in the learner's
# kustomization fails kust-base or kust-overlay, not every check that reads the Application.
LAB_BASE = {
    f"{KUST_PATH}/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                       "resources:\n  - deployment.yaml\n",
    f"{KUST_PATH}/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n"
                                    "  labels:\n    app: api\nspec:\n  replicas: 1\n  selector:\n"
                                    "    matchLabels:\n      app: api\n  template:\n    metadata:\n"
                                    "      labels:\n        app: api\n    spec:\n      containers:\n"
                                    "        - name: api\n          image: nginx:1.27-alpine\n",
}


def image_problems(state, app):
    """([the images problem] or [], ERROR verdict or None): the image Deployment api gets when
    Argo CD applies the Application's spec.source.kustomize.images with `kustomize edit set
    image` before `kustomize build` (the same kustomize, checks/repo_server.py) must be
    nginx:1.28-alpine. kustomize decides how an entry reads (name=newName:tag@digest, a tag or
    digest alone, a registry port, a later entry for the same name winning, no trimming)."""
    entries = dig(app, "spec", "source", "kustomize", "images")
    source = {"path": KUST_PATH, "repoURL": dig(app, "spec", "source", "repoURL"),
              "targetRevision": dig(app, "spec", "source", "targetRevision"),
              "kustomize": {"images": entries if isinstance(entries, list) else []}}
    revision = (state.repo.head if state.repo and state.repo.ok else None) or ""
    rendered = kustomize_build(state.site.kustomize_binary, LAB_BASE, source, KUST_APP, KUST_APP, revision,
                               build_options(state))
    if rendered.unavailable:
        return [], errored("tool_unavailable", tool="kustomize", detail=rendered.unavailable)
    _, deployment = find_object([(KUST_PATH, o) for o in rendered.objects or []], "Deployment", name="api")
    if deployment is None or wanted_or_first(images(deployment), KUST_IMAGE) != KUST_IMAGE:
        return [("spec.source.kustomize.images", [KUST_IMAGE_ENTRY], entries)], None
    return [], None


def kust_app(state, app, where):
    image = require(image_problems(state, app))
    problems = spec_problems(app, state.site, repo_url(state), KUST_PATH, KUST_APP, where.live) + image
    return verdict_from_problems(problems, where.what, where.hint)


KUST.checks(lab, 4, kust_app, "kustomize_images")


@lab.check(4, "live-deployment", hint="kustomize_images")
def kust_live_deployment(state):
    app = KUST.live(state, 4)
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return failed("live_object_missing_named", expected="prod-api", found=None, kind="Deployment",
                      namespace=KUST_APP, name="prod-api", hint="kustomize_layout")
    spec_replicas = dig(deployment, "spec", "replicas")
    ready = dig(deployment, "status", "readyReplicas", default=0)
    health = dig(app, "status", "health", "status")
    expected = {"image": KUST_IMAGE, "readyReplicas": spec_replicas, "health": "Healthy"}
    found = {"image": wanted_or_first(images(deployment), KUST_IMAGE), "readyReplicas": ready, "health": health}
    if found == expected:
        return passed("live_values_ok", expected=expected, found=found, what="Deployment src-kust/prod-api")
    if found["image"] == KUST_IMAGE and (health == "Progressing" or ready != spec_replicas):
        return pending("rollout_in_progress", expected=expected, found=found, what="Deployment src-kust/prod-api")
    return failed("live_values_mismatch", expected=expected, found=found, what="Deployment src-kust/prod-api")


# ---------------------------------------------------------------- step 5

SYNC_WAVE = "argocd.argoproj.io/sync-wave"
HOOK = "argocd.argoproj.io/hook"
HOOK_DELETE_POLICY = "argocd.argoproj.io/hook-delete-policy"


GO_ATOI = re.compile(r"^[+-]?[0-9]+$")  # what strconv.Atoi accepts: no spaces, no quotes inside


def wave_of(doc):
    """The sync wave Argo CD gives an object: gitops-engine pkg/sync/syncwaves/waves.go Wave()
    reads the annotation with strconv.Atoi, falls back to helm.sh/hook-weight, then 0."""
    for key in (SYNC_WAVE, "helm.sh/hook-weight"):
        value = annotation(doc, key)
        if isinstance(value, str) and GO_ATOI.match(value):
            return int(value)
    return 0


def annotation_csv(doc, key):
    """gitops-engine pkg/sync/resource/annotations.go GetAnnotationCSVs: the comma-separated
    values, each trimmed, empty ones and repeats dropped. Hook types and delete policies are then
    matched exactly (common.NewHookType, NewHookDeletePolicy)."""
    value = annotation(doc, key)
    items = (item.strip() for item in value.split(",")) if isinstance(value, str) else ()
    return list(dict.fromkeys(item for item in items if item))


# gitops-engine pkg/sync/common/types.go NewHookType / NewHookDeletePolicy match these exact words;
# pkg/sync/hook/helm maps Helm's hook annotations onto them.
HOOK_TYPES = ("PreSync", "Sync", "PostSync", "SyncFail", "Skip")
HELM_HOOK_TYPES = {"pre-install": "PreSync", "pre-upgrade": "PreSync", "post-upgrade": "PostSync",
                   "post-install": "PostSync"}
DELETE_POLICIES = ("HookSucceeded", "HookFailed", "BeforeHookCreation")
HELM_DELETE_POLICIES = {"before-hook-creation": "BeforeHookCreation", "hook-succeeded": "HookSucceeded",
                        "hook-failed": "HookFailed"}


def hook_types(doc):
    """The hook types Argo CD gives an object (pkg/sync/hook/hook.go Types): the recognised words
    of argocd.argoproj.io/hook, else those of helm.sh/hook; unknown words are ignored."""
    types = [t for t in annotation_csv(doc, HOOK) if t in HOOK_TYPES]
    return types or [HELM_HOOK_TYPES[t] for t in annotation_csv(doc, "helm.sh/hook") if t in HELM_HOOK_TYPES]


def delete_policies(doc):
    """pkg/sync/hook/delete_policy.go DeletePolicies: the recognised policies of both annotations,
    BeforeHookCreation when none is recognised (a misspelt policy changes nothing)."""
    policies = [p for p in annotation_csv(doc, HOOK_DELETE_POLICY) if p in DELETE_POLICIES]
    policies += [HELM_DELETE_POLICIES[p] for p in annotation_csv(doc, "helm.sh/hook-delete-policy")
                 if p in HELM_DELETE_POLICIES]
    return list(dict.fromkeys(policies)) or ["BeforeHookCreation"]


def as_argo_cd_reads(effective, expected, written):
    """What Argo CD reads when it is what the lab asks for, else what the learner wrote (or what
    Argo CD reads when nothing was written)."""
    return effective if effective == expected else written or effective


def waves_object(state, kind, name=None, generate_name=None):
    """(path, object) of `kind` under waves/ on bare main, or the check ends saying it is missing."""
    stop_if(repo_blocked(state))
    objects = yaml_objects(state.repo.tree, "waves")
    path, doc = find_object(objects, kind, name=name, generate_name=generate_name)
    if doc is None:
        label = name or f"generateName {generate_name}"
        stop_if(failed("git_object_missing", expected=f"{kind} {label}", found=None, kind=kind, name=label,
                       path="waves/"))
    return path, doc


@lab.check(5, "git-settings", hint="sync_waves")
def waves_settings(state):
    path, doc = waves_object(state, "ConfigMap", name="settings")
    expected = {"sync-wave": -1, "data.mode": "present"}
    found = {"sync-wave": wave_of(doc), "data.mode": "present" if dig(doc, "data", "mode") is not None else None}
    return object_verdict(path, expected, found)


@lab.check(5, "git-app", hint="sync_waves")
def waves_app(state):
    path, doc = waves_object(state, "Deployment", name="app")
    expected = {"sync-wave": 0, "readinessProbe": True, "image": "nginx:1.27-alpine"}
    found = {
        "sync-wave": wave_of(doc),
        "readinessProbe": any(isinstance(c.get("readinessProbe"), dict) for c in containers(doc)),
        "image": wanted_or_first(images(doc), "nginx:1.27-alpine"),
    }
    return object_verdict(path, expected, found)


@lab.check(5, "git-smoke", hint="sync_waves")
def waves_smoke(state):
    path, doc = waves_object(state, "Job", name="smoke")
    expected = {"sync-wave": 1, "image": "busybox:1.36", "runs": "echo smoke ok"}
    commands = " ".join(command_line(c) for c in containers(doc))
    found = {
        "sync-wave": wave_of(doc),
        "image": wanted_or_first(images(doc), "busybox:1.36"),
        "runs": "echo smoke ok" if "echo smoke ok" in commands else commands or None,
    }
    return object_verdict(path, expected, found)


@lab.check(5, "git-migrate-hook", hint="sync_hooks")
def waves_migrate(state):
    stop_if(repo_blocked(state))
    text = state.repo.tree.get("waves/migrate.yaml")
    if text is None:
        return failed("git_file_missing", expected="waves/migrate.yaml", found=None, path="waves/migrate.yaml")
    documents, error = parse_yaml_text(text)
    jobs = [d for d in documents or [] if isinstance(d, dict) and d.get("kind") == "Job"]
    expected = {"generateName": "migrate-", "hook": ["PreSync"], "hook-delete-policy": ["BeforeHookCreation"],
                "image": "busybox:1.36", "runs": "echo migrate ok"}
    if not jobs:
        return failed("git_object_missing", expected=expected, found=error, kind="Job", name="migrate-",
                      path="waves/migrate.yaml")
    job = jobs[0]
    commands = " ".join(command_line(c) for c in containers(job))
    found = {
        "generateName": dig(job, "metadata", "generateName"),
        "hook": as_argo_cd_reads(hook_types(job), ["PreSync"], annotation_csv(job, HOOK)),
        "hook-delete-policy": as_argo_cd_reads(delete_policies(job), ["BeforeHookCreation"],
                                               annotation_csv(job, HOOK_DELETE_POLICY)),
        "image": wanted_or_first(images(job), "busybox:1.36"),
        # At the end of step 6 the command is `echo migrate ok` again.
        "runs": "echo migrate ok" if "echo migrate ok" in commands and "exit 1" not in commands else commands,
    }
    return object_verdict("waves/migrate.yaml", expected, found)


WAVES.checks(lab, 5, spec_judge(lambda state, app, where: spec_problems(
    app, state.site, repo_url(state), "waves", WAVES_APP, where.live)), "application_manifest",
    live_hint="application_apply")


# gitops-engine sync_context.go getSyncTasks: generateName + "<rev[0:7]>-<phase>-<startedAt unix>".
HOOK_JOB_NAME = re.compile(r"^migrate-([0-9a-f]{7})-presync-([0-9]{9,11})$")


CLOCK_SKEW = 300  # seconds forgiven between the learner's git clock and the controller's
REVISION_HISTORY_LIMIT = 10  # common.RevisionHistoryLimit: status.history keeps the last 10 syncs


def has_presync_hook(text):
    return any(doc.get("kind") == "Job" and dig(doc, "metadata", "generateName") == "migrate-"
               and "PreSync" in hook_types(doc) for doc in yaml_documents(text))


def operations_started(app):
    """{(revision, start unix time)} of the syncs Argo CD recorded for an Application: its
    status.history (deployStartedAt = the operation's startedAt, controller/sync.go
    persistRevisionHistory) and its current operationState."""
    entries = dig(app, "status", "history", default=[])
    entries = entries if isinstance(entries, list) else []
    started = set()
    for entry in entries:
        when = parse_time(dig(entry, "deployStartedAt"))
        if when is not None:
            started.add((dig(entry, "revision"), int(when.timestamp())))
    operation = dig(app, "status", "operationState")
    when = parse_time(dig(operation, "startedAt"))
    if when is not None:
        for revision in (dig(operation, "operation", "sync", "revision"), dig(operation, "syncResult", "revision")):
            started.add((revision, int(when.timestamp())))
    return started, len(entries)


def hook_name_problem(state, name, sha7, started):
    """Why Argo CD cannot have named a hook Job `name`, or None. gitops-engine sync_context.go
    names it generateName + "<revision[0:7]>-presync-<operation startedAt unix>": the revision is
    a commit on main that contains the hook, the operation started after that commit existed, and
    Argo CD recorded that operation (status.history / operationState) unless the Job itself is
    still in the cluster or the history is full."""
    expected = "migrate-<7 hex of the synced commit>-presync-<unix start time>"
    commits = [sha for sha in state.repo.order if sha.startswith(sha7)]
    if not commits:
        return failed("hook_commit_unknown", expected=expected, found=name, sha7=sha7)
    with_hook = [sha for sha in commits if has_presync_hook(state.repo.history.get(sha, {}).get("waves/migrate.yaml"))]
    if not with_hook:
        return failed("hook_commit_without_hook", expected=expected, found=name, sha7=sha7)
    committed = min(state.repo.commits[sha]["time"] for sha in with_hook)
    if started < committed - CLOCK_SKEW:
        return failed("hook_before_commit", expected=f">= {committed}", found=name, sha7=sha7, started=started,
                      committed=committed)
    if state.cluster.find("waves_jobs", name) is not None:
        return None
    app = state.app(WAVES_APP)
    if app is None:
        return None  # step 5's live-app check says the Application is missing
    recorded, history_size = operations_started(app)
    limit = dig(app, "spec", "revisionHistoryLimit")
    limit = limit if isinstance(limit, int) and not isinstance(limit, bool) else REVISION_HISTORY_LIMIT
    if any((sha, started) in recorded for sha in with_hook) or history_size >= limit:
        return None
    return failed("hook_not_synced", expected=expected, found=name, sha7=sha7, started=started)


@lab.check(5, "waves-hook-job", hint="sync_hooks")
def waves_hook_job(state):
    name = require(evidence_field(state, "waves.json", "hook_job", "string"))
    match = HOOK_JOB_NAME.match(name)
    expected = "migrate-<7 hex of the synced commit>-presync-<unix start time>"
    if not match:
        return failed("hook_name_format", expected=expected, found=name)
    sha7, started = match.group(1), int(match.group(2))
    stop_if(repo_blocked(state) or hook_name_problem(state, name, sha7, started))
    recorded_created = state.files["waves.json"].data.get("hook_created")
    created = parse_time(recorded_created)
    if created is not None:
        delay = created.timestamp() - started
        # The Job is created right after the operation starts (startedAt is in its name).
        if not 0 <= delay <= 3600:
            return failed("hook_name_time", expected=int(created.timestamp()), found=name,
                          started=started, created=recorded_created)
    return passed("value_ok", expected=expected, found=name, what="waves.json hook_job")


def recorded_instant(data, key):
    """(aware datetime, None) for waves.json[key] when it is an RFC 3339 string, else (None, FAIL)."""
    value, problem = typed_field(data, key, "string", f"waves.json {key}")
    if problem:
        return None, problem
    when = parse_time(value)
    if when is None:
        return None, failed("not_rfc3339", expected="RFC 3339", found=value, what=f"waves.json {key}")
    return when, None


@lab.check(5, "waves-times", hint="sync_waves")
def waves_times(state):
    data = require(evidence(state, "waves.json"))
    times = {}
    for key in ("hook_created", "settings_created"):
        times[key] = require(recorded_instant(data, key))
    found = {key: data[key] for key in times}
    if times["hook_created"] > times["settings_created"]:
        return failed("hook_after_settings", expected="hook_created <= settings_created", found=found)
    return passed("hook_before_settings", expected="hook_created <= settings_created", found=found)


@lab.check(5, "waves-settings-created", hint="sync_waves")
def waves_settings_created(state):
    value = require(evidence_field(state, "waves.json", "settings_created", "string"))
    settings = state.cluster.find("waves_configmaps", "settings")
    if settings is None:  # this step's own object: a plain failure, not "blocked by step 5"
        return failed("live_object_missing", expected="ConfigMap src-waves/settings", found=None,
                      what="ConfigMap src-waves/settings")
    live = dig(settings, "metadata", "creationTimestamp")
    recorded, live_time = parse_time(value), parse_time(live)
    if recorded is None or live_time is None or recorded != live_time:
        return failed("value_mismatch", expected=live, found=value, what="waves.json settings_created")
    return passed("value_ok", expected=live, found=value, what="waves.json settings_created")


@lab.check(5, "live-hook-job", hint="sync_hooks")
def waves_live_hook_job(state):
    """The recorded hook Job, if it still exists, must match. Absence is fine: the lab text says
    BeforeHookCreation deletes it, while a generateName hook gets a new name per operation and
    usually remains (sync/hook/delete_policy.go); either way nothing is owed."""
    data = require(evidence(state, "waves.json"))
    name = data.get("hook_job")
    job = state.cluster.find("waves_jobs", name) if isinstance(name, str) else None
    if job is None:
        return passed("hook_job_gone", found=None, name=name)
    recorded = require(recorded_instant(data, "hook_created"))  # a wrong type or format is not a different time: say what it is
    created = dig(job, "metadata", "creationTimestamp")
    complete = condition(job, "Complete")
    found = {"creationTimestamp": created, "Complete": dig(complete, "status")}
    expected = {"creationTimestamp": data["hook_created"], "Complete": "True"}
    if parse_time(created) != recorded or dig(complete, "status") != "True":
        return failed("live_values_mismatch", expected=expected, found=found, what=f"Job src-waves/{name}")
    return passed("live_values_ok", expected=expected, found=found, what=f"Job src-waves/{name}")


@lab.check(5, "live-order", hint="sync_waves")
def waves_live_order(state):
    settings = state.cluster.find("waves_configmaps", "settings")
    app = state.cluster.find("waves_deployments", "app")
    smoke = state.cluster.find("waves_jobs", "smoke")
    missing = [n for n, o in (("ConfigMap settings", settings), ("Deployment app", app), ("Job smoke", smoke)) if o is None]
    if missing:
        return failed("live_objects_missing", expected=["ConfigMap settings", "Deployment app", "Job smoke"],
                      found=None, what=", ".join(missing), namespace=WAVES_APP)
    settings_at = parse_time(dig(settings, "metadata", "creationTimestamp"))
    app_at = parse_time(dig(app, "metadata", "creationTimestamp"))
    available = parse_time(dig(condition(app, "Available"), "lastTransitionTime"))
    smoke_at = parse_time(dig(smoke, "metadata", "creationTimestamp"))
    found = {"settings": dig(settings, "metadata", "creationTimestamp"),
             "app": dig(app, "metadata", "creationTimestamp"),
             "app Available": dig(condition(app, "Available"), "lastTransitionTime"),
             "smoke": dig(smoke, "metadata", "creationTimestamp")}
    expected = "settings <= app, app Available <= smoke"
    if None in (settings_at, app_at, smoke_at) or settings_at > app_at:
        return failed("wave_order_wrong", expected=expected, found=found)
    if available is None or available > smoke_at:
        return failed("wave_order_wrong", expected=expected, found=found)
    return passed("wave_order_ok", expected=expected, found=found)


# ---------------------------------------------------------------- step 6


def failed_commit(state):
    """(commit sha, None) for the commit named in failed-hook.json, else (None, Verdict)."""
    data, problem = evidence(state, "failed-hook.json")
    if problem:
        return None, problem
    sha, problem = typed_field(data, "commit", "string", "failed-hook.json commit")
    if problem:
        return None, problem
    sha = sha.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        return None, failed("not_full_sha", expected="40 hex characters", found=data["commit"])
    problem = repo_blocked(state)
    if problem:
        return None, problem
    if sha not in state.repo.commits:
        return None, failed("commit_not_on_main", expected="a commit on bare main", found=sha)
    return sha, None


def parent_of(state, sha):
    parents = state.repo.commits[sha]["parents"]
    return parents[0] if parents else None


@lab.check(6, "failed-commit", hint="failed_hook_commit")
def failing_commit(state):
    sha = require(failed_commit(state))
    parent = parent_of(state, sha)
    after = state.repo.history[sha]
    before = state.repo.history.get(parent, {}) if parent else {}
    found = {
        "waves/config.yaml mode": [yaml_mode(before.get("waves/config.yaml")), yaml_mode(after.get("waves/config.yaml"))],
        "waves/migrate.yaml": migrate_command(after.get("waves/migrate.yaml")),
    }
    mode_changed = found["waves/config.yaml mode"][1] == "green" and found["waves/config.yaml mode"][0] != "green"
    command = found["waves/migrate.yaml"] or ""
    hook_broken = "echo migrate failed" in command and "exit 1" in command
    expected = {"waves/config.yaml mode": ["<not green>", "green"], "waves/migrate.yaml": "echo migrate failed; exit 1"}
    if mode_changed and hook_broken:
        return passed("failed_commit_ok", expected=expected, found=found, sha=sha[:7])
    if mode_changed or hook_broken:
        return failed("failed_commit_split", expected=expected, found=found, sha=sha[:7])
    return failed("failed_commit_wrong", expected=expected, found=found, sha=sha[:7])


@lab.check(6, "failed-phase", hint="hook_failed_phase")
def failed_phase(state):
    phase = require(evidence_field(state, "failed-hook.json", "phase", "string"))
    if phase == "Failed":
        return same_value(phase, "Failed", "failed-hook.json phase")
    if phase != "Running":
        return same_value(phase, "Failed", "failed-hook.json phase")
    # A failed PreSync hook ends the operation Failed (gitops-engine sync_context.go
    # setOperationFailed) only after the automated retries: with the Job's default backoffLimit
    # and 5 retries it reads Running for ~37 minutes (docs/argocd-observations.md). Running is
    # the truth during that time, so it passes once the cluster shows the operation of that
    # commit really failed (shared/labs/capa-src.md step 6).
    sha = require(failed_commit(state))  # the commit's own problem: missing, not a full SHA, not on bare main
    proof = failure_proof(state, sha)
    if proof:
        return passed("phase_running_failed", expected="Failed | Running", found=phase, proof=proof)
    return failed("phase_running_unproven", expected="Failed | Running", found=phase, sha=sha[:7])


def failure_proof(state, sha):
    """What shows that the operation of commit `sha` failed, or None. From the cluster: its
    PreSync hook Job (migrate-<sha7>-presync-<start>, gitops-engine sync_context.go) has condition
    Failed=True (batch/v1 JobCondition), or src-waves' operationState for that revision retried or
    ended Failed/Error (terminate-op ends it Failed "Operation terminated"). The failed Job need
    not remain: retries delete it every other attempt (docs/argocd-observations.md test 5), so
    once a later commit was synced the operation of `sha` must have ended, and it can only have
    failed when the commit's hook exits 1 (checked in git)."""
    for job in state.cluster.items("waves_jobs"):
        name = dig(job, "metadata", "name")
        if isinstance(name, str) and name.startswith(f"migrate-{sha[:7]}-presync-") \
                and dig(condition(job, "Failed"), "status") == "True":
            return f"Job {name} Failed"
    app = state.app(WAVES_APP)
    if app is None:
        return None
    operation = dig(app, "status", "operationState", default={})
    if isinstance(operation, dict) and dig(operation, "operation", "sync", "revision") == sha:
        retries = operation.get("retryCount")
        if operation.get("phase") in ("Failed", "Error"):
            return f"operation of {sha[:7]} {operation['phase']}"
        if isinstance(retries, int) and not isinstance(retries, bool) and retries > 0:
            return f"operation of {sha[:7]} retried {retries} times"
    if "exit 1" not in (migrate_command(state.repo.history[sha].get("waves/migrate.yaml")) or ""):
        return None
    recorded, _ = operations_started(app)
    later = sorted({rev for rev, _ in recorded if rev in state.repo.commits and rev != sha
                    and state.repo.is_ancestor(sha, rev)}, key=lambda rev: state.repo.commits[rev]["time"])
    if later:
        return f"its hook exits 1 and src-waves later synced {later[0][:7]}"
    return None


@lab.check(6, "failed-live-mode", hint="hook_failed_phase")
def failed_live_mode(state):
    live_mode = require(evidence_field(state, "failed-hook.json", "live_mode", "string"))
    sha = require(failed_commit(state))  # the commit's own problem: missing, not a full SHA, not on bare main
    parent = parent_of(state, sha)
    before = yaml_mode(state.repo.history.get(parent, {}).get("waves/config.yaml")) if parent else None
    if live_mode != before:
        return failed("value_mismatch", expected=before, found=live_mode, what="failed-hook.json live_mode",
                      hint="hook_failed_phase")
    return passed("value_ok", expected=before, found=live_mode, what="failed-hook.json live_mode")


def restores_hook(files):
    command = migrate_command(files.get("waves/migrate.yaml")) or ""
    return "echo migrate ok" in command and "exit 1" not in command and yaml_mode(files.get("waves/config.yaml")) == "green"


def fix_commit_sha(state, failed_sha):
    """The first commit after the failing one that restores the migrate command, mode still green."""
    for candidate in reversed(state.repo.order):  # oldest first
        if candidate != failed_sha and state.repo.is_ancestor(failed_sha, candidate) \
                and restores_hook(state.repo.history[candidate]):
            return candidate
    return None


@lab.check(6, "fix-commit", hint="failed_hook_commit")
def fix_commit(state):
    sha = require(failed_commit(state))  # the commit's own problem: missing, not a full SHA, not on bare main
    fix = fix_commit_sha(state, sha)
    if fix:
        return passed("fix_commit_ok", found=fix, sha=fix[:7])
    files = state.repo.history.get(state.repo.head, {})
    found = {"head": state.repo.head, "waves/migrate.yaml": migrate_command(files.get("waves/migrate.yaml")),
             "mode": yaml_mode(files.get("waves/config.yaml"))}
    return failed("fix_commit_missing", expected={"waves/migrate.yaml": "echo migrate ok", "mode": "green"}, found=found)


def operation_progress(state, app):
    """(Progress, Operation, failed commit or None) of src-waves' operation, from the cluster
    alone; the failing revision is the commit failed-hook.json names (checks/argocd.py Operation)."""
    failed_sha, _ = failed_commit(state)
    operation = Operation.of(app)
    return operation.progress([failed_sha] if failed_sha else []), operation, failed_sha


@lab.check(6, "live-revision", hint="sync_revisions")
def waves_live_revision(state):
    """After the fix, Argo CD must have synced the fix commit or a later one. A later commit that
    does not touch waves/ moves status.sync.revision but starts no operation, so each revision
    may be the fix commit or any commit after it on main."""
    app = WAVES.live(state, 6, blocked_by=5)
    stop_if(repo_blocked(state))
    found = {
        "status.sync.revision": dig(app, "status", "sync", "revision"),
        "operationState.operation.sync.revision": dig(app, "status", "operationState", "operation", "sync", "revision"),
        "operationState.syncResult.revision": dig(app, "status", "operationState", "syncResult", "revision"),
    }
    progress, operation, failed_sha = operation_progress(state, app)
    anchor = (fix_commit_sha(state, failed_sha) if failed_sha else None) or state.repo.head
    expected = dict.fromkeys(found, f"{anchor[:7]} or later")
    if progress is Progress.RETRYING:
        return failed("retrying_failed_revision", expected=expected, found=found, sha=failed_sha[:7], phase="Running",
                      hint="retry_blocks_new_commits")
    if all(isinstance(rev, str) and rev in state.repo.commits and state.repo.is_ancestor(anchor, rev)
           for rev in found.values()):
        return passed("revisions_synced", expected=expected, found=found, sha=anchor[:7])
    if progress.in_flight or progress is Progress.SYNC_DUE:
        return operation_pending(operation, progress, expected, found, f"Application {WAVES_APP} revisions")
    return failed("revisions_behind", expected=expected, found=found, sha=anchor[:7])


def operation_pending(operation, progress, expected, found, what):
    """PENDING while an operation Argo CD runs, or the auto-sync it is about to start, will change
    what was checked."""
    revision = operation.applying(progress)
    return pending("auto_sync_due" if progress is Progress.SYNC_DUE else "operation_in_flight", expected=expected,
                   found=found, what=what, name=WAVES_APP, phase=operation.phase, sha=(revision or "?")[:7],
                   hint="operation_in_flight")


@lab.check(6, "live-operation", hint="sync_revisions")
def waves_live_operation(state):
    app = WAVES.live(state, 6, blocked_by=5)
    sync, health, phase = live_status(app)
    expected = {"operation": "Succeeded", "sync": "Synced", "health": "Healthy"}
    found = {"operation": phase, "sync": sync, "health": health}
    if found == expected:
        return passed("live_values_ok", expected=expected, found=found, what=f"Application {WAVES_APP}")
    progress, operation, failed_sha = operation_progress(state, app)
    if progress is Progress.RETRYING:
        return failed("retrying_failed_revision", expected=expected, found=found, sha=failed_sha[:7], phase=phase,
                      hint="retry_blocks_new_commits")
    if progress.in_flight or progress is Progress.SYNC_DUE:
        return operation_pending(operation, progress, expected, found, f"Application {WAVES_APP} status")
    return failed("live_values_mismatch", expected=expected, found=found, what=f"Application {WAVES_APP}")


@lab.check(6, "live-mode-green", hint="sync_revisions")
def waves_live_mode(state):
    settings = state.cluster.find("waves_configmaps", "settings")
    if settings is None:
        return blocked(5, "live_object_missing", what="ConfigMap src-waves/settings")
    mode = dig(settings, "data", "mode")
    what = "ConfigMap src-waves/settings data.mode"
    if mode == "green":
        return passed("value_ok", expected="green", found=mode, what=what)
    app = state.app(WAVES_APP)
    if app is None:
        return failed("value_mismatch", expected="green", found=mode, what=what)
    progress, operation, _ = operation_progress(state, app)
    if progress is Progress.RETRYING:
        return failed("value_mismatch", expected="green", found=mode, what=what, hint="retry_blocks_new_commits")
    changing = progress.in_flight or progress is Progress.SYNC_DUE
    target = state.repo.history.get(operation.applying(progress), {}) if changing and state.repo.ok else {}
    if yaml_mode(target.get("waves/config.yaml")) == "green":
        return operation_pending(operation, progress, "green", mode, what)
    return failed("value_mismatch", expected="green", found=mode, what=what)


# ---------------------------------------------------------------- step 7

IGNORE_RULE = {"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}


def ignores_prod_api_replicas(rule):
    """The rule the lab asks for, as Argo CD applies it to prod-api: a rule that names another
    object (name or namespace, compared exactly when set: util/argo/normalizers/diff_normalizer.go
    Normalize) leaves prod-api's replicas in the diff, and selfHeal syncs them back."""
    pointers = rule.get("jsonPointers") if isinstance(rule, dict) else None
    return (isinstance(pointers, list) and "/spec/replicas" in pointers and rule.get("group") == "apps"
            and rule.get("kind") == "Deployment" and rule.get("name") in (None, "", "prod-api")
            and rule.get("namespace") in (None, "", KUST_APP))


def ignore_problems(state, app):
    """The problems of step 7's Application settings (the check ends when kustomize cannot run)."""
    problems = []
    rules = dig(app, "spec", "ignoreDifferences", default=[])
    rules = rules if isinstance(rules, list) else []
    if not any(ignores_prod_api_replicas(r) for r in rules):
        problems.append(("spec.ignoreDifferences", [IGNORE_RULE], dig(app, "spec", "ignoreDifferences")))
    options = sync_options(app)
    for option in ("RespectIgnoreDifferences=true", "CreateNamespace=true"):
        if option not in options:
            problems.append(("spec.syncPolicy.syncOptions", option, dig(app, "spec", "syncPolicy", "syncOptions")))
    if not automated_enabled(app) or dig(app, "spec", "syncPolicy", "automated", "selfHeal") is not True:
        problems.append(("spec.syncPolicy.automated.selfHeal", True, dig(app, "spec", "syncPolicy", "automated")))
    return problems + require(image_problems(state, app))


def ignore_verdict(state, app, what):
    problems = ignore_problems(state, app)
    respect_missing = any(f == "spec.syncPolicy.syncOptions" and e == "RespectIgnoreDifferences=true"
                          for f, e, _ in problems)
    verdict = verdict_from_problems(problems, what, "ignore_differences")
    if respect_missing and len(problems) == 1:
        return failed("respect_ignore_missing", expected="RespectIgnoreDifferences=true",
                      found=problems[0][2], what=what, hint="ignore_differences")
    return verdict


KUST.checks(lab, 7, lambda state, app, where: ignore_verdict(state, app, where.what), "ignore_differences",
            blocked_by=4)


@lab.check(7, "live-replicas", hint="ignore_differences")
def kust_live_replicas(state):
    app = KUST.live(state, 7, blocked_by=4)
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return blocked(4, "live_object_missing", what="Deployment src-kust/prod-api")
    expected = {"prod-api spec.replicas": 4, "src-kust sync": "Synced"}
    found = {"prod-api spec.replicas": dig(deployment, "spec", "replicas"),
             "src-kust sync": dig(app, "status", "sync", "status")}
    if found != expected:
        return failed("live_values_mismatch", expected=expected, found=found, what="src-kust / prod-api")
    return passed("live_values_ok", expected=expected, found=found, what="src-kust / prod-api")


@lab.check(7, "ignore-times", hint="json_types")
def ignore_times(state):
    values = require(evidence_fields(state, "ignore.json", ("scaled_at", "checked_at"), "integer"))
    if max(values.values()) > state.now + 300:  # five minutes of clock skew are forgiven
        return failed("time_in_future", expected=f"<= {int(state.now)}", found=values)
    waited = values["checked_at"] - values["scaled_at"]
    if waited < 40:
        return failed("waited_too_short", expected=">= 40", found=waited, waited=waited, hint="ignore_differences")
    return passed("waited_ok", expected=">= 40", found=waited, waited=waited)


@lab.check(7, "ignore-replicas", hint="json_types")
def ignore_replicas(state):
    value = require(evidence_field(state, "ignore.json", "replicas", "integer"))
    return same_value(value, 4, "ignore.json replicas", hint="ignore_differences")


@lab.check(7, "ignore-sync-status", hint="ignore_differences")
def ignore_sync_status(state):
    value = require(evidence_field(state, "ignore.json", "sync_status", "string"))
    return same_value(value, "Synced", "ignore.json sync_status")


# kubectl scale writes the /scale subresource and sets no field manager, so the manager is the
# user-agent prefix: "kubectl" (apiserver managerOrUserAgent). Some reports say "kubectl-scale";
# under k3s it may be "k3s" when run as `k3s kubectl`. UNVERIFIED which one v1.3x k3s shows:
# accept any of them, keyed on subresource "scale" (argocd-facts.md §7.3).
SCALE_MANAGERS = ("kubectl", "kubectl-scale", "k3s")
ARGOCD_MANAGER = "argocd-controller"  # common.ArgoCDSSAManager


@lab.check(7, "replicas-owner", hint="managed_fields")
def replicas_owner_live(state):
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return blocked(4, "live_object_missing", what="Deployment src-kust/prod-api")
    owner = replicas_owner(deployment)
    found = {"manager": dig(owner, "manager"), "subresource": dig(owner, "subresource")}
    expected = {"manager": " | ".join(SCALE_MANAGERS), "subresource": "scale"}
    if owner is None or owner.get("manager") == ARGOCD_MANAGER or owner.get("subresource") != "scale":
        return failed("replicas_not_scaled", expected=expected, found=found)
    if owner.get("manager") not in SCALE_MANAGERS:
        return failed("replicas_not_scaled", expected=expected, found=found)
    return passed("live_values_ok", expected=expected, found=found, what="prod-api managedFields")


# ---------------------------------------------------------------- step 8


@lab.check(8, "helm-winner", hint="helm_precedence")
def report_helm_winner(state):
    return report_answer(state, "helm_winner", "string", "parameters", "helm_precedence",
                         Agrees("precedence.json", "greeting", lambda v: v == PRECEDENCE_GREETING, PRECEDENCE_GREETING))


@lab.check(8, "replicas-winner", hint="helm_precedence")
def report_replicas_winner(state):
    return report_answer(state, "replicas_winner", "string", "valuesObject", "helm_precedence")


@lab.check(8, "helm-installed", hint="helm_template_only")
def report_helm_installed(state):
    return report_answer(state, "helm_installed", "boolean", False, "helm_template_only",
                         Agrees("tracking.json", "helm_release_secrets",
                                lambda v: v == 0 and not isinstance(v, bool), 0))


@lab.check(8, "image-source", hint="kustomize_images")
def report_image_source(state):
    return report_answer(state, "image_source", "string", "application", "kustomize_images")


@lab.check(8, "hook-blocked-sync", hint="hook_failed_phase")
def report_hook_blocked(state):
    return report_answer(state, "hook_blocked_sync", "boolean", True, "hook_failed_phase",
                         Agrees("failed-hook.json", "live_mode", lambda v: v != "green", "live_mode != green"))


@lab.check(8, "replicas-owner", hint="managed_fields")
def report_replicas_owner(state):
    value = require(evidence_field(state, "report.json", "replicas_owner", "string"))
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return blocked(4, "live_object_missing", what="Deployment src-kust/prod-api")
    owner = dig(replicas_owner(deployment), "manager")
    return same_value(value, owner, "report.json replicas_owner")

