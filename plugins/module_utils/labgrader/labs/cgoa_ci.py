"""Lab cgoa-ci: a broken commit reaches the reconciler, a CI identity that cannot write prod,
server-side dry-run validation, a pre-receive gate, CI writes git and CD writes the cluster.

Specification: shared/labs/cgoa-ci.md. The final state is graded: a check for step N accepts
what later steps legitimately changed (step 7 bumps the image to nginx:1.28-alpine).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import os
import re
import secrets
import sys
import time

from ansible.module_utils.labgrader.checks.argocd import (
    application_file,
    automated_enabled,
    live_status,
    self_heal_due,
    self_heal_pending,
    spec_problems,
    synced_healthy,
    verdict_from_problems,
)
from ansible.module_utils.labgrader.checks.evidence import (
    blocked,
    evidence,
    evidence_field,
    file_problem,
    same_value,
)
from ansible.module_utils.labgrader.checks.git import (
    clone_origin_verdict,
    find_object,
    images,
    repo_blocked,
    wanted_or_first,
    yaml_documents,
)
from ansible.module_utils.labgrader.checks.kubeconfig import current_context, jwt_claims
from ansible.module_utils.labgrader.checks.probes import (
    NO_TIME_LEFT,
    SCRIPT_TIMEOUT,
    ProbeOutOfTime,
    ProbeRun,
    ProbeUnavailable,
    commit_files,
    git,
    last_author,
    run_probe,
    stage_bare_repo,
    work_clone,
)
from ansible.module_utils.labgrader.collect import Reads, Repo, load_kubeconfig_data
from ansible.module_utils.labgrader.facts import containers, dig, is_integer, typed_field
from ansible.module_utils.labgrader.grading import Lab, OutOfTime, Owned
from ansible.module_utils.labgrader.kubestate import ClusterError
from ansible.module_utils.labgrader.limits import Refused, load_yaml, read_regular
from ansible.module_utils.labgrader.result import errored, failed, passed, pending
from ansible.module_utils.labgrader.sandbox import Sandbox, SandboxUnavailable, TreeRefused, login_env, mktemp_name
from ansible.module_utils.labgrader.solutions import cgoa_ci as solution

REPO_NAME = "ci"
APP = "ci-web"
PROD_NS, DRYRUN_NS, CI_NS = "ci-web", "ci-dryrun", "ci"
VALIDATOR = "system:serviceaccount:ci:validator"
VALIDATOR_GROUPS = ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"]
BASE_IMAGE, BUMP_IMAGE = "nginx:1.27-alpine", "nginx:1.28-alpine"
BUMP_MESSAGE = "ci: web nginx:1.28-alpine"
WEB_YAML = "deploy/web.yaml"
TOKEN_LIFETIME, TOKEN_SKEW = 8 * 3600, 120

STEP_TITLES = {
    1: {"en": "Baseline deployed from git", "ja": "Git からデプロイするベースライン", "ko": "Git에서 배포하는 기준 상태"},
    2: {"en": "Git accepted what Argo CD could not apply", "ja": "Git は受け入れたが Argo CD は適用できなかった",
        "ko": "Git은 받았지만 Argo CD는 적용하지 못했다"},
    3: {"en": "A CI identity that cannot write prod", "ja": "本番に書けない CI のアイデンティティ",
        "ko": "운영에 쓸 수 없는 CI 아이덴티티"},
    4: {"en": "validate.sh rejects what the API server rejects", "ja": "API サーバーが拒否するものを validate.sh で拒否する",
        "ko": "API 서버가 거부할 것을 validate.sh가 거부한다"},
    5: {"en": "The pre-receive gate", "ja": "pre-receive ゲート", "ko": "pre-receive 게이트"},
    6: {"en": "The same mistake no longer reaches main", "ja": "同じミスはもう main に届かない",
        "ko": "같은 실수가 더는 main에 닿지 않는다"},
    7: {"en": "CI writes git, Argo CD deploys", "ja": "CI は Git に書き、Argo CD がデプロイする",
        "ko": "CI는 Git에 쓰고 Argo CD가 배포한다"},
    8: {"en": "Who writes where", "ja": "誰がどこに書くか", "ko": "누가 어디에 쓰는가"},
}

SAR_PATH = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
TOKEN_REVIEW_PATH = "/apis/authentication.k8s.io/v1/tokenreviews"
# (name, verb, group, resource, namespace, allowed?): what ci:validator may and may not do.
# An empty namespace asks about every namespace at once (a cluster-wide grant).
ACCESS = (
    ("create-dryrun", "create", "apps", "deployments", DRYRUN_NS, True),
    ("patch-dryrun", "patch", "apps", "deployments", DRYRUN_NS, True),
    ("create-prod", "create", "apps", "deployments", PROD_NS, False),
    ("patch-prod", "patch", "apps", "deployments", PROD_NS, False),
    ("delete-prod", "delete", "apps", "deployments", PROD_NS, False),
    ("create-prod-configmaps", "create", "", "configmaps", PROD_NS, False),
    ("create-all-namespaces", "create", "apps", "deployments", "", False),
    ("create-namespaces", "create", "", "namespaces", "", False),
)


def cluster_reads(site):
    return {
        "app": (f"/apis/argoproj.io/v1alpha1/namespaces/{site.argocd_namespace}/applications/{APP}", None),
        "web": (f"/apis/apps/v1/namespaces/{PROD_NS}/deployments/web", None),
        # Namespace ci exists when its ServiceAccount does, ci-dryrun when its Role does: no GET of
        # their own (15 requests per reading).
        "validator_sa": (f"/api/v1/namespaces/{CI_NS}/serviceaccounts/validator", None),
        "role": (f"/apis/rbac.authorization.k8s.io/v1/namespaces/{DRYRUN_NS}/roles/dryrun-deployments", None),
        "binding": (f"/apis/rbac.authorization.k8s.io/v1/namespaces/{DRYRUN_NS}/rolebindings/validator-dryrun", None),
        # Read after the probes ran validate.sh: a probe object here was really created.
        "dryrun_deployments": (f"/apis/apps/v1/namespaces/{DRYRUN_NS}/deployments", None),
    }


def access_review(verb, group, resource, namespace):
    return (SAR_PATH, {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                       "spec": {"user": VALIDATOR, "groups": VALIDATOR_GROUPS,
                                "resourceAttributes": {"verb": verb, "group": group, "resource": resource,
                                                       "namespace": namespace}}})


def reviews(site, files):
    """Questions to the API server: what ci:validator may do, and who the ci-kubeconfig token is."""
    questions = {f"sar_{name}": access_review(verb, group, resource, ns)
                 for name, verb, group, resource, ns, _ in ACCESS}
    read = files["ci-kubeconfig"]
    token = current_context(read.data[0]).get("token") if read.ok and read.data else None
    if token:
        questions["token_review"] = (TOKEN_REVIEW_PATH, {"apiVersion": "authentication.k8s.io/v1",
                                                         "kind": "TokenReview", "spec": {"token": token}})
    return questions


# ---------------------------------------------------------------- probes (run once, in the sandbox)
# What a learner's CI would see: manifests of the lab's own Deployment in a deploy/ folder that
# a hook extracted into a mktemp directory, commits by the learner's own identity, ordinary
# branch names. Nothing names the grader (docs/sandbox.md).


def manifest(name, replicas_key="replicas", replicas=1):
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  labels:\n    app: {name}\n"
            f"spec:\n  {replicas_key}: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n"
            f"  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n"
            f"        - name: {name}\n          image: {BASE_IMAGE}\n")


# The Deployments the probes' manifests name: validate-created-nothing looks for them.
PROBE_OBJECTS = ("web", "api")


def validate_cases():
    """{case: {file: manifest}}: what validate.sh must accept (valid) and reject (the rest)."""
    return {
        "valid": {"web.yaml": manifest("web")},
        "string-replicas": {"web.yaml": manifest("web", replicas="two")},
        "unknown-field": {"web.yaml": manifest("web", replicas_key="replica")},
        # The bad manifest first: a loop that keeps only the last file's status lets it through.
        "mixed": {"api.yaml": manifest("api", replicas="two"), "web.yaml": manifest("web")},
    }


FEATURE_BRANCHES = ("feature/web-replicas", "wip/scale-web", "fix/web-rollout", "test/replicas-field",
                    "dev/web-tuning")


def hook_cases(branch):
    """(case, local branch, {file: text} committed on main or None, push arguments): pushes the
    gate must reject or let through."""
    typo = {WEB_YAML: manifest("web", replicas_key="replica")}
    return (
        ("typo-main", "main", typo, ["origin", "main"]),
        ("valid-main", "scale-web", {WEB_YAML: manifest("web", replicas=3)}, ["origin", "scale-web:main"]),
        ("delete-main", None, None, ["origin", "--delete", "main"]),
        ("typo-branch", branch, typo, ["origin", branch]),
    )


def run_probes(context):
    """The grader-environment read (the VM's admin kubeconfig: server and CA) and the runs of
    validate.sh and the pre-receive hook, each in a fresh sandbox. Every result is plain data;
    "error" is the grader's: it cannot build a sandbox here."""
    results = {"k3s": admin_cluster(context.site.k3s_kubeconfig),
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    script, hook = context.files["validate.sh"], context.files["hooks/pre-receive"]
    if not (script.ok and script.executable):
        results["validate"] = {"not_run": "validate.sh is missing or not executable"}
    if not (hook.ok and hook.executable):
        results["hook"] = {"not_run": "hooks/pre-receive is missing or not executable"}
    if "validate" in results and "hook" in results:
        return results
    try:
        with Sandbox(hidden=(context.kubeconfig, context.site.k3s_kubeconfig)) as sandbox:
            not_run = stage_learner(sandbox, context)
            pushes = None
            if "hook" not in results and not not_run:
                # Staged before any run: the stage is the sandbox's once a run has started.
                pushes, not_run_hook = stage_pushes(sandbox, context)
                if not_run_hook:
                    results["hook"] = not_run_hook
            if "validate" not in results:
                results["validate"] = not_run or validate_runs(sandbox, context, script.path)
            if "hook" not in results:
                results["hook"] = not_run or hook_runs(sandbox, context, *pushes)
    except SandboxUnavailable as exc:
        results["error"] = str(exc)
    except ProbeOutOfTime:  # setting the probes up took the lab's probe time: no run was judged
        for probe, cases in (("validate", list(validate_cases())), ("hook", [c[0] for c in hook_cases("")])):
            if "not_run" not in results.get(probe, {}):
                results[probe] = {**{case: NO_TIME_LEFT.as_dict() for case in cases}, **results.get(probe, {})}
    return results


def stage_learner(sandbox, context):
    """Copies of the workspace (without the VM's admin kubeconfig or any file holding the
    grader's or the admin's credentials) and of the bare repository, at their real paths, plus
    the files the CI kubeconfig names. None, or {"not_run": why} when the learner's trees cannot
    be copied."""
    withheld = credentials(context.kubeconfig) + credentials(context.site.k3s_kubeconfig)

    def skip(relpath, data):
        return relpath == "kubeconfig" or any(secret in data for secret in withheld)

    try:
        sandbox.stage_tree(context.workspace, skip=skip)
        for path in referenced_files(os.path.join(context.workspace, "ci-kubeconfig")):
            sandbox.stage_tree(path, skip=lambda _, data: any(secret in data for secret in withheld))
        stage_bare_repo(sandbox, context.bare_path, HOOK, context.deadline)
    except (TreeRefused, ProbeUnavailable) as exc:
        return {"not_run": f"the workspace {exc}" if isinstance(exc, TreeRefused) else str(exc)}
    return None


def validate_runs(sandbox, context, script):
    runs = {}
    for case, files in validate_cases().items():
        folder = f"/tmp/{mktemp_name()}/deploy"
        for name, text in files.items():
            sandbox.write_file(f"{folder}/{name}", text, layer=case)
        runs[case] = run_probe(sandbox, [script, folder], context.workspace, probe_env(context),
                               probe_timeout(context), layer=case).as_dict()
    return runs


def stage_pushes(sandbox, context):
    """((clone path, cases), None): one CI-style clone (in /tmp) of the bare repo's copy with a
    local branch per push; or (None, {"not_run": why}) when main cannot be read."""
    try:
        clone_path = f"/tmp/{mktemp_name()}"
        clone = work_clone(sandbox, context.bare_path, clone_path, context.deadline)
        base = git(["rev-parse", "refs/remotes/origin/main"], cwd=clone, deadline=context.deadline)
        author = last_author(sandbox.staged(context.bare_path), deadline=context.deadline)
        cases = hook_cases(secrets.choice(FEATURE_BRANCHES))
        for _, branch, files, _ in cases:
            if files is not None:
                commit_files(clone, branch, base, files, "web: update deploy/web.yaml", author, context.deadline)
        # git itself refuses to delete the branch HEAD names (receive.denyDeleteCurrent); the copy
        # lets it through so that only the learner's hook decides.
        git(["config", "--file", os.path.join(sandbox.staged(context.bare_path), "config"),
             "receive.denyDeleteCurrent", "ignore"], cwd=clone, deadline=context.deadline)
    except ProbeUnavailable as exc:
        return None, {"not_run": str(exc)}
    return (clone_path, cases), None


def hook_runs(sandbox, context, clone_path, cases):
    """Each push from the clone to the copy of the bare repo, in a fresh sandbox."""
    return {case: run_probe(sandbox, ["git", "push", *args], clone_path, probe_env(context),
                            probe_timeout(context)).as_dict()
            for case, _, _, args in cases}


def probe_env(context):
    """A root login's environment on the VM; PATH as the grader's (kubectl, git), minus its venv."""
    path = ":".join(d for d in (os.environ.get("PATH") or "").split(":")
                    if d and not d.startswith(sys.prefix.rstrip("/") + "/"))
    return login_env(context.site.workspace_root, path or None)


def credentials(path):
    """The secrets (tokens, client keys, passwords; 16 characters or more) of every user of the
    kubeconfig at `path`, as bytes in every form a file could hold them; [] when unreadable."""
    try:
        config = load_kubeconfig_data(path)
    except ClusterError:
        return []
    found = []
    for entry in config.get("users") or []:
        user = entry.get("user") if isinstance(entry, dict) else None
        for key in ("token", "client-key-data", "password"):
            value = user.get(key) if isinstance(user, dict) else None
            if isinstance(value, str) and len(value.strip()) >= 16:
                found.append(value.strip().encode())
                if key == "client-key-data":
                    with contextlib.suppress(ValueError):
                        found += [line for line in base64.b64decode(value).splitlines()
                                  if len(line) >= 16 and not line.startswith(b"-----")]
    return found


def referenced_files(kubeconfig):
    """The files a kubeconfig names (CA, client certificate and key, token file), resolved as
    kubectl resolves them (relative to the kubeconfig's directory), that exist."""
    try:
        docs = load_yaml(read_regular(kubeconfig).decode("utf-8", "replace"))
    except Refused:
        return []
    config = docs[0] if docs and isinstance(docs[0], dict) else {}
    paths = []
    for section, keys in (("clusters", ("certificate-authority",)),
                          ("users", ("client-certificate", "client-key", "tokenFile", "token-file"))):
        for entry in config.get(section) or []:
            inner = entry.get(section[:-1]) if isinstance(entry, dict) else None
            for key in keys:
                value = inner.get(key) if isinstance(inner, dict) else None
                if isinstance(value, str) and value:
                    path = os.path.join(os.path.dirname(kubeconfig), value)
                    if os.path.isfile(path):
                        paths.append(os.path.abspath(path))
    return paths


def probe_timeout(context):
    """Each run gets SCRIPT_TIMEOUT seconds, less when the lab's probe time ends sooner (none
    once it is over: the run is then not started)."""
    return max(0.0, min(SCRIPT_TIMEOUT, context.remaining()))


def admin_cluster(path):
    """{"server", "ca_data" (base64 text)} of the VM's admin kubeconfig, or {"error": why}."""
    try:
        config = load_kubeconfig_data(path)
    except ClusterError as exc:
        return {"error": exc.detail}
    found = current_context(config)
    ca = found["ca_data"]
    return {"server": found["server"], "ca_data": base64.b64encode(ca).decode() if ca else None}


MESSAGES = {  # this lab's own; the shared ones are in i18n.py
    "first_web_commit_ok": ("the first commit adding deploy/web.yaml ({sha}) has the baseline Deployment",
                            "deploy/web.yaml を追加した最初のコミット({sha})の Deployment は基準どおりです",
                            "deploy/web.yaml을 추가한 첫 커밋({sha})의 Deployment가 기준과 같습니다"),
    "first_web_commit_wrong": ("the first commit adding deploy/web.yaml ({sha}) differs: expected {expected}, "
                               "found {found}",
                               "deploy/web.yaml を追加した最初のコミット({sha})が基準と違います。期待値は "
                               "{expected}、実際は {found} です",
                               "deploy/web.yaml을 추가한 첫 커밋이 기준과 다릅니다({sha}). 기대값은 {expected}, "
                               "실제 값은 {found}입니다"),
    "first_web_commit_missing": ("no commit on bare main adds deploy/web.yaml",
                                 "ベアリポジトリの main に deploy/web.yaml を追加したコミットがありません",
                                 "베어 저장소의 main에 deploy/web.yaml을 추가한 커밋이 없습니다"),
    "broken_commit_ok": ("commit {sha} is on bare main and sets replicas to the string \"two\"",
                         "コミット {sha} はベアリポジトリの main にあり、replicas を文字列 \"two\" にしています",
                         "{sha} 커밋은 베어 저장소의 main에 있고 replicas를 문자열 \"two\"로 바꿉니다"),
    "broken_commit_not_string": ("commit {sha}: deploy/web.yaml spec.replicas is {found}, expected the string "
                                 "\"two\"",
                                 "コミット {sha}: deploy/web.yaml の spec.replicas は {found} です。文字列 \"two\" "
                                 "である必要があります",
                                 "{sha} 커밋: deploy/web.yaml의 spec.replicas 값이 {found}입니다. 문자열 "
                                 "\"two\"여야 합니다"),
    "operation_message_ok": ("the recorded message is Argo CD's apply failure: {found}",
                             "記録したメッセージは Argo CD の適用失敗のメッセージです: {found}",
                             "기록한 메시지는 Argo CD의 적용 실패 메시지입니다: {found}"),
    "operation_message_wrong": ("broken.json operation_message {found} is not the message of a failed apply of "
                                "replicas (status.operationState.message)",
                                "broken.json の operation_message {found} は、replicas "
                                "の適用に失敗したときのメッセージ(status.operationState.message)ではありません",
                                "broken.json의 operation_message 값 {found}: replicas 적용에 실패했을 때의 "
                                "메시지(status.operationState.message)가 아닙니다"),
    "revert_ok": ("commit {sha} restores deploy/web.yaml of the broken commit's parent",
                  "コミット {sha} は、壊れたコミットの親の deploy/web.yaml に戻しています",
                  "{sha} 커밋이 깨진 커밋의 부모 커밋의 deploy/web.yaml로 되돌립니다"),
    "revert_missing": ("no commit after {sha} on bare main restores deploy/web.yaml of its parent (use git revert; "
                       "do not rewrite history)",
                       "ベアリポジトリの main で、{sha} の後にその親の deploy/web.yaml "
                       "に戻したコミットがありません(履歴を書き換えず、git revert を使ってください)",
                       "베어 저장소의 main에서 {sha} 커밋 이후에 그 부모 커밋의 deploy/web.yaml로 되돌린 커밋이 "
                       "없습니다(이력을 고쳐 쓰지 말고 git revert를 쓰세요)"),
    "app_at_head": ("Application {name} is Synced and Healthy at bare main's head {sha}",
                    "Application {name} は、ベアリポジトリの main の最新コミット {sha} で Synced かつ Healthy です",
                    "{name} Application이 베어 저장소 main의 최신 커밋 {sha}에서 Synced, Healthy 상태입니다"),
    "app_not_at_head": ("Application {name} is at {found}, expected Synced / Healthy at bare main's head {sha}",
                        "Application {name} は {found} です。ベアリポジトリの main の最新コミット {sha} で Synced "
                        "/ Healthy になる必要があります",
                        "{name} Application의 상태가 {found}입니다. 베어 저장소 main의 최신 커밋 {sha}에서 Synced "
                        "/ Healthy 상태여야 합니다"),
    "broken_still_retrying": ("the operation of {name} still retries the broken commit {sha} (phase {phase}); new "
                              "commits wait until it ends",
                              "{name} の同期オペレーションが、まだ壊れたコミット {sha} "
                              "をリトライしています(フェーズ {phase})。このオペレーションが終わるまで、"
                              "新しいコミットは同期されません",
                              "{name}의 동기화 오퍼레이션이 아직 깨진 커밋 {sha}의 재시도를 계속하고 있습니다 "
                              "(페이즈 {phase}). 이 오퍼레이션이 끝날 때까지 새 커밋은 동기화되지 않습니다"),
    "no_broken_retry": ("no operation of {name} retries the broken commit",
                        "{name} に、壊れたコミットをリトライするオペレーションはありません",
                        "{name}에 깨진 커밋을 재시도하는 오퍼레이션이 없습니다"),
    "rbac_object_ok": ("{what} is as the lab asks",
                       "{what} は指示どおりです",
                       "{what}: 지시한 대로입니다"),
    "rbac_object_missing": ("{what} does not exist",
                            "{what} がありません",
                            "{what} 리소스가 없습니다"),
    "rbac_object_wrong": ("{what}: expected {expected}, found {found}",
                          "{what}: 期待値は {expected} ですが、実際は {found} です",
                          "{what}: 기대값은 {expected}, 실제 값은 {found}입니다"),
    "access_ok": ("the API server answers as expected for ci:validator: {found}",
                  "ci:validator についての API サーバーの判定は期待どおりです: {found}",
                  "ci:validator에 대한 API 서버의 판정이 기대한 대로입니다: {found}"),
    "access_wrong": ("the API server's answers for ci:validator differ (question: expected / answer): {details}",
                     "ci:validator についての API サーバーの判定が違います(質問: 期待値 / 回答): {details}",
                     "ci:validator에 대한 API 서버의 판정이 다릅니다 (질문: 기대값 / 응답): {details}"),
    "kubeconfig_ok": ("{what} is as expected: {found}",
                      "{what} は期待どおりです: {found}",
                      "{what}: 기대한 대로입니다 ({found})"),
    "kubeconfig_wrong": ("{what}: expected {expected}, found {found}",
                         "{what}: 期待値は {expected} ですが、実際は {found} です",
                         "{what}: 기대값은 {expected}, 실제 값은 {found}입니다"),
    "kubeconfig_unreadable": ("{path} cannot be used as a kubeconfig ({problem})",
                              "{path} は kubeconfig として使えません({problem})",
                              "{path} 파일을 kubeconfig로 쓸 수 없습니다 ({problem})"),
    "admin_kubeconfig_unreadable": ("the VM's admin kubeconfig cannot be read: {detail}",
                                    "VM の管理者用 kubeconfig を読めません: {detail}",
                                    "VM의 관리자 kubeconfig를 읽을 수 없습니다: {detail}"),
    "token_user_ok": ("the API server authenticates the token as {found}",
                      "API サーバーはトークンを {found} として認証しました",
                      "API 서버가 토큰을 {found} 사용자로 인증했습니다"),
    "token_user_wrong": ("the API server authenticates the token as {found}, expected {expected}",
                         "API サーバーはトークンを {found} として認証しました。{expected} である必要があります",
                         "API 서버가 토큰을 {found} 사용자로 인증했습니다. 기대한 사용자는 {expected}입니다"),
    "token_rejected": ("the API server does not authenticate the token: {reason}",
                       "API サーバーはトークンを認証しませんでした: {reason}",
                       "API 서버가 토큰을 인증하지 않았습니다: {reason}"),
    # (never "bearer" before a word in a message: the scrubber redacts "Bearer <anything>")
    "token_missing": ("{path} has no user token in its current context",
                      "{path} の現在のコンテキストにトークンがありません",
                      "{path} 파일의 현재 컨텍스트에 토큰이 없습니다"),
    "token_lifetime_ok": ("the token lives {found} s (8 hours)",
                          "トークンの有効期間は {found} 秒(8 時間)です",
                          "토큰의 유효 기간은 {found}초(8시간)입니다"),
    "token_lifetime_wrong": ("the token lives {found} s (exp - iat), expected {expected} s (8 hours)",
                             "トークンの有効期間は {found} 秒(exp - iat)です。{expected} 秒(8 "
                             "時間)である必要があります",
                             "토큰의 유효 기간이 {found}초(exp - iat)입니다. {expected}초(8시간)여야 합니다"),
    "token_not_jwt": ("the token is not a JWT with iat and exp",
                      "トークンは iat と exp を持つ JWT ではありません",
                      "토큰이 iat와 exp를 가진 JWT가 아닙니다"),
    "script_ok": ("{path} exists and is executable",
                  "{path} があり、実行可能です",
                  "{path} 파일이 있고 실행 가능합니다"),
    "script_not_executable": ("{path} is not executable (chmod +x)",
                              "{path} は実行可能ではありません(chmod +x)",
                              "{path} 파일이 실행 가능하지 않습니다 (chmod +x)"),
    "script_text_ok": ("{path}: {what}",
                       "{path} は条件を満たしています: {what}",
                       "{path} 파일이 조건을 만족합니다: {what}"),
    "script_text_missing": ("{path} must {what}",
                            "{path} は次を満たす必要があります: {what}",
                            "{path} 파일은 다음을 만족해야 합니다: {what}"),
    "probe_ok": ("{script} {what}: exit code {returncode}",
                 "{script} は期待どおりに動作しました({what}、終了コード {returncode})",
                 "{script} 스크립트가 기대한 대로 동작했습니다 ({what}, 종료 코드 {returncode})"),
    "probe_wrong": ("{script} {what}, but exited with code {returncode}: {output}",
                    "{script} の終了コードは {returncode} で、期待する動作({what})と違います: {output}",
                    "{script} 스크립트의 종료 코드 {returncode}: 기대한 동작과 다릅니다({what}). 출력: {output}"),
    "probe_cut_short": ("{script} was stopped ({reason}) before it could show that it {what}",
                        "{script} は止められました({reason})。次を確認できませんでした: {what}",
                        "{script} 스크립트가 중단되었습니다 ({reason}). 다음을 확인하지 못했습니다: {what}"),
    "broken_not_in_history": ("no commit on bare main sets deploy/web.yaml replicas to the string \"two\" (the "
                              "broken commit must stay in the history: revert it, do not rewrite it)",
                              "ベアリポジトリの main に、deploy/web.yaml の replicas を文字列 \"two\" "
                              "にしたコミットがありません(壊れたコミットは履歴に残し、書き換えずに revert "
                              "してください)",
                              "베어 저장소의 main에 deploy/web.yaml의 replicas를 문자열 \"two\"로 바꾼 커밋이 "
                              "없습니다(깨진 커밋은 이력에 남기고, 고쳐 쓰지 말고 revert하세요)"),
    "validate_refuses_valid": ("validate.sh does not accept a valid Deployment, so no gate built on it can",
                               "validate.sh が正しい Deployment を受け入れないため、"
                               "それを使うゲートも受け入れられません",
                               "validate.sh가 올바른 Deployment를 받아들이지 않으므로 그것을 쓰는 게이트도 "
                               "받아들일 수 없습니다"),
    "broken_commit_unknown": ("broken.json does not name a commit on bare main",
                              "broken.json がベアリポジトリの main のコミットを指していません",
                              "broken.json이 베어 저장소 main의 커밋을 가리키지 않습니다"),
    "validate_accepts_typo": ("validate.sh accepts the misspelled field replica:, so no gate built on it refuses it",
                              "validate.sh が誤字のフィールド replica: を受け入れるため、"
                              "それを使うゲートも拒否できません",
                              "validate.sh가 오타 필드 replica:를 받아들이므로 그것을 쓰는 게이트도 거부할 수 "
                              "없습니다"),
    "bump_commit_unknown": ("no commit \"ci: web nginx:1.28-alpine\" on bare main",
                            "ベアリポジトリの main にコミット「ci: web nginx:1.28-alpine」がありません",
                            "베어 저장소의 main에 \"ci: web nginx:1.28-alpine\" 커밋이 없습니다"),
    # What a probe checks, and why a run was cut short: phrases inside the probe messages.
    "phrase_probe_valid": ("accepts a valid Deployment", "正しい Deployment の受け入れ", "올바른 Deployment 수락"),
    "phrase_probe_string_replicas": ("rejects replicas: two", "replicas: two の拒否", "replicas: two 거부"),
    "phrase_probe_unknown_field": ("rejects the misspelled field replica:", "誤字のフィールド replica: の拒否",
                                 "오타 필드 replica: 거부"),
    "phrase_probe_mixed": ("rejects a folder with one good and one bad manifest",
                         "正しいマニフェストと誤ったマニフェストが混ざったフォルダーの拒否",
                         "올바른 매니페스트와 잘못된 매니페스트가 섞인 폴더 거부"),
    "phrase_probe_typo_main": ("rejects a push to main with replica:", "replica: を含む main への push の拒否",
                             "replica: 가 든 main push 거부"),
    "phrase_probe_valid_main": ("accepts a valid push to main", "main への正しい push の受け入れ",
                              "main 으로의 올바른 push 수락"),
    "phrase_probe_delete_main": ("rejects deleting main", "main の削除の拒否", "main 삭제 거부"),
    "phrase_probe_other_branch": ("accepts a push to another branch", "別のブランチへの push の受け入れ",
                                "다른 브랜치로의 push 수락"),
    "phrase_timed_out": ("timed out", "制限時間切れ", "제한 시간 초과"),
    "phrase_flooded": ("printed too much", "出力過多", "출력 과다"),
    "phrase_no_reason": ("no reason given", "理由の記載なし", "이유 없음"),
    "probe_not_run": ("{script} was not run: {reason}",
                      "{script} は実行されませんでした: {reason}",
                      "{script} 스크립트가 실행되지 않았습니다: {reason}"),
    "probe_objects_none": ("no probe object exists in {namespace}: validate.sh created nothing",
                           "{namespace} にプローブのオブジェクトはありません。validate.sh は何も作成していません",
                           "{namespace} 네임스페이스에 프로브 오브젝트가 없습니다. validate.sh는 아무것도 만들지 "
                           "않았습니다"),
    "probe_objects_created": ("validate.sh really created or changed {found} in {namespace} while it was run "
                              "(not a dry run)",
                              "validate.sh は実行中に {namespace} の {found} を実際に作成または変更しました"
                              "(dry-run ではありません)",
                              "validate.sh가 실행 중에 {namespace} 네임스페이스의 {found} 리소스를 실제로 만들거나 "
                              "바꿨습니다(dry-run이 아닙니다)"),
    "sandbox_unavailable": ("the grader cannot run learner programs on this VM: {detail}",
                            "この VM では採点側が受講者のプログラムを実行できません: {detail}",
                            "이 VM에서는 채점기가 수강생의 프로그램을 실행할 수 없습니다: {detail}"),
    "transcript_ok": ("blocked.txt holds git's rejection of main by the pre-receive hook",
                      "blocked.txt には、pre-receive フックが main を拒否した git の出力があります",
                      "blocked.txt에 pre-receive 훅이 main을 거부한 git 출력이 있습니다"),
    "transcript_incomplete": ("blocked.txt lacks {missing}: save the whole output of the rejected git push",
                              "blocked.txt に {missing} がありません。拒否された git push "
                              "の出力全体を保存してください",
                              "blocked.txt에 다음이 없습니다: {missing}. 거부된 git push의 출력 전체를 저장하세요"),
    "typo_on_main": ("commits on bare main have a replica: key in deploy/web.yaml: {found}",
                     "ベアリポジトリの main に、deploy/web.yaml に replica: キーを持つコミットがあります: {found}",
                     "베어 저장소의 main에 deploy/web.yaml에 replica: 키가 있는 커밋이 있습니다: {found}"),
    "no_typo_on_main": ("no commit on bare main has a replica: key in deploy/web.yaml",
                        "ベアリポジトリの main に、replica: キーを持つコミットはありません",
                        "베어 저장소의 main에 replica: 키가 있는 커밋이 없습니다"),
    "clone_main_ok": ("the clone's main equals origin/main ({found})",
                      "クローンの main は origin/main と同じです({found})",
                      "클론의 main이 origin/main과 같습니다 ({found})"),
    "clone_main_differs": ("the clone's main differs from origin/main: {found} (git reset --hard origin/main)",
                           "クローンの main が origin/main と違います: {found}(git reset --hard origin/main)",
                           "클론의 main이 origin/main과 다릅니다: {found} (git reset --hard origin/main)"),
    "bump_commit_ok": ("commit {sha} \"ci: web nginx:1.28-alpine\" sets the image to nginx:1.28-alpine",
                       "コミット {sha}「ci: web nginx:1.28-alpine」はイメージを nginx:1.28-alpine にしています",
                       "{sha} 커밋(\"ci: web nginx:1.28-alpine\")이 이미지를 nginx:1.28-alpine으로 바꿉니다"),
    "bump_commit_missing": ("no commit on bare main has the message \"ci: web nginx:1.28-alpine\" and image "
                            "nginx:1.28-alpine (found: {found})",
                            "ベアリポジトリの main に、メッセージが「ci: web nginx:1.28-alpine」でイメージが "
                            "nginx:1.28-alpine のコミットがありません(見つかったもの: {found})",
                            "베어 저장소의 main에 메시지가 \"ci: web nginx:1.28-alpine\"이고 이미지가 "
                            "nginx:1.28-alpine인 커밋이 없습니다 (찾은 것: {found})"),
    "revision_ok": ("Application {name} is Synced and Healthy at {sha} or later",
                    "Application {name} は {sha} 以降のコミットで Synced かつ Healthy です",
                    "{name} Application이 {sha} 커밋 이후에서 Synced, Healthy 상태입니다"),
    "revision_behind": ("Application {name} is at {found}, expected Synced / Healthy at {sha} or a later commit",
                        "Application {name} は {found} です。{sha} 以降のコミットで Synced / Healthy "
                        "になる必要があります",
                        "{name} Application의 상태가 {found}입니다. {sha} 커밋 이후에서 Synced / Healthy 상태여야 "
                        "합니다"),
}

HINTS = {
    "ci_baseline": ("deploy/web.yaml: Deployment web without a namespace, replicas 2, label app: web, one "
                    "container web with image nginx:1.27-alpine, committed and pushed to main.",
                    "deploy/web.yaml には、ネームスペースの指定(namespace)なし、replicas 2、ラベル app: web、"
                    "コンテナ web(イメージ nginx:1.27-alpine)の Deployment web を書き、main に push してください。",
                    "deploy/web.yaml에 네임스페이스 지정(namespace) 없이 replicas 2, 레이블 app: web, 컨테이너 "
                    "web(이미지 nginx:1.27-alpine)인 Deployment web을 쓰고 main에 push하세요."),
    "ci_application": ("Application ci-web: project default, source path deploy at main of the gitd URL, "
                       "destination namespace ci-web, automated with prune and selfHeal, syncOptions "
                       "CreateNamespace=true.",
                       "Application ci-web は、project default、gitd の URL の main の deploy パス、"
                       "宛先ネームスペース ci-web、自動同期(prune・selfHeal)、syncOptions CreateNamespace=true "
                       "にしてください。",
                       "Application ci-web은 project default, gitd URL의 main의 deploy 경로, 대상 네임스페이스 "
                       "ci-web, 자동 동기화(prune, selfHeal), syncOptions CreateNamespace=true로 하세요."),
    "ci_broken": ("Record what Argo CD showed about 20 s after the hard refresh: the full commit SHA, "
                  "status.sync.status, status.operationState.message and the live Deployment's spec.replicas (a "
                  "number).",
                  "hard refresh の約 20 秒後に見えた値を記録してください: 完全なコミット SHA、status.sync.status、"
                  "status.operationState.message、実際の Deployment の spec.replicas(数値)。",
                  "hard refresh 후 약 20초 뒤에 보인 값을 기록하세요: 전체 커밋 SHA, status.sync.status, "
                  "status.operationState.message, 실제 Deployment의 spec.replicas(숫자)."),
    "ci_revert": ("Undo the broken commit with `git revert <sha>` and push: the history keeps the mistake and its "
                  "fix.",
                  "`git revert <SHA>` で壊れたコミットを取り消して push してください。"
                  "履歴にミスと修正の両方が残ります。",
                  "`git revert <SHA>` 명령으로 깨진 커밋을 취소하고 push하세요. 이력에 실수와 수정이 모두 남습니다."),
    "ci_terminate": ("While status.operationState.operation.sync.revision is the broken commit and the phase is "
                     "Running, end it: `argocd app terminate-op ci-web --core` with {workspace}/kubeconfig "
                     "(namespace {argocd_namespace}).",
                     "status.operationState.operation.sync.revision が壊れたコミットで、フェーズが Running の間は、"
                     "{workspace}/kubeconfig(ネームスペース {argocd_namespace})で `argocd app terminate-op ci-web "
                     "--core` を実行してオペレーションを終わらせてください。",
                     "status.operationState.operation.sync.revision이 깨진 커밋이고 페이즈가 Running인 동안에는 "
                     "{workspace}/kubeconfig(네임스페이스 {argocd_namespace}) 파일로 `argocd app terminate-op "
                     "ci-web --core` 명령을 실행해 오퍼레이션을 끝내세요."),
    "ci_argocd_kubeconfig": ("`argocd ... --core` reads Argo CD's namespace from the kubeconfig's current context: "
                             "copy the k3s kubeconfig to {workspace}/kubeconfig and run `kubectl config --kubeconfig "
                             "{workspace}/kubeconfig set-context --current --namespace={argocd_namespace}`.",
                             "`argocd ... --core` は、kubeconfig の現在のコンテキストのネームスペースから Argo CD "
                             "を探します。k3s の kubeconfig を {workspace}/kubeconfig にコピーし、`kubectl config "
                             "--kubeconfig {workspace}/kubeconfig set-context --current "
                             "--namespace={argocd_namespace}` を実行してください。",
                             "`argocd ... --core`는 kubeconfig의 현재 컨텍스트의 네임스페이스에서 Argo CD를 찾습니다. "
                             "k3s kubeconfig를 {workspace}/kubeconfig로 복사하고 `kubectl config --kubeconfig "
                             "{workspace}/kubeconfig set-context --current --namespace={argocd_namespace}` 명령을 "
                             "실행하세요."),
    "ci_rbac": ("Role dryrun-deployments in ci-dryrun: one rule, apiGroups [apps], resources [deployments], verbs "
                "get, create, patch; RoleBinding validator-dryrun binds it to ServiceAccount validator in ci. "
                "Check with `kubectl auth can-i ... --as system:serviceaccount:ci:validator`.",
                "ci-dryrun の Role dryrun-deployments には、ルールを 1 つだけ書きます(apiGroups [apps]、resources "
                "[deployments]、verbs get・create・patch)。RoleBinding validator-dryrun で ci の ServiceAccount "
                "validator に結び付け、`kubectl auth can-i ... --as system:serviceaccount:ci:validator` "
                "で確かめてください。",
                "ci-dryrun의 Role dryrun-deployments는 규칙 하나(apiGroups [apps], resources [deployments], verbs "
                "get, create, patch)입니다. RoleBinding validator-dryrun으로 ci의 ServiceAccount validator에 "
                "연결하고 `kubectl auth can-i ... --as system:serviceaccount:ci:validator` 명령으로 확인하세요."),
    "ci_kubeconfig": ("Build it with `kubectl create token validator -n ci --duration=8h` and `kubectl config "
                      "--kubeconfig <file> set-cluster/set-credentials/set-context`: the k3s server and CA data, "
                      "namespace ci-dryrun.",
                      "`kubectl create token validator -n ci --duration=8h` と `kubectl config --kubeconfig "
                      "<ファイル> set-cluster/set-credentials/set-context` で作成してください。サーバーと CA は "
                      "k3s のもの、ネームスペースは ci-dryrun です。",
                      "`kubectl create token validator -n ci --duration=8h` 명령과 `kubectl config --kubeconfig "
                      "<파일> set-cluster/set-credentials/set-context` 명령으로 만드세요. 서버와 CA는 k3s의 것, "
                      "네임스페이스는 ci-dryrun입니다."),
    "ci_validate": ("validate.sh <dir>: `kubectl --kubeconfig {workspace}/ci-kubeconfig -n ci-dryrun apply "
                    "--dry-run=server -f <dir>`; exit non-zero when any manifest is refused (mind pipes: set -o "
                    "pipefail).",
                    "validate.sh <ディレクトリ>: `kubectl --kubeconfig {workspace}/ci-kubeconfig -n ci-dryrun "
                    "apply --dry-run=server -f <ディレクトリ>`。1 つでも拒否されたら 0 "
                    "以外で終了してください(パイプには set -o pipefail を使います)。",
                    "validate.sh <디렉터리>: `kubectl --kubeconfig {workspace}/ci-kubeconfig -n ci-dryrun apply "
                    "--dry-run=server -f <디렉터리>`. 하나라도 거부되면 0이 아닌 값으로 끝나야 합니다(파이프에는 "
                    "set -o pipefail을 쓰세요)."),
    "ci_hook": ("In the hook read `old new ref` lines from stdin; for refs/heads/main extract the NEW commit's "
                "deploy with `git archive <new> deploy | tar -x -C <tmp>` and run validate.sh on it; a new SHA of "
                "40 zeros is a delete: refuse it for main; let every other ref through.",
                "フックは標準入力から `old new ref` の行を読みます。refs/heads/main なら、新しいコミットの deploy "
                "を `git archive <new> deploy | tar -x -C <一時ディレクトリ>` で取り出して validate.sh "
                "で検証してください。新しい SHA が 40 桁の 0 なら削除なので、main では拒否します。"
                "ほかの参照は通してください。",
                "훅은 표준 입력에서 `old new ref` 줄을 읽습니다. refs/heads/main이면 새 커밋의 deploy를 `git "
                "archive <new> deploy | tar -x -C <임시 디렉터리>` 명령으로 꺼내 validate.sh로 검증하세요. 새 "
                "SHA가 0 40개면 삭제이므로 main에서는 거부합니다. 다른 참조는 통과시키세요."),
    "ci_blocked": ("Save the whole output of the rejected push, e.g. `git push origin main 2>&1 | tee "
                   "{workspace}/blocked.txt`, then `git reset --hard origin/main`.",
                   "拒否された push の出力全体を保存してください(例: `git push origin main 2>&1 | tee "
                   "{workspace}/blocked.txt`)。そのあと `git reset --hard origin/main` を実行します。",
                   "거부된 push의 출력 전체를 저장하세요(예: `git push origin main 2>&1 | tee "
                   "{workspace}/blocked.txt`). 그다음 `git reset --hard origin/main` 명령을 실행하세요."),
    "ci_bump": ("bump.sh <tag>: sync the clone with origin/main, set the image to nginx:<tag>, commit \"ci: web "
                "nginx:<tag>\" and push; no kubectl: Argo CD deploys what git says.",
                "bump.sh <タグ>: クローンを origin/main に合わせ、イメージを nginx:<タグ> にして「ci: web "
                "nginx:<タグ>」でコミットし、push してください。kubectl は使いません。デプロイは Argo CD が Git "
                "から行います。",
                "bump.sh <태그>: 클론을 origin/main에 맞추고 이미지를 nginx:<태그>로 바꿔 \"ci: web nginx:<태그>\" "
                "메시지로 커밋한 뒤 push하세요. kubectl은 쓰지 않습니다. 배포는 Argo CD가 Git에서 합니다."),
    "ci_report": ("ci_writes git, cd_writes cluster, gate pre-receive; the two booleans come from `kubectl auth "
                  "can-i` and `git merge-base --is-ancestor`, deployed_revision from status.sync.revision.",
                  "ci_writes は git、cd_writes は cluster、gate は pre-receive です。2 つの真偽値は `kubectl auth "
                  "can-i` と `git merge-base --is-ancestor` の結果から、deployed_revision は status.sync.revision "
                  "から書いてください。",
                  "ci_writes는 git, cd_writes는 cluster, gate는 pre-receive입니다. 두 불리언은 `kubectl auth "
                  "can-i`와 `git merge-base --is-ancestor` 결과에서, deployed_revision은 status.sync.revision에서 "
                  "쓰세요."),
}


lab = Lab(
    "cgoa-ci",
    {"en": "CI validates, git gates, Argo CD deploys", "ja": "CI が検証し、Git が守り、Argo CD がデプロイする",
     "ko": "CI가 검증하고 Git이 막고 Argo CD가 배포한다"},
    STEP_TITLES,
    Reads(json_files=("broken.json", "report.json"), yaml_files=("app.yaml",),
          text_files=("validate.sh", "bump.sh", "blocked.txt"), kubeconfig_files=("ci-kubeconfig", "kubeconfig"),
          repo=Repo(REPO_NAME, prefixes=("deploy",), tracked_paths=(WEB_YAML,), files=("hooks/pre-receive",)),
          clone="repo", clone_refs=("refs/heads/main", "refs/remotes/origin/main"),
          api=cluster_reads, reviews=reviews, probes=run_probes),
    MESSAGES,
    HINTS,
    Owned(applications=(APP,), namespaces=(PROD_NS, DRYRUN_NS, CI_NS)),
    solution=solution.STEPS,
)


# ---------------------------------------------------------------- shared facts of this lab


@functools.lru_cache(maxsize=1024)
def web_deployment(text):
    """The Deployment web of a deploy/web.yaml text, or None. Several checks walk every commit's
    web.yaml: each text is parsed once (the result is shared, so callers only read it)."""
    _, doc = find_object([("", d) for d in yaml_documents(text)], "Deployment", name="web")
    return doc


def web_at(state, sha):
    return web_deployment(state.repo.history.get(sha, {}).get(WEB_YAML))


def oldest_first(state):
    return list(reversed(state.repo.order))


def history_broken(state):
    """The commits on bare main whose deploy/web.yaml sets replicas to the string "two"."""
    if not state.repo.ok:
        return []
    return [sha for sha in oldest_first(state) if dig(web_at(state, sha), "spec", "replicas") == "two"]


def broken_commit(state):
    """(sha, None) for broken.json's commit when it is on bare main, else (None, failing Verdict)."""
    data, problem = evidence(state, "broken.json")
    if problem:
        return None, problem
    sha, problem = typed_field(data, "commit", "string", "broken.json commit")
    if problem:
        return None, problem
    sha = sha.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        return None, failed("value_mismatch", expected="40 hex characters", found=data["commit"],
                            what="broken.json commit", hint="ci_broken")
    problem = repo_blocked(state)
    if problem:
        return None, problem
    if sha not in state.repo.commits:
        return None, failed("commit_not_on_main", expected="a commit on bare main", found=sha, hint="ci_revert")
    return sha, None


def repo_url(state):
    return state.site.repo_url(REPO_NAME)


def operation_revision(app):
    return dig(app, "status", "operationState", "operation", "sync", "revision")


def retrying_broken(state, app):
    """The broken sha when the app's operation still runs on it, else None."""
    revision = operation_revision(app)
    phase = dig(app, "status", "operationState", "phase")
    if revision in history_broken(state) and phase in ("Running", "Terminating"):
        return revision
    return None


def live_app(state, step):
    app = state.cluster.get("app")
    if app is None:
        return None, (failed("live_app_missing", expected=APP, found=None, name=APP, hint="application_apply")
                      if step == 1 else blocked(1, "live_app_missing", name=APP))
    return app, None


def app_at_revision(state, app, anchor, ok_key, behind_key):
    """Synced and Healthy at `anchor` or a later commit on main; PENDING while an operation on a
    newer revision runs; the broken commit still retrying is named."""
    sync, health, phase = live_status(app)
    revision = dig(app, "status", "sync", "revision")
    found = {"sync": sync, "health": health, "revision": revision, "operation": phase}
    expected = {"sync": "Synced", "health": "Healthy", "revision": f"{anchor[:7]} or later"}
    at_or_after = isinstance(revision, str) and revision in state.repo.commits and state.repo.is_ancestor(anchor, revision)
    if sync == "Synced" and health == "Healthy" and at_or_after:
        return passed(ok_key, expected=expected, found=found, name=APP, sha=anchor[:7])
    broken = retrying_broken(state, app)
    if broken:
        return failed("broken_still_retrying", expected=expected, found=found, name=APP, sha=broken[:7], phase=phase,
                      hint="ci_terminate")
    if phase in ("Running", "Terminating") or health == "Progressing":
        return pending("app_converging", expected=expected, found=found, name=APP, sync=sync, health=health)
    if at_or_after and self_heal_due(app):
        return self_heal_pending(app, APP, expected, found)
    return failed(behind_key, expected=expected, found=found, name=APP, sha=anchor[:7], hint="app_sync_health")


# ---------------------------------------------------------------- step 1


@lab.check(1, "bare-repo", hint="bare_repo")
def bare_repo(state):
    return repo_blocked(state) or passed("repo_ok", path=state.bare_path, found=state.repo.head)


@lab.check(1, "clone-origin", hint="bare_repo")
def clone_origin(state):
    return clone_origin_verdict(state)


BASELINE = {"namespace": None, "replicas": 2, "label app": "web", "containers": ["web"], "image": BASE_IMAGE}


def baseline_fields(doc):
    labels = dig(doc, "spec", "template", "metadata", "labels", default={}) or {}
    return {
        "namespace": dig(doc, "metadata", "namespace"),
        "replicas": dig(doc, "spec", "replicas"),
        "label app": labels.get("app") if isinstance(labels, dict) else None,
        "containers": [c.get("name") for c in containers(doc)],
        "image": wanted_or_first(images(doc), BASE_IMAGE),
    }


@lab.check(1, "baseline-commit", hint="ci_baseline")
def baseline_commit(state):
    problem = repo_blocked(state)
    if problem:
        return problem
    for sha in oldest_first(state):
        parents = state.repo.commits[sha]["parents"]
        added = state.repo.history[sha].get(WEB_YAML) is not None and (
            not parents or state.repo.history.get(parents[0], {}).get(WEB_YAML) is None)
        if added:
            found = baseline_fields(web_at(state, sha) or {})
            replicas_ok = is_integer(found["replicas"])
            if found == BASELINE and replicas_ok:
                return passed("first_web_commit_ok", expected=BASELINE, found=found, sha=sha[:7])
            return failed("first_web_commit_wrong", expected=BASELINE, found=found, sha=sha[:7])
    return failed("first_web_commit_missing", expected=BASELINE, found=None)


def app_problems(state, app, namespace_required):
    problems = spec_problems(app, state.site, repo_url(state), "deploy", PROD_NS, namespace_required)
    project = dig(app, "spec", "project")
    if project != "default":
        problems.append(("spec.project", "default", project))
    automated = dig(app, "spec", "syncPolicy", "automated")
    if automated_enabled(app):
        for flag in ("prune", "selfHeal"):
            if dig(automated, flag) is not True:
                problems.append((f"spec.syncPolicy.automated.{flag}", True, dig(automated, flag)))
    return problems


@lab.check(1, "app-file", hint="ci_application")
def app_file(state):
    app, problem = application_file(state.files["app.yaml"], APP)
    if problem:
        return problem
    return verdict_from_problems(app_problems(state, app, False), "app.yaml", "ci_application")


@lab.check(1, "live-app", hint="ci_application")
def live_application(state):
    app, problem = live_app(state, 1)
    if problem:
        return problem
    return verdict_from_problems(app_problems(state, app, True), f"Application {APP}", "application_apply")


# ---------------------------------------------------------------- step 2


@lab.check(2, "broken-commit", hint="ci_broken")
def broken_commit_check(state):
    sha, problem = broken_commit(state)
    if problem:
        return problem
    replicas = dig(web_at(state, sha), "spec", "replicas")
    if replicas != "two":
        return failed("broken_commit_not_string", expected="two", found=replicas, sha=sha[:7])
    return passed("broken_commit_ok", expected="two", found=replicas, sha=sha[:7])


@lab.check(2, "broken-sync-status", hint="ci_broken")
def broken_sync_status(state):
    value, problem = evidence_field(state, "broken.json", "sync_status", "string")
    if problem:
        return problem
    # OutOfSync with the default client-side diff (docs/argocd-observations.md test 6); Unknown
    # where server-side diff is on (research argocd-facts.md §6: a ComparisonError).
    if value not in ("OutOfSync", "Unknown"):
        return failed("value_mismatch", expected="OutOfSync", found=value, what="broken.json sync_status")
    return passed("value_ok", expected="OutOfSync", found=value, what="broken.json sync_status")


# gitops-engine sync_context.go: "one or more objects failed to apply, reason: <apiserver error>",
# with ". Retrying attempt #N at ..." or " (retried N times)." appended by the controller
# (docs/argocd-observations.md test 6; controller/appcontroller.go processRequestedAppOperation).
# The API server's reason names the field on create ("... DeploymentSpec.spec.replicas of type
# int32") but only the type on a patch of the existing Deployment, as in this lab ("... patch:
# Invalid value: \"\": unrecognized type: int32", observed on the plane, test_cgoa_ci.py).
APPLY_FAILED = "one or more objects failed to apply"
TYPE_PROBLEM = ("replicas", "int32")


@lab.check(2, "broken-operation-message", hint="ci_broken")
def broken_operation_message(state):
    value, problem = evidence_field(state, "broken.json", "operation_message", "string")
    if problem:
        return problem
    lowered = value.lower()
    if APPLY_FAILED in lowered and any(word in lowered for word in TYPE_PROBLEM):
        return passed("operation_message_ok", expected=APPLY_FAILED, found=value)
    return failed("operation_message_wrong", expected=f"{APPLY_FAILED}, reason: ... replicas ...", found=value)


@lab.check(2, "broken-live-replicas", hint="ci_broken")
def broken_live_replicas(state):
    value, problem = evidence_field(state, "broken.json", "live_replicas", "integer")
    if problem:
        return problem
    return same_value(value, 2, "broken.json live_replicas", hint="ci_broken")


def reverted_by(state, sha):
    """The first later commit on main whose deploy/web.yaml equals (as YAML data) that of the
    parent of `sha`, or None."""
    parents = state.repo.commits[sha]["parents"]
    before = web_at(state, parents[0]) if parents else None
    for candidate in oldest_first(state):
        if candidate != sha and before is not None and state.repo.is_ancestor(sha, candidate) \
                and web_at(state, candidate) == before:
            return candidate
    return None


@lab.check(2, "revert-commit", hint="ci_revert")
def revert_commit(state):
    """Judged from git alone: every commit on main that set replicas to "two" has a later
    commit restoring its parent's deploy/web.yaml."""
    problem = repo_blocked(state)
    if problem:
        return problem
    broken = history_broken(state)
    if not broken:
        return failed("broken_not_in_history", expected='a commit with replicas: "two" on main', found=None)
    for sha in broken:
        fix = reverted_by(state, sha)
        if fix is None:
            return failed("revert_missing", expected=f"a commit after {sha[:7]} with its parent's deploy/web.yaml",
                          found=state.repo.head, sha=sha[:7])
    return passed("revert_ok", found=fix, sha=fix[:7])


@lab.check(2, "live-at-head", hint="app_sync_health")
def live_at_head(state):
    app, problem = live_app(state, 2)
    if problem:
        return problem
    problem = repo_blocked(state)
    if problem:
        return problem
    return app_at_revision(state, app, state.repo.head, "app_at_head", "app_not_at_head")


@lab.check(2, "no-broken-retry", hint="ci_terminate")
def no_broken_retry(state):
    app, problem = live_app(state, 2)
    if problem:
        return problem
    revision = operation_revision(app)
    phase = dig(app, "status", "operationState", "phase")
    found = {"operation.sync.revision": revision, "phase": phase}
    expected = {"operation": "not running on a commit with replicas: \"two\""}
    if retrying_broken(state, app):
        return failed("broken_still_retrying", expected=expected, found=found, name=APP, sha=revision[:7],
                      phase=phase)
    # A broken commit's operation that ended (Failed after its retries, or terminated) may stay
    # the last one: the revert restores what is live, so Argo CD has nothing to apply and starts
    # no new operation until a later commit changes the manifests (observed, test_cgoa_ci.py).
    return passed("no_broken_retry", expected=expected, found=found, name=APP)


# ---------------------------------------------------------------- step 3


@lab.check(3, "service-account", hint="ci_rbac")
def service_account(state):
    what = f"ServiceAccount {CI_NS}/validator"
    if state.cluster.get("validator_sa") is None:
        return failed("rbac_object_missing", expected=True, found=False, what=what)
    return passed("rbac_object_ok", expected=True, found=True, what=what)


ROLE_RULE = {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "get", "patch"]}


def rule_shape(rule):
    rule = rule if isinstance(rule, dict) else {}
    return {key: sorted(str(v) for v in rule.get(key) or []) for key in ("apiGroups", "resources", "verbs")} | (
        {"resourceNames": rule["resourceNames"]} if rule.get("resourceNames") else {})


@lab.check(3, "role", hint="ci_rbac")
def role(state):
    obj = state.cluster.get("role")
    what = f"Role {DRYRUN_NS}/dryrun-deployments"
    if obj is None:
        return failed("rbac_object_missing", expected=[ROLE_RULE], found=None, what=what)
    rules = [rule_shape(r) for r in obj.get("rules") or []]
    if rules != [ROLE_RULE]:
        return failed("rbac_object_wrong", expected=[ROLE_RULE], found=rules, what=f"{what} rules")
    return passed("rbac_object_ok", expected=[ROLE_RULE], found=rules, what=what)


@lab.check(3, "role-binding", hint="ci_rbac")
def role_binding(state):
    obj = state.cluster.get("binding")
    what = f"RoleBinding {DRYRUN_NS}/validator-dryrun"
    expected = {"roleRef": {"kind": "Role", "name": "dryrun-deployments"},
                "subject": {"kind": "ServiceAccount", "namespace": CI_NS, "name": "validator"}}
    if obj is None:
        return failed("rbac_object_missing", expected=expected, found=None, what=what)
    subjects = [{k: s.get(k) for k in ("kind", "namespace", "name")} for s in obj.get("subjects") or []
                if isinstance(s, dict)]
    found = {"roleRef": {k: dig(obj, "roleRef", k) for k in ("kind", "name")},
             "subject": expected["subject"] if expected["subject"] in subjects else subjects}
    if found != expected:
        return failed("rbac_object_wrong", expected=expected, found=found, what=what)
    return passed("rbac_object_ok", expected=expected, found=found, what=what)


def access_answers(state, allowed):
    """{question: answer} for the SubjectAccessReviews expected to answer `allowed`."""
    return {f"{verb} {resource} in {ns or 'all namespaces'}": dig(state.cluster.get(f"sar_{name}"), "allowed")
            for name, verb, _, resource, ns, expect in ACCESS if expect is allowed}


def access_verdict(state, allowed):
    found = access_answers(state, allowed)
    expected = dict.fromkeys(found, allowed)
    wrong = {q: a for q, a in found.items() if a is not allowed}
    if wrong:
        details = "; ".join(f"{q}: {allowed} / {a}" for q, a in wrong.items())
        return failed("access_wrong", expected=expected, found=found, details=details)
    return passed("access_ok", expected=expected, found=found)


@lab.check(3, "access-dryrun", hint="ci_rbac")
def access_dryrun(state):
    return access_verdict(state, True)


@lab.check(3, "no-access-prod", hint="ci_rbac")
def no_access_prod(state):
    # Refusals of an identity that does not exist prove nothing about the learner's RBAC.
    if state.cluster.get("validator_sa") is None:
        return failed("rbac_object_missing", expected=True, found=None, what="ServiceAccount ci/validator")
    return access_verdict(state, False)


def kubeconfig_context(state, name):
    """(context fields, None) of a workspace kubeconfig, or (None, failing Verdict). A YAML
    parser's error is not shown: it quotes the text, and a kubeconfig's text holds a token."""
    read = state.files[name]
    if read.problem == "invalid_kubeconfig":
        return None, failed("kubeconfig_unreadable", path=read.path, problem=read.detail, hint="ci_kubeconfig")
    if not read.ok:
        return None, file_problem(read, hint="ci_kubeconfig")
    return current_context(read.data[0]), None


def admin(state):
    """(the VM's admin server and CA, None), or (None, ERROR): it is the grader's environment."""
    k3s = state.probes["k3s"]
    if "error" in k3s:
        return None, errored("admin_kubeconfig_unreadable", detail=k3s["error"])
    return k3s, None


def same_cluster(context, k3s):
    ca = base64.b64decode(k3s["ca_data"]) if k3s.get("ca_data") else None
    return {"server": context["server"] == k3s["server"],
            "CA data": context["ca_data"] is not None and context["ca_data"] == ca}


@lab.check(3, "ci-kubeconfig", hint="ci_kubeconfig")
def ci_kubeconfig(state):
    context, problem = kubeconfig_context(state, "ci-kubeconfig")
    if problem:
        return problem
    k3s, problem = admin(state)
    if problem:
        return problem
    found = {**same_cluster(context, k3s), "namespace": context["namespace"], "token": context["token"] is not None}
    expected = {"server": True, "CA data": True, "namespace": DRYRUN_NS, "token": True}
    # (no "bearer" before a word here: the scrubber redacts "Bearer <anything>" from every message)
    what = "ci-kubeconfig (cluster of k3s / namespace / token)"
    if found != expected:
        return failed("kubeconfig_wrong", expected=expected, found=found, what=what)
    return passed("kubeconfig_ok", expected=expected, found=found, what=what)


@lab.check(3, "ci-token-identity", hint="ci_kubeconfig")
def ci_token_identity(state):
    context, problem = kubeconfig_context(state, "ci-kubeconfig")
    if problem:
        return problem
    if context["token"] is None:
        return failed("token_missing", expected=VALIDATOR, found=None, path=state.files["ci-kubeconfig"].path)
    review = state.cluster.get("token_review") or {}
    if not review.get("authenticated"):
        # TokenReview status.error, e.g. '[invalid bearer token, serviceaccounts "validator" not
        # found]' once the ServiceAccount is deleted (observed on the plane); "bearer token" is
        # shortened so that the scrubber leaves the reason readable.
        error = dig(review, "error")
        if not error:
            return failed("token_rejected", expected=VALIDATOR, found=None, reason_key="phrase_no_reason")
        return failed("token_rejected", expected=VALIDATOR, found=None,
                      reason=re.sub(r"(?i)\bbearer token\b", "token", str(error)))
    user = dig(review, "user", "username")
    if user != VALIDATOR:
        return failed("token_user_wrong", expected=VALIDATOR, found=user)
    return passed("token_user_ok", expected=VALIDATOR, found=user)


@lab.check(3, "ci-token-lifetime", hint="ci_kubeconfig")
def ci_token_lifetime(state):
    context, problem = kubeconfig_context(state, "ci-kubeconfig")
    if problem:
        return problem
    if context["token"] is None:
        return failed("token_missing", expected=TOKEN_LIFETIME, found=None, path=state.files["ci-kubeconfig"].path)
    claims = jwt_claims(context["token"]) or {}
    if not (is_integer(claims.get("iat")) and is_integer(claims.get("exp"))):
        return failed("token_not_jwt", expected=TOKEN_LIFETIME, found=None)
    lifetime = claims["exp"] - claims["iat"]
    if abs(lifetime - TOKEN_LIFETIME) > TOKEN_SKEW:
        return failed("token_lifetime_wrong", expected=TOKEN_LIFETIME, found=lifetime)
    return passed("token_lifetime_ok", expected=TOKEN_LIFETIME, found=lifetime)


@lab.check(3, "argocd-kubeconfig", hint="ci_argocd_kubeconfig")
def argocd_kubeconfig(state):
    context, problem = kubeconfig_context(state, "kubeconfig")
    if problem:
        return problem
    k3s, problem = admin(state)
    if problem:
        return problem
    found = {**same_cluster(context, k3s), "namespace": context["namespace"]}
    expected = {"server": True, "CA data": True, "namespace": state.site.argocd_namespace}
    what = "kubeconfig (a copy of k3s's / namespace)"
    if found != expected:
        return failed("kubeconfig_wrong", expected=expected, found=found, what=what)
    return passed("kubeconfig_ok", expected=expected, found=found, what=what)


# ---------------------------------------------------------------- step 4


def script_verdict(state, name, hint):
    """None when the script exists and is executable, else the failing Verdict."""
    read = state.files[name]
    if not read.ok:
        return file_problem(read, hint=hint)
    if not read.executable:
        return failed("script_not_executable", expected="executable", found=None, path=read.path, hint=hint)
    return None


def script_text(state, name, wanted, pattern, hint, forbidden=None):
    """`wanted` (a description) holds when `pattern` is in the script and `forbidden` is not."""
    read = state.files[name]
    if not read.ok:
        return file_problem(read, hint=hint)
    ok = re.search(pattern, read.text) is not None and not (forbidden and re.search(forbidden, read.text))
    key = "script_text_ok" if ok else "script_text_missing"
    return (passed if ok else failed)(key, expected=wanted, found=None, path=read.path, what=wanted)


@lab.check(4, "validate-script", hint="ci_validate")
def validate_script(state):
    return script_verdict(state, "validate.sh", "ci_validate") or passed(
        "script_ok", path=state.files["validate.sh"].path)


@lab.check(4, "validate-names-kubeconfig", hint="ci_validate")
def validate_names_kubeconfig(state):
    path = f"{state.workspace}/ci-kubeconfig"
    return script_text(state, "validate.sh", f"name {path}", re.escape(path), "ci_validate")


@lab.check(4, "validate-server-dry-run", hint="ci_validate")
def validate_server_dry_run(state):
    # kubectl accepts --dry-run=server and --dry-run server; client dry-run skips the API server's
    # schema (the seed's common mistake).
    return script_text(state, "validate.sh", "use --dry-run=server (not client)", r"--dry-run[= ]server\b",
                       "ci_validate", forbidden=r"--dry-run[= ]client\b")


def probe_runs(state, probe, expected, script):
    """(the runs of `probe`, None), or (None, the verdict that stands for every run of it): ERROR
    when the grader could not build a sandbox, FAIL when the learner's program was not run."""
    if "error" in state.probes:
        return None, errored("sandbox_unavailable", detail=state.probes["error"])
    runs = state.probes[probe]
    if "not_run" in runs:
        return None, failed("probe_not_run", expected=expected, found=None, script=script, reason=runs["not_run"])
    return runs, None


def probe_verdict(state, probe, case, should_succeed, what_key, script, blocked_by=None):
    """The outcome of one probe run: a script that hangs or floods its output fails whatever it
    was asked, and so does one that could not start; a run the lab's probe time cut short is
    the grader's ERROR (OutOfTime). `what_key` names the phrase (in MESSAGES)
    saying what the run checks."""
    what = MESSAGES[what_key][0]
    runs, verdict = probe_runs(state, probe, what, script)
    if verdict:
        return verdict
    run = ProbeRun.from_dict(runs[case])
    if run.out_of_time:
        raise OutOfTime("phrase_run_script", probes=True, script=script)
    if run.timed_out or run.truncated:
        return failed("probe_cut_short", expected=what, found=None, script=script, what_key=what_key,
                      reason_key="phrase_timed_out" if run.timed_out else "phrase_flooded")
    if run.returncode is None:
        return failed("probe_not_run", expected=what, found=None, script=script, reason=run.output)
    params = {"script": script, "what_key": what_key, "returncode": run.returncode,
              "output": run.output or "(no output)"}
    expected = "exit code 0" if should_succeed else "a non-zero exit code"
    if (run.returncode == 0) is should_succeed:
        return passed("probe_ok", expected=expected, found=run.returncode, **params)
    return blocked_by or failed("probe_wrong", expected=expected, found=run.returncode, **params)


VALIDATE = "validate.sh"


@lab.check(4, "validate-accepts-valid", hint="ci_validate")
def validate_accepts_valid(state):
    return probe_verdict(state, "validate", "valid", True, "phrase_probe_valid", VALIDATE)


@lab.check(4, "validate-rejects-string-replicas", hint="ci_validate")
def validate_rejects_string_replicas(state):
    return probe_verdict(state, "validate", "string-replicas", False, "phrase_probe_string_replicas", VALIDATE)


@lab.check(4, "validate-rejects-unknown-field", hint="ci_validate")
def validate_rejects_unknown_field(state):
    return probe_verdict(state, "validate", "unknown-field", False, "phrase_probe_unknown_field", VALIDATE)


@lab.check(4, "validate-rejects-mixed", hint="ci_validate")
def validate_rejects_mixed(state):
    return probe_verdict(state, "validate", "mixed", False, "phrase_probe_mixed",
                         VALIDATE)


def written_since(obj, started):
    """Whether the API server created or changed `obj` at or after `started` (RFC 3339, UTC,
    as the API server writes creationTimestamp and managedFields times: they sort as text)."""
    times = [dig(obj, "metadata", "creationTimestamp")]
    times += [entry.get("time") for entry in dig(obj, "metadata", "managedFields") or [] if isinstance(entry, dict)]
    return any(isinstance(value, str) and value >= started for value in times)


@lab.check(4, "validate-created-nothing", hint="ci_validate")
def validate_created_nothing(state):
    _, verdict = probe_runs(state, "validate", [], VALIDATE)
    if verdict:
        return verdict
    started = state.probes["started"]
    created = sorted({dig(d, "metadata", "name") for d in state.cluster.items("dryrun_deployments")
                      if dig(d, "metadata", "name") in PROBE_OBJECTS and written_since(d, started)})
    if created:
        return failed("probe_objects_created", expected=[], found=created, namespace=DRYRUN_NS)
    return passed("probe_objects_none", expected=[], found=[], namespace=DRYRUN_NS)


# ---------------------------------------------------------------- step 5

HOOK = "pre-receive"


@lab.check(5, "hook-file", hint="ci_hook")
def hook_file(state):
    return script_verdict(state, "hooks/pre-receive", "ci_hook") or passed(
        "script_ok", path=state.files["hooks/pre-receive"].path)


def validate_accepts_typo(state):
    """'blocked by step 4' when validate.sh itself lets replica: through (then a gate built on
    it cannot refuse it), else None."""
    if "error" in state.probes:
        return None  # the hook's own check is the grader's ERROR
    runs = state.probes["validate"]
    if "not_run" in runs or ProbeRun.from_dict(runs["unknown-field"]).returncode == 0:
        return blocked(4, "validate_accepts_typo")
    return None


@lab.check(5, "hook-rejects-typo-on-main", hint="ci_hook")
def hook_rejects_typo(state):
    return probe_verdict(state, "hook", "typo-main", False, "phrase_probe_typo_main", HOOK,
                         blocked_by=validate_accepts_typo(state))


def validate_blocks(state):
    """'blocked by step 4' when validate.sh itself refuses a valid Deployment (then no gate can
    accept one), else None."""
    if "error" in state.probes:
        return None
    runs = state.probes["validate"]
    if "not_run" in runs or not ProbeRun.from_dict(runs["valid"]).succeeded:
        return blocked(4, "validate_refuses_valid")
    return None


@lab.check(5, "hook-accepts-valid-main", hint="ci_hook")
def hook_accepts_valid(state):
    return probe_verdict(state, "hook", "valid-main", True, "phrase_probe_valid_main", HOOK,
                         blocked_by=validate_blocks(state))


@lab.check(5, "hook-rejects-delete-main", hint="ci_hook")
def hook_rejects_delete(state):
    return probe_verdict(state, "hook", "delete-main", False, "phrase_probe_delete_main", HOOK)


@lab.check(5, "hook-accepts-other-branch", hint="ci_hook")
def hook_accepts_branch(state):
    return probe_verdict(state, "hook", "typo-branch", True, "phrase_probe_other_branch", HOOK)


# ---------------------------------------------------------------- step 6

# git's own lines for a push refused by a pre-receive hook (builtin/send-pack.c, transport.c):
# " ! [remote rejected] main -> main (pre-receive hook declined)"; the hook's output is relayed
# as "remote: ..." lines.
TRANSCRIPT = {"[remote rejected] main": r"\[remote rejected\]\s+main\b", "pre-receive hook declined":
              r"pre-receive hook declined", "the hook's own output (remote: ...)": r"(?m)^remote: \S"}


@lab.check(6, "blocked-transcript", hint="ci_blocked")
def blocked_transcript(state):
    read = state.files["blocked.txt"]
    if not read.ok:
        return file_problem(read, hint="ci_blocked")
    missing = [name for name, pattern in TRANSCRIPT.items() if not re.search(pattern, read.text)]
    if missing:
        return failed("transcript_incomplete", expected=list(TRANSCRIPT), found=missing, missing=", ".join(missing))
    return passed("transcript_ok", expected=list(TRANSCRIPT), found=list(TRANSCRIPT))


def has_typo(doc):
    spec = dig(doc, "spec")
    return isinstance(spec, dict) and "replica" in spec


@lab.check(6, "no-typo-on-main", hint="ci_hook")
def no_typo_on_main(state):
    problem = repo_blocked(state)
    if problem:
        return problem
    typos = [sha[:7] for sha in state.repo.order if has_typo(web_at(state, sha))]
    if typos:
        return failed("typo_on_main", expected=[], found=typos)
    return passed("no_typo_on_main", expected=[], found=[])


@lab.check(6, "clone-reset", hint="ci_blocked")
def clone_reset(state):
    if not state.clone.ok:
        return clone_origin_verdict(state)
    refs = state.clone_refs
    if "error" in refs:
        return failed("clone_unreadable", path=state.clone.path, detail=refs["error"])
    found = {"main": refs["refs/heads/main"], "origin/main": refs["refs/remotes/origin/main"]}
    if found["main"] is None or found["main"] != found["origin/main"]:
        return failed("clone_main_differs", expected="main == origin/main", found=found)
    return passed("clone_main_ok", expected="main == origin/main", found=found["main"][:7])


@lab.check(6, "live-still-synced", hint="app_sync_health")
def live_still_synced(state):
    app, problem = live_app(state, 6)
    if problem:
        return problem
    return synced_healthy(app, APP)


# ---------------------------------------------------------------- step 7


@lab.check(7, "bump-script", hint="ci_bump")
def bump_script(state):
    problem = script_verdict(state, "bump.sh", "ci_bump")
    if problem:
        return problem
    return script_text(state, "bump.sh", "take the tag as $1 and never call kubectl", r"\$\{?1\b", "ci_bump",
                       forbidden=r"\bkubectl\b")


def bump_commit_sha(state):
    for sha in oldest_first(state):
        web = web_at(state, sha)
        if state.repo.commits[sha]["subject"] == BUMP_MESSAGE and BUMP_IMAGE in images(web or {}):
            return sha
    return None


@lab.check(7, "bump-commit", hint="ci_bump")
def bump_commit(state):
    problem = repo_blocked(state)
    if problem:
        return problem
    sha = bump_commit_sha(state)
    if sha is None:
        subjects = [state.repo.commits[s]["subject"] for s in state.repo.order[:5]]
        return failed("bump_commit_missing", expected=BUMP_MESSAGE, found=subjects)
    return passed("bump_commit_ok", expected=BUMP_MESSAGE, found=sha, sha=sha[:7])


@lab.check(7, "live-revision", hint="app_sync_health")
def bump_live_revision(state):
    app, problem = live_app(state, 7)
    if problem:
        return problem
    problem = repo_blocked(state)
    if problem:
        return problem
    sha = bump_commit_sha(state)
    if sha is None:
        return failed("bump_commit_unknown", expected=BUMP_MESSAGE, found=None, hint="ci_bump")
    return app_at_revision(state, app, sha, "revision_ok", "revision_behind")


@lab.check(7, "live-image", hint="ci_bump")
def bump_live_image(state):
    web = state.cluster.get("web")
    if web is None:
        return blocked(1, "live_object_missing", what=f"Deployment {PROD_NS}/web")
    image = wanted_or_first(images(web), BUMP_IMAGE)
    if image == BUMP_IMAGE:
        return passed("live_values_ok", expected=BUMP_IMAGE, found=image, what=f"Deployment {PROD_NS}/web image")
    app = state.cluster.get("app")
    if dig(app, "status", "operationState", "phase") == "Running" and not retrying_broken(state, app):
        return pending("rollout_in_progress", expected=BUMP_IMAGE, found=image, what=f"Deployment {PROD_NS}/web")
    if self_heal_due(app):
        return self_heal_pending(app, APP, BUMP_IMAGE, image)
    return failed("live_values_mismatch", expected=BUMP_IMAGE, found=image, what=f"Deployment {PROD_NS}/web image")


# ---------------------------------------------------------------- step 8


def report_value(state, key, expected_type, truth):
    value, problem = evidence_field(state, "report.json", key, expected_type)
    if problem:
        return problem
    return same_value(value, truth, f"report.json {key}", hint="ci_report")


@lab.check(8, "ci-writes", hint="ci_report")
def report_ci_writes(state):
    return report_value(state, "ci_writes", "string", "git")


@lab.check(8, "cd-writes", hint="ci_report")
def report_cd_writes(state):
    return report_value(state, "cd_writes", "string", "cluster")


@lab.check(8, "ci-can-write-prod", hint="ci_report")
def report_ci_can_write_prod(state):
    answer = dig(state.cluster.get("sar_patch-prod"), "allowed")
    return report_value(state, "ci_can_write_prod", "boolean", answer is True)


@lab.check(8, "gate", hint="ci_report")
def report_gate(state):
    return report_value(state, "gate", "string", "pre-receive")


@lab.check(8, "deployed-revision", hint="ci_report")
def report_deployed_revision(state):
    app, problem = live_app(state, 8)
    if problem:
        return problem
    return report_value(state, "deployed_revision", "string", dig(app, "status", "sync", "revision"))


@lab.check(8, "broken-reached-git", hint="ci_report")
def report_broken_reached_git(state):
    value, problem = evidence_field(state, "report.json", "broken_reached_git", "boolean")
    if problem:
        return problem
    data, _ = evidence(state, "broken.json")
    sha = str(dig(data, "commit") or "").strip().lower()
    if not re.fullmatch(r"[0-9a-f]{40}", sha) or not state.repo.ok:
        return blocked(2, "broken_commit_unknown")
    # git merge-base --is-ancestor <broken> main: every commit collected is reachable from main.
    return same_value(value, sha in state.repo.commits, "report.json broken_reached_git", hint="ci_report")
