"""Learner-facing messages and hints in English, Japanese and Korean.

Checks return a message key and parameters; this module renders them. Values the learner
wrote (`expected`, `found`) are shown as JSON so that "3" and 3 look different.
"""

from __future__ import annotations

import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import pick, translations

# {key: {lang: text}}; placeholders are str.format fields filled from the check's params.
MESSAGES = {
    "value_ok": {"en": "{what} is {found}", "ja": "{what} は {found} で、正しい値です", "ko": "{what}: {found}, 올바른 값입니다"},
    "value_mismatch": {"en": "{what}: expected {expected}, found {found}",
                       "ja": "{what}: 期待値は {expected} ですが、実際は {found} です",
                       "ko": "{what}: 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "live_disagrees": {"en": "{what}: you recorded {recorded}, but the live cluster shows {found} (expected {expected})",
                       "ja": "{what}: 記録は {recorded} ですが、クラスターの実際の値は {found} です（期待値は {expected}）",
                       "ko": "{what}: 기록한 값은 {recorded}, 클러스터의 실제 값은 {found}입니다 (기댓값 {expected})"},
    "wrong_type": {"en": "{what}: the JSON type must be {expected_type}, found {found_type} ({found})",
                   "ja": "{what}: JSON の型は {expected_type} である必要がありますが、{found_type}（{found}）が書かれています",
                   "ko": "{what}: 필요한 JSON 타입은 {expected_type}, 쓰여 있는 타입은 {found_type} ({found})입니다"},
    "missing_key": {"en": "{what}: the key \"{key}\" is missing",
                    "ja": "{what}: キー \"{key}\" がありません",
                    "ko": "{what}: \"{key}\" 키가 없습니다"},
    "inconsistent_evidence": {"en": "{what} contradicts {other} (found {found}, expected {expected})",
                              "ja": "{what} が {other} と矛盾しています（実際は {found}、期待値は {expected}）",
                              "ko": "{what} 값이 {other} 값과 맞지 않습니다 (실제 {found}, 기댓값 {expected})"},
    "file_missing": {"en": "{path} does not exist", "ja": "{path} がありません", "ko": "{path} 경로가 없습니다"},
    "file_empty": {"en": "{path} is empty", "ja": "{path} が空です", "ko": "{path} 파일이 비어 있습니다"},
    "file_too_large": {"en": "{path} is too large to be an evidence file ({detail})",
                       "ja": "{path} は大きすぎるため、証拠ファイルとして読めません（{detail}）",
                       "ko": "{path} 파일이 너무 커서 증거 파일로 읽을 수 없습니다 ({detail})"},
    "file_binary": {"en": "{path} is not UTF-8 text",
                    "ja": "{path} は UTF-8 のテキストではありません",
                    "ko": "{path} 파일이 UTF-8 텍스트가 아닙니다"},
    "file_outside": {"en": "{path} points outside the workspace ({detail})",
                     "ja": "{path} はワークスペースの外を指しています（{detail}）",
                     "ko": "{path} 경로가 작업 공간 밖을 가리킵니다 ({detail})"},
    "file_not_regular": {"en": "{path} is not a regular file",
                         "ja": "{path} は通常のファイルではありません",
                         "ko": "{path} 경로가 일반 파일이 아닙니다"},
    "file_unreadable": {"en": "{path} cannot be read: {detail}",
                        "ja": "{path} を読めません: {detail}",
                        "ko": "{path} 파일을 읽을 수 없습니다: {detail}"},
    "file_invalid_json": {"en": "{path} is not valid JSON: {detail}",
                          "ja": "{path} は正しい JSON ではありません: {detail}",
                          "ko": "{path} 파일이 올바른 JSON이 아닙니다: {detail}"},
    "file_invalid_yaml": {"en": "{path} is not valid YAML: {detail}",
                          "ja": "{path} は正しい YAML ではありません: {detail}",
                          "ko": "{path} 파일이 올바른 YAML이 아닙니다: {detail}"},
    "no_application_in_file": {"en": "no Application named {name} in the file (found {found})",
                               "ja": "ファイルに Application {name} がありません（見つかったもの: {found}）",
                               "ko": "파일에 {name} Application이 없습니다 (찾은 것: {found})"},
    "spec_ok": {"en": "{what} has the expected source, destination and sync policy",
                "ja": "{what} のソース・宛先・同期ポリシーは正しく設定されています",
                "ko": "{what}의 소스, 대상, 동기화 정책이 올바릅니다"},
    "spec_mismatch": {"en": "{what}: fields differ (field: expected / found): {details}",
                      "ja": "{what}: 異なるフィールドがあります（フィールド: 期待値 / 実際の値）: {details}",
                      "ko": "{what}: 다른 필드가 있습니다 (필드: 기댓값 / 실제 값): {details}"},
    "live_app_missing": {"en": "Application {name} does not exist in namespace {argocd_namespace}",
                         "ja": "Application {name} が {argocd_namespace} ネームスペースにありません",
                         "ko": "{argocd_namespace} 네임스페이스에 {name} Application이 없습니다"},
    "app_synced_healthy": {"en": "Application {name} is Synced and Healthy",
                           "ja": "Application {name} は Synced かつ Healthy です",
                           "ko": "{name} Application이 Synced, Healthy 상태입니다"},
    "app_not_synced_healthy": {"en": "Application {name} is {sync} / {health}, expected Synced / Healthy",
                               "ja": "Application {name} は {sync} / {health} です。Synced / Healthy になる必要があります",
                               "ko": "{name} Application의 상태가 {sync} / {health}입니다. Synced / Healthy 상태여야 합니다"},
    "self_heal_due": {"en": "Application {name} is OutOfSync with a live change that selfHeal will sync back after its backoff "
                            "(by default at most 5 minutes); not final yet",
                      "ja": "Application {name} は OutOfSync です。ライブの変更は、バックオフ（既定では最大 5 分）の後に "
                            "selfHeal が Git の状態に戻します。この結果はまだ確定していません",
                      "ko": "{name} Application이 OutOfSync 상태입니다. 라이브 변경은 백오프(기본값 최대 5분) 뒤에 selfHeal이 "
                            "Git 상태로 되돌립니다. 이 결과는 아직 확정되지 않았습니다"},
    "app_not_polled_yet": {"en": "Application {name} still compares commit {revision} of main: {sha} is {age} s old and Argo CD "
                                 "reads a pushed commit within {window} s without a refresh (last compared: {reconciled}); "
                                 "still syncing",
                           "ja": "Application {name} はまだ main のコミット {revision} と比較しています。{sha} は {age} 秒前のコ"
                                 "ミットで、Argo CD は refresh なしでも {window} 秒以内に push されたコミットを読みます（最後の"
                                 "比較: {reconciled}）。同期中です",
                           "ko": "{name} Application은 아직 main의 커밋 {revision} 기준으로 비교하고 있습니다. {sha} 커밋은 "
                                 "{age}초 전 커밋이고, Argo CD는 refresh 없이도 {window}초 안에 push된 커밋을 읽습니다 (마지막 "
                                 "비교: {reconciled}). 동기화 중입니다"},
    "app_converging": {"en": "Application {name} is still converging ({sync} / {health}); not final yet",
                       "ja": "Application {name} はまだ同期中です（{sync} / {health}）。この結果はまだ確定していません",
                       "ko": "{name} Application이 아직 동기화 중입니다 ({sync} / {health}). 이 결과는 아직 확정되지 않았습니다"},
    "rollout_in_progress": {"en": "{what} is still rolling out: {found}",
                            "ja": "{what} はまだロールアウト中です: {found}",
                            "ko": "{what}: 아직 롤아웃 중입니다 (현재 {found})"},
    "blocked_by": {"en": "blocked by step {step}: {reason_text}",
                   "ja": "ステップ {step} が完了していないため確認できません: {reason_text}",
                   "ko": "{step}단계가 끝나지 않아 확인할 수 없습니다: {reason_text}"},
    "live_object_missing": {"en": "{what} does not exist in the cluster",
                            "ja": "{what} がクラスターにありません",
                            "ko": "클러스터에 {what} 리소스가 없습니다"},
    "live_objects_missing": {"en": "not in namespace {namespace} yet: {what}",
                             "ja": "{namespace} ネームスペースにまだありません: {what}",
                             "ko": "{namespace} 네임스페이스에 아직 없습니다: {what}"},
    "live_object_missing_named": {"en": "{kind} {namespace}/{name} does not exist in the cluster",
                                  "ja": "{kind} {namespace}/{name} がクラスターにありません",
                                  "ko": "클러스터에 {kind} {namespace}/{name} 리소스가 없습니다"},
    "git_dir_missing": {"en": "the bare repository's main has no {path}",
                        "ja": "ベアリポジトリの main に {path} がありません",
                        "ko": "베어 저장소의 main에 {path} 경로가 없습니다"},
    "live_values_ok": {"en": "{what} is as expected: {found}",
                       "ja": "{what} は期待どおりです: {found}",
                       "ko": "{what}: 기대한 대로입니다 ({found})"},
    "live_values_mismatch": {"en": "{what}: expected {expected}, found {found}",
                             "ja": "{what}: 期待値は {expected} ですが、実際は {found} です",
                             "ko": "{what}: 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "repo_ok": {"en": "{path} is a bare repository with branch main",
                "ja": "{path} は main ブランチを持つベアリポジトリです",
                "ko": "{path} 경로는 main 브랜치가 있는 베어 저장소입니다"},
    "repo_missing": {"en": "{path} does not exist", "ja": "{path} がありません", "ko": "{path} 경로가 없습니다"},
    "repo_not_a_repo": {"en": "{path} is not a git repository",
                        "ja": "{path} は Git リポジトリではありません",
                        "ko": "{path} 경로가 Git 저장소가 아닙니다"},
    "repo_not_bare": {"en": "{path} is not a bare repository (create it with git init --bare)",
                      "ja": "{path} はベアリポジトリではありません（git init --bare で作成します）",
                      "ko": "{path} 경로가 베어 저장소가 아닙니다 (git init --bare로 만드세요)"},
    "repo_no_branch": {"en": "{path} has no branch main (branches: {detail})",
                       "ja": "{path} に main ブランチがありません（ブランチ: {detail}）",
                       "ko": "{path} 저장소에 main 브랜치가 없습니다 (브랜치: {detail})"},
    "repo_unreadable": {"en": "{path} cannot be read: {detail}",
                        "ja": "{path} を読めません: {detail}",
                        "ko": "{path} 저장소를 읽을 수 없습니다: {detail}"},
    "clone_missing": {"en": "{path} does not exist", "ja": "{path} がありません", "ko": "{path} 경로가 없습니다"},
    "clone_not_a_clone": {"en": "{path} is not a git clone ({detail})",
                          "ja": "{path} は Git のクローンではありません（{detail}）",
                          "ko": "{path} 경로가 Git 클론이 아닙니다 ({detail})"},
    "clone_unreadable": {"en": "{path}/.git/config cannot be read: {detail}",
                         "ja": "{path}/.git/config を読めません: {detail}",
                         "ko": "{path}/.git/config 파일을 읽을 수 없습니다: {detail}"},
    "origin_ok": {"en": "{path} has origin {found}",
                  "ja": "{path} の origin は {found} です",
                  "ko": "{path} 클론의 origin은 {found}입니다"},
    "push_url_mismatch": {"en": "{path}: git pushes origin to {found}, not to {expected} (remote.origin.pushurl)",
                          "ja": "{path}: origin への push 先が {expected} ではなく {found} になっています（remote.origin.pushurl"
                                "）",
                          "ko": "{path}: origin의 push 대상이 {expected} 대신 {found}입니다 (remote.origin.pushurl)"},
    "origin_mismatch": {"en": "{path}: origin is {found}, expected {expected}",
                        "ja": "{path}: origin は {found} ですが、{expected} である必要があります",
                        "ko": "{path}: origin이 {found}입니다. 기댓값은 {expected}입니다"},
    "git_file_missing": {"en": "the bare repository's main has no {path}",
                         "ja": "ベアリポジトリの main に {path} がありません",
                         "ko": "베어 저장소의 main에 {path} 파일이 없습니다"},
    "git_file_invalid": {"en": "{path} on the bare repository's main cannot be parsed: {detail}",
                         "ja": "ベアリポジトリの main の {path} を解析できません: {detail}",
                         "ko": "베어 저장소 main의 {path} 파일을 해석할 수 없습니다: {detail}"},
    "git_values_ok": {"en": "{path} on the bare repository's main is as expected",
                      "ja": "ベアリポジトリの main の {path} は期待どおりです",
                      "ko": "베어 저장소 main의 {path} 파일이 기대한 대로입니다"},
    "git_values_mismatch": {"en": "{path} on the bare repository's main: expected {expected}, found {found}",
                            "ja": "ベアリポジトリの main の {path}: 期待値は {expected} ですが、実際は {found} です",
                            "ko": "베어 저장소 main의 {path}: 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "git_object_missing": {"en": "the bare repository's main has no {kind} {name} under {path}",
                           "ja": "ベアリポジトリの main の {path} に {kind} {name} がありません",
                           "ko": "베어 저장소 main의 {path}에 {kind} {name} 리소스가 없습니다"},
    "not_rfc3339": {"en": "{what} {found} is not an RFC 3339 timestamp with a time zone",
                    "ja": "{what} の {found} はタイムゾーン付きの RFC 3339 時刻ではありません",
                    "ko": "{what} 값 {found}: 시간대가 포함된 RFC 3339 시각이 아닙니다"},
    "commit_not_on_main": {"en": "commit {found} is not on bare main",
                           "ja": "コミット {found} はベアリポジトリの main にありません",
                           "ko": "베어 저장소의 main에 {found} 커밋이 없습니다"},
    "time_in_future": {"en": "the times are in the future: {found}",
                       "ja": "時刻が未来になっています: {found}",
                       "ko": "시각이 미래입니다: {found}"},
    "cluster_unreadable": {"en": "the cluster could not be read ({kind}: {detail})",
                           "ja": "クラスターを読めませんでした（{kind}: {detail}）",
                           "ko": "클러스터를 읽을 수 없었습니다 ({kind}: {detail})"},
    "grader_out_of_time": {"en": "the grader ran out of time for lab {lab} (its {share} s share of the {budget} s budget) "
                                 "before it could {task}",
                           "ja": "ラボ {lab} の採点時間（全体の {budget} 秒のうち、このラボの持ち分 {share} 秒）が尽きたため、"
                                 "{task}ことができませんでした",
                           "ko": "{lab} 랩의 채점 시간(전체 {budget}초 중 이 랩의 몫 {share}초)이 다 되어 {task} 수 없었습니다"},
    "grader_probes_out_of_time": {"en": "the grader ran out of time for the probes of lab {lab} ({probe_share} s of its {share} "
                                        "s share of the {budget} s budget) before it could {task}",
                                  "ja": "ラボ {lab} のプローブに使える時間（全体の {budget} 秒のうち、このラボの持ち分 {share} "
                                        "秒の中の {probe_share} 秒）が尽きたため、{task}ことができませんでした",
                                  "ko": "{lab} 랩의 프로브에 쓸 수 있는 시간(전체 {budget}초 중 이 랩의 몫 {share}초 가운데 "
                                        "{probe_share}초)이 다 되어 {task} 수 없었습니다"},
    # What the grader could not finish in time: phrases inside the two messages above.
    "phrase_read_repo": {"en": "read the bare repository {path}",
                         "ja": "ベアリポジトリ {path} を読む",
                         "ko": "{path} 베어 저장소를 읽을"},
    "phrase_read_cluster": {"en": "read the cluster", "ja": "クラスターを読む", "ko": "클러스터를 읽을"},
    "phrase_run_script": {"en": "run {script} to the end",
                          "ja": "{script} を最後まで実行する",
                          "ko": "{script} 스크립트를 끝까지 실행할"},
    "object_too_deep": {"en": "{what} is nested deeper than {depth} levels; the grader reads at most {depth}",
                        "ja": "{what} の入れ子の深さが {depth} を超えています。採点で読むのは深さ {depth} までです",
                        "ko": "{what}의 중첩 깊이가 {depth}단계를 넘습니다. 채점기는 {depth}단계까지만 읽습니다"},
    # Why a VM cannot be graded (the health gate's reasons; the English text is the host record's
    # error message, the learner's `lab check` shows it in the learner's language).
    "host_no_version": {"en": "no version answered",
                        "ja": "API サーバーがバージョンを返しません",
                        "ko": "API 서버가 버전을 응답하지 않습니다"},
    "host_crd_missing": {"en": "CRD applications.argoproj.io is not installed",
                         "ja": "CRD applications.argoproj.io がインストールされていません",
                         "ko": "CRD applications.argoproj.io가 설치되어 있지 않습니다"},
    "host_controller_missing": {"en": "StatefulSet argocd-application-controller is missing",
                                "ja": "StatefulSet argocd-application-controller がありません",
                                "ko": "StatefulSet argocd-application-controller가 없습니다"},
    "host_controller_not_ready": {"en": "argocd-application-controller has no ready replica",
                                  "ja": "argocd-application-controller に準備のできたレプリカがありません",
                                  "ko": "argocd-application-controller에 준비된 레플리카가 없습니다"},
    "host_repo_server_missing": {"en": "Deployment argocd-repo-server is missing",
                                 "ja": "Deployment argocd-repo-server がありません",
                                 "ko": "Deployment argocd-repo-server가 없습니다"},
    "host_repo_server_not_available": {"en": "argocd-repo-server has no available replica",
                                       "ja": "argocd-repo-server に利用可能なレプリカがありません",
                                       "ko": "argocd-repo-server에 사용 가능한 레플리카가 없습니다"},
    "host_gitd_missing": {"en": "Service gitd is missing in namespace {namespace}",
                          "ja": "{namespace} ネームスペースに Service gitd がありません",
                          "ko": "{namespace} 네임스페이스에 Service gitd가 없습니다"},
    "host_kubeconfig_missing": {"en": "the kubeconfig {path} does not exist",
                                "ja": "kubeconfig {path} がありません",
                                "ko": "kubeconfig {path} 파일이 없습니다"},
    "host_python_missing": {"en": "grader Python dependencies missing: {modules}",
                            "ja": "採点に必要な Python パッケージがありません: {modules}",
                            "ko": "채점기에 필요한 Python 패키지가 없습니다: {modules}"},
    # Why the grader cannot use a kubeconfig or read the cluster (kubestate.ClusterError reasons).
    # {where} is one of the phrase_kc_where_* phrases: the file, or the user or cluster entry in it.
    # {kind} of "cluster_unreadable": what kind of problem ClusterError.kind names
    "phrase_cluster_kind_kubeconfig": {"en": "kubeconfig", "ja": "kubeconfig", "ko": "kubeconfig"},
    "phrase_cluster_kind_unreachable": {"en": "unreachable", "ja": "接続できません", "ko": "연결할 수 없음"},
    "phrase_cluster_kind_unauthorized": {"en": "unauthorized", "ja": "認証されません", "ko": "인증되지 않음"},
    "phrase_cluster_kind_forbidden": {"en": "forbidden", "ja": "権限がありません", "ko": "권한 없음"},
    "phrase_cluster_kind_api": {"en": "api", "ja": "API の応答", "ko": "API 응답"},
    "phrase_kc_where_file": {"en": "{kubeconfig}", "ja": "{kubeconfig}", "ko": "{kubeconfig}"},
    "phrase_kc_where_user": {"en": "{kubeconfig}: user {user}",
                      "ja": "{kubeconfig} のユーザー {user}",
                      "ko": "{kubeconfig}의 사용자 {user}"},
    "phrase_kc_where_cluster": {"en": "{kubeconfig}: cluster {cluster}",
                         "ja": "{kubeconfig} のクラスター {cluster}",
                         "ko": "{kubeconfig}의 클러스터 {cluster}"},
    "kc_unreadable": {"en": "{detail}", "ja": "kubeconfig を使えません（{detail}）",
                      "ko": "kubeconfig를 쓸 수 없습니다 ({detail})"},
    "kc_file_refused": {"en": "{where}: {detail}",
                        "ja": "{where}: ファイルを使えません（{detail}）",
                        "ko": "{where}: 파일을 쓸 수 없습니다 ({detail})"},
    "kc_not_mapping": {"en": "{where}: not a kubeconfig (no mapping)",
                       "ja": "{where}: kubeconfig ではありません（YAML のマッピングではありません）",
                       "ko": "{where}: kubeconfig가 아닙니다 (YAML 매핑이 아닙니다)"},
    "kc_not_list": {"en": "{where}: {field} is not a list",
                    "ja": "{where}: {field} がリストではありません",
                    "ko": "{where}: {field} 값이 리스트가 아닙니다"},
    "kc_plugin": {"en": "{where} uses an {plugin} plugin; the grader only uses a token or client-certificate kubeconfig and "
                        "runs no command",
                  "ja": "{where} は {plugin} プラグインを使っています。採点で使えるのはトークンかクライアント証明書の "
                        "kubeconfig だけで、コマンドは実行しません",
                  "ko": "{where}: {plugin} 플러그인을 사용합니다. 채점기는 토큰이나 클라이언트 인증서 kubeconfig만 사용하며 명"
                        "령을 실행하지 않습니다"},
    "kc_token_unsendable": {"en": "{where}: the token has whitespace or a control character that an HTTP header cannot carry",
                            "ja": "{where}: トークンに、HTTP ヘッダーに入れられない空白文字か制御文字があります",
                            "ko": "{where}: 토큰에 HTTP 헤더에 넣을 수 없는 공백이나 제어 문자가 있습니다"},
    "kc_no_server": {"en": "{where} has no server",
                     "ja": "{where} に server がありません",
                     "ko": "{where}에 server 값이 없습니다"},
    "kc_server_not_url": {"en": "{where}: the server {server} is not a URL",
                          "ja": "{where}: server {server} は URL ではありません",
                          "ko": "{where}: server {server} 값이 URL이 아닙니다"},
    "kc_server_unprintable": {"en": "{where}: the server {server} has a space or a control character",
                              "ja": "{where}: server {server} に空白文字か制御文字があります",
                              "ko": "{where}: server {server} 값에 공백이나 제어 문자가 있습니다"},
    "kc_server_unparsable": {"en": "{where}: the server {server} is not a URL ({detail})",
                             "ja": "{where}: server {server} は URL ではありません（{detail}）",
                             "ko": "{where}: server {server} 값이 URL이 아닙니다 ({detail})"},
    "kc_server_no_host": {"en": "{where}: the server {server} has no host",
                          "ja": "{where}: server {server} にホストがありません",
                          "ko": "{where}: server {server} 값에 호스트가 없습니다"},
    "kc_server_scheme": {"en": "{where}: the server {server} is not an http:// or https:// URL",
                         "ja": "{where}: server {server} は http:// でも https:// でもありません",
                         "ko": "{where}: server {server} 값이 http:// 또는 https:// URL이 아닙니다"},
    "kc_not_base64_pem": {"en": "{where}: {field} is not base64 of a PEM certificate",
                          "ja": "{where}: {field} は PEM 証明書を base64 にしたものではありません",
                          "ko": "{where}: {field} 값이 PEM 인증서의 base64가 아닙니다"},
    "kc_not_pem_certificate": {"en": "{where}: {field} is not a PEM certificate",
                               "ja": "{where}: {field} は PEM 証明書ではありません",
                               "ko": "{where}: {field} 값이 PEM 인증서가 아닙니다"},
    "kc_key_without_certificate": {"en": "{where}: {field} is given without a client certificate",
                                   "ja": "{where}: {field} がありますが、クライアント証明書がありません",
                                   "ko": "{where}: {field} 값은 있지만 클라이언트 인증서가 없습니다"},
    "kc_certificate_without_key": {"en": "{where}: {field} is given without a client key",
                                   "ja": "{where}: {field} がありますが、クライアント鍵がありません",
                                   "ko": "{where}: {field} 값은 있지만 클라이언트 키가 없습니다"},
    "kc_not_base64_text": {"en": "{where}: {field} is not base64 of PEM text",
                           "ja": "{where}: {field} は PEM テキストを base64 にしたものではありません",
                           "ko": "{where}: {field} 값이 PEM 텍스트의 base64가 아닙니다"},
    "kc_key_mismatch": {"en": "{where}: {field} is not the key of {certificate}",
                        "ja": "{where}: {field} は {certificate} の鍵ではありません",
                        "ko": "{where}: {field} 값이 {certificate}의 키가 아닙니다"},
    "kc_key_unusable": {"en": "{where}: {field} is not an unencrypted PEM private key",
                        "ja": "{where}: {field} は暗号化されていない PEM 秘密鍵ではありません",
                        "ko": "{where}: {field} 값이 암호화되지 않은 PEM 개인 키가 아닙니다"},
    "kc_no_kubernetes_package": {"en": "the kubernetes Python package is not installed",
                                 "ja": "kubernetes の Python パッケージがインストールされていません",
                                 "ko": "kubernetes Python 패키지가 설치되어 있지 않습니다"},
    "kc_loader_refused": {"en": "{where}: {detail}",
                          "ja": "{where}: kubernetes パッケージが読み込めません（{detail}）",
                          "ko": "{where}: kubernetes 패키지가 읽지 못합니다 ({detail})"},
    "kc_tls_unusable": {"en": "{where}: its TLS settings cannot be loaded: {detail}",
                        "ja": "{where}: TLS の設定を読み込めません: {detail}",
                        "ko": "{where}: TLS 설정을 읽을 수 없습니다: {detail}"},
    "api_out_of_time": {"en": "{host}: no time left of the {budget} s deadline for all reads",
                        "ja": "{host}: すべての読み取りに使える {budget} 秒の期限が尽きました",
                        "ko": "{host}: 모든 읽기에 쓸 수 있는 {budget}초의 기한이 다 되었습니다"},
    "api_cut_off": {"en": "{host}: {method} {path} got no complete answer before the {budget} s deadline for all reads",
                    "ja": "{host}: {method} {path} に、すべての読み取りに使える {budget} 秒の期限内に完全な応答がありませんでし"
                          "た",
                    "ko": "{host}: {method} {path} 요청에 모든 읽기에 쓸 수 있는 {budget}초 안에 완전한 응답이 없었습니다"},
    "api_unreachable": {"en": "{host}: {detail}",
                        "ja": "{host}: API サーバーに接続できません（{detail}）",
                        "ko": "{host}: API 서버에 연결할 수 없습니다 ({detail})"},
    "api_timed_out": {"en": "{host}: Read timed out",
                      "ja": "{host}: API サーバーの応答が時間内にありませんでした",
                      "ko": "{host}: API 서버가 제한 시간 안에 응답하지 않았습니다"},
    "api_closed": {"en": "{host}: the server closed the connection without an answer",
                   "ja": "{host}: API サーバーが応答せずに接続を閉じました",
                   "ko": "{host}: API 서버가 응답 없이 연결을 닫았습니다"},
    "api_closed_midway": {"en": "{host}: the server closed the connection in the middle of the answer",
                          "ja": "{host}: API サーバーが応答の途中で接続を閉じました",
                          "ko": "{host}: API 서버가 응답 도중에 연결을 닫았습니다"},
    "api_answer_too_large": {"en": "{method} {path}: the answer has more than {limit} bytes",
                             "ja": "{method} {path}: 応答が {limit} バイトを超えています",
                             "ko": "{method} {path}: 응답이 {limit}바이트를 넘습니다"},
    "api_unauthorized": {"en": "GET {path}: 401",
                         "ja": "GET {path}: 401（API サーバーが採点の認証情報を受け付けません）",
                         "ko": "GET {path}: 401 (API 서버가 채점기의 인증 정보를 받아들이지 않습니다)"},
    "api_forbidden": {"en": "GET {path}: {detail}",
                      "ja": "GET {path}: 採点には読む権限がありません（{detail}）",
                      "ko": "GET {path}: 채점기에 읽기 권한이 없습니다 ({detail})"},
    "api_status": {"en": "GET {path}: HTTP {status} {detail}",
                   "ja": "GET {path}: API サーバーの応答は HTTP {status} です（{detail}）",
                   "ko": "GET {path}: API 서버 응답이 HTTP {status}입니다 ({detail})"},
    "api_not_json": {"en": "GET {path}: the answer is not JSON",
                     "ja": "GET {path}: 応答が JSON ではありません",
                     "ko": "GET {path}: 응답이 JSON이 아닙니다"},
    "grader_bug": {"en": "the grader failed on this check: {detail}",
                   "ja": "このチェックの採点に失敗しました: {detail}",
                   "ko": "이 검사의 채점에 실패했습니다: {detail}"},
}

HINTS = {
    "application_manifest": {"en": "Check the Application file against the lab: repoURL, targetRevision main, path, destination "
                                   "namespace, syncPolicy.automated and CreateNamespace=true.",
                             "ja": "Application のファイルを確認してください: repoURL、targetRevision main、path、宛先ネームスペ"
                                   "ース、syncPolicy.automated、CreateNamespace=true。",
                             "ko": "Application 파일을 확인하세요: repoURL, targetRevision main, path, 대상 네임스페이스, "
                                   "syncPolicy.automated, CreateNamespace=true."},
    "application_apply": {"en": "Apply the file with `kubectl apply -n {argocd_namespace} -f <file>` and compare with `kubectl "
                                "-n {argocd_namespace} get app <name> -o yaml`.",
                          "ja": "`kubectl apply -n {argocd_namespace} -f <ファイル>` で適用し、`kubectl -n {argocd_namespace} "
                                "get app <名前> -o yaml` の出力と比べてください。",
                          "ko": "`kubectl apply -n {argocd_namespace} -f <파일>` 명령으로 적용하고 `kubectl -n "
                                "{argocd_namespace} get app <이름> -o yaml` 출력과 비교하세요."},
    "bare_repo": {"en": "Create the server-side repo with `git init --bare {bare_path}`, clone it to {clone_path} and push "
                        "branch main.",
                  "ja": "`git init --bare {bare_path}` でサーバー側のリポジトリを作成し、{clone_path} にクローンして main を "
                        "push してください。",
                  "ko": "`git init --bare {bare_path}` 명령으로 서버 측 저장소를 만들고 {clone_path} 경로에 클론한 뒤 main을 "
                        "push하세요."},
    # Under every PENDING verdict without advice of its own: Argo CD is converging, nothing is
    # wrong yet; the learner's next move is to look again (grading.render fills {check_step}).
    "pending_again": {"en": "Argo CD has not finished yet: run `lab check {check_step}` again in a minute.",
                      "ja": "Argo CD はまだ作業中です。1 分ほど待ってから `lab check {check_step}` をもう一度実行してください。",
                      "ko": "Argo CD가 아직 상태를 맞추는 중입니다. 1분쯤 기다린 뒤 `lab check {check_step}` 명령을 다시 실행하"
                            "세요."},
    "app_sync_health": {"en": "Look at status.sync, status.health and status.conditions of the Application; "
                              "`argocd.argoproj.io/refresh=hard` makes Argo CD read git again.",
                        "ja": "Application の status.sync・status.health・status.conditions を見てください。"
                              "`argocd.argoproj.io/refresh=hard` アノテーションを付けると、Argo CD が Git を読み直します。",
                        "ko": "Application의 status.sync, status.health, status.conditions를 보세요. "
                              "`argocd.argoproj.io/refresh=hard` 어노테이션을 달면 Argo CD가 Git을 다시 읽습니다."},
    "json_types": {"en": "Write numbers without quotes (4, not \"4\"), booleans as true/false, and Unix seconds as integers.",
                   "ja": "数値は引用符なし（\"4\" ではなく 4）、真偽値は true/false、Unix 秒は整数で書いてください。",
                   "ko": "숫자는 따옴표 없이(\"4\"가 아니라 4), 불리언은 true/false, Unix 초는 정수로 쓰세요."},
    "file_create": {"en": "Create {path}; the step says what it holds.",
                    "ja": "{path} を作成してください。何を書くかはステップに書かれています。",
                    "ko": "{path} 파일을 만드세요. 무엇을 쓸지는 단계에 나와 있습니다."},
    "git_file_create": {"en": "Create {path} in your clone, commit it and push main: the grader reads the bare "
                              "repository's main.",
                        "ja": "クローンに {path} を作成してコミットし、main を push してください。採点はベアリポジトリの main を"
                              "読みます。",
                        "ko": "클론에 {path} 파일을 만들어 커밋하고 main을 push하세요. 채점기는 베어 저장소의 main을 읽습니다."},
    "git_object_add": {"en": "Put the manifest of {kind} {name} in {path} of your clone, commit it and push main: the "
                             "grader reads the bare repository's main.",
                       "ja": "{kind} {name} のマニフェストをクローンの {path} に置いてコミットし、main を push してください。"
                             "採点はベアリポジトリの main を読みます。",
                       "ko": "{kind} {name} 매니페스트를 클론의 {path} 경로에 두고 커밋한 뒤 main을 push하세요. 채점기는 베어 "
                             "저장소의 main을 읽습니다."},
    "yaml_syntax": {"en": "Fix the YAML at the line and column the message names: indent with spaces, never tabs, and write "
                          "`key: value` with a space after the colon.",
                    "ja": "メッセージが示す行と列の YAML を直してください。インデントはタブではなくスペースで、`key: value` のよ"
                          "うにコロンの後に空白を入れます。",
                    "ko": "메시지가 가리키는 줄과 열의 YAML을 고치세요. 들여쓰기는 탭이 아니라 공백으로 하고, `key: value`처럼 "
                          "콜론 뒤에 공백을 넣습니다."},
    "json_syntax": {"en": "Fix the JSON at the line and column the message names: double quotes around keys and strings, no "
                          "comma after the last item; `python3 -m json.tool <file>` shows the error.",
                    "ja": "メッセージが示す行と列の JSON を直してください。キーと文字列は二重引用符で囲み、最後の要素の後にコン"
                          "マを付けません。`python3 -m json.tool <ファイル>` でエラーを確認できます。",
                    "ko": "메시지가 가리키는 줄과 열의 JSON을 고치세요. 키와 문자열은 큰따옴표로 감싸고, 마지막 값 뒤에는 쉼표"
                          "를 붙이지 않습니다. `python3 -m json.tool <파일>` 명령으로 오류를 볼 수 있습니다."},
    "json_object": {"en": "Write the evidence file as one JSON object, in curly braces, with the keys {keys}; not an array "
                          "or a single value.",
                    "ja": "証拠ファイルは、配列や単一の値ではなく、キー {keys} を持つ 1 つの JSON オブジェクト（中かっこで囲む）"
                          "として書いてください。",
                    "ko": "증거 파일은 배열이나 단일 값이 아니라, {keys} 키를 가진 하나의 JSON 오브젝트(중괄호로 감쌈)로 "
                          "쓰세요."},
    "evidence_create": {"en": "Create {path}: one JSON object with the keys {keys}.",
                        "ja": "{path} を作成してください。キー {keys} を持つ 1 つの JSON オブジェクトです。",
                        "ko": "{path} 파일을 만드세요. {keys} 키를 가진 하나의 JSON 오브젝트입니다."},
    "evidence_files": {"en": "Write the evidence file in the workspace as a JSON object with the keys the step asks for.",
                       "ja": "証拠ファイルは、ステップが求めるキーを持つ JSON オブジェクトとしてワークスペースに書いてください。",
                       "ko": "증거 파일은 각 단계에서 요구하는 키를 가진 JSON 오브젝트로 작업 공간에 쓰세요."},
}



# The hint a failure kind always stands under, whatever the check's own hint: a file that is
# not there needs creating, a syntax error needs the syntax fixed, before the step's hint helps.
MESSAGE_HINTS = {
    "file_missing": "file_create",
    "git_file_missing": "git_file_create",
    "git_dir_missing": "git_file_create",
    "git_object_missing": "git_object_add",
    "file_invalid_yaml": "yaml_syntax",
    "file_invalid_json": "json_syntax",
}


translations(MESSAGES, "i18n.MESSAGES")
translations(HINTS, "i18n.HINTS")


def message_hint(key, params):
    """The hint a failure kind always stands under (MESSAGE_HINTS), or None; a missing evidence
    file whose keys are declared (`keys` in its params) is told which keys to write."""
    if key == "file_missing" and params.get("keys"):
        return "evidence_create"
    return MESSAGE_HINTS.get(key)


def register(lab):
    """Add a lab's messages and hints to the catalogue; a key may mean only one thing."""
    for catalogue, entries in ((MESSAGES, lab.messages), (HINTS, lab.hints)):
        translations(entries, f"lab {lab.id}")
        for key, texts in entries.items():
            if catalogue.get(key, texts) != texts:
                raise ValueError(f"lab {lab.id}: message key {key!r} is already used with another text")
            catalogue[key] = texts


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
        values["reason_text"] = message(reason, params, lang) if reason in MESSAGES else _text(reason)
    # A parameter `<name>_key` naming a catalogue entry (a `phrase_*` one: a piece of a sentence
    # such as what a probe checked) fills {<name>} in the learner's language, instead of English
    # prose inside ja/ko messages; the phrase's own fields come from the same parameters.
    # A phrase may name phrases of its own (a kubeconfig problem names where in the file it is).
    for name, value in params.items():
        if name.endswith("_key") and value in MESSAGES:
            values[name[:-len("_key")]] = message(value, {k: v for k, v in params.items() if k != name}, lang)
        # `<name>_items`: a list of phrases, each {"key": phrase key, its own fields}, filling
        # {<name>} joined by "; " (the wrong answers of a list of questions).
        elif name.endswith("_items") and isinstance(value, list):
            values[name[:-len("_items")]] = "; ".join(
                message(item["key"], {k: v for k, v in item.items() if k != "key"}, lang)
                for item in value if isinstance(item, dict) and item.get("key") in MESSAGES)
    return pick(template, lang).format_map(values)


def phrase(name, reason):
    """Parameters that fill {name} of a message with `reason` ({"key", "params"}: a catalogue
    entry, such as a ClusterError's reason) in the reader's language; none for no reason. The
    reason's fields may overwrite the message's own of the same name: {name} no longer uses them."""
    return {f"{name}_key": reason["key"], **reason["params"]} if reason else {}


def _text(value):
    if isinstance(value, str):
        return value
    return show(value)


def hint(key, lang, params=None):
    """The hint `key` in `lang`, with the site's settings (namespaces, paths) filled in."""
    texts = HINTS.get(key)
    return pick(texts, lang).format_map(_Params({k: _text(v) for k, v in (params or {}).items()})) if texts else ""
