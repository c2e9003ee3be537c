"""cgoa-ci's own step titles, messages and hints (en, ja, ko); the shared ones are in i18n.py."""

from __future__ import annotations

STEP_TITLES = {  # what the learner builds in each step
    1: {"en": "Application ci-web deploying deploy/ from git, with prune and selfHeal",
        "ja": "Git の deploy/ をデプロイする Application ci-web（prune・selfHeal 付き）",
        "ko": "Git의 deploy/를 배포하는 Application ci-web (prune, selfHeal 포함)"},
    2: {"en": "A replicas: two commit that git accepts and Argo CD cannot apply (broken.json)",
        "ja": "Git は受け入れ、Argo CD は適用できない replicas: two のコミット（broken.json）",
        "ko": "Git은 받아들이지만 Argo CD는 적용하지 못하는 replicas: two 커밋 (broken.json)"},
    3: {"en": "A CI ServiceAccount that cannot write prod", "ja": "本番に書き込めない CI 用 ServiceAccount",
        "ko": "prod에 쓰기 권한이 없는 CI 서비스 계정"},
    4: {"en": "validate.sh: a server-side dry run of the manifests as the CI ServiceAccount",
        "ja": "validate.sh: CI 用 ServiceAccount でマニフェストを API サーバーにドライランする",
        "ko": "validate.sh: CI 서비스 계정으로 매니페스트를 API 서버에서 드라이런"},
    5: {"en": "A pre-receive hook on the bare repository that rejects a bad push to main",
        "ja": "main への不正な push を拒否する、ベアリポジトリの pre-receive フック",
        "ko": "main으로 가는 잘못된 push를 거부하는 베어 저장소의 pre-receive 훅"},
    6: {"en": "The typo push the hook rejected, and main reset to origin (blocked.txt)",
        "ja": "フックに拒否された誤字の push と、origin に合わせた main（blocked.txt）",
        "ko": "훅이 거부한 오타 push와 origin에 맞춘 main (blocked.txt)"},
    7: {"en": "bump.sh: CI commits the image tag to git, Argo CD deploys it",
        "ja": "bump.sh: CI がイメージタグを Git にコミットし、Argo CD がデプロイする",
        "ko": "bump.sh: CI가 이미지 태그를 Git에 커밋하고 Argo CD가 배포"},
    8: {"en": "report.json: who writes where", "ja": "report.json: 誰がどこに書くか", "ko": "report.json: 누가 어디에 쓰는가"},
}


MESSAGES = {  # this lab's own; the shared ones are in i18n.py
    "first_web_commit_ok": {"en": "the first commit adding deploy/web.yaml ({sha}) has the baseline Deployment",
                            "ja": "deploy/web.yaml を追加した最初のコミット（{sha}）の Deployment は基準どおりです",
                            "ko": "deploy/web.yaml을 추가한 첫 커밋({sha})의 Deployment가 기준과 같습니다"},
    "first_web_commit_wrong": {"en": "the first commit adding deploy/web.yaml ({sha}) differs: expected {expected}, found "
                                     "{found}",
                               "ja": "deploy/web.yaml を追加した最初のコミット（{sha}）が基準と違います。期待値は {expected}、実"
                                     "際は {found} です",
                               "ko": "deploy/web.yaml을 추가한 첫 커밋이 기준과 다릅니다({sha}). 기댓값은 {expected}, 실제 값은"
                                     " {found}입니다"},
    "first_web_commit_missing": {"en": "no commit on bare main adds deploy/web.yaml",
                                 "ja": "ベアリポジトリの main に deploy/web.yaml を追加したコミットがありません",
                                 "ko": "베어 저장소의 main에 deploy/web.yaml을 추가한 커밋이 없습니다"},
    "sync_status_other_diff": {"en": "broken.json sync_status: {found} is what a server-side diff reports, and Application "
                                     "{name} does not diff on the server (no ServerSideDiff=true in its "
                                     "argocd.argoproj.io/compare-options): with the default diff Argo CD reports OutOfSync",
                               "ja": "broken.json の sync_status: {found} はサーバー側で差分を計算したときの結果です。"
                                     "Application {name} はサーバー側で差分を計算していません（"
                                     "argocd.argoproj.io/compare-options に ServerSideDiff=true がありません）。既定の差分計算で"
                                     "は Argo CD は OutOfSync と表示します",
                               "ko": "broken.json sync_status: {found} 값은 서버 측에서 차이를 계산할 때의 결과입니다. {name} "
                                     "Application은 서버 측에서 차이를 계산하지 않습니다(argocd.argoproj.io/compare-options에 "
                                     "ServerSideDiff=true가 없음). 기본 차이 계산에서는 Argo CD가 OutOfSync로 표시합니다"},
    "broken_commit_ok": {"en": "commit {sha} is on bare main and sets replicas to the string \"two\"",
                         "ja": "コミット {sha} はベアリポジトリの main にあり、replicas を文字列 \"two\" にしています",
                         "ko": "{sha} 커밋은 베어 저장소의 main에 있고 replicas를 문자열 \"two\"로 바꿉니다"},
    "broken_commit_not_string": {"en": "commit {sha}: deploy/web.yaml spec.replicas is {found}, expected the string \"two\"",
                                 "ja": "コミット {sha}: deploy/web.yaml の spec.replicas は {found} です。文字列 \"two\" である"
                                       "必要があります",
                                 "ko": "{sha} 커밋: deploy/web.yaml의 spec.replicas 값이 {found}입니다. 문자열 \"two\"여야 합니"
                                       "다"},
    "operation_message_ok": {"en": "the recorded message is Argo CD's apply failure: {found}",
                             "ja": "記録したメッセージは Argo CD の適用失敗のメッセージです: {found}",
                             "ko": "기록한 메시지는 Argo CD의 적용 실패 메시지입니다: {found}"},
    "operation_message_wrong": {"en": "broken.json operation_message {found} is not the message of a failed apply of replicas "
                                      "(status.operationState.message)",
                                "ja": "broken.json の operation_message {found} は、replicas の適用に失敗したときのメッセージ（"
                                      "status.operationState.message）ではありません",
                                "ko": "broken.json의 operation_message 값 {found}: replicas 적용에 실패했을 때의 메시지"
                                      "(status.operationState.message)가 아닙니다"},
    "revert_ok": {"en": "commit {sha} restores deploy/web.yaml of the broken commit's parent",
                  "ja": "コミット {sha} は、壊れたコミットの親の deploy/web.yaml に戻しています",
                  "ko": "{sha} 커밋이 깨진 커밋의 부모 커밋의 deploy/web.yaml로 되돌립니다"},
    "revert_missing": {"en": "no commit after {sha} on bare main restores deploy/web.yaml of its parent (use git revert; do not "
                             "rewrite history)",
                       "ja": "ベアリポジトリの main で、{sha} の後にその親の deploy/web.yaml に戻したコミットがありません（履歴"
                             "を書き換えず、git revert を使ってください）",
                       "ko": "베어 저장소의 main에서 {sha} 커밋 이후에 그 부모 커밋의 deploy/web.yaml로 되돌린 커밋이 없습니다("
                             "이력을 고쳐 쓰지 말고 git revert를 쓰세요)"},
    "app_at_head": {"en": "Application {name} is Synced and Healthy at bare main's head {sha}",
                    "ja": "Application {name} は、ベアリポジトリの main の最新コミット {sha} で Synced かつ Healthy です",
                    "ko": "{name} Application이 베어 저장소 main의 최신 커밋 {sha}에서 Synced, Healthy 상태입니다"},
    "app_not_at_head": {"en": "Application {name} is at {found}, expected Synced / Healthy at bare main's head {sha}",
                        "ja": "Application {name} は {found} です。ベアリポジトリの main の最新コミット {sha} で Synced / "
                              "Healthy になる必要があります",
                        "ko": "{name} Application의 상태가 {found}입니다. 베어 저장소 main의 최신 커밋 {sha}에서 Synced / "
                              "Healthy 상태여야 합니다"},
    "broken_still_retrying": {"en": "the operation of {name} still retries the broken commit {sha} (phase {phase}); new commits "
                                    "wait until it ends",
                              "ja": "{name} の同期オペレーションが、まだ壊れたコミット {sha} をリトライしています（フェーズ "
                                    "{phase}）。このオペレーションが終わるまで、新しいコミットは同期されません",
                              "ko": "{name}의 동기화 오퍼레이션이 아직 깨진 커밋 {sha}의 재시도를 계속하고 있습니다 (페이즈 "
                                    "{phase}). 이 오퍼레이션이 끝날 때까지 새 커밋은 동기화되지 않습니다"},
    "no_broken_retry": {"en": "no operation of {name} retries the broken commit",
                        "ja": "{name} に、壊れたコミットをリトライするオペレーションはありません",
                        "ko": "{name}에 깨진 커밋을 재시도하는 오퍼레이션이 없습니다"},
    "rbac_object_ok": {"en": "{what} is as the lab asks", "ja": "{what} は指示どおりです", "ko": "{what}: 지시한 대로입니다"},
    "rbac_object_missing": {"en": "{what} does not exist", "ja": "{what} がありません", "ko": "{what} 리소스가 없습니다"},
    "rbac_object_wrong": {"en": "{what}: expected {expected}, found {found}",
                          "ja": "{what}: 期待値は {expected} ですが、実際は {found} です",
                          "ko": "{what}: 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "access_ok": {"en": "the API server answers as expected for ci:validator: {found}",
                  "ja": "ci:validator についての API サーバーの判定は期待どおりです: {found}",
                  "ko": "ci:validator에 대한 API 서버의 판정이 기대한 대로입니다: {found}"},
    "access_wrong": {"en": "the API server's answers for ci:validator differ (question: expected / answer): {details}",
                     "ja": "ci:validator についての API サーバーの判定が違います（質問: 期待値 / 回答）: {details}",
                     "ko": "ci:validator에 대한 API 서버의 판정이 다릅니다 (질문: 기댓값 / 응답): {details}"},
    "kubeconfig_ok": {"en": "{what} is as expected: {found}",
                      "ja": "{what} は期待どおりです: {found}",
                      "ko": "{what}: 기대한 대로입니다 ({found})"},
    "kubeconfig_wrong": {"en": "{what}: expected {expected}, found {found}",
                         "ja": "{what}: 期待値は {expected} ですが、実際は {found} です",
                         "ko": "{what}: 기댓값은 {expected}, 실제 값은 {found}입니다"},
    # {problem} names the file (ClusterError reasons start with where in the kubeconfig they are)
    "kubeconfig_unreadable": {"en": "{problem}: it cannot be used as a kubeconfig",
                              "ja": "{problem}。kubeconfig として使えません",
                              "ko": "{problem}. kubeconfig로 쓸 수 없습니다"},
    "admin_kubeconfig_unreadable": {"en": "the VM's admin kubeconfig cannot be read: {detail}",
                                    "ja": "VM の管理者用 kubeconfig を読めません: {detail}",
                                    "ko": "VM의 관리자 kubeconfig를 읽을 수 없습니다: {detail}"},
    "token_user_wrong": {"en": "the API server authenticates the token as {found}, expected {expected}",
                         "ja": "API サーバーはトークンを {found} として認証しました。{expected} である必要があります",
                         "ko": "API 서버가 토큰을 {found} 사용자로 인증했습니다. 기대한 사용자는 {expected}입니다"},
    "kubeconfig_identity_ok": {"en": "the API server authenticates ci-kubeconfig as a whole as {found}",
                               "ja": "API サーバーは ci-kubeconfig 全体を {found} として認証しました",
                               "ko": "API 서버가 ci-kubeconfig 전체를 {found} 사용자로 인증했습니다"},
    "kubeconfig_identity_wrong": {"en": "the API server authenticates ci-kubeconfig as a whole as {found} (groups {groups}), "
                                        "expected {expected}: its user holds {credentials} beside the token, kubectl sends them "
                                        "all, and a client certificate is authenticated before a token",
                                  "ja": "API サーバーは ci-kubeconfig 全体を {found}（グループ {groups}）として認証しました。"
                                        "{expected} である必要があります。ユーザーにはトークンのほかに {credentials} があり、"
                                        "kubectl はすべてを送ります。クライアント証明書はトークンより先に認証されます",
                                  "ko": "API 서버가 ci-kubeconfig 전체를 {found}(그룹 {groups}) 사용자로 인증했습니다. 기대한 "
                                        "사용자는 {expected}입니다. 사용자 설정에 토큰 외에 {credentials}이(가) 있고 kubectl은 "
                                        "모두 보냅니다. 클라이언트 인증서는 토큰보다 먼저 인증됩니다"},
    "kubeconfig_whoami_failed": {"en": "`kubectl auth whoami --kubeconfig ci-kubeconfig` failed: {output}",
                                 "ja": "`kubectl auth whoami --kubeconfig ci-kubeconfig` が失敗しました: {output}",
                                 "ko": "`kubectl auth whoami --kubeconfig ci-kubeconfig` 명령이 실패했습니다: {output}"},
    "token_rejected": {"en": "the API server does not authenticate the token: {reason}",
                       "ja": "API サーバーはトークンを認証しませんでした: {reason}",
                       "ko": "API 서버가 토큰을 인증하지 않았습니다: {reason}"},
    # (never "bearer" before a word in a message: the scrubber redacts "Bearer <anything>")
    "token_missing": {"en": "{path} has no user token in its current context",
                      "ja": "{path} の現在のコンテキストにトークンがありません",
                      "ko": "{path} 파일의 현재 컨텍스트에 토큰이 없습니다"},
    "token_lifetime_ok": {"en": "the token lives {found} s (8 hours)",
                          "ja": "トークンの有効期間は {found} 秒（8 時間）です",
                          "ko": "토큰의 유효 기간은 {found}초(8시간)입니다"},
    "token_lifetime_wrong": {"en": "the token lives {found} s (exp - iat), expected {expected} s (8 hours)",
                             "ja": "トークンの有効期間は {found} 秒（exp - iat）です。{expected} 秒（8 時間）である必要がありま"
                                   "す",
                             "ko": "토큰의 유효 기간이 {found}초(exp - iat)입니다. {expected}초(8시간)여야 합니다"},
    "token_not_jwt": {"en": "the token is not a JWT with iat and exp",
                      "ja": "トークンは iat と exp を持つ JWT ではありません",
                      "ko": "토큰이 iat와 exp를 가진 JWT가 아닙니다"},
    "script_ok": {"en": "{path} exists and is executable",
                  "ja": "{path} があり、実行可能です",
                  "ko": "{path} 파일이 있고 실행 가능합니다"},
    "script_not_executable": {"en": "{path} is not executable (chmod +x)",
                              "ja": "{path} は実行可能ではありません（`chmod +x`）",
                              "ko": "{path} 파일이 실행 가능하지 않습니다 (`chmod +x`)"},
    "probe_ok": {"en": "{script} {what}: exit code {returncode}",
                 "ja": "{script} は期待どおりに動作しました（{what}、終了コード {returncode}）",
                 "ko": "{script} 스크립트가 기대한 대로 동작했습니다 ({what}, 종료 코드 {returncode})"},
    "probe_wrong": {"en": "{script} {what}, but exited with code {returncode}: {output}",
                    "ja": "{script} の終了コードは {returncode} で、期待する動作（{what}）と違います: {output}",
                    "ko": "{script} 스크립트의 종료 코드 {returncode}: 기대한 동작과 다릅니다({what}). 출력: {output}"},
    "probe_mixed_ok": {"en": "{script} rejects every folder with one good and one bad manifest ({cases}): exit codes {codes}",
                       "ja": "{script} は正しいマニフェストと誤ったマニフェストが混ざったフォルダーをすべて拒否しました（{cases}"
                             "、終了コード {codes}）",
                       "ko": "{script} 스크립트가 올바른 매니페스트와 잘못된 매니페스트가 섞인 폴더를 모두 거부했습니다"
                             "({cases}, 종료 코드 {codes})"},
    "validate_needs_kubeconfig_env": {"en": "validate.sh accepts a valid Deployment only when KUBECONFIG names {kubeconfig}: "
                                            "with KUBECONFIG={bogus} it exited with code {returncode}; name the CI kubeconfig "
                                            "in the script itself (kubectl --kubeconfig {kubeconfig})",
                                      "ja": "validate.sh が正しい Deployment を受け入れるのは KUBECONFIG が {kubeconfig} を指す"
                                            "ときだけです。KUBECONFIG={bogus} では終了コード {returncode} でした。スクリプト自身"
                                            "で CI の kubeconfig を指定してください（kubectl --kubeconfig {kubeconfig}）",
                                      "ko": "validate.sh는 KUBECONFIG가 가리키는 파일이 {kubeconfig} 파일일 때만 올바른 "
                                            "Deployment를 받아들입니다. KUBECONFIG={bogus} 상태의 종료 코드는 {returncode}입니"
                                            "다. 스크립트에서 직접 CI kubeconfig를 지정하세요(kubectl --kubeconfig "
                                            "{kubeconfig})."},
    "validate_needs_workspace_cwd": {"en": "validate.sh accepts a valid Deployment only when it runs in {workspace}: run in "
                                           "{cwd} it exited with code {returncode}; name the CI kubeconfig by its absolute path "
                                           "or relative to the script (`$(dirname \"$0\")`), not to the working directory (the "
                                           "pre-receive hook runs it in the bare repository)",
                                     "ja": "validate.sh が正しい Deployment を受け入れるのは {workspace} で実行したときだけで"
                                           "す。{cwd} で実行すると終了コード {returncode} でした。CI の kubeconfig は絶対パス"
                                           "か、スクリプトからの相対パス（`$(dirname \"$0\")`）で指定してください。作業ディレク"
                                           "トリからの相対パスは使えません（pre-receive フックはベアリポジトリで実行します）",
                                     "ko": "validate.sh는 {workspace} 디렉터리에서 실행할 때만 올바른 Deployment를 받아들입니다"
                                           ". {cwd} 디렉터리에서 실행한 종료 코드는 {returncode}입니다. CI kubeconfig는 절대 경"
                                           "로나 스크립트 기준 상대 경로(`$(dirname \"$0\")`)로 지정하세요. 현재 디렉터리 기준 "
                                           "상대 경로는 안 됩니다(pre-receive 훅은 베어 저장소에서 실행합니다)."},
    "probe_cut_short": {"en": "{script} was stopped ({reason}) before it could show that it {what}",
                        "ja": "{script} は止められました（{reason}）。次を確認できませんでした: {what}",
                        "ko": "{script} 스크립트가 중단되었습니다 ({reason}). 다음을 확인하지 못했습니다: {what}"},
    "broken_not_in_history": {"en": "no commit on bare main sets deploy/web.yaml replicas to the string \"two\" (the broken "
                                    "commit must stay in the history: revert it, do not rewrite it)",
                              "ja": "ベアリポジトリの main に、deploy/web.yaml の replicas を文字列 \"two\" にしたコミットがあり"
                                    "ません（壊れたコミットは履歴に残し、書き換えずに revert してください）",
                              "ko": "베어 저장소의 main에 deploy/web.yaml의 replicas를 문자열 \"two\"로 바꾼 커밋이 없습니다(깨"
                                    "진 커밋은 이력에 남기고, 고쳐 쓰지 말고 revert하세요)"},
    "validate_refuses_valid": {"en": "validate.sh does not accept a valid Deployment, so no gate built on it can",
                               "ja": "validate.sh が正しい Deployment を受け入れないため、それを使うゲートも受け入れられません",
                               "ko": "validate.sh가 올바른 Deployment를 받아들이지 않으므로 그것을 쓰는 게이트도 받아들일 수 없"
                                     "습니다"},
    "broken_commit_unknown": {"en": "broken.json does not name a commit on bare main",
                              "ja": "broken.json がベアリポジトリの main のコミットを指していません",
                              "ko": "broken.json이 베어 저장소 main의 커밋을 가리키지 않습니다"},
    "validate_accepts_typo": {"en": "validate.sh accepts the misspelled field replica:, so no gate built on it refuses it",
                              "ja": "validate.sh が誤字のフィールド replica: を受け入れるため、それを使うゲートも拒否できません",
                              "ko": "validate.sh가 오타 필드 replica:를 받아들이므로 그것을 쓰는 게이트도 거부할 수 없습니다"},
    "bump_commit_unknown": {"en": "no commit \"ci: web nginx:1.28-alpine\" on bare main",
                            "ja": "ベアリポジトリの main にコミット「ci: web nginx:1.28-alpine」がありません",
                            "ko": "베어 저장소의 main에 \"ci: web nginx:1.28-alpine\" 커밋이 없습니다"},
    # What a probe checks, and why a run was cut short: phrases inside the probe messages.
    "phrase_probe_valid": {"en": "accepts a valid Deployment",
                           "ja": "正しい Deployment の受け入れ",
                           "ko": "올바른 Deployment 수락"},
    "phrase_probe_string_replicas": {"en": "rejects replicas: two", "ja": "replicas: two の拒否", "ko": "replicas: two 거부"},
    "phrase_probe_unknown_field": {"en": "rejects the misspelled field replica:",
                                   "ja": "誤字のフィールド replica: の拒否",
                                   "ko": "오타 필드 replica: 거부"},
    "phrase_probe_own_kubeconfig": {"en": "accepts a valid Deployment with KUBECONFIG={bogus} and no ~/.kube, so with the "
                                          "kubeconfig it names itself",
                                    "ja": "KUBECONFIG={bogus} で ~/.kube もない状態、つまりスクリプト自身が指定する kubeconfig "
                                          "での正しい Deployment の受け入れ",
                                    "ko": "KUBECONFIG={bogus}이고 ~/.kube가 없는 상태, 즉 스크립트가 직접 지정한 kubeconfig로 "
                                          "올바른 Deployment 수락"},
    "phrase_probe_server_only": {"en": "rejects a Deployment whose selector does not match its template's labels (only the API "
                                       "server rejects it: validate on the server, --dry-run=server)",
                                 "ja": "`spec.selector` がテンプレートのラベルと一致しない Deployment の拒否（拒否するのは API "
                                       "サーバーだけなので、--dry-run=server でサーバー側の検証が必要）",
                                 "ko": "`spec.selector`가 템플릿 레이블과 맞지 않는 Deployment 거부(API 서버만 거부하므로 "
                                       "--dry-run=server로 서버에서 검증 필요)"},
    "phrase_probe_mixed_files": {"en": "rejects a folder with a bad {bad} beside a good {good}",
                                 "ja": "正しい {good} と誤った {bad} があるフォルダーの拒否",
                                 "ko": "올바른 {good} 파일과 잘못된 {bad} 파일이 있는 폴더 거부"},
    "phrase_probe_typo_main": {"en": "rejects a push to main with replica:",
                               "ja": "replica: を含む main への push の拒否",
                               "ko": "replica: 가 든 main push 거부"},
    "phrase_probe_valid_main": {"en": "accepts a valid push to main",
                                "ja": "main への正しい push の受け入れ",
                                "ko": "main 으로의 올바른 push 수락"},
    "phrase_probe_delete_main": {"en": "rejects deleting main", "ja": "main の削除の拒否", "ko": "main 삭제 거부"},
    "phrase_probe_other_branch": {"en": "accepts a push to another branch",
                                  "ja": "別のブランチへの push の受け入れ",
                                  "ko": "다른 브랜치로의 push 수락"},
    "phrase_probe_delete_branch": {"en": "accepts deleting another branch",
                                   "ja": "別のブランチの削除の受け入れ",
                                   "ko": "다른 브랜치 삭제 수락"},
    "phrase_probe_main_lookalikes": {"en": "accepts a push with replica: to branches whose names contain main (mainline, maint, "
                                           "feature/main-fix, hotfix/main)",
                                     "ja": "名前に main を含むブランチ（`mainline`、`maint`、`feature/main-fix`、`hotfix/main`）"
                                           "への replica: を含む push の受け入れ",
                                     "ko": "이름에 main이 든 브랜치(`mainline`, `maint`, `feature/main-fix`, `hotfix/main`)로의"
                                           " replica: 가 든 push 수락"},
    "phrase_probe_typo_any_manifest": {"en": "rejects a push to main with replica: in a .yml or .json manifest of deploy/",
                                       "ja": "deploy/ の .yml または .json のマニフェストに replica: を含む main への push の拒"
                                             "否",
                                       "ko": "deploy/ 의 .yml 또는 .json 매니페스트에 replica: 가 든 main push 거부"},
    "phrase_probe_typo_yml": {"en": "rejects a push to main with replica: in deploy/api.yml",
                              "ja": "deploy/api.yml に replica: を含む main への push の拒否",
                              "ko": "deploy/api.yml에 replica: 가 든 main push 거부"},
    "phrase_probe_typo_json": {"en": "rejects a push to main with replica: in deploy/api.json",
                               "ja": "deploy/api.json に replica: を含む main への push の拒否",
                               "ko": "deploy/api.json에 replica: 가 든 main push 거부"},
    "phrase_probe_every_ref": {"en": "rejects a push of main with replica: and another branch at once, main on the first or the "
                                     "second line of stdin",
                               "ja": "replica: を含む main と別のブランチを 1 回で送る push の拒否（main が標準入力の 1 行目でも"
                                     " 2 行目でも）",
                               "ko": "replica: 가 든 main과 다른 브랜치를 한 번에 보내는 push 거부(main이 표준 입력의 첫째 줄이"
                                     "든 둘째 줄이든)"},
    "phrase_probe_typo_main_second": {"en": "rejects a push of another branch and of main with replica: at once (main on the "
                                            "second line of stdin)",
                                      "ja": "別のブランチと replica: を含む main を 1 回で送る push の拒否（main は標準入力の 2 "
                                            "行目）",
                                      "ko": "다른 브랜치와 replica: 가 든 main을 한 번에 보내는 push 거부(main은 표준 입력의 둘"
                                            "째 줄)"},
    "phrase_probe_typo_main_first": {"en": "rejects a push of main with replica: and of another branch at once (main on the "
                                           "first line of stdin)",
                                     "ja": "replica: を含む main と別のブランチを 1 回で送る push の拒否（main は標準入力の 1 行"
                                           "目）",
                                     "ko": "replica: 가 든 main과 다른 브랜치를 한 번에 보내는 push 거부(main은 표준 입력의 첫"
                                           "째 줄)"},
    # What a kubeconfig check compares (fills {what} of kubeconfig_ok / kubeconfig_wrong).
    "phrase_ci_kubeconfig_parts": {"en": "ci-kubeconfig (cluster of k3s / namespace / token)",
                                   "ja": "ci-kubeconfig（k3s のクラスター / ネームスペース / トークン）",
                                   "ko": "ci-kubeconfig (k3s 클러스터 / 네임스페이스 / 토큰)"},
    "phrase_argocd_kubeconfig_parts": {"en": "kubeconfig (a copy of k3s's / namespace)",
                                       "ja": "kubeconfig（k3s の kubeconfig のコピー / ネームスペース）",
                                       "ko": "kubeconfig (k3s kubeconfig의 사본 / 네임스페이스)"},
    # One wrong answer of the API server (a part of access_wrong's {details}).
    "phrase_access_answer": {"en": "{verb} {resource} in {namespace}: {wanted} / {answer}",
                             "ja": "{namespace} での {resource} の {verb}: {wanted} / {answer}",
                             "ko": "{namespace}에서 {resource} {verb}: {wanted} / {answer}"},
    "phrase_access_answer_all": {"en": "{verb} {resource} in all namespaces: {wanted} / {answer}",
                                 "ja": "全ネームスペースでの {resource} の {verb}: {wanted} / {answer}",
                                 "ko": "모든 네임스페이스에서 {resource} {verb}: {wanted} / {answer}"},
    "phrase_access_answer_cluster": {"en": "{verb} {resource} (cluster-scoped): {wanted} / {answer}",
                                     "ja": "クラスター全体の {resource} の {verb}: {wanted} / {answer}",
                                     "ko": "클러스터 범위 {resource} {verb}: {wanted} / {answer}"},
    # What the role check compares (fills {what} of rbac_grants).
    "phrase_role_grants": {"en": "Role ci-dryrun/dryrun-deployments (what its rules allow on deployments.apps)",
                           "ja": "Role ci-dryrun/dryrun-deployments（ルールが deployments.apps に許可する動詞）",
                           "ko": "Role ci-dryrun/dryrun-deployments (규칙이 deployments.apps에 허용하는 동사)"},
    "phrase_not_runnable": {"en": "{file} is missing or not executable",
                            "ja": "{file} がないか、実行可能ではありません",
                            "ko": "{file} 파일이 없거나 실행 가능하지 않습니다"},
    "phrase_no_output": {"en": "(no output)", "ja": "（出力なし）", "ko": "(출력 없음)"},
    "phrase_timed_out": {"en": "timed out", "ja": "制限時間切れ", "ko": "제한 시간 초과"},
    "phrase_flooded": {"en": "printed too much", "ja": "出力過多", "ko": "출력 과다"},
    "phrase_no_reason": {"en": "no reason given", "ja": "理由の記載なし", "ko": "이유 없음"},
    "probe_not_run": {"en": "{script} was not run: {reason}",
                      "ja": "{script} は実行されませんでした: {reason}",
                      "ko": "{script} 스크립트가 실행되지 않았습니다: {reason}"},
    "probe_objects_none": {"en": "no probe object exists in {namespace}: validate.sh created nothing",
                           "ja": "{namespace} にプローブのオブジェクトはありません。validate.sh は何も作成していません",
                           "ko": "{namespace} 네임스페이스에 프로브 오브젝트가 없습니다. validate.sh는 아무것도 만들지 않았습니"
                                 "다"},
    "probe_objects_created": {"en": "validate.sh really created or changed {found} in {namespace} while it was run (not a dry "
                                    "run)",
                              "ja": "validate.sh は実行中に {namespace} の {found} を実際に作成または変更しました（dry-run では"
                                    "ありません）",
                              "ko": "validate.sh가 실행 중에 {namespace} 네임스페이스의 {found} 리소스를 실제로 만들거나 바꿨습"
                                    "니다(dry-run이 아닙니다)"},
    "sandbox_unavailable": {"en": "the grader cannot run learner programs on this VM: {detail}",
                            "ja": "この VM では採点側が受講者のプログラムを実行できません: {detail}",
                            "ko": "이 VM에서는 채점기가 수강생의 프로그램을 실행할 수 없습니다: {detail}"},
    "transcript_ok": {"en": "blocked.txt holds git's rejection of main by the pre-receive hook",
                      "ja": "blocked.txt には、pre-receive フックが main を拒否した git の出力があります",
                      "ko": "blocked.txt에 pre-receive 훅이 main을 거부한 git 출력이 있습니다"},
    "transcript_incomplete": {"en": "blocked.txt lacks {missing}: save the whole output of the rejected git push",
                              "ja": "blocked.txt に {missing} がありません。拒否された git push の出力全体を保存してください",
                              "ko": "blocked.txt에 다음이 없습니다: {missing}. 거부된 git push의 출력 전체를 저장하세요"},
    "typo_on_main": {"en": "commits on bare main have a replica: key in deploy/web.yaml: {found}",
                     "ja": "ベアリポジトリの main に、deploy/web.yaml に replica: キーを持つコミットがあります: {found}",
                     "ko": "베어 저장소의 main에 deploy/web.yaml에 replica: 키가 있는 커밋이 있습니다: {found}"},
    "no_typo_on_main": {"en": "no commit on bare main has a replica: key in deploy/web.yaml",
                        "ja": "ベアリポジトリの main に、replica: キーを持つコミットはありません",
                        "ko": "베어 저장소의 main에 replica: 키가 있는 커밋이 없습니다"},
    "clone_main_ok": {"en": "the clone's main equals origin/main ({found})",
                      "ja": "クローンの main は origin/main と同じです（{found}）",
                      "ko": "클론의 main이 origin/main과 같습니다 ({found})"},
    "clone_main_differs": {"en": "the clone's main differs from origin/main: {found} (git reset --hard origin/main)",
                           "ja": "クローンの main が origin/main と違います: {found}（`git reset --hard origin/main`）",
                           "ko": "클론의 main이 origin/main과 다릅니다: {found} (`git reset --hard origin/main`)"},
    # bump.sh as its run in the sandbox showed it (step7_delivery.bump_script).
    "bump_ok": {"en": "bump.sh <tag> (run with a tag chosen by the grader) pushed one commit \"ci: web nginx:<tag>\" on the "
                      "remote's current main that sets only the web container's image to nginx:<tag>, and called no cluster tool",
                "ja": "bump.sh <タグ>（タグは採点側が選んで実行）は、リモートの最新の main の上にコミット「ci: web nginx:<タグ>"
                      "」を 1 つ push し、web コンテナのイメージだけを nginx:<タグ> に変えました。クラスターのツールは呼んでいま"
                      "せん",
                "ko": "bump.sh <태그> 실행(태그는 채점 쪽이 골라서 실행)이 리모트의 최신 main 위에 \"ci: web nginx:<태그>\" 커"
                      "밋 하나를 push해 web 컨테이너의 이미지만 nginx:<태그> 값으로 바꿨고, 클러스터 도구는 호출하지 않았습니다"},
    "bump_cut_short": {"en": "bump.sh {tag} was stopped ({reason}) before it finished",
                       "ja": "bump.sh {tag} は終わる前に止められました（{reason}）",
                       "ko": "bump.sh {tag} 실행이 끝나기 전에 중단되었습니다 ({reason})"},
    "bump_called_cluster": {"en": "bump.sh {tag} called {calls}: CI writes git only, Argo CD deploys (a stand-in recorded the "
                                  "call; nothing reached a cluster)",
                            "ja": "bump.sh {tag} が {calls} を呼びました。CI は Git にだけ書き、デプロイは Argo CD が行います（"
                                  "呼び出しは代わりのコマンドが記録し、クラスターには届いていません）",
                            "ko": "bump.sh {tag} 실행이 {calls} 명령을 호출했습니다. CI는 Git에만 쓰고 배포는 Argo CD가 합니다 "
                                  "(호출은 대신 놓은 명령이 기록했고 클러스터에는 닿지 않았습니다)"},
    "bump_pushed_elsewhere": {"en": "bump.sh {tag} left the remote's main where it was and updated {refs}: push to main",
                              "ja": "bump.sh {tag} はリモートの main を変えず、{refs} を更新しました。main に push してください",
                              "ko": "bump.sh {tag} 실행이 리모트의 main은 그대로 두고 {refs} 참조를 갱신했습니다. main에 push하"
                                    "세요"},
    "bump_not_pushed": {"en": "bump.sh {tag} pushed nothing to the remote's main (exit code {returncode}; output: {output})",
                        "ja": "bump.sh {tag} はリモートの main に何も push しませんでした（終了コード {returncode}、出力: "
                              "{output}）",
                        "ko": "bump.sh {tag} 실행이 리모트의 main에 아무것도 push하지 않았습니다 (종료 코드 {returncode}, 출력"
                              ": {output})"},
    "bump_main_gone": {"en": "after bump.sh {tag} the remote has no main branch any more (exit code {returncode}; output: "
                             "{output})",
                       "ja": "bump.sh {tag} のあと、リモートに main ブランチがありません（終了コード {returncode}、出力: "
                             "{output}）",
                       "ko": "bump.sh {tag} 실행 뒤 리모트에 main 브랜치가 없습니다 (종료 코드 {returncode}, 출력: {output})"},
    "bump_stale_base": {"en": "bump.sh {tag} committed on the clone's old main {clone} and overwrote the remote's main "
                              "{remote}, which had moved ahead: fetch and start from origin/main",
                        "ja": "bump.sh {tag} はクローンの古い main {clone} の上にコミットし、先に進んでいたリモートの main "
                              "{remote} を上書きしました。リモートの main を取り込んでから origin/main から始めてください",
                        "ko": "bump.sh {tag} 실행이 클론의 오래된 main({clone} 커밋) 위에 커밋하고, 앞서 나간 리모트의 main"
                              "({remote} 커밋)을 덮어썼습니다. 리모트의 main을 받아 온 뒤 origin/main에서 시작하세요"},
    "bump_wrong_base": {"en": "the commit bump.sh {tag} pushed has the parents {parents}, expected only the remote's current "
                              "main {remote}: one commit on top of origin/main",
                        "ja": "bump.sh {tag} が push したコミットの親は {parents} です。親はリモートの最新の main {remote} だけ"
                              "である必要があります（origin/main の上にコミット 1 つ）",
                        "ko": "bump.sh {tag} 실행이 push한 커밋의 부모는 {parents}입니다. 부모는 리모트의 최신 main {remote} 하"
                              "나여야 합니다 (origin/main 위에 커밋 하나)"},
    "bump_web_broken": {"en": "deploy/web.yaml of the commit bump.sh {tag} pushed no longer parses as YAML with Deployment web",
                        "ja": "bump.sh {tag} が push したコミットの deploy/web.yaml は、Deployment web を含む YAML として読めな"
                              "くなっています",
                        "ko": "bump.sh {tag} 실행이 push한 커밋의 deploy/web.yaml을 Deployment web이 있는 YAML로 읽을 수 없습니"
                              "다"},
    "bump_wrong_image": {"en": "bump.sh {tag} set the web container's image to {image}, expected nginx:{tag} (the tag given as "
                               "$1)",
                         "ja": "bump.sh {tag} は web コンテナのイメージを {image} にしました。$1 で渡したタグの nginx:{tag} であ"
                               "る必要があります",
                         "ko": "bump.sh {tag} 실행이 web 컨테이너의 이미지를 {image}(으)로 바꿨습니다. $1로 넘긴 태그의 "
                               "nginx:{tag} 값이어야 합니다"},
    "bump_changed_more": {"en": "bump.sh {tag} changed more than the web container's image in deploy/web.yaml: {paths}",
                          "ja": "bump.sh {tag} は deploy/web.yaml で web コンテナのイメージ以外も変えました: {paths}",
                          "ko": "bump.sh {tag} 실행이 deploy/web.yaml에서 web 컨테이너의 이미지 말고도 바꿨습니다: {paths}"},
    "bump_wrong_message": {"en": "bump.sh {tag} committed with the message {found}, expected \"ci: web nginx:{tag}\"",
                           "ja": "bump.sh {tag} のコミットメッセージは {found} です。「ci: web nginx:{tag}」である必要があります",
                           "ko": "bump.sh {tag} 실행의 커밋 메시지는 {found}입니다. \"ci: web nginx:{tag}\" 메시지여야 합니다"},
    "bump_exit_nonzero": {"en": "bump.sh {tag} pushed the right commit but exited with code {returncode}: a CI job would be "
                                "reported failed",
                          "ja": "bump.sh {tag} は正しいコミットを push しましたが、終了コード {returncode} で終わりました。CI の"
                                "ジョブは失敗と報告されます",
                          "ko": "bump.sh {tag} 실행이 올바른 커밋을 push했지만 종료 코드 {returncode}(으)로 끝났습니다. CI에서"
                                "는 실패로 보고됩니다"},
    "bump_commit_ok": {"en": "commit {sha} \"ci: web nginx:1.28-alpine\" sets the image to nginx:1.28-alpine",
                       "ja": "コミット {sha}「ci: web nginx:1.28-alpine」はイメージを nginx:1.28-alpine にしています",
                       "ko": "{sha} 커밋(\"ci: web nginx:1.28-alpine\")이 이미지를 nginx:1.28-alpine으로 바꿉니다"},
    "bump_commit_missing": {"en": "no commit on bare main has the message \"ci: web nginx:1.28-alpine\" and image "
                                  "nginx:1.28-alpine (found: {found})",
                            "ja": "ベアリポジトリの main に、メッセージが「ci: web nginx:1.28-alpine」でイメージが "
                                  "nginx:1.28-alpine のコミットがありません（見つかったもの: {found}）",
                            "ko": "베어 저장소의 main에 메시지가 \"ci: web nginx:1.28-alpine\"이고 이미지가 nginx:1.28-alpine인"
                                  " 커밋이 없습니다 (찾은 것: {found})"},
    "revision_ok": {"en": "Application {name} is Synced and Healthy at {sha} or later",
                    "ja": "Application {name} は {sha} 以降のコミットで Synced かつ Healthy です",
                    "ko": "{name} Application이 {sha} 커밋 이후에서 Synced, Healthy 상태입니다"},
    "revision_behind": {"en": "Application {name} is at {found}, expected Synced / Healthy at {sha} or a later commit",
                        "ja": "Application {name} は {found} です。{sha} 以降のコミットで Synced / Healthy になる必要があります",
                        "ko": "{name} Application의 상태가 {found}입니다. {sha} 커밋 이후에서 Synced / Healthy 상태여야 합니다"},
}

HINTS = {
    "ci_baseline": {"en": "deploy/web.yaml: Deployment web without a namespace, replicas 2, label app: web, one container web "
                          "with image nginx:1.27-alpine, committed and pushed to main.",
                    "ja": "deploy/web.yaml には、ネームスペースの指定（namespace）なし、replicas 2、ラベル app: web、コンテナ "
                          "web（イメージ nginx:1.27-alpine）の Deployment web を書き、main に push してください。",
                    "ko": "deploy/web.yaml에 네임스페이스 지정(namespace) 없이 replicas 2, 레이블 app: web, 컨테이너 web(이미지"
                          " nginx:1.27-alpine)인 Deployment web을 쓰고 main에 push하세요."},
    "ci_application": {"en": "Application ci-web: project default, source path deploy at main of the gitd URL, destination "
                             "namespace ci-web, automated with prune and selfHeal, syncOptions CreateNamespace=true.",
                       "ja": "Application ci-web は、project default、gitd の URL の main の deploy パス、宛先ネームスペース "
                             "ci-web、自動同期（prune・selfHeal）、syncOptions CreateNamespace=true にしてください。",
                       "ko": "Application ci-web은 project default, gitd URL의 main의 deploy 경로, 대상 네임스페이스 ci-web, 자"
                             "동 동기화(prune, selfHeal), syncOptions CreateNamespace=true로 하세요."},
    "ci_broken": {"en": "Record what Argo CD showed about 20 s after the hard refresh: the full commit SHA, status.sync.status, "
                        "status.operationState.message and the live Deployment's spec.replicas (a number).",
                  "ja": "hard refresh の約 20 秒後に見えた値を記録してください: 完全なコミット SHA、status.sync.status、"
                        "status.operationState.message、実際の Deployment の spec.replicas（数値）。",
                  "ko": "hard refresh 후 약 20초 뒤에 보인 값을 기록하세요: 전체 커밋 SHA, status.sync.status, "
                        "status.operationState.message, 실제 Deployment의 spec.replicas(숫자)."},
    "ci_revert": {"en": "Undo the broken commit with `git revert <sha>` and push: the history keeps the mistake and its fix.",
                  "ja": "`git revert <SHA>` で壊れたコミットを取り消して push してください。履歴にミスと修正の両方が残ります。",
                  "ko": "`git revert <SHA>` 명령으로 깨진 커밋을 취소하고 push하세요. 이력에 실수와 수정이 모두 남습니다."},
    "ci_terminate": {"en": "While status.operationState.operation.sync.revision is the broken commit and the phase is Running, "
                           "end it: `argocd app terminate-op ci-web --core` with {workspace}/kubeconfig (namespace "
                           "{argocd_namespace}).",
                     "ja": "status.operationState.operation.sync.revision が壊れたコミットで、フェーズが Running の間は、"
                           "{workspace}/kubeconfig（ネームスペース {argocd_namespace}）で `argocd app terminate-op ci-web "
                           "--core` を実行してオペレーションを終わらせてください。",
                     "ko": "status.operationState.operation.sync.revision이 깨진 커밋이고 페이즈가 Running인 동안에는 "
                           "{workspace}/kubeconfig(네임스페이스 {argocd_namespace}) 파일로 `argocd app terminate-op ci-web "
                           "--core` 명령을 실행해 오퍼레이션을 끝내세요."},
    "ci_argocd_kubeconfig": {"en": "`argocd ... --core` reads Argo CD's namespace from the kubeconfig's current context: copy "
                                   "the k3s kubeconfig to {workspace}/kubeconfig and run `kubectl config --kubeconfig "
                                   "{workspace}/kubeconfig set-context --current --namespace={argocd_namespace}`.",
                             "ja": "`argocd ... --core` は、kubeconfig の現在のコンテキストのネームスペースから Argo CD を探しま"
                                   "す。k3s の kubeconfig を {workspace}/kubeconfig にコピーし、`kubectl config --kubeconfig "
                                   "{workspace}/kubeconfig set-context --current --namespace={argocd_namespace}` を実行してくだ"
                                   "さい。",
                             "ko": "`argocd ... --core`는 kubeconfig의 현재 컨텍스트의 네임스페이스에서 Argo CD를 찾습니다. "
                                   "k3s kubeconfig를 {workspace}/kubeconfig로 복사하고 `kubectl config --kubeconfig "
                                   "{workspace}/kubeconfig set-context --current --namespace={argocd_namespace}` 명령을 실행하"
                                   "세요."},
    "ci_rbac": {"en": "Role dryrun-deployments in ci-dryrun allows get, create, patch on deployments (apiGroups [apps]) and "
                      "nothing more: no delete, no other kind, no other namespace, no ClusterRoleBinding; RoleBinding "
                      "validator-dryrun binds it to ServiceAccount validator in ci. Check with `kubectl auth can-i ... --as "
                      "system:serviceaccount:ci:validator`.",
                "ja": "ci-dryrun の Role dryrun-deployments は deployments（apiGroups [apps]）に get・create・patch だけを許可し"
                      "ます。`delete`、ほかの種類、ほかのネームスペース、ClusterRoleBinding は不要です。RoleBinding "
                      "validator-dryrun で ci の ServiceAccount validator に結び付け、`kubectl auth can-i ... --as "
                      "system:serviceaccount:ci:validator` で確かめてください。",
                "ko": "ci-dryrun의 Role dryrun-deployments는 deployments(apiGroups [apps])에 get, create, patch만 허용합니다. "
                      "`delete`, 다른 종류, 다른 네임스페이스, ClusterRoleBinding은 필요 없습니다. RoleBinding validator-dryrun"
                      "으로 ci의 ServiceAccount validator에 연결하고 `kubectl auth can-i ... --as "
                      "system:serviceaccount:ci:validator` 명령으로 확인하세요."},
    "ci_kubeconfig": {"en": "Build it with `kubectl create token validator -n ci --duration=8h` and `kubectl config "
                            "--kubeconfig <file> set-cluster/set-credentials/set-context`: the k3s server and CA data, "
                            "namespace ci-dryrun.",
                      "ja": "`kubectl create token validator -n ci --duration=8h` と `kubectl config --kubeconfig <ファイル> "
                            "set-cluster/set-credentials/set-context` で作成してください。サーバーと CA は k3s のもの、ネームス"
                            "ペースは ci-dryrun です。",
                      "ko": "`kubectl create token validator -n ci --duration=8h` 명령과 `kubectl config --kubeconfig <파일> "
                            "set-cluster/set-credentials/set-context` 명령으로 만드세요. 서버와 CA는 k3s의 것, 네임스페이스는 "
                            "ci-dryrun입니다."},
    "ci_validate": {"en": "validate.sh <dir>: `kubectl --kubeconfig {workspace}/ci-kubeconfig -n ci-dryrun apply "
                          "--dry-run=server -f <dir>`; exit non-zero when any manifest is refused (mind pipes: set -o pipefail).",
                    "ja": "validate.sh <ディレクトリ>: `kubectl --kubeconfig {workspace}/ci-kubeconfig -n ci-dryrun apply "
                          "--dry-run=server -f <ディレクトリ>`。1 つでも拒否されたら 0 以外で終了してください（パイプには `set "
                          "-o pipefail` を使います）。",
                    "ko": "validate.sh <디렉터리>: `kubectl --kubeconfig {workspace}/ci-kubeconfig -n ci-dryrun apply "
                          "--dry-run=server -f <디렉터리>`. 하나라도 거부되면 0이 아닌 값으로 끝나야 합니다(파이프에는 `set -o "
                          "pipefail`을 쓰세요)."},
    "ci_hook": {"en": "In the hook read `old new ref` lines from stdin; for refs/heads/main extract the NEW commit's deploy "
                      "with `git archive <new> deploy | tar -x -C <tmp>` and run validate.sh on it; a new SHA of 40 zeros is a "
                      "delete: refuse it for main; let every other ref through.",
                "ja": "フックは標準入力から `old new ref` の行を読みます。refs/heads/main なら、新しいコミットの deploy を `git "
                      "archive <new> deploy | tar -x -C <一時ディレクトリ>` で取り出して validate.sh で検証してください。新しい "
                      "SHA が 40 桁の 0 なら削除なので、main では拒否します。ほかの参照は通してください。",
                "ko": "훅은 표준 입력에서 `old new ref` 줄을 읽습니다. refs/heads/main이면 새 커밋의 deploy를 `git archive "
                      "<new> deploy | tar -x -C <임시 디렉터리>` 명령으로 꺼내 validate.sh로 검증하세요. 새 SHA가 0 40개면 삭제"
                      "이므로 main에서는 거부합니다. 다른 참조는 통과시키세요."},
    "ci_blocked": {"en": "Save the whole output of the rejected push, e.g. `git push origin main 2>&1 | tee "
                         "{workspace}/blocked.txt`, then `git reset --hard origin/main`.",
                   "ja": "拒否された push の出力全体を保存してください（例: `git push origin main 2>&1 | tee "
                         "{workspace}/blocked.txt`）。そのあと `git reset --hard origin/main` を実行します。",
                   "ko": "거부된 push의 출력 전체를 저장하세요(예: `git push origin main 2>&1 | tee {workspace}/blocked.txt`). "
                         "그다음 `git reset --hard origin/main` 명령을 실행하세요."},
    "ci_bump": {"en": "bump.sh <tag>: sync the clone with origin/main, set the image to nginx:<tag>, commit \"ci: web "
                      "nginx:<tag>\" and push; no kubectl: Argo CD deploys what git says.",
                "ja": "bump.sh <タグ>: クローンを origin/main に合わせ、イメージを nginx:<タグ> にして「ci: web nginx:<タグ>」で"
                      "コミットし、push してください。kubectl は使いません。デプロイは Argo CD が Git から行います。",
                "ko": "bump.sh <태그>: 클론을 origin/main에 맞추고 이미지를 nginx:<태그>로 바꿔 \"ci: web nginx:<태그>\" 메시지"
                      "로 커밋한 뒤 push하세요. kubectl은 쓰지 않습니다. 배포는 Argo CD가 Git에서 합니다."},
    "ci_report": {"en": "ci_writes git, cd_writes cluster, gate pre-receive; the two booleans come from `kubectl auth can-i` "
                        "and `git merge-base --is-ancestor`, deployed_revision from status.sync.revision.",
                  "ja": "ci_writes は git、cd_writes は cluster、gate は pre-receive です。2 つの真偽値は `kubectl auth can-i` "
                        "と `git merge-base --is-ancestor` の結果から、deployed_revision は status.sync.revision から書いてくだ"
                        "さい。",
                  "ko": "ci_writes는 git, cd_writes는 cluster, gate는 pre-receive입니다. 두 불리언은 `kubectl auth can-i`와 "
                        "`git merge-base --is-ancestor` 결과에서, deployed_revision은 status.sync.revision에서 쓰세요."},
}
