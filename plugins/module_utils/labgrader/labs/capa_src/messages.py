"""capa-src's own messages and hints, {key: (en, ja, ko)}; the shared ones are in i18n.py."""

MESSAGES = {  # this lab's own; the shared ones are in i18n.py
    "empty_not_null": {"en": "{what}: the label is absent, so the value must be JSON null, not \"\"",
                       "ja": "{what}: ラベルがないので、値は \"\" ではなく JSON の null にしてください",
                       "ko": "{what}: 레이블이 없으므로 값은 \"\"가 아니라 JSON null이어야 합니다"},
    "value_files_ok": {"en": "{what} valueFiles is [values-prod.yaml]",
                       "ja": "{what} の valueFiles は [values-prod.yaml] です",
                       "ko": "{what}의 valueFiles: [values-prod.yaml]"},
    "value_files_repo_root": {"en": "{what}: valueFiles {found} is written from the repository root; it is relative to the "
                                    "chart directory, so write {expected}",
                              "ja": "{what}: valueFiles {found} はリポジトリのルートを基準に書かれています。チャートのディレクト"
                                    "リが基準なので、{expected} と書いてください",
                              "ko": "{what}: valueFiles {found} 값이 저장소 루트 기준입니다. 차트 디렉터리가 기준이므로 "
                                    "{expected} 값으로 쓰세요"},
    "template_ok": {"en": "{path} renders the expected object",
                    "ja": "{path} は期待するオブジェクトを生成します",
                    "ko": "{path} 템플릿이 기대한 오브젝트를 만듭니다"},
    "template_missing": {"en": "no template in charts/web/templates renders {kind} {name}",
                         "ja": "charts/web/templates に {kind} {name} を生成するテンプレートがありません",
                         "ko": "charts/web/templates에 {kind} {name} 리소스를 만드는 템플릿이 없습니다"},
    "helm_template_failed": {"en": "`helm template` of charts/web at bare main fails, as it fails in Argo CD: {detail}",
                             "ja": "ベアリポジトリの main の charts/web で `helm template` が失敗します（Argo CD でも同じく失敗"
                                   "します）: {detail}",
                             "ko": "베어 저장소 main의 charts/web에서 `helm template`이 실패합니다 (Argo CD에서도 똑같이 실패합"
                                   "니다): {detail}"},
    "tool_unavailable": {"en": "the grader cannot run {tool} on this VM: {detail}",
                         "ja": "この VM では採点ツールが {tool} を実行できません: {detail}",
                         "ko": "이 VM에서 채점기가 {tool} 도구를 실행할 수 없습니다: {detail}"},
    "template_incomplete": {"en": "{path} does not render {missing}",
                            "ja": "{path} が {missing} を生成していません",
                            "ko": "{path} 템플릿이 다음을 만들지 않습니다: {missing}"},
    "tracking_method_ok": {"en": "your evidence matches the tracking method in force ({method})",
                           "ja": "記録は有効な追跡方式（{method}）と一致しています",
                           "ko": "기록이 적용 중인 추적 방식과 일치합니다 ({method})"},
    "tracking_method_mismatch": {"en": "the tracking method in force is {method}; it writes {expected}, you recorded {found}",
                                 "ja": "有効な追跡方式は {method} です。書き込まれる値は {expected} ですが、記録は {found} です",
                                 "ko": "적용 중인 추적 방식: {method}. 기록되어야 할 값은 {expected}, 기록한 값은 {found}입니다"},
    "argocd_cm_missing": {"en": "ConfigMap argocd-cm is missing in {namespace}: the Argo CD install is broken",
                          "ja": "{namespace} に ConfigMap argocd-cm がありません。Argo CD のインストールが壊れています",
                          "ko": "{namespace} 네임스페이스에 ConfigMap argocd-cm이 없습니다. Argo CD 설치가 깨졌습니다"},
    "override_in_git": {"en": "the 1.28 override is committed under kust/ ({paths}); it must live in the Application",
                        "ja": "kust/ に 1.28 の上書きがコミットされています（{paths}）。上書きは Application に書いてください",
                        "ko": "kust/에 1.28 덮어쓰기가 커밋되어 있습니다({paths}). 덮어쓰기는 Application에 있어야 합니다"},
    "override_not_in_git": {"en": "nothing under kust/ sets the 1.28 image",
                            "ja": "kust/ のどこにも 1.28 のイメージの設定はありません",
                            "ko": "kust/ 어디에서도 1.28 이미지를 설정하지 않습니다"},
    "hook_name_format": {"en": "waves.json hook_job {found} is not a name Argo CD generates ({expected})",
                         "ja": "waves.json の hook_job {found} は Argo CD が生成する名前ではありません（{expected}）",
                         "ko": "waves.json의 hook_job 값 {found}: Argo CD가 만드는 이름이 아닙니다 ({expected})"},
    "hook_commit_unknown": {"en": "waves.json hook_job {found}: {sha7} is not a commit on bare main",
                            "ja": "waves.json の hook_job {found}: {sha7} はベアリポジトリの main のコミットではありません",
                            "ko": "waves.json의 hook_job 값 {found}: 베어 저장소 main에 {sha7} 커밋이 없습니다"},
    "hook_commit_without_hook": {"en": "waves.json hook_job {found}: commit {sha7} has no PreSync hook migrate- in "
                                       "waves/migrate.yaml, so no sync of it ran that hook",
                                 "ja": "waves.json の hook_job {found}: コミット {sha7} の waves/migrate.yaml には PreSync フッ"
                                       "ク migrate- がないため、そのコミットの同期でこのフックは実行されていません",
                                 "ko": "waves.json의 hook_job 값 {found}: {sha7} 커밋의 waves/migrate.yaml에 PreSync 훅 "
                                       "migrate-가 없으므로 그 커밋의 동기화에서 이 훅은 실행되지 않았습니다"},
    "hook_before_commit": {"en": "waves.json hook_job {found}: the sync started at {started}, before commit {sha7} existed "
                                 "({committed})",
                           "ja": "waves.json の hook_job {found}: 同期の開始時刻 {started} が、コミット {sha7} の作成時刻 （"
                                 "{committed}）より前です",
                           "ko": "waves.json의 hook_job 값 {found}: 동기화가 {started}에 시작되어 {sha7} 커밋이 만들어진 시각"
                                 "({committed})보다 이릅니다"},
    "hook_not_synced": {"en": "waves.json hook_job {found}: Application src-waves has no sync of {sha7} started at {started} "
                              "(status.history, operationState) and no such Job exists",
                        "ja": "waves.json の hook_job {found}: Application src-waves には、{started} に始まった {sha7} の同期の"
                              "記録（status.history、operationState）も、その名前の Job もありません",
                        "ko": "waves.json의 hook_job 값 {found}: src-waves Application에 {started}에 시작된 {sha7} 커밋의 동기"
                              "화 기록(status.history, operationState)도, 그런 이름의 Job도 없습니다"},
    "hook_name_time": {"en": "waves.json hook_job {found} started at {started}, but hook_created is {created}",
                       "ja": "waves.json の hook_job {found} の開始時刻は {started} ですが、hook_created は {created} です",
                       "ko": "waves.json의 hook_job 값 {found}: 시작 시각은 {started}, hook_created는 {created}입니다"},
    "hook_after_settings": {"en": "the PreSync hook was created after ConfigMap settings: {found}",
                            "ja": "PreSync フックが ConfigMap settings より後に作成されています: {found}",
                            "ko": "PreSync 훅이 ConfigMap settings보다 나중에 만들어졌습니다: {found}"},
    "hook_before_settings": {"en": "the PreSync hook was created before ConfigMap settings",
                             "ja": "PreSync フックは ConfigMap settings より前に作成されました",
                             "ko": "PreSync 훅이 ConfigMap settings보다 먼저 만들어졌습니다"},
    "hook_job_gone": {"en": "the hook Job is no longer in the cluster, which is fine",
                      "ja": "フックの Job はもうクラスターにありません（問題ありません）",
                      "ko": "훅 Job이 클러스터에 더 이상 없습니다 (문제없음)"},
    "wave_order_ok": {"en": "creation times follow the waves: {found}",
                      "ja": "作成時刻はウェーブの順になっています: {found}",
                      "ko": "생성 시각이 웨이브 순서를 따릅니다: {found}"},
    "wave_order_wrong": {"en": "creation times do not follow the waves ({expected}): {found}",
                         "ja": "作成時刻がウェーブの順になっていません（{expected}）: {found}",
                         "ko": "생성 시각이 웨이브 순서가 아닙니다 ({expected}): {found}"},
    "not_full_sha": {"en": "failed-hook.json commit must be a full 40-character SHA, found {found}",
                     "ja": "failed-hook.json の commit は 40 文字の完全な SHA にしてください。実際は {found} です",
                     "ko": "failed-hook.json의 commit은 40자 전체 SHA여야 합니다. 실제 값: {found}"},
    "failed_commit_ok": {"en": "commit {sha} changes mode to green and breaks the hook in one commit",
                         "ja": "コミット {sha} は、1 つのコミットで mode を green にし、フックを壊しています",
                         "ko": "{sha} 커밋이 한 커밋에서 mode를 green으로 바꾸고 훅을 깨뜨립니다"},
    "failed_commit_split": {"en": "commit {sha} makes only one of the two changes; both belong in one commit: {found}",
                            "ja": "コミット {sha} には 2 つの変更のうち片方しかありません。1 つのコミットにまとめてください: "
                                  "{found}",
                            "ko": "{sha} 커밋에는 두 변경 중 하나만 있습니다. 한 커밋에 둘 다 있어야 합니다: {found}"},
    "failed_commit_wrong": {"en": "commit {sha} does not change mode to green nor break the hook: {found}",
                            "ja": "コミット {sha} は mode を green にしておらず、フックも壊していません: {found}",
                            "ko": "{sha} 커밋은 mode를 green으로 바꾸지도, 훅을 깨뜨리지도 않습니다: {found}"},
    "phase_running_failed": {"en": "failed-hook.json phase Running: the operation had already failed ({proof})",
                             "ja": "failed-hook.json の phase は Running ですが、オペレーションはすでに失敗していました（{proof}"
                                   "）",
                             "ko": "failed-hook.json의 phase는 Running이지만 오퍼레이션은 이미 실패했습니다 ({proof})"},
    "phase_running_unproven": {"en": "failed-hook.json phase Running, but nothing in the cluster shows that the operation of "
                                     "{sha} failed (no failed Job migrate-{sha}-presync-*, no retry, no later sync)",
                               "ja": "failed-hook.json の phase は Running ですが、{sha} のオペレーションが失敗したことを示すも"
                                     "のがクラスターにありません（失敗した Job migrate-{sha}-presync-* も、リトライも、その後の"
                                     "同期もありません）",
                               "ko": "failed-hook.json의 phase는 Running이지만 {sha} 커밋의 오퍼레이션이 실패했다는 흔적이 클러"
                                     "스터에 없습니다 (실패한 Job migrate-{sha}-presync-*도, 재시도도, 이후 동기화도 없음)"},
    "operation_in_flight": {"en": "{what} is about to change: Application {name} runs an operation on {sha} ({phase}); not "
                                  "final yet",
                            "ja": "{what} はこれから変わります。Application {name} が {sha} のオペレーションを実行中です（"
                                  "{phase}）。この結果はまだ確定していません",
                            "ko": "{what}: 곧 바뀝니다. {name} Application이 {sha} 커밋의 오퍼레이션을 실행 중입니다 "
                                  "({phase}). 이 결과는 아직 확정되지 않았습니다"},
    "auto_sync_due": {"en": "{what} is about to change: Application {name} is OutOfSync at {sha} after an operation {phase}, "
                            "and automated sync starts that revision next; not final yet",
                      "ja": "{what} はこれから変わります。Application {name} のオペレーションは終了しました（{phase}）。自動同期"
                            "が次に同期する OutOfSync のリビジョン: {sha}。この結果はまだ確定していません",
                      "ko": "{what}: 곧 바뀝니다. {name} Application의 오퍼레이션이 끝났습니다({phase}). 자동 동기화가 다음에 "
                            "동기화할 OutOfSync 리비전: {sha}. 이 결과는 아직 확정되지 않았습니다"},
    # What an operation in flight is about to change (fills {what} of operation_in_flight / auto_sync_due).
    "phrase_app_status": {"en": "Application {name} status",
                          "ja": "Application {name} の状態",
                          "ko": "{name} Application의 상태"},
    "phrase_app_revisions": {"en": "Application {name} revisions",
                             "ja": "Application {name} のリビジョン",
                             "ko": "{name} Application의 리비전"},
    "fix_commit_ok": {"en": "commit {sha} restores the migrate command and keeps mode green",
                      "ja": "コミット {sha} は migrate のコマンドを戻し、mode は green のままです",
                      "ko": "{sha} 커밋이 migrate 명령을 되돌리고 mode는 green으로 유지합니다"},
    "fix_commit_missing": {"en": "no commit after the failing one restores `echo migrate ok` with mode green: {found}",
                           "ja": "失敗したコミットの後に、mode を green のまま `echo migrate ok` に戻したコミットがありません: "
                                 "{found}",
                           "ko": "실패한 커밋 이후에 mode green을 유지하며 `echo migrate ok`로 되돌린 커밋이 없습니다: {found}"},
    "revisions_synced": {"en": "sync, operation and result revisions are at {sha} (the fix) or later on bare main",
                         "ja": "同期・オペレーション・結果のリビジョンは、{sha}（修正コミット）以降のベアリポジトリの main のコ"
                               "ミットです",
                         "ko": "동기화, 오퍼레이션, 결과 리비전이 {sha} 커밋(수정 커밋) 이후의 베어 저장소 main 커밋입니다"},
    "revisions_behind": {"en": "revisions must be {sha} (the fix) or a later commit on bare main: {found}",
                         "ja": "リビジョンは {sha}（修正コミット）以降のベアリポジトリの main のコミットである必要があります: "
                               "{found}",
                         "ko": "리비전은 {sha} 커밋(수정 커밋) 이후의 베어 저장소 main 커밋이어야 합니다: {found}"},
    "retrying_failed_revision": {"en": "the operation still retries the failed revision {sha} (phase {phase}); the app may look "
                                       "Synced, but the new commit is not applied",
                                 "ja": "オペレーションがまだ失敗したリビジョン {sha} をリトライしています（フェーズ {phase}）。"
                                       "Synced に見えても、新しいコミットは適用されていません",
                                 "ko": "오퍼레이션이 아직 실패한 리비전 {sha}의 재시도를 계속하고 있습니다 (페이즈 {phase}). "
                                       "Synced로 보여도 새 커밋은 적용되지 않았습니다"},
    "respect_ignore_missing": {"en": "{what}: ignoreDifferences is set but syncOptions lacks RespectIgnoreDifferences=true",
                               "ja": "{what}: ignoreDifferences はありますが、syncOptions に RespectIgnoreDifferences=true があ"
                                     "りません",
                               "ko": "{what}: ignoreDifferences는 있지만 syncOptions에 RespectIgnoreDifferences=true가 없습니다"},
    "waited_too_short": {"en": "checked_at - scaled_at is {waited} s; wait at least 40 s",
                         "ja": "checked_at - scaled_at は {waited} 秒です。40 秒以上待ってください",
                         "ko": "checked_at - scaled_at 값이 {waited}초입니다. 40초 이상 기다리세요"},
    "waited_ok": {"en": "you waited {waited} s after scaling",
                  "ja": "scale の後 {waited} 秒待ちました",
                  "ko": "scale 후 {waited}초 기다렸습니다"},
    "replicas_not_scaled": {"en": "f:spec.f:replicas of prod-api is owned by {found}, expected {expected}",
                            "ja": "prod-api の f:spec.f:replicas の所有者は {found} ですが、期待値は {expected} です",
                            "ko": "prod-api의 f:spec.f:replicas 소유자: {found}. 기댓값은 {expected}입니다"},
}

HINTS = {
    "helm_chart": {"en": "Argo CD treats a path with Chart.yaml as a Helm chart; values come from values.yaml and the templates "
                         "reference them as .Values.<key>.",
                   "ja": "Chart.yaml があるパスは Helm チャートとして扱われます。値は values.yaml から来て、テンプレートは "
                         ".Values.<キー> で値を参照します。",
                   "ko": "Chart.yaml이 있는 경로는 Helm 차트로 처리됩니다. 값은 values.yaml에서 오고, 템플릿은 .Values.<키>로 "
                         "값을 참조합니다."},
    "value_files_relative": {"en": "helm.valueFiles paths are relative to the chart directory (spec.source.path), not to the "
                                   "repository root.",
                             "ja": "helm.valueFiles のパスは、リポジトリのルートではなくチャートのディレクトリ（spec.source.path"
                                   "）が基準です。",
                             "ko": "helm.valueFiles 경로는 저장소 루트가 아니라 차트 디렉터리(spec.source.path) 기준입니다."},
    "helm_precedence": {"en": "Argo CD runs `helm template`: parameters (--set) beat valuesObject, which beats valueFiles, "
                              "which beat the chart's values.yaml. Read the live objects, do not guess.",
                        "ja": "Argo CD は `helm template` を実行します。parameters（--set）> valuesObject > valueFiles > チャー"
                              "トの values.yaml の順に優先されます。推測せず、クラスターの実際の値を読んでください。",
                        "ko": "Argo CD는 `helm template`을 실행합니다. parameters(--set) > valuesObject > valueFiles > 차트의 "
                              "values.yaml 순서로 우선합니다. 추측하지 말고 클러스터의 실제 값을 읽으세요."},
    "helm_template_only": {"en": "Argo CD only renders charts; it never runs helm install, so no helm.sh/release.v1 Secret is "
                                 "created.",
                           "ja": "Argo CD はチャートをレンダリングするだけで `helm install` はしないため、helm.sh/release.v1 の "
                                 "Secret は作成されません。",
                           "ko": "Argo CD는 차트를 렌더링만 하고 `helm install`은 하지 않으므로 helm.sh/release.v1 Secret은 만"
                                 "들어지지 않습니다."},
    "resource_tracking": {"en": "Read the live ConfigMap with `kubectl -n src-helm get cm src-helm-greeting -o yaml`; the "
                                "tracking method is argocd-cm application.resourceTrackingMethod (annotation by default in v3).",
                          "ja": "`kubectl -n src-helm get cm src-helm-greeting -o yaml` で実際のオブジェクトを読んでください。追"
                                "跡方式は argocd-cm の application.resourceTrackingMethod です（v3 のデフォルトは annotation）。",
                          "ko": "`kubectl -n src-helm get cm src-helm-greeting -o yaml` 명령으로 실제 오브젝트를 읽으세요. 추적"
                                " 방식은 argocd-cm의 application.resourceTrackingMethod입니다(v3 기본값은 annotation)."},
    "null_not_missing": {"en": "An absent label is written as JSON null: \"instance_label\": null.",
                         "ja": "ラベルがないときは JSON の null と書いてください: \"instance_label\": null。",
                         "ko": "레이블이 없으면 JSON null로 쓰세요: \"instance_label\": null."},
    "kustomize_layout": {"en": "kust/base holds Deployment api and a kustomization; kust/overlays/prod points at ../../base "
                               "with namePrefix prod- and a replicas entry for api.",
                         "ja": "kust/base には Deployment api と kustomization を置きます。kust/overlays/prod は ../../base を指"
                               "し、namePrefix prod- と api の replicas を持ちます。",
                         "ko": "kust/base에는 Deployment api와 kustomization을 둡니다. kust/overlays/prod는 ../../base를 가리키"
                               "고 namePrefix prod-와 api의 replicas 설정을 가집니다."},
    "kustomize_images": {"en": "spec.source.kustomize.images is applied by Argo CD with `kustomize edit set image` right before "
                               "rendering: the 1.28 tag lives in the Application, not in git.",
                         "ja": "spec.source.kustomize.images は、Argo CD がレンダリングの直前に `kustomize edit set image` で適"
                               "用します。1.28 のタグは Git ではなく Application に書きます。",
                         "ko": "spec.source.kustomize.images는 Argo CD가 렌더링 직전에 `kustomize edit set image` 명령으로 적용"
                               "합니다. 1.28 태그는 Git이 아니라 Application에 씁니다."},
    "sync_waves": {"en": "Within a phase Argo CD applies lower waves first and waits until a wave is Healthy before the next "
                         "one; record times from the live objects' creationTimestamp.",
                   "ja": "同じフェーズの中では、Argo CD は小さいウェーブから適用し、ウェーブが Healthy になるまで次のウェーブに"
                         "進みません。時刻は実際のオブジェクトの creationTimestamp から記録してください。",
                   "ko": "같은 페이즈 안에서 Argo CD는 작은 웨이브부터 적용하고, 웨이브가 Healthy가 될 때까지 다음 웨이브로 가"
                         "지 않습니다. 시각은 실제 오브젝트의 creationTimestamp에서 기록하세요."},
    "sync_hooks": {"en": "A generateName hook is named generateName + <7 hex of the commit>-presync-<start unix time>; copy the "
                         "name of the Job that ran for your commit.",
                   "ja": "generateName のフックの名前は generateName + <コミットの 7 桁>-presync-<開始 Unix 時刻> です。自分のコ"
                         "ミットで実行された Job の名前を写してください。",
                   "ko": "generateName 훅의 이름은 generateName + <커밋 7자리>-presync-<시작 Unix 시각>입니다. 자신의 커밋으로 "
                         "실행된 Job 이름을 옮겨 쓰세요."},
    "failed_hook_commit": {"en": "Step 6 needs one commit that both sets mode: green and makes migrate exit 1, then a later "
                                 "commit that restores only the migrate command.",
                           "ja": "ステップ 6 では、mode: green と migrate の `exit 1` を 1 つのコミットにまとめ、その後 migrate "
                                 "のコマンドだけを戻す別のコミットが必要です。",
                           "ko": "6단계에는 mode: green과 migrate의 `exit 1`을 한 커밋에 담고, 이후 migrate 명령만 되돌리는 커"
                                 "밋이 필요합니다."},
    "hook_failed_phase": {"en": "When a PreSync hook fails, the Sync phase never starts: ConfigMap settings keeps its old mode; "
                                "status.operationState.phase reads Running while automated retries run and Failed after them or "
                                "after terminate-op. Either is right once the hook Job has failed.",
                          "ja": "PreSync フックが失敗すると、Sync フェーズは始まらず、ConfigMap settings の mode は古いままで"
                                "す。status.operationState.phase は、自動同期のリトライ中は Running、リトライの後や "
                                "terminate-op の後は Failed です。フックの Job が失敗した後なら、どちらも正解です。",
                          "ko": "PreSync 훅이 실패하면 Sync 페이즈는 시작되지 않고 ConfigMap settings의 mode는 그대로입니다. "
                                "status.operationState.phase는 자동 동기화의 재시도 중에는 Running, 재시도 후나 terminate-op 후"
                                "에는 Failed입니다. 훅 Job이 실패한 뒤라면 둘 다 맞습니다."},
    "retry_blocks_new_commits": {"en": "An automated sync retries the failed revision (5 times by default) and a new commit "
                                       "waits; check status.operationState.operation.sync.revision and end it with `argocd app "
                                       "terminate-op src-waves --core`.",
                                 "ja": "自動同期は失敗したリビジョンを（デフォルトで 5 回）リトライし、新しいコミットは待たされ"
                                       "ます。status.operationState.operation.sync.revision を確認し、`argocd app terminate-op "
                                       "src-waves --core` でオペレーションを終わらせてください。",
                                 "ko": "자동 동기화는 실패한 리비전을 (기본 5회) 재시도하고 새 커밋은 기다립니다. "
                                       "status.operationState.operation.sync.revision을 확인하고 `argocd app terminate-op "
                                       "src-waves --core` 명령으로 오퍼레이션을 끝내세요."},
    "sync_revisions": {"en": "After the fix commit, automated sync brings src-waves to it; compare status.sync.revision and "
                             "status.operationState with `git log` on bare main.",
                       "ja": "修正コミットの後、自動同期が src-waves をそのコミットに合わせます。status.sync.revision と "
                             "status.operationState を、ベアリポジトリの main の `git log` と比べてください。",
                       "ko": "수정 커밋 이후 자동 동기화가 src-waves를 그 커밋으로 맞춥니다. status.sync.revision과 "
                             "status.operationState를 베어 저장소 main의 `git log`와 비교하세요."},
    "operation_in_flight": {"en": "Argo CD is still applying this revision: let the operation finish, then run `lab check "
                                  "{check_step}` again in a minute.",
                            "ja": "Argo CD はこのリビジョンをまだ適用中です。オペレーションが終わるまで 1 分ほど待ってから `lab "
                                  "check {check_step}` をもう一度実行してください。",
                            "ko": "Argo CD가 아직 이 리비전을 적용 중입니다. 오퍼레이션이 끝나도록 1분쯤 기다린 뒤 `lab check "
                                  "{check_step}` 명령을 다시 실행하세요."},
    "ignore_differences": {"en": "ignoreDifferences only hides the field from the diff; RespectIgnoreDifferences=true also "
                                 "keeps a sync from overwriting it. Keep automated.selfHeal: true.",
                           "ja": "ignoreDifferences は差分の比較から外すだけです。RespectIgnoreDifferences=true にすると、同期で"
                                 "も上書きしません。automated.selfHeal: true はそのままにしてください。",
                           "ko": "ignoreDifferences는 차이 비교에서만 제외합니다. RespectIgnoreDifferences=true여야 동기화 때도"
                                 " 덮어쓰지 않습니다. automated.selfHeal: true는 그대로 두세요."},
    "managed_fields": {"en": "Run `kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` and find the entry "
                             "whose fieldsV1 has f:spec → f:replicas; use its manager.",
                       "ja": "`kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` で、fieldsV1 の f:spec の"
                             "下に f:replicas を持つ managedFields のエントリを探し、その manager を使ってください。",
                       "ko": "`kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` 출력에서 fieldsV1의 "
                             "f:spec 아래 f:replicas를 가진 managedFields 엔트리를 찾아 그 manager를 쓰세요."},
}


