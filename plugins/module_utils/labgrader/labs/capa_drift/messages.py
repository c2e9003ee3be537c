"""capa-drift's own step titles, messages and hints (en, ja, ko); the shared ones are in i18n.py."""

from __future__ import annotations

STEP_TITLES = {  # what the learner builds in each step
    1: {"en": "drift-oneway: automated without selfHeal, pinned to a commit, scaled by hand (oneway.json)",
        "ja": "drift-oneway: selfHeal なしの automated をコミットに固定し、手で scale する（oneway.json）",
        "ko": "drift-oneway: selfHeal 없는 automated를 커밋에 고정하고 손으로 scale (oneway.json)"},
    2: {"en": "drift-heal: selfHeal puts a change by hand back, and what it leaves behind (heal.json)",
        "ja": "drift-heal: selfHeal が手作業の変更を戻し、その痕跡が残る（heal.json）",
        "ko": "drift-heal: selfHeal이 손으로 한 변경을 되돌리고 남기는 흔적 (heal.json)"},
    3: {"en": "drift-prune: a ConfigMap removed from git stays until prune (prune.json)",
        "ja": "drift-prune: Git から消した ConfigMap は prune まで残る（prune.json）",
        "ko": "drift-prune: Git에서 지운 ConfigMap은 prune 전까지 남는다 (prune.json)"},
    4: {"en": "drift-health: a commit that is Synced and Degraded, fixed through git (health.json)",
        "ja": "drift-health: Synced かつ Degraded になるコミットと、Git による修正（health.json）",
        "ko": "drift-health: Synced이면서 Degraded인 커밋과 Git을 통한 수정 (health.json)"},
    5: {"en": "drift-hpa: git's replicas against an HPA, and the fight ended (hpa.json)",
        "ja": "drift-hpa: Git の replicas と HPA の争い、そしてその解消（hpa.json）",
        "ko": "drift-hpa: Git의 replicas와 HPA의 다툼, 그리고 그 해소 (hpa.json)"},
    6: {"en": "drift-oos: the OutOfSync that never clears, found and cleared (diff.json)",
        "ja": "drift-oos: 解消しない OutOfSync の原因を突き止めて解消する（diff.json）",
        "ko": "drift-oos: 사라지지 않는 OutOfSync의 원인을 찾아 해소 (diff.json)"},
    7: {"en": "drift-root: an app of apps whose new service is one commit (apps.json)",
        "ja": "drift-root: 新しいサービスを 1 コミットで追加できる `App of Apps`（apps.json）",
        "ko": "drift-root: 새 서비스를 커밋 하나로 추가하는 `App of Apps` (apps.json)"},
    8: {"en": "AppProject drift: the fences and how Argo CD refuses (fence.json)",
        "ja": "AppProject drift: 柵と、Argo CD による拒否の示し方（fence.json）",
        "ko": "AppProject drift: 울타리와 Argo CD가 거부를 알리는 방식 (fence.json)"},
}

MESSAGES = {  # this lab's own; the shared ones are in i18n.py
    # step 1
    "drift_adding_commit_ok": {
        "en": "the first commit adding {path} ({sha}) has the baseline Deployment",
        "ja": "{path} を追加した最初のコミット（{sha}）の Deployment は基準どおりです",
        "ko": "{path} 파일을 추가한 첫 커밋({sha})의 Deployment가 기준과 같습니다"},
    "drift_adding_commit_wrong": {
        "en": "the first commit adding {path} ({sha}) differs: expected {expected}, found {found}",
        "ja": "{path} を追加した最初のコミット（{sha}）が基準と違います。期待値は {expected}、実際は {found} です",
        "ko": "{path} 파일을 추가한 첫 커밋({sha})의 내용이 기준과 다릅니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "drift_no_adding_commit": {
        "en": "no commit on bare main adds {path}",
        "ja": "ベアリポジトリの main に {path} を追加したコミットがありません",
        "ko": "베어 저장소의 main에 {path} 파일을 추가한 커밋이 없습니다"},
    "drift_still_there": {
        "en": "Application {name} shows the drift: {found}",
        "ja": "Application {name} はドリフトを示しています: {found}",
        "ko": "Application {name}에 드리프트가 보입니다: {found}"},
    "drift_gone": {
        "en": "Application {name} does not show a drift by hand: expected {expected}, found {found}",
        "ja": "Application {name} に手作業によるドリフトが見えません。期待値は {expected}、実際は {found} です",
        "ko": "Application {name}에서 손으로 만든 드리프트가 보이지 않습니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "drift_untouched": {
        "en": "Argo CD has not synced {name} since it was created, and {manager} set replicas after that sync",
        "ja": "{name} は作成時の同期以降 Argo CD に同期されておらず、その後 {manager} が replicas を変更しました",
        "ko": "Application {name}: 생성 시 동기화 이후 Argo CD가 다시 동기화하지 않았고, 그 뒤 replicas를 바꾼 "
              "manager는 {manager}입니다"},
    "drift_touched": {
        "en": "Application {name}: expected one sync (the creation sync) and replicas set by hand after it, found {found}",
        "ja": "Application {name}: 同期は作成時の 1 回だけで、その後に手作業で replicas を変更した状態が期待されますが、"
              "実際は {found} です",
        "ko": "Application {name}: 생성 시 동기화 한 번과 그 뒤 손으로 바꾼 replicas를 기대했지만 실제 값은 {found}입니다"},
    # step 2
    "heal_found": {
        "en": "the last operation of {name} is a heal by Argo CD (autoHealAttemptsCount {count}), with no status.history entry",
        "ja": "{name} の最後のオペレーションは Argo CD による修復です（autoHealAttemptsCount {count}）。"
              "status.history には記録されていません",
        "ko": "{name}의 마지막 오퍼레이션은 Argo CD의 복구입니다(autoHealAttemptsCount {count}). "
              "status.history에는 기록되지 않았습니다"},
    "heal_not_found": {
        "en": "the last operation of {name} is not a heal (expected {expected}, found {found})",
        "ja": "{name} の最後のオペレーションは修復ではありません（期待値は {expected}、実際は {found}）",
        "ko": "{name}의 마지막 오퍼레이션은 복구가 아닙니다(기댓값은 {expected}, 실제 값은 {found})"},
    "heal_replaced_by_sync": {
        "en": "the last operation of {name} is a sync of all resources, started by a new commit: it replaced the heal "
              "in status.operationState (found {found})",
        "ja": "{name} の最後のオペレーションは新しいコミットによる全リソースの同期で、status.operationState "
              "の修復を置き換えました"
              "（実際は {found}）",
        "ko": "{name}의 마지막 오퍼레이션은 새 커밋으로 시작된 전체 리소스 동기화이며, status.operationState의 복구를 "
              "대체했습니다"
              "(실제 값은 {found})"},
    "heal_field_never_reverted": {
        "en": "{what} {found}: Argo CD never reverts a field git does not set (expected one of {expected})",
        "ja": "{what} が {found} です。Git が設定していないフィールドを Argo CD は戻しません（期待値は {expected} のいずれか）",
        "ko": "{what} 값이 {found}입니다. Git이 설정하지 않은 필드는 Argo CD가 되돌리지 않습니다(기댓값은 {expected} 중 하나)"},
    "heal_times_other_revert": {
        "en": "heal.json times belong to another revert: expected {expected}, found {found} (this heal started {started}, "
              "finished {finished})",
        "ja": "heal.json の時刻は別の修復のものです。期待値は {expected}、実際は {found} です（この修復の開始は {started}、"
              "終了は {finished}）",
        "ko": "heal.json의 시각이 다른 복구의 것입니다. 기댓값은 {expected}, 실제 값은 {found}입니다(이 복구의 시작 {started}, "
              "종료 {finished})"},
    "heal_evidence_ok": {
        "en": "heal.json records the heal that started {started}",
        "ja": "heal.json は {started} に始まった修復を記録しています",
        "ko": "heal.json이 {started}에 시작된 복구를 기록합니다"},
    "heal_waited_ok": {
        "en": "the heal started {waited} s after your change, within the backoff of attempt {count} ({limit} s)",
        "ja": "修復は変更の {waited} 秒後に始まり、試行 {count} 回目のバックオフ（{limit} 秒）以内です",
        "ko": "복구는 변경 {waited}초 뒤에 시작되어 {count}번째 시도의 백오프({limit}초) 안에 있습니다"},
    "heal_waited_wrong": {
        "en": "the heal started {waited} s after changed_at; attempt {count} waits at most {limit} s: the times are of "
              "another change",
        "ja": "修復は changed_at の {waited} 秒後に始まりました。試行 {count} 回目の待ち時間は最大 {limit} 秒なので、"
              "別の変更の時刻です",
        "ko": "복구가 changed_at {waited}초 뒤에 시작되었습니다. {count}번째 시도는 최대 {limit}초 기다리므로 다른 변경의 "
              "시각입니다"},
    "heal_owner_ok": {
        "en": "argocd-controller wrote web again at the heal, and no one else owns the field: {found}",
        "ja": "修復時に argocd-controller が web を書き戻し、他にそのフィールドを持つ manager はいません: {found}",
        "ko": "복구 때 argocd-controller가 web을 다시 썼고 그 필드를 가진 다른 manager는 없습니다: {found}"},
    "heal_owner_wrong": {
        "en": "managedFields of web ({field}): expected {expected}, found {found}",
        "ja": "web の managedFields（{field}）: 期待値は {expected}、実際は {found} です",
        "ko": "web의 managedFields({field}): 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "heal_live_ok": {
        "en": "Application {name} is Synced and web equals git: {found}",
        "ja": "Application {name} は Synced で、web は Git と同じです: {found}",
        "ko": "Application {name}: Synced이고 web이 Git과 같습니다. {found}"},
    "heal_live_differs": {
        "en": "Application {name}: web differs from git at the synced revision: expected {expected}, found {found}",
        "ja": "Application {name}: web が同期済みリビジョンの Git と違います。期待値は {expected}、実際は {found} です",
        "ko": "Application {name}: web이 동기화된 리비전의 Git과 다릅니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    # step 3
    "prune_not_removal": {
        "en": "commit {sha} does not remove ConfigMap extra (present in its parent / in it: {found})",
        "ja": "コミット {sha} は ConfigMap `extra` を削除していません（親コミット／そのコミットでの有無: {found}）",
        "ko": "{sha} 커밋은 ConfigMap `extra`를 지우지 않습니다(부모 커밋/해당 커밋에서의 유무: {found})"},
    "prune_removal_ok": {
        "en": "commit {sha} removes ConfigMap extra from git",
        "ja": "コミット {sha} は Git から ConfigMap `extra` を削除しています",
        "ko": "{sha} 커밋이 Git에서 ConfigMap `extra`를 지웁니다"},
    "prune_observed_between": {
        "en": "prune.json was observed after commit {sha} and before any sync of it or a later commit",
        "ja": "prune.json はコミット {sha} の後、そのコミットか後のコミットが同期される前に観察されています",
        "ko": "prune.json은 {sha} 커밋 뒤, 그 커밋이나 이후 커밋이 동기화되기 전에 관찰되었습니다"},
    "prune_observed_outside": {
        "en": "prune.json observed_at {found} is not between commit {sha} and the first sync of it or a later commit "
              "({expected})",
        "ja": "prune.json の observed_at {found} は、コミット {sha} と、そのコミットか後のコミットの最初の同期との間に"
              "ありません（{expected}）",
        "ko": "prune.json의 observed_at {found} 값이 {sha} 커밋과 그 커밋이나 이후 커밋의 첫 동기화 사이에 있지 않습니다"
              "({expected})"},
    "prune_done": {
        "en": "Application {name} pruned ConfigMap extra and is Synced",
        "ja": "Application {name} は ConfigMap `extra` を prune し、Synced です",
        "ko": "Application {name}: ConfigMap `extra`를 prune했고 Synced입니다"},
    "prune_not_done": {
        "en": "Application {name} has not pruned the removal of {sha}: expected {expected}, found {found}",
        "ja": "Application {name} は {sha} での削除をまだ prune していません。期待値は {expected}、実際は {found} です",
        "ko": "Application {name}: {sha} 커밋의 삭제를 아직 prune하지 않았습니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    # step 4
    "health_bad_ok": {
        "en": "commit {sha} sets a rollout deadline and a nodeSelector no node carries; its parent was schedulable",
        "ja": "コミット {sha} はロールアウトの期限と、どのノードにもない nodeSelector を設定しています。親コミットは"
              "スケジュール可能でした",
        "ko": "{sha} 커밋은 롤아웃 기한과 어떤 노드에도 없는 nodeSelector를 설정합니다. 부모 커밋은 스케줄할 수 있었습니다"},
    "health_bad_wrong": {
        "en": "commit {sha} is not a rollout no node can take after a schedulable one: expected {expected}, found {found}",
        "ja": "コミット {sha} は、スケジュール可能な状態からどのノードにも載らないロールアウトへの変更ではありません。"
              "期待値は {expected}、実際は {found} です",
        "ko": "{sha} 커밋은 스케줄 가능한 상태에서 어떤 노드에도 올라가지 않는 롤아웃으로 바꾼 커밋이 아닙니다. 기댓값은 "
              "{expected}, 실제 값은 {found}입니다"},
    "health_bad_synced": {
        "en": "Application {name} synced the bad commit {found} (status.history)",
        "ja": "Application {name} は問題のコミット {found} を同期しました（status.history）",
        "ko": "Application {name}: 문제의 커밋 {found}의 동기화 기록이 있습니다(status.history)"},
    "health_bad_never_synced": {
        "en": "status.history of {name} has no bad commit ({expected}); found {found}",
        "ja": "{name} の status.history に問題のコミット（{expected}）がありません。実際は {found} です",
        "ko": "{name}의 status.history에 문제의 커밋이 없습니다(대상 커밋: {expected}). 실제 값은 {found}입니다"},
    "health_recorded_too_early": {
        "en": "health.json health {found}: recorded before the {deadline} s deadline passed; wait for Degraded",
        "ja": "health.json の `health` が {found} です。{deadline} 秒の期限が過ぎる前に記録しています。Degraded を待ってください",
        "ko": "health.json의 `health`가 {found}입니다. {deadline}초 기한이 지나기 전에 기록했습니다. Degraded를 기다리세요"},
    "health_degraded_after_wrong": {
        "en": "health.json degraded_after {found}: with progressDeadlineSeconds {deadline}, expected {expected}",
        "ja": "health.json の degraded_after が {found} です。progressDeadlineSeconds が {deadline} なので"
              "期待値は {expected} です",
        "ko": "health.json의 degraded_after가 {found}입니다. progressDeadlineSeconds가 {deadline}이므로 "
              "기댓값은 {expected}입니다"},
    "health_fixed_in_git": {
        "en": "every bad commit was followed by a fix in git that Application {name} synced",
        "ja": "問題のコミットのそれぞれに Git での修正が続き、Application {name} がそれを同期しました",
        "ko": "문제의 커밋마다 Git의 수정이 뒤따랐고 Application {name}에서 그 수정을 동기화했습니다"},
    "health_not_fixed_in_git": {
        "en": "the bad rollout of {name} is not fixed through git: expected {expected}, found {found}",
        "ja": "{name} の問題のロールアウトが Git で修正されていません。期待値は {expected}、実際は {found} です",
        "ko": "{name}의 문제 롤아웃이 Git으로 수정되지 않았습니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "health_no_kubectl": {
        "en": "only Argo CD and the Deployment controller wrote web's spec, and its nodeSelector is git's",
        "ja": "web の `spec` を書いたのは Argo CD と Deployment コントローラーだけで、nodeSelector は Git と同じです",
        "ko": "web의 `spec`을 쓴 것은 Argo CD와 Deployment 컨트롤러뿐이고 nodeSelector가 Git과 같습니다"},
    "health_kubectl_fix": {
        "en": "web was fixed by hand, not through git: expected {expected}, found {found}",
        "ja": "web は Git ではなく手作業で修正されています。期待値は {expected}、実際は {found} です",
        "ko": "web이 Git이 아니라 손으로 수정되었습니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    # step 5
    "hpa_fight_synced": {
        "en": "commit {sha} sets replicas below the HPA's minReplicas, and Argo CD synced it",
        "ja": "コミット {sha} は replicas を HPA の minReplicas より小さくしており、Argo CD はそれを同期しました",
        "ko": "{sha} 커밋은 replicas를 HPA의 minReplicas보다 작게 설정했고 Argo CD가 그것을 동기화했습니다"},
    "hpa_no_fight": {
        "en": "no commit synced by {name} sets replicas below the HPA's minReplicas (commits that do: {found})",
        "ja": "{name} が同期したコミットに、replicas を HPA の minReplicas より小さくするものがありません（該当するコミット: "
              "{found}）",
        "ko": "{name}에서 동기화한 커밋 중 replicas를 HPA의 minReplicas보다 작게 설정한 것이 없습니다(해당 커밋: {found})"},
    "hpa_not_fight_commit": {
        "en": "commit {sha} does not set replicas below minReplicas: {found}",
        "ja": "コミット {sha} は replicas を minReplicas より小さくしていません: {found}",
        "ko": "{sha} 커밋은 replicas를 minReplicas보다 작게 설정하지 않습니다: {found}"},
    "hpa_rescales_wrong": {
        "en": "hpa.json rescales {found}: expected {expected} (the HPA's SuccessfulRescale count)",
        "ja": "hpa.json の `rescales` が {found} です。期待値は {expected} です（HPA の SuccessfulRescale の `count`）",
        "ko": "hpa.json의 `rescales`가 {found}입니다. 기댓값은 {expected}입니다(HPA의 SuccessfulRescale `count`)"},
    "hpa_fix_holds": {
        "en": "the fix {fix} is in force: {found}",
        "ja": "修正 {fix} が効いています: {found}",
        "ko": "수정 방법 {fix}의 조건이 충족됩니다: {found}"},
    "hpa_fix_missing": {
        "en": "hpa.json fix {fix} is not in force: {found}",
        "ja": "hpa.json の `fix` {fix} が効いていません: {found}",
        "ko": "hpa.json의 `fix` 값 {fix}의 조건이 충족되지 않습니다: {found}"},
    "hpa_ignore_without_respect": {
        "en": "ignoreDifferences hides /spec/replicas, but syncOptions lacks RespectIgnoreDifferences=true: the next sync "
              "writes git's replicas again",
        "ja": "ignoreDifferences は /spec/replicas を隠していますが、syncOptions に RespectIgnoreDifferences=true がないため、"
              "次の同期で Git の replicas が再び書き込まれます",
        "ko": "ignoreDifferences가 /spec/replicas를 숨기지만 syncOptions에 RespectIgnoreDifferences=true가 없어서 다음 동기화 때 "
              "Git의 replicas가 다시 써집니다"},
    "hpa_still_fighting": {
        "en": "Application {name} still syncs {sha}, whose replicas are below the HPA's minReplicas: two controllers fight "
              "(found {found})",
        "ja": "Application {name} は replicas が HPA の minReplicas より小さい {sha} をまだ同期しています。2 つのコントローラーが"
              "争っています（実際は {found}）",
        "ko": "Application {name}: 동기화된 {sha} 커밋의 replicas가 HPA의 minReplicas보다 작습니다. 두 컨트롤러가 "
              "다툽니다(실제 값은 {found})"},
    "hpa_live_ok": {
        "en": "Application {name}: web has the HPA's replicas and the app is Synced: {found}",
        "ja": "Application {name}: web は HPA の replicas を持ち、Synced です: {found}",
        "ko": "Application {name}: web이 HPA의 replicas를 갖고 Synced입니다: {found}"},
    "hpa_live_wrong": {
        "en": "Application {name}: expected {expected}, found {found}",
        "ja": "Application {name}: 期待値は {expected}、実際は {found} です",
        "ko": "Application {name}: 기댓값은 {expected}, 실제 값은 {found}입니다"},
    # step 6
    "oos_git_ok": {
        "en": "commit {sha} has Service web with clusterIP \"\"",
        "ja": "コミット {sha} には clusterIP \"\" の Service web があります",
        "ko": "{sha} 커밋에 clusterIP \"\"인 Service web이 있습니다"},
    "oos_git_missing": {
        "en": "no commit on bare main has Service web with clusterIP \"\" in {path}",
        "ja": "ベアリポジトリの main に、{path} の Service web が clusterIP \"\" のコミットがありません",
        "ko": "베어 저장소의 main에 {path}의 Service web이 clusterIP \"\"인 커밋이 없습니다"},
    "oos_diff_normalised": {
        "en": "diff.json names the Deployment, but Argo CD normalises its defaults: it was Synced in {name} all along "
              "(expected {expected})",
        "ja": "diff.json は Deployment を挙げていますが、Argo CD はその既定値を正規化するため、{name} では最初から Synced でした"
              "（期待値は {expected}）",
        "ko": "diff.json이 Deployment를 가리키지만 Argo CD는 그 기본값을 정규화하므로 {name}에서 처음부터 Synced였습니다"
              "(기댓값은 {expected})"},
    "oos_fix_holds": {
        "en": "the fix {fix} is in force: {found}",
        "ja": "修正 {fix} が効いています: {found}",
        "ko": "수정 방법 {fix}의 조건이 충족됩니다: {found}"},
    "oos_fix_missing": {
        "en": "diff.json fix {fix} is not in force: {found}",
        "ja": "diff.json の `fix` {fix} が効いていません: {found}",
        "ko": "diff.json의 `fix` 값 {fix}의 조건이 충족되지 않습니다: {found}"},
    "oos_all_synced": {
        "en": "Application {name} and every resource of it are Synced",
        "ja": "Application {name} とそのすべてのリソースが Synced です",
        "ko": "Application {name}: 앱과 모든 리소스가 Synced입니다"},
    "oos_not_synced": {
        "en": "Application {name}: expected {expected}, found {found}",
        "ja": "Application {name}: 期待値は {expected}、実際は {found} です",
        "ko": "Application {name}: 기댓값은 {expected}, 실제 값은 {found}입니다"},
    # step 7
    "apps_tracked": {
        "en": "{names} carry drift-root's tracking mark",
        "ja": "{names} には drift-root の追跡用の印があります",
        "ko": "{names}에 drift-root의 추적 표시가 있습니다"},
    "apps_not_tracked": {
        "en": "drift-root's tracking mark is missing on {names}: expected {expected}, found {found}",
        "ja": "{names} に drift-root の追跡用の印がありません。期待値は {expected}、実際は {found} です",
        "ko": "{names}에 drift-root의 추적 표시가 없습니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "apps_not_by_hand": {
        "en": "no kubectl manager wrote {names}: the root created them",
        "ja": "{names} を書いた kubectl の manager はありません。ルートが作成しました",
        "ko": "kubectl manager가 쓴 흔적이 없습니다({names}). 루트가 만들었습니다"},
    "apps_by_hand": {
        "en": "written with kubectl, not by drift-root: {found}",
        "ja": "drift-root ではなく kubectl で書かれています: {found}",
        "ko": "drift-root가 아니라 kubectl로 써졌습니다: {found}"},
    "apps_one_commit": {
        "en": "commit {sha} adds the service in one commit and changes nothing else",
        "ja": "コミット {sha} は 1 つのコミットでサービスを追加し、他には何も変更していません",
        "ko": "{sha} 커밋이 커밋 하나로 서비스를 추가하고 다른 것은 바꾸지 않습니다"},
    "apps_not_one_commit": {
        "en": "commit {sha} is not one commit adding the service: expected {expected}, found {found}",
        "ja": "コミット {sha} はサービスを追加する 1 つのコミットになっていません。期待値は {expected}、実際は {found} です",
        "ko": "{sha} 커밋은 서비스를 추가하는 커밋 하나가 아닙니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "apps_root_ok": {
        "en": "Application {name} is Synced and lists its children Synced: {found}",
        "ja": "Application {name} は Synced で、子を Synced として一覧に持っています: {found}",
        "ko": "Application {name}: Synced이고 자식들을 Synced로 나열합니다. {found}"},
    "apps_root_wrong": {
        "en": "Application {name}: expected {expected} in its status, found {found}",
        "ja": "Application {name}: `status` の期待値は {expected}、実際は {found} です",
        "ko": "Application {name}: `status`의 기댓값은 {expected}, 실제 값은 {found}입니다"},
    # step 8
    "fence_project_ok": {
        "en": "AppProject {project} answers as a fence should: {found}",
        "ja": "AppProject `{project}` は柵として正しく答えます: {found}",
        "ko": "AppProject `{project}`이 울타리로서 올바르게 답합니다: {found}"},
    "fence_project_wrong": {
        "en": "AppProject {project}, evaluated with Argo CD's rules: expected {expected}, found {found}",
        "ja": "Argo CD の規則で評価した AppProject `{project}`: 期待値は {expected}、実際は {found} です",
        "ko": "Argo CD 규칙으로 평가한 AppProject `{project}`: 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "fence_children_inside": {
        "en": "{names} are in project {project}, live and in git",
        "ja": "{names} はクラスターでも Git でも project `{project}` に属しています",
        "ko": "{names}: 클러스터와 Git 모두에서 project `{project}`에 속합니다"},
    "fence_children_outside": {
        "en": "{names} are not in project {project} both live and in git: {found}",
        "ja": "{names} はクラスターと Git の両方で project `{project}` に属していません: {found}",
        "ko": "{names}: 클러스터와 Git 양쪽에서 project `{project}`에 속하지 않습니다. {found}"},
    "fence_destination_refused": {
        "en": "Application {name} is refused for its destination before any operation",
        "ja": "Application {name} はオペレーションの前に宛先を理由に拒否されています",
        "ko": "Application {name}: 오퍼레이션 전에 대상 때문에 거부되었습니다"},
    "fence_destination_not_refused": {
        "en": "Application {name} is not refused for its destination: expected {expected}, found {found}",
        "ja": "Application {name} は宛先を理由に拒否されていません。期待値は {expected}、実際は {found} です",
        "ko": "Application {name}: 대상 때문에 거부되지 않았습니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "fence_kind_refused": {
        "en": "Application {name} cannot sync the cluster-scoped kind git holds, and nothing was created",
        "ja": "Application {name} は Git にあるクラスタースコープの種類を同期できず、何も作成されていません",
        "ko": "Application {name}: Git에 있는 클러스터 범위 종류를 동기화하지 못했고 아무것도 만들어지지 않았습니다"},
    "fence_kind_not_refused": {
        "en": "Application {name} is not refused for a cluster-scoped kind: expected {expected}, found {found}",
        "ja": "Application {name} はクラスタースコープの種類を理由に拒否されていません。期待値は {expected}、実際は {found} です",
        "ko": "Application {name}: 클러스터 범위 종류 때문에 거부되지 않았습니다. 기댓값은 {expected}, 실제 값은 {found}입니다"},
    "fence_from_git": {
        "en": "{names} come from git through drift-root",
        "ja": "{names} は drift-root を通じて Git から作られています",
        "ko": "{names}: drift-root를 통해 Git에서 만들어졌습니다"},
    "fence_not_from_git": {
        "en": "{names} must stay in apps/ and be created by drift-root: {found}",
        "ja": "{names} は apps/ に残し、drift-root に作成させる必要があります: {found}",
        "ko": "{names}: apps/에 남아 drift-root가 만들어야 합니다. {found}"},
}

HINTS = {
    "drift_layout": {
        "en": "Push the layout commit of step 1 first: oneway/web.yaml with Deployment web, replicas 2, nginx:1.27-alpine.",
        "ja": "まず ステップ 1のレイアウトのコミットを push してください。oneway/web.yaml は Deployment web、replicas 2、"
              "nginx:1.27-alpine です。",
        "ko": "먼저 1단계의 레이아웃 커밋을 push하세요. oneway/web.yaml은 Deployment web, replicas 2, nginx:1.27-alpine입니다."},
    "drift_oneway_app": {
        "en": "app-drift-oneway.yaml: path oneway, destination drift-oneway, automated: {{}} without selfHeal or prune, "
              "CreateNamespace=true, and targetRevision the full SHA of the layout commit (git rev-parse HEAD), not main.",
        "ja": "app-drift-oneway.yaml: path は `oneway`、宛先は drift-oneway、selfHeal も prune もない automated: {{}}、"
              "CreateNamespace=true、targetRevision は main ではなくレイアウトのコミットの完全な SHA（git rev-parse HEAD）です。",
        "ko": "app-drift-oneway.yaml: path는 `oneway`, 대상은 drift-oneway, selfHeal과 prune 없는 automated: {{}}, "
              "CreateNamespace=true, targetRevision은 main이 아니라 레이아웃 커밋의 전체 SHA(git rev-parse HEAD)입니다."},
    "drift_oneway_scale": {
        "en": "Scale by hand (`kubectl -n drift-oneway scale deploy/web --replicas=5`) and leave it: the drift is the "
              "proof. A commit does not undo it while the Application is pinned to its SHA.",
        "ja": "手で scale し（`kubectl -n drift-oneway scale deploy/web --replicas=5`）、そのままにしてください。ドリフトが"
              "証拠です。Application が SHA に固定されていれば、コミットしても元に戻りません。",
        "ko": "손으로 scale하고(`kubectl -n drift-oneway scale deploy/web --replicas=5`) 그대로 두세요. 드리프트가 증거입니다. "
              "Application이 SHA에 고정되어 있으면 커밋해도 되돌아가지 않습니다."},
    "drift_oneway_untouched": {
        "en": "Argo CD must not sync drift-oneway after its creation: no selfHeal, a SHA as targetRevision, and the scale "
              "made with kubectl after the first sync.",
        "ja": "drift-oneway は作成後に Argo CD が同期してはいけません。selfHeal なし、targetRevision は SHA、scale は最初の"
              "同期の後に kubectl で行います。",
        "ko": "drift-oneway는 생성 뒤 Argo CD가 동기화하면 안 됩니다. selfHeal 없이, targetRevision은 SHA로, scale은 첫 동기화 "
              "뒤에 kubectl로 합니다."},
    "drift_oneway_evidence": {
        "en": "Read the values from the cluster now: `kubectl get application drift-oneway` for sync and health, the "
              "Deployment for live_replicas, oneway/web.yaml at the pinned commit for git_replicas; numbers without quotes.",
        "ja": "値はいまのクラスターから読んでください。同期と `health` は `kubectl get application drift-oneway`、"
              "live_replicas は "
              "Deployment、git_replicas は固定したコミットの oneway/web.yaml です。数値は引用符なしで書きます。",
        "ko": "값은 지금 클러스터에서 읽으세요. 동기화와 `health`는 `kubectl get application drift-oneway`, live_replicas는 "
              "Deployment, git_replicas는 고정한 커밋의 oneway/web.yaml입니다. 숫자는 따옴표 없이 씁니다."},
    "drift_heal_app": {
        "en": "app-drift-heal.yaml: path heal, destination drift-heal, targetRevision main, and selfHeal: true inside "
              "automated (selfHeal outside automated does nothing).",
        "ja": "app-drift-heal.yaml: path は `heal`、宛先は drift-heal、targetRevision は main、selfHeal: true は automated の"
              "中に書きます（automated の外の selfHeal は何もしません）。",
        "ko": "app-drift-heal.yaml: path는 `heal`, 대상은 drift-heal, targetRevision은 main이고 selfHeal: true는 automated 안에 "
              "씁니다(automated 밖의 selfHeal은 아무 일도 하지 않습니다)."},
    "drift_heal_again": {
        "en": "Change spec.replicas or the image once more with kubectl and let Argo CD revert it; do not commit while a "
              "heal waits (a new revision turns it into a full sync).",
        "ja": "kubectl で spec.replicas かイメージをもう一度変更し、Argo CD に戻させてください。修復を待っている間は"
              "コミットしないでください（新しいリビジョンは全体の同期に置き換わります）。",
        "ko": "kubectl로 spec.replicas나 이미지를 한 번 더 바꾸고 Argo CD가 되돌리게 하세요. 복구를 기다리는 동안 커밋하지 "
              "마세요(새 리비전은 전체 동기화로 바뀝니다)."},
    "drift_heal_evidence": {
        "en": "Record the revert you watched: initiated_by and operation_started_at copied from status.operationState of "
              "that revert, changed_at and reverted_at from `date +%s` around it; field spec.replicas or image.",
        "ja": "見届けた修復を記録してください。initiated_by と operation_started_at はその修復の status.operationState から、"
              "changed_at と reverted_at は前後の `date +%s` から。`field` は spec.replicas か image です。",
        "ko": "지켜본 복구를 기록하세요. initiated_by와 operation_started_at은 그 복구의 status.operationState에서, changed_at과 "
              "reverted_at은 앞뒤의 `date +%s`에서 가져옵니다. `field`는 spec.replicas나 image입니다."},
    "drift_heal_backoff": {
        "en": "Argo CD waits 0, 2, 6, 18, 54, 162, then 300 s before a repeated heal; changed_at must be the change this "
              "heal reverted.",
        "ja": "Argo CD は繰り返しの修復の前に 0、2、6、18、54、162、その後 300 秒待ちます。changed_at はこの修復が戻した変更の"
              "時刻です。",
        "ko": "Argo CD는 반복되는 복구 전에 0, 2, 6, 18, 54, 162, 그다음 300초를 기다립니다. changed_at은 "
              "이 복구가 되돌린 변경의 "
              "시각이어야 합니다."},
    "drift_heal_managed_fields": {
        "en": "`kubectl -n drift-heal get deploy web -o json --show-managed-fields`: after a heal argocd-controller owns "
              "the field again and the kubectl entry is gone.",
        "ja": "`kubectl -n drift-heal get deploy web -o json --show-managed-fields` を見てください。修復の後は "
              "argocd-controller がフィールドを持ち直し、kubectl のエントリは消えます。",
        "ko": "`kubectl -n drift-heal get deploy web -o json --show-managed-fields`를 보세요. 복구 뒤에는 argocd-controller가 "
              "필드를 다시 갖고 kubectl 엔트리는 사라집니다."},
    "drift_prune_app": {
        "en": "app-drift-prune.yaml: path prune, destination drift-prune, and at the end prune: true inside automated "
              "(not beside it, not in syncOptions).",
        "ja": "app-drift-prune.yaml: path は prune、宛先は drift-prune、最後に prune: true を automated の中に書きます"
              "（横や syncOptions ではありません）。",
        "ko": "app-drift-prune.yaml: path는 prune, 대상은 drift-prune이고 마지막에 prune: true를 automated 안에 씁니다(옆이나 "
              "syncOptions가 아닙니다)."},
    "drift_prune_commit": {
        "en": "removed_in is the full SHA of the commit that ran `git rm prune/extra.yaml` (git rev-parse HEAD after it).",
        "ja": "removed_in は `git rm prune/extra.yaml` をしたコミットの完全な SHA です（その直後の git rev-parse HEAD）。",
        "ko": "removed_in은 `git rm prune/extra.yaml`을 한 커밋의 전체 SHA입니다(그 직후의 git rev-parse HEAD)."},
    "drift_prune_in_between": {
        "en": "Write prune.json while prune is still off, after the removal commit: the app OutOfSync, the ConfigMap with "
              "requiresPruning true and still in the cluster.",
        "ja": "prune.json は削除のコミットの後、prune を有効にする前に書いてください。アプリは OutOfSync、ConfigMap は "
              "requiresPruning が true で、まだクラスターにあります。",
        "ko": "prune.json은 삭제 커밋 뒤, prune을 켜기 전에 쓰세요. 앱은 OutOfSync이고 ConfigMap은 requiresPruning이 true이며 "
              "아직 클러스터에 있습니다."},
    "drift_prune_live": {
        "en": "With prune: true Argo CD deletes ConfigMap extra at the next refresh (up to about 3 minutes); do not delete "
              "it with kubectl.",
        "ja": "prune: true にすると、Argo CD は次のリフレッシュ（最大で約 3 分）で ConfigMap `extra` を削除します。kubectl で"
              "削除しないでください。",
        "ko": "prune: true로 하면 Argo CD가 다음 리프레시(최대 약 3분) 때 ConfigMap `extra`를 지웁니다. "
              "kubectl로 지우지 마세요."},
    "drift_health_app": {
        "en": "app-drift-health.yaml: path health, destination drift-health, targetRevision main, automated: {{}}.",
        "ja": "app-drift-health.yaml: path は `health`、宛先は drift-health、targetRevision は main、automated: {{}} です。",
        "ko": "app-drift-health.yaml: path는 `health`, 대상은 drift-health, targetRevision은 main, automated: {{}}입니다."},
    "drift_health_bad": {
        "en": "The bad commit adds progressDeadlineSeconds: 60 and a nodeSelector no node has; health.json revision is "
              "its full SHA.",
        "ja": "問題のコミットは progressDeadlineSeconds: 60 と、どのノードにもない nodeSelector を追加します。health.json の"
              " `revision` はその完全な SHA です。",
        "ko": "문제의 커밋은 progressDeadlineSeconds: 60과 어떤 노드에도 없는 nodeSelector를 추가합니다. health.json의 "
              "`revision`은 그 전체 SHA입니다."},
    "drift_health_degraded": {
        "en": "Wait until the app is Degraded (about progressDeadlineSeconds after the sync), then record Synced, Degraded "
              "and the seconds it took.",
        "ja": "アプリが Degraded になるまで（同期から約 progressDeadlineSeconds）待ち、Synced、Degraded とかかった秒数を"
              "記録してください。",
        "ko": "앱이 Degraded가 될 때까지(동기화 뒤 약 progressDeadlineSeconds) 기다린 뒤 Synced, Degraded와 걸린 초를 "
              "기록하세요."},
    "drift_health_fix": {
        "en": "Fix it through git: `git revert --no-edit <bad commit>` and push; never `kubectl patch` or `kubectl scale` "
              "the Deployment.",
        "ja": "Git で修正してください。`git revert --no-edit <問題のコミット>` をして push します。Deployment に "
              "`kubectl patch` や `kubectl scale` をしてはいけません。",
        "ko": "Git으로 수정하세요. `git revert --no-edit <문제의 커밋>` 뒤 push합니다. Deployment에 `kubectl patch`나 "
              "`kubectl scale`을 하면 안 됩니다."},
    "drift_hpa_app": {
        "en": "app-drift-hpa.yaml: path hpa, destination drift-hpa, targetRevision main, selfHeal: true inside automated.",
        "ja": "app-drift-hpa.yaml: path は `hpa`、宛先は drift-hpa、targetRevision は main、"
              "selfHeal: true は automated の中です。",
        "ko": "app-drift-hpa.yaml: path는 `hpa`, 대상은 drift-hpa, targetRevision은 main, selfHeal: true는 automated 안입니다."},
    "drift_hpa_fight": {
        "en": "Commit hpa/web.yaml with replicas: 1 beside hpa/hpa.yaml (minReplicas 3, scaleTargetRef apps/v1 "
              "Deployment web) and let drift-hpa sync it.",
        "ja": "hpa/hpa.yaml（minReplicas 3、scaleTargetRef は apps/v1 の Deployment web）と並べて replicas: 1 の "
              "hpa/web.yaml をコミットし、drift-hpa に同期させてください。",
        "ko": "hpa/hpa.yaml(minReplicas 3, scaleTargetRef는 apps/v1 Deployment web) 옆에 replicas: 1인 hpa/web.yaml을 커밋하고 "
              "drift-hpa가 동기화하게 하세요."},
    "drift_hpa_evidence": {
        "en": "Record while it fights: min_replicas from the live HPA, rescales the count of its SuccessfulRescale event "
              "(`kubectl -n drift-hpa get events`).",
        "ja": "争っている間に記録してください。min_replicas はクラスターの HPA から、`rescales` はその SuccessfulRescale "
              "イベントの `count`（`kubectl -n drift-hpa get events`）です。",
        "ko": "다투는 동안 기록하세요. min_replicas는 클러스터의 HPA에서, `rescales`는 그 SuccessfulRescale 이벤트의 `count`"
              "(`kubectl -n drift-hpa get events`)입니다."},
    "drift_hpa_fix": {
        "en": "End the fight: remove replicas from hpa/web.yaml and push, or ignoreDifferences on /spec/replicas (group "
              "apps, kind Deployment) with RespectIgnoreDifferences=true in syncOptions; fix names the one you made.",
        "ja": "争いを終わらせてください。hpa/web.yaml から replicas を消して push するか、/spec/replicas の "
              "ignoreDifferences（`group` は apps、`kind` は Deployment）と syncOptions の RespectIgnoreDifferences=true です。"
              "`fix` には行った方を書きます。",
        "ko": "다툼을 끝내세요. hpa/web.yaml에서 replicas를 지우고 push하거나, "
              "/spec/replicas의 ignoreDifferences(`group`은 apps, "
              "`kind`는 Deployment)와 syncOptions의 RespectIgnoreDifferences=true를 씁니다. `fix`에는 한 쪽을 적습니다."},
    "drift_oos_app": {
        "en": "app-drift-oos.yaml: path oos, destination drift-oos, targetRevision main, automated: {{}}.",
        "ja": "app-drift-oos.yaml: path は `oos`、宛先は drift-oos、targetRevision は main、automated: {{}} です。",
        "ko": "app-drift-oos.yaml: path는 `oos`, 대상은 drift-oos, targetRevision은 main, automated: {{}}입니다."},
    "drift_oos_git": {
        "en": "The layout commit of step 1 has oos/svc.yaml with Service web and clusterIP: \"\".",
        "ja": "ステップ 1のレイアウトのコミットには、Service web と clusterIP: \"\" を持つ oos/svc.yaml があります。",
        "ko": "1단계의 레이아웃 커밋에는 Service web과 clusterIP: \"\"가 있는 oos/svc.yaml이 있습니다."},
    "drift_oos_diff": {
        "en": "`argocd app diff drift-oos --core` shows the one field that differs; write its resource and JSON pointer.",
        "ja": "`argocd app diff drift-oos --core` が違う 1 つのフィールドを示します。そのリソースと JSON ポインターを"
              "書いてください。",
        "ko": "`argocd app diff drift-oos --core`가 다른 필드 하나를 보여 줍니다. 그 리소스와 JSON 포인터를 쓰세요."},
    "drift_oos_filled_by": {
        "en": "The API server allocates a Service's clusterIP when it creates it; no controller does.",
        "ja": "Service の clusterIP は作成時に API サーバーが割り当てます。コントローラーではありません。",
        "ko": "Service의 clusterIP는 생성 때 API 서버가 할당합니다. 컨트롤러가 아닙니다."},
    "drift_oos_fix": {
        "en": "ignoreDifferences with group \"\", kind Service, jsonPointers [/spec/clusterIP] (then refresh), or remove "
              "clusterIP: \"\" from oos/svc.yaml and push; fix names the one you made.",
        "ja": "`group` \"\"、`kind` Service、jsonPointers [/spec/clusterIP] の ignoreDifferences（その後リフレッシュ）か、"
              "oos/svc.yaml から clusterIP: \"\" を消して push します。`fix` には行った方を書きます。",
        "ko": "`group` \"\", `kind` Service, jsonPointers [/spec/clusterIP]인 ignoreDifferences(그 뒤 리프레시)이거나 "
              "oos/svc.yaml에서 "
              "clusterIP: \"\"를 지우고 push합니다. `fix`에는 한 쪽을 적습니다."},
    "drift_root_app": {
        "en": "app-drift-root.yaml: project default, path apps, destination namespace {argocd_namespace} (its resources "
              "are Applications), targetRevision main, automated: {{}}.",
        "ja": "app-drift-root.yaml: project は default、path は apps、宛先のネームスペースは {argocd_namespace}（リソースが "
              "Application のため）、targetRevision は main、automated: {{}} です。",
        "ko": "app-drift-root.yaml: project는 default, path는 apps, 대상 네임스페이스는 {argocd_namespace}(리소스가 "
              "Application이므로), targetRevision은 main, automated: {{}}입니다."},
    "drift_root_children": {
        "en": "Let drift-root create the children from apps/ in git; never `kubectl apply` a child. "
              "`kubectl get application drift-root -o json | jq .status.resources` lists them.",
        "ja": "子は Git の apps/ から drift-root に作成させてください。子を `kubectl apply` してはいけません。"
              "`kubectl get application drift-root -o json | jq .status.resources` に一覧が出ます。",
        "ko": "자식은 Git의 apps/에서 drift-root가 만들게 하세요. 자식을 `kubectl apply`하면 안 됩니다. "
              "`kubectl get application drift-root -o json | jq .status.resources`에 목록이 나옵니다."},
    "drift_root_one_commit": {
        "en": "Add apps/svc-b.yaml and services/b/config.yaml in one commit with nothing else in it; service_commit is "
              "its full SHA.",
        "ja": "apps/svc-b.yaml と services/b/config.yaml を、他の変更を含まない 1 つのコミットで追加してください。"
              "service_commit はその完全な SHA です。",
        "ko": "apps/svc-b.yaml과 services/b/config.yaml을 다른 변경 없이 커밋 하나로 추가하세요. service_commit은 그 전체 "
              "SHA입니다."},
    "drift_project": {
        "en": "project-drift.yaml: sourceRepos [git://gitd.{gitd_namespace}.svc.cluster.local:9418/*], destinations "
              "namespace drift-* on https://kubernetes.default.svc, clusterResourceWhitelist [] and no "
              "namespaceResourceWhitelist.",
        "ja": "project-drift.yaml: sourceRepos は [git://gitd.{gitd_namespace}.svc.cluster.local:9418/*]、`destinations` は "
              "https://kubernetes.default.svc のネームスペース drift-*、clusterResourceWhitelist は []、"
              "namespaceResourceWhitelist は"
              "書きません。",
        "ko": "project-drift.yaml: sourceRepos는 [git://gitd.{gitd_namespace}.svc.cluster.local:9418/*], `destinations`는 "
              "https://kubernetes.default.svc의 네임스페이스 drift-*, clusterResourceWhitelist는 []이고 "
              "namespaceResourceWhitelist는 "
              "쓰지 않습니다."},
    "drift_project_apply": {
        "en": "Apply project-drift.yaml: `kubectl apply -f {workspace}/project-drift.yaml`.",
        "ja": "project-drift.yaml を適用してください: `kubectl apply -f {workspace}/project-drift.yaml`。",
        "ko": "project-drift.yaml을 적용하세요: `kubectl apply -f {workspace}/project-drift.yaml`."},
    "drift_project_children": {
        "en": "Set project: drift in apps/svc-a.yaml, apps/svc-b.yaml, apps/fence-ns.yaml and apps/fence-kind.yaml, "
              "commit and push: drift-root applies it.",
        "ja": "apps/svc-a.yaml、apps/svc-b.yaml、apps/fence-ns.yaml、apps/fence-kind.yaml に `project: drift` を書き、"
              "コミットして push してください。drift-root が適用します。",
        "ko": "apps/svc-a.yaml, apps/svc-b.yaml, apps/fence-ns.yaml, apps/fence-kind.yaml에 `project: drift`를 쓰고 커밋해 "
              "push하세요. drift-root가 적용합니다."},
    "drift_fence_destination": {
        "en": "drift-fence-ns deploys services/a to kube-system; copy its InvalidSpecError message from "
              "`kubectl get application drift-fence-ns -o json | jq .status.conditions`.",
        "ja": "drift-fence-ns は services/a を kube-system に配置します。InvalidSpecError のメッセージを "
              "`kubectl get application drift-fence-ns -o json | jq .status.conditions` から写してください。",
        "ko": "drift-fence-ns는 services/a를 kube-system에 배포합니다. InvalidSpecError 메시지를 "
              "`kubectl get application drift-fence-ns -o json | jq .status.conditions`에서 옮기세요."},
    "drift_fence_kind": {
        "en": "drift-fence-kind deploys fence/ (ClusterRole drift-fence-reader and a ConfigMap) to drift-fence; copy "
              "status.operationState.message and write kind_resource as group:Kind.",
        "ja": "drift-fence-kind は fence/（ClusterRole drift-fence-reader と ConfigMap）を drift-fence に配置します。"
              "status.operationState.message を写し、kind_resource は group:Kind の形で書いてください。",
        "ko": "drift-fence-kind는 fence/(ClusterRole drift-fence-reader와 ConfigMap)를 drift-fence에 배포합니다. "
              "status.operationState.message를 옮기고 kind_resource는 group:Kind 형식으로 쓰세요."},
    "drift_fence_git": {
        "en": "Keep apps/fence-ns.yaml and apps/fence-kind.yaml in git: the refused children are the proof of the fence.",
        "ja": "apps/fence-ns.yaml と apps/fence-kind.yaml を Git に残してください。拒否された子が柵の証拠です。",
        "ko": "apps/fence-ns.yaml과 apps/fence-kind.yaml을 Git에 남기세요. 거부된 자식이 울타리의 증거입니다."},
}
