"""Learner-facing messages and hints in English, Japanese and Korean.

Checks return a message key and parameters; this module renders them. Values the learner
wrote (`expected`, `found`) are shown as JSON so that "3" and 3 look different.
"""

from __future__ import annotations

import json

LANGUAGES = ("en", "ja", "ko")

# {key: (en, ja, ko)}; placeholders are str.format fields filled from the check's params.
MESSAGES = {
    "ok": ("OK", "OK", "OK"),
    "value_ok": ("{what} is {found}", "{what} は {found} で正しい", "{what} 값 {found} 이(가) 맞습니다"),
    "value_mismatch": ("{what}: expected {expected}, found {found}",
                       "{what}: 期待値 {expected}、実際は {found}",
                       "{what}: 기대값 {expected}, 실제값 {found}"),
    "live_disagrees": ("{what}: you recorded {recorded}, but the live cluster shows {found} (expected {expected})",
                       "{what}: 記録は {recorded} だが、クラスターの実際の値は {found}(期待値 {expected})",
                       "{what}: 기록은 {recorded} 이지만 클러스터의 실제 값은 {found} 입니다 (기대값 {expected})"),
    "wrong_type": ("{what}: the JSON type must be {expected_type}, found {found_type} ({found})",
                   "{what}: JSON の {expected_type} が必要だが、{found_type}({found})が書かれている",
                   "{what}: JSON {expected_type} 이어야 하는데 {found_type} ({found}) 입니다"),
    "missing_key": ("{what}: the key \"{key}\" is missing", "{what}: キー \"{key}\" がない",
                    "{what}: 키 \"{key}\" 가 없습니다"),
    "empty_not_null": ("{what}: the label is absent, so the value must be JSON null, not \"\"",
                       "{what}: ラベルがないので、値は \"\" ではなく JSON の null にする",
                       "{what}: 레이블이 없으므로 값은 \"\" 가 아니라 JSON null 이어야 합니다"),
    "inconsistent_evidence": ("{what} contradicts {other} (found {found}, expected {expected})",
                              "{what} が {other} と矛盾している(実際は {found}、期待値 {expected})",
                              "{what} 이(가) {other} 와 모순됩니다 (실제 {found}, 기대값 {expected})"),
    "file_missing": ("{path} does not exist", "{path} がない", "{path} 가 없습니다"),
    "file_empty": ("{path} is empty", "{path} が空", "{path} 가 비어 있습니다"),
    "file_too_large": ("{path} is too large to be an evidence file ({detail})",
                       "{path} が大きすぎる({detail})", "{path} 가 너무 큽니다 ({detail})"),
    "file_binary": ("{path} is not UTF-8 text", "{path} が UTF-8 のテキストではない",
                    "{path} 가 UTF-8 텍스트가 아닙니다"),
    "file_outside": ("{path} points outside the workspace ({detail})",
                     "{path} がワークスペースの外を指している({detail})",
                     "{path} 가 작업 공간 밖을 가리킵니다 ({detail})"),
    "file_not_regular": ("{path} is not a regular file", "{path} が通常のファイルではない",
                         "{path} 가 일반 파일이 아닙니다"),
    "file_unreadable": ("{path} cannot be read: {detail}", "{path} を読めない: {detail}",
                        "{path} 를 읽을 수 없습니다: {detail}"),
    "file_invalid_json": ("{path} is not valid JSON: {detail}", "{path} が正しい JSON ではない: {detail}",
                          "{path} 가 올바른 JSON 이 아닙니다: {detail}"),
    "file_invalid_yaml": ("{path} is not valid YAML: {detail}", "{path} が正しい YAML ではない: {detail}",
                          "{path} 가 올바른 YAML 이 아닙니다: {detail}"),
    "no_application_in_file": ("no Application named {name} in the file (found {found})",
                               "ファイルに Application {name} がない(見つかったもの: {found})",
                               "파일에 Application {name} 가 없습니다 (발견: {found})"),
    "spec_ok": ("{what} has the expected source, destination and sync policy",
                "{what} のソース・宛先・同期ポリシーは正しい", "{what} 의 소스, 대상, 동기화 정책이 맞습니다"),
    "spec_mismatch": ("{what}: fields differ (field: expected / found): {details}",
                      "{what}: 違うフィールドがある(フィールド: 期待値 / 実際): {details}",
                      "{what}: 다른 필드가 있습니다 (필드: 기대값 / 실제): {details}"),
    "value_files_ok": ("{what} valueFiles is [values-prod.yaml]", "{what} の valueFiles は [values-prod.yaml]",
                       "{what} 의 valueFiles 는 [values-prod.yaml]"),
    "value_files_repo_root": ("{what}: valueFiles {found} is written from the repository root; "
                              "it is relative to the chart directory, so write {expected}",
                              "{what}: valueFiles {found} はリポジトリのルート基準になっている。"
                              "チャートのディレクトリが基準なので {expected} と書く",
                              "{what}: valueFiles {found} 가 저장소 루트 기준입니다. "
                              "차트 디렉터리가 기준이므로 {expected} 로 써야 합니다"),
    "live_app_missing": ("Application {name} does not exist in namespace argocd",
                         "Application {name} が argocd ネームスペースにない",
                         "Application {name} 가 argocd 네임스페이스에 없습니다"),
    "app_synced_healthy": ("Application {name} is Synced and Healthy", "Application {name} は Synced かつ Healthy",
                           "Application {name} 는 Synced 이고 Healthy 입니다"),
    "app_not_synced_healthy": ("Application {name} is {sync} / {health}, expected Synced / Healthy",
                               "Application {name} は {sync} / {health}。Synced / Healthy が必要",
                               "Application {name} 는 {sync} / {health} 입니다. Synced / Healthy 여야 합니다"),
    "app_converging": ("Application {name} is still converging ({sync} / {health}); graded as seen",
                       "Application {name} はまだ収束中({sync} / {health})。見えた状態で採点した",
                       "Application {name} 가 아직 수렴 중입니다 ({sync} / {health}). 본 상태로 채점했습니다"),
    "rollout_in_progress": ("{what} is still rolling out: {found}", "{what} はまだロールアウト中: {found}",
                            "{what} 가 아직 롤아웃 중입니다: {found}"),
    "blocked_by": ("blocked by step {step}: {reason_text}", "ステップ {step} が終わっていないため確認できない: {reason_text}",
                   "단계 {step} 가 끝나지 않아 확인할 수 없습니다: {reason_text}"),
    "live_object_missing": ("{what} does not exist in the cluster", "{what} がクラスターにない",
                            "{what} 가 클러스터에 없습니다"),
    "live_objects_missing": ("not in namespace {namespace} yet: {what}", "{namespace} ネームスペースにまだない: {what}",
                             "{namespace} 네임스페이스에 아직 없습니다: {what}"),
    "live_object_missing_named": ("{kind} {namespace}/{name} does not exist in the cluster",
                                  "{kind} {namespace}/{name} がクラスターにない",
                                  "{kind} {namespace}/{name} 가 클러스터에 없습니다"),
    "git_dir_missing": ("{path} is not in bare main", "bare の main に {path} がない", "bare main 에 {path} 가 없습니다"),
    "failed_commit_unknown": ("failed-hook.json does not name a commit on bare main",
                              "failed-hook.json が bare main のコミットを指していない",
                              "failed-hook.json 이 bare main 의 커밋을 가리키지 않습니다"),
    "live_values_ok": ("{what} is as expected: {found}", "{what} は期待どおり: {found}", "{what} 가 기대대로입니다: {found}"),
    "live_values_mismatch": ("{what}: expected {expected}, found {found}", "{what}: 期待値 {expected}、実際は {found}",
                             "{what}: 기대값 {expected}, 실제값 {found}"),
    "repo_ok": ("{path} is a bare repository with branch main", "{path} は main ブランチを持つベアリポジトリ",
                "{path} 는 main 브랜치가 있는 베어 저장소입니다"),
    "repo_missing": ("{path} does not exist", "{path} がない", "{path} 가 없습니다"),
    "repo_not_a_repo": ("{path} is not a git repository", "{path} が git リポジトリではない",
                        "{path} 가 git 저장소가 아닙니다"),
    "repo_not_bare": ("{path} is not a bare repository (create it with git init --bare)",
                      "{path} がベアリポジトリではない(git init --bare で作る)",
                      "{path} 가 베어 저장소가 아닙니다 (git init --bare 로 만드세요)"),
    "repo_no_branch": ("{path} has no branch main (branches: {detail})", "{path} に main ブランチがない(ブランチ: {detail})",
                       "{path} 에 main 브랜치가 없습니다 (브랜치: {detail})"),
    "repo_unreadable": ("{path} cannot be read: {detail}", "{path} を読めない: {detail}", "{path} 를 읽을 수 없습니다: {detail}"),
    "clone_missing": ("{path} does not exist", "{path} がない", "{path} 가 없습니다"),
    "clone_not_a_clone": ("{path} is not a git clone ({detail})", "{path} が git のクローンではない({detail})",
                          "{path} 가 git 클론이 아닙니다 ({detail})"),
    "clone_unreadable": ("{path}/.git/config cannot be read: {detail}", "{path}/.git/config を読めない: {detail}",
                         "{path}/.git/config 를 읽을 수 없습니다: {detail}"),
    "origin_ok": ("{path} has origin {found}", "{path} の origin は {found}", "{path} 의 origin 은 {found}"),
    "origin_mismatch": ("{path}: origin is {found}, expected {expected}", "{path}: origin が {found}。期待値 {expected}",
                        "{path}: origin 이 {found} 입니다. 기대값 {expected}"),
    "git_file_missing": ("{path} is not in bare main", "bare の main に {path} がない", "bare main 에 {path} 가 없습니다"),
    "git_file_invalid": ("{path} in bare main cannot be parsed: {detail}", "bare main の {path} を解析できない: {detail}",
                         "bare main 의 {path} 를 해석할 수 없습니다: {detail}"),
    "git_values_ok": ("{path} in bare main is as expected", "bare main の {path} は期待どおり",
                      "bare main 의 {path} 가 기대대로입니다"),
    "git_values_mismatch": ("{path} in bare main: expected {expected}, found {found}",
                            "bare main の {path}: 期待値 {expected}、実際は {found}",
                            "bare main 의 {path}: 기대값 {expected}, 실제값 {found}"),
    "git_object_missing": ("no {kind} {name} under {path} in bare main", "bare main の {path} に {kind} {name} がない",
                           "bare main 의 {path} 에 {kind} {name} 가 없습니다"),
    "template_ok": ("{path} renders the expected object", "{path} は期待するオブジェクトを生成する",
                    "{path} 가 기대한 오브젝트를 만듭니다"),
    "template_missing": ("no template in charts/web/templates renders {kind} {name}",
                         "charts/web/templates に {kind} {name} を生成するテンプレートがない",
                         "charts/web/templates 에 {kind} {name} 를 만드는 템플릿이 없습니다"),
    "template_incomplete": ("{path} does not use {missing}", "{path} が {missing} を使っていない",
                            "{path} 가 {missing} 를 사용하지 않습니다"),
    "tracking_method_ok": ("your evidence matches the tracking method in force ({method})",
                           "記録は有効な追跡方式({method})と一致している",
                           "기록이 적용 중인 추적 방식 ({method}) 과 일치합니다"),
    "tracking_method_mismatch": ("the tracking method in force is {method}; it writes {expected}, you recorded {found}",
                                 "有効な追跡方式は {method}。書かれる値は {expected} だが、記録は {found}",
                                 "적용 중인 추적 방식은 {method} 입니다. 기록되어야 할 값은 {expected}, 기록은 {found}"),
    "argocd_cm_missing": ("ConfigMap argocd-cm is missing in {namespace}: the Argo CD install is broken",
                          "{namespace} に ConfigMap argocd-cm がない: Argo CD のインストールが壊れている",
                          "{namespace} 에 ConfigMap argocd-cm 가 없습니다: Argo CD 설치가 깨졌습니다"),
    "override_in_git": ("the 1.28 override is committed under kust/ ({paths}); it must live in the Application",
                        "kust/ に 1.28 の上書きがコミットされている({paths})。Application に書く",
                        "kust/ 에 1.28 덮어쓰기가 커밋되어 있습니다 ({paths}). Application 에 있어야 합니다"),
    "override_not_in_git": ("nothing under kust/ mentions 1.28", "kust/ のどこにも 1.28 はない",
                            "kust/ 어디에도 1.28 이 없습니다"),
    "hook_name_format": ("waves.json hook_job {found} is not a name Argo CD generates ({expected})",
                         "waves.json の hook_job {found} は Argo CD が生成する名前ではない({expected})",
                         "waves.json hook_job {found} 는 Argo CD 가 만드는 이름이 아닙니다 ({expected})"),
    "hook_commit_unknown": ("waves.json hook_job {found}: {sha7} is not a commit on bare main",
                            "waves.json の hook_job {found}: {sha7} は bare main のコミットではない",
                            "waves.json hook_job {found}: {sha7} 는 bare main 의 커밋이 아닙니다"),
    "hook_name_time": ("waves.json hook_job {found} started at {started}, but hook_created is {created}",
                       "waves.json の hook_job {found} の開始時刻は {started} だが hook_created は {created}",
                       "waves.json hook_job {found} 의 시작 시각은 {started} 이지만 hook_created 는 {created}"),
    "not_rfc3339": ("{what} {found} is not an RFC 3339 timestamp with a time zone",
                    "{what} {found} はタイムゾーン付きの RFC 3339 時刻ではない",
                    "{what} {found} 는 시간대가 있는 RFC 3339 시각이 아닙니다"),
    "hook_after_settings": ("the PreSync hook was created after ConfigMap settings: {found}",
                            "PreSync フックが ConfigMap settings より後に作られている: {found}",
                            "PreSync 훅이 ConfigMap settings 보다 나중에 만들어졌습니다: {found}"),
    "hook_before_settings": ("the PreSync hook was created before ConfigMap settings",
                             "PreSync フックは ConfigMap settings より前に作られた",
                             "PreSync 훅이 ConfigMap settings 보다 먼저 만들어졌습니다"),
    "hook_job_gone": ("the hook Job is no longer in the cluster, which is fine",
                      "フックの Job はもうクラスターにない(問題ない)", "훅 Job 이 클러스터에 더 이상 없습니다 (문제없음)"),
    "wave_order_ok": ("creation times follow the waves: {found}", "作成時刻はウェーブの順: {found}",
                      "생성 시각이 웨이브 순서를 따릅니다: {found}"),
    "wave_order_wrong": ("creation times do not follow the waves ({expected}): {found}",
                         "作成時刻がウェーブの順になっていない({expected}): {found}",
                         "생성 시각이 웨이브 순서가 아닙니다 ({expected}): {found}"),
    "not_full_sha": ("failed-hook.json commit must be a full 40-character SHA, found {found}",
                     "failed-hook.json の commit は 40 文字の完全な SHA にする。実際は {found}",
                     "failed-hook.json commit 은 40자 전체 SHA 여야 합니다. 실제값 {found}"),
    "commit_not_on_main": ("commit {found} is not on bare main", "コミット {found} は bare main にない",
                           "커밋 {found} 가 bare main 에 없습니다"),
    "failed_commit_ok": ("commit {sha} changes mode to green and breaks the hook in one commit",
                         "コミット {sha} は 1 つで mode を green にしフックを壊している",
                         "커밋 {sha} 가 한 커밋에서 mode 를 green 으로 바꾸고 훅을 깨뜨립니다"),
    "failed_commit_split": ("commit {sha} makes only one of the two changes; both belong in one commit: {found}",
                            "コミット {sha} には 2 つの変更の片方しかない。1 つのコミットにまとめる: {found}",
                            "커밋 {sha} 에는 두 변경 중 하나만 있습니다. 한 커밋에 둘 다 있어야 합니다: {found}"),
    "failed_commit_wrong": ("commit {sha} does not change mode to green nor break the hook: {found}",
                            "コミット {sha} は mode を green にもせず、フックも壊していない: {found}",
                            "커밋 {sha} 는 mode 를 green 으로 바꾸지도, 훅을 깨뜨리지도 않습니다: {found}"),
    "phase_recorded_during_retry": ("phase Running was recorded while the operation was still going (the hook Job "
                                    "retrying its pod, or a retry wait); wait until the operation ends Failed",
                                    "phase Running は処理の途中(フックの Job が Pod を再試行中、またはリトライ待ち)に"
                                    "記録された値。処理が Failed で終わるまで待つ",
                                    "phase Running 은 작업 도중(훅 Job 이 Pod 를 재시도하는 중이거나 재시도 대기 중)에 "
                                    "기록된 값입니다. 작업이 Failed 로 끝날 때까지 기다리세요"),
    "fix_commit_ok": ("commit {sha} restores the migrate command and keeps mode green",
                      "コミット {sha} は migrate のコマンドを戻し mode は green のまま",
                      "커밋 {sha} 가 migrate 명령을 되돌리고 mode 는 green 으로 유지합니다"),
    "fix_commit_missing": ("no commit after the failing one restores `echo migrate ok` with mode green: {found}",
                           "失敗コミットの後に、mode green のまま `echo migrate ok` に戻したコミットがない: {found}",
                           "실패 커밋 이후에 mode green 을 유지하며 `echo migrate ok` 로 되돌린 커밋이 없습니다: {found}"),
    "revisions_synced": ("sync, operation and result revisions are at {sha} (the fix) or later on bare main",
                         "sync・処理・結果の revision は {sha}(修正コミット)以降の bare main のコミット",
                         "sync, 작업, 결과 revision 이 {sha} (수정 커밋) 이후의 bare main 커밋입니다"),
    "revisions_behind": ("revisions must be {sha} (the fix) or a later commit on bare main: {found}",
                         "revision は {sha}(修正コミット)以降の bare main のコミットでなければならない: {found}",
                         "revision 은 {sha} (수정 커밋) 이후의 bare main 커밋이어야 합니다: {found}"),
    "retrying_failed_revision": ("the operation still retries the failed revision {sha} (phase {phase}); "
                                 "the app may look Synced, but the new commit is not applied",
                                 "処理がまだ失敗した revision {sha} をリトライしている(phase {phase})。"
                                 "Synced に見えても新しいコミットは適用されていない",
                                 "작업이 아직 실패한 revision {sha} 를 재시도하고 있습니다 (phase {phase}). "
                                 "Synced 로 보여도 새 커밋은 적용되지 않았습니다"),
    "respect_ignore_missing": ("{what}: ignoreDifferences is set but syncOptions lacks RespectIgnoreDifferences=true",
                               "{what}: ignoreDifferences はあるが syncOptions に RespectIgnoreDifferences=true がない",
                               "{what}: ignoreDifferences 는 있지만 syncOptions 에 RespectIgnoreDifferences=true 가 없습니다"),
    "time_in_future": ("the times are in the future: {found}", "時刻が未来になっている: {found}",
                       "시각이 미래입니다: {found}"),
    "waited_too_short": ("checked_at - scaled_at is {waited} s; wait at least 40 s",
                         "checked_at - scaled_at が {waited} 秒。40 秒以上待つ",
                         "checked_at - scaled_at 가 {waited} 초입니다. 40 초 이상 기다리세요"),
    "waited_ok": ("you waited {waited} s after scaling", "scale の後 {waited} 秒待った", "scale 후 {waited} 초 기다렸습니다"),
    "replicas_not_scaled": ("f:spec.f:replicas of prod-api is owned by {found}, expected {expected}",
                            "prod-api の f:spec.f:replicas の所有者は {found}。期待値 {expected}",
                            "prod-api 의 f:spec.f:replicas 소유자가 {found} 입니다. 기대값 {expected}"),
    "cluster_unreadable": ("the cluster could not be read ({kind}: {detail})",
                           "クラスターを読めなかった({kind}: {detail})", "클러스터를 읽을 수 없었습니다 ({kind}: {detail})"),
    "grader_bug": ("the grader failed on this check: {detail}", "この項目の採点に失敗した: {detail}",
                   "이 항목 채점에 실패했습니다: {detail}"),
}

HINTS = {
    "bare_repo": ("Create the server-side repo with `git init --bare /srv/bare/src.git`, clone it to "
                  "/root/capa-src/repo and push branch main.",
                  "`git init --bare /srv/bare/src.git` でサーバー側のリポジトリを作り、/root/capa-src/repo に"
                  "クローンして main を push する。",
                  "`git init --bare /srv/bare/src.git` 로 서버 측 저장소를 만들고 /root/capa-src/repo 에 "
                  "클론한 뒤 main 을 push 하세요."),
    "helm_chart": ("Argo CD treats a path with Chart.yaml as a Helm chart; values come from values.yaml and the "
                   "templates reference them as .Values.<key>.",
                   "Chart.yaml があるパスは Helm チャートとして扱われる。テンプレートは .Values.<キー> で値を参照する。",
                   "Chart.yaml 이 있는 경로는 Helm 차트로 처리됩니다. 템플릿은 .Values.<키> 로 값을 참조합니다."),
    "application_manifest": ("Check the Application file against the lab: repoURL, targetRevision main, path, "
                             "destination namespace, syncPolicy.automated and CreateNamespace=true.",
                             "Application ファイルを確認する: repoURL、targetRevision main、path、宛先ネームスペース、"
                             "syncPolicy.automated、CreateNamespace=true。",
                             "Application 파일을 확인하세요: repoURL, targetRevision main, path, 대상 네임스페이스, "
                             "syncPolicy.automated, CreateNamespace=true."),
    "application_apply": ("Apply the file with `kubectl apply -n argocd -f <file>` and compare with "
                          "`kubectl -n argocd get app <name> -o yaml`.",
                          "`kubectl apply -n argocd -f <ファイル>` で適用し、`kubectl -n argocd get app <名前> -o yaml` "
                          "と比べる。",
                          "`kubectl apply -n argocd -f <파일>` 로 적용하고 `kubectl -n argocd get app <이름> -o yaml` "
                          "과 비교하세요."),
    "app_sync_health": ("Look at status.sync, status.health and status.conditions of the Application; "
                        "`argocd.argoproj.io/refresh=hard` makes Argo CD read git again.",
                        "Application の status.sync・status.health・status.conditions を見る。"
                        "`argocd.argoproj.io/refresh=hard` で Git を読み直させる。",
                        "Application 의 status.sync, status.health, status.conditions 를 보세요. "
                        "`argocd.argoproj.io/refresh=hard` 로 Git 을 다시 읽게 할 수 있습니다."),
    "value_files_relative": ("helm.valueFiles paths are relative to the chart directory (spec.source.path), "
                             "not to the repository root.",
                             "helm.valueFiles のパスはリポジトリのルートではなく、"
                             "チャートのディレクトリ(spec.source.path)が基準。",
                             "helm.valueFiles 경로는 저장소 루트가 아니라 차트 디렉터리(spec.source.path) 기준입니다."),
    "helm_precedence": ("Argo CD runs `helm template`: parameters (--set) beat valuesObject, which beats "
                        "valueFiles, which beat the chart's values.yaml. Read the live objects, do not guess.",
                        "Argo CD は `helm template` を実行する。parameters(--set)> valuesObject > valueFiles > "
                        "チャートの values.yaml。推測せず、クラスターの実際の値を読む。",
                        "Argo CD 는 `helm template` 을 실행합니다. parameters(--set) > valuesObject > valueFiles > "
                        "차트의 values.yaml. 추측하지 말고 클러스터의 실제 값을 읽으세요."),
    "helm_template_only": ("Argo CD only renders charts; it never runs helm install, so no "
                           "helm.sh/release.v1 Secret is created.",
                           "Argo CD はチャートをレンダリングするだけで helm install はしないため、"
                           "helm.sh/release.v1 の Secret はできない。",
                           "Argo CD 는 차트를 렌더링만 하고 helm install 은 하지 않으므로 "
                           "helm.sh/release.v1 Secret 은 만들어지지 않습니다."),
    "resource_tracking": ("Read the live ConfigMap with `kubectl -n src-helm get cm src-helm-greeting -o yaml`; "
                          "the tracking method is argocd-cm application.resourceTrackingMethod "
                          "(annotation by default in v3).",
                          "`kubectl -n src-helm get cm src-helm-greeting -o yaml` で実物を読む。追跡方式は argocd-cm の "
                          "application.resourceTrackingMethod(v3 のデフォルトは annotation)。",
                          "`kubectl -n src-helm get cm src-helm-greeting -o yaml` 로 실제 오브젝트를 읽으세요. "
                          "추적 방식은 argocd-cm 의 application.resourceTrackingMethod (v3 기본값은 annotation)."),
    "null_not_missing": ("An absent label is written as JSON null: \"instance_label\": null.",
                         "ラベルがないときは JSON の null と書く: \"instance_label\": null。",
                         "레이블이 없으면 JSON null 로 씁니다: \"instance_label\": null."),
    "json_types": ("Write numbers without quotes (4, not \"4\"), booleans as true/false, and Unix seconds as integers.",
                   "数値は引用符なし(\"4\" ではなく 4)、真偽値は true/false、Unix 秒は整数で書く。",
                   "숫자는 따옴표 없이 (\"4\" 가 아니라 4), 불리언은 true/false, Unix 초는 정수로 쓰세요."),
    "evidence_files": ("Write the evidence file in the workspace as a JSON object with the keys the step asks for.",
                       "証拠ファイルは、ステップが求めるキーを持つ JSON オブジェクトとしてワークスペースに書く。",
                       "증거 파일은 단계에서 요구하는 키를 가진 JSON 오브젝트로 작업 공간에 쓰세요."),
    "kustomize_layout": ("kust/base holds Deployment api and a kustomization; kust/overlays/prod points at "
                         "../../base with namePrefix prod- and a replicas entry for api.",
                         "kust/base に Deployment api と kustomization、kust/overlays/prod は ../../base を指し、"
                         "namePrefix prod- と api の replicas を持つ。",
                         "kust/base 에 Deployment api 와 kustomization, kust/overlays/prod 는 ../../base 를 가리키고 "
                         "namePrefix prod- 와 api 의 replicas 항목을 가집니다."),
    "kustomize_images": ("spec.source.kustomize.images is applied by Argo CD with `kustomize edit set image` "
                         "right before rendering: the 1.28 tag lives in the Application, not in git.",
                         "spec.source.kustomize.images は Argo CD がレンダリング直前に `kustomize edit set image` で"
                         "適用する。1.28 は Git ではなく Application にある。",
                         "spec.source.kustomize.images 는 Argo CD 가 렌더링 직전에 `kustomize edit set image` 로 "
                         "적용합니다. 1.28 은 Git 이 아니라 Application 에 있습니다."),
    "sync_waves": ("Within a phase Argo CD applies lower waves first and waits until a wave is Healthy "
                   "before the next one; record times from the live objects' creationTimestamp.",
                   "同じ段階の中では小さいウェーブから適用し、Healthy になるまで次のウェーブに進まない。"
                   "時刻は実物の creationTimestamp から記録する。",
                   "같은 단계 안에서는 작은 웨이브부터 적용하고 Healthy 가 될 때까지 다음 웨이브로 가지 않습니다. "
                   "시각은 실제 오브젝트의 creationTimestamp 에서 기록하세요."),
    "sync_hooks": ("A generateName hook is named generateName + <7 hex of the commit>-presync-<start unix time>; "
                   "copy the name of the Job that ran for your commit.",
                   "generateName のフックの名前は generateName + <コミットの 7 桁>-presync-<開始 Unix 時刻>。"
                   "自分のコミットで実行された Job の名前を写す。",
                   "generateName 훅의 이름은 generateName + <커밋 7자리>-presync-<시작 Unix 시각> 입니다. "
                   "자신의 커밋으로 실행된 Job 이름을 옮겨 쓰세요."),
    "failed_hook_commit": ("Step 6 needs one commit that both sets mode: green and makes migrate exit 1, "
                           "then a later commit that restores only the migrate command.",
                           "ステップ 6 は、mode: green とフックの exit 1 を 1 つのコミットにまとめ、"
                           "その後 migrate のコマンドだけを戻す別のコミットが必要。",
                           "6단계는 mode: green 과 migrate 의 exit 1 을 한 커밋에 담고, 이후 migrate 명령만 "
                           "되돌리는 커밋이 필요합니다."),
    "hook_failed_phase": ("When a PreSync hook fails, the Sync phase never starts: status.operationState.phase "
                          "ends Failed and ConfigMap settings keeps its old mode.",
                          "PreSync フックが失敗すると Sync 段階は始まらない。status.operationState.phase は Failed で終わり、"
                          "ConfigMap settings の mode は古いまま。",
                          "PreSync 훅이 실패하면 Sync 단계는 시작되지 않습니다. status.operationState.phase 는 Failed 로 "
                          "끝나고 ConfigMap settings 의 mode 는 그대로입니다."),
    "retry_blocks_new_commits": ("An automated sync retries the failed revision (5 times by default) and a new "
                                 "commit waits; check status.operationState.operation.sync.revision and end it "
                                 "with `argocd app terminate-op src-waves --core`.",
                                 "自動同期は失敗した revision を(デフォルトで 5 回)リトライし、新しいコミットは待たされる。"
                                 "status.operationState.operation.sync.revision を確認し、"
                                 "`argocd app terminate-op src-waves --core` で終わらせる。",
                                 "자동 동기화는 실패한 revision 을 (기본 5회) 재시도하고 새 커밋은 기다립니다. "
                                 "status.operationState.operation.sync.revision 을 확인하고 "
                                 "`argocd app terminate-op src-waves --core` 로 끝내세요."),
    "ignore_differences": ("ignoreDifferences only hides the field from the diff; RespectIgnoreDifferences=true "
                           "also keeps a sync from overwriting it. Keep automated.selfHeal: true.",
                           "ignoreDifferences は比較から外すだけ。RespectIgnoreDifferences=true で同期時も上書きしない。"
                           "automated.selfHeal: true は維持する。",
                           "ignoreDifferences 는 비교에서만 제외합니다. RespectIgnoreDifferences=true 여야 동기화 때도 "
                           "덮어쓰지 않습니다. automated.selfHeal: true 는 유지하세요."),
    "managed_fields": ("Run `kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` and find the "
                       "entry whose fieldsV1 has f:spec → f:replicas; use its manager.",
                       "`kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` で、fieldsV1 の "
                       "f:spec の下に f:replicas を持つ項目を探し、その manager を使う。",
                       "`kubectl -n src-kust get deploy prod-api --show-managed-fields -o json` 에서 fieldsV1 의 "
                       "f:spec 아래 f:replicas 를 가진 항목을 찾아 그 manager 를 쓰세요."),
}

BLOCKED_REASONS = {"live_app_missing", "live_object_missing", "git_dir_missing", "failed_commit_unknown"}


def pick(texts, lang):
    """One language's text from a {lang: text} dict or an (en, ja, ko) tuple."""
    if isinstance(texts, dict):
        return texts.get(lang) or texts["en"]
    index = LANGUAGES.index(lang) if lang in LANGUAGES else 0
    return texts[index]


def show(value):
    """A value as JSON, so that the string "3" and the number 3 look different."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


class _Params(dict):
    def __missing__(self, key):
        return "{" + key + "}"


def message(key, params, lang):
    template = MESSAGES.get(key)
    if template is None:
        return f"{key}: {show(params)}"
    values = _Params({k: show(v) if k in ("expected", "found") else _text(v) for k, v in params.items()})
    if key == "blocked_by":
        reason = params.get("reason")
        values["reason_text"] = message(reason, params, lang) if reason in BLOCKED_REASONS else _text(reason)
    return pick(template, lang).format_map(values)


def _text(value):
    if isinstance(value, str):
        return value
    return show(value)


def hint(key, lang):
    texts = HINTS.get(key)
    return pick(texts, lang) if texts else ""


def plain(params):
    """Parameters made JSON-safe for the report."""
    return json.loads(json.dumps(params, default=str))
