"""cgoa-ci's mistakes, each applied to a solved learner on the real control plane and undone
afterwards: mutation -> (how, {check id: the start of its message, <root> for the learner's root,
<bare> for the plane's bare repo root}). labcases.py grades each and asserts that exactly these
checks flip; docs/mutations.md is generated from this table (tests/controlplane/mutations_doc.py).
Messages that end with a script's own output are pinned up to that output. UNFLIPPED lists, with
the reason, every check that no mutation here flips; SOLVED_API_REQUESTS and PROBE_RUN_NAMES are
what labcases.py expects of the solved VM.

Undo restores the solved state (labflow.state_digest): workspace files and modes, the clone's
.git, the bare repo (the original main force-pushed back, Argo CD followed to it, the rewritten
commits pruned), the live objects (patched back, created ones deleted) and the Application's last
operation (synced again at main's head). Two things cannot go back: a Deployment's generation
after `kubectl set image` (nothing graded reads it), and a deleted ServiceAccount, which comes
back with a new uid, so ci-kubeconfig gets a new 8-hour token."""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from pathlib import Path

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import UNREAD_SECONDS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci import (
    APP,
    CI_NS,
    DRYRUN_NS,
    FEATURE_BRANCHES,
    PROBE_OBJECTS,
    PROD_NS,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probe_cases import BUMP_TAGS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.reads import ACCESS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.solution import web_yaml
from cpharness import wait_until
from labflow import Rewrite, edited, evidence, git, grade_learner, replaced, verdicts

# One reading of the solved VM: 6 GETs, a SubjectAccessReview per question (ACCESS), 1 TokenReview.
SOLVED_API_REQUESTS = 6 + len(ACCESS) + 1
# What each run of the probes picks by itself besides its mktemp directories: the feature branch
# and bump.sh's tag.
PROBE_RUN_NAMES = FEATURE_BRANCHES + BUMP_TAGS


def mutation_client_dry_run(plane, learner):
    return edited(learner.workspace / "validate.sh", "--dry-run=server", "--dry-run=client")


def mutation_relies_on_kubeconfig_env(plane, learner):
    return edited(learner.workspace / "validate.sh", f"--kubeconfig {learner.workspace}/ci-kubeconfig ", "")


def mutation_pipe_hides_failure(plane, learner):
    script = learner.workspace / "validate.sh"
    text = script.read_text(encoding="utf-8").replace("set -euo pipefail", "set -eu")
    text = text.replace('-f "$dir"', '-f "$dir" | tee /dev/null')
    return replaced(script, text)


def mutation_last_file_status_only(plane, learner):
    script = learner.workspace / "validate.sh"
    text = script.read_text(encoding="utf-8").replace("set -euo pipefail", "set -u")
    loop = (f'for f in "$dir"/*.yaml; do kubectl --kubeconfig {learner.workspace}/ci-kubeconfig -n ci-dryrun apply '
            '--dry-run=server -f "$f"; done')
    text = text.replace(f'kubectl --kubeconfig {learner.workspace}/ci-kubeconfig -n ci-dryrun apply --dry-run=server '
                        '-f "$dir"', loop)
    return replaced(script, text)


def validate_sh_as(body):
    """The mutation that replaces validate.sh by a wrong (or equivalent) script: `body` after the
    shebang, {ws} the workspace, {k} kubectl with the CI kubeconfig and namespace."""
    def mutation(plane, learner):
        k = f"kubectl --kubeconfig {learner.workspace}/ci-kubeconfig -n ci-dryrun"
        return replaced(learner.workspace / "validate.sh",
                        "#!/usr/bin/env bash\n" + body.format(ws=learner.workspace, k=k))
    return mutation


STRICT = "set -euo pipefail\n"
mutation_yaml_files_only = validate_sh_as(
    'rc=0\nfor f in "$1"/*.yaml; do {k} apply --dry-run=server -f "$f" || rc=1; done\nexit $rc\n')
mutation_yaml_and_yml_files_only = validate_sh_as(
    'shopt -s nullglob\nrc=0\nfor f in "$1"/*.yaml "$1"/*.yml; do {k} apply --dry-run=server -f "$f" || rc=1; '
    "done\nexit $rc\n")
mutation_first_file_only = validate_sh_as(STRICT + '{k} apply --dry-run=server -f "$(ls -d "$1"/* | head -n 1)"\n')
mutation_validate_false = validate_sh_as(STRICT + '{k} apply --dry-run=server --validate=false -f "$1"\n')
mutation_ignores_its_argument = validate_sh_as(STRICT + "{k} apply --dry-run=server -f {ws}/repo/deploy\n")
mutation_kubeconfig_default_only = validate_sh_as(
    STRICT + 'kubectl --kubeconfig "${{KUBECONFIG:-{ws}/ci-kubeconfig}}" -n ci-dryrun apply --dry-run=server -f "$1"\n')
mutation_kubeconfig_in_the_working_directory = validate_sh_as(
    STRICT + 'kubectl --kubeconfig ci-kubeconfig -n ci-dryrun apply --dry-run=server -f "$1"\n')
# An equivalent form: the CI kubeconfig found relative to the script's own directory, and a
# comment naming the client dry-run it does not use. Nothing flips.
mutation_kubeconfig_beside_the_script = validate_sh_as(
    STRICT + "# not --dry-run=client: that never asks the API server\n"
    'kubectl --kubeconfig "$(dirname "$0")/ci-kubeconfig" -n ci-dryrun apply --dry-run=server -f "$1"\n')


def mutation_hook_allows_delete(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", "    status=1\n    continue\n", "    continue\n")


def mutation_hook_validates_old_commit(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", 'git archive "$new" deploy', 'git archive "$old" deploy')


def mutation_hook_blocks_every_branch(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", '  [ "$ref" = refs/heads/main ] || continue\n',
                  '  [ "$ref" = refs/heads/main ] || { echo "only main"; status=1; continue; }\n')


def mutation_hook_reads_one_line(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", "while read -r old new ref; do\n",
                  "for once in 1; do\n  read -r old new ref\n")


def mutation_hook_greps_main(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", '  [ "$ref" = refs/heads/main ] || continue\n',
                  '  echo "$ref" | grep -q main || continue\n')


def mutation_hook_rejects_every_deletion(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", '  [ "$ref" = refs/heads/main ] || continue\n',
                  '  [ "$new" = "$zero" ] && { echo "no deletions"; status=1; continue; }\n'
                  '  [ "$ref" = refs/heads/main ] || continue\n')


def mutation_hook_checks_web_yaml_only(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", 'git archive "$new" deploy | tar -x -C "$tmp"',
                  'mkdir "$tmp/deploy"; git show "$new:deploy/web.yaml" >"$tmp/deploy/web.yaml"')


POST_RECEIVE_OBJECT = "post-receive-ran"


@contextlib.contextmanager
def mutation_post_receive_writes(plane, learner):
    """A post-receive hook that writes the cluster with the CI identity (a Deployment in ci-dryrun,
    which it may create) and the workspace: the probes run only the pre-receive hook (checks/
    probes.py stage_bare_repo), so it never runs, nothing flips and nothing is written."""
    hook = learner.bare / "hooks" / "post-receive"
    marker = learner.workspace / POST_RECEIVE_OBJECT
    hook.write_text(f"#!/bin/sh\ncat >/dev/null\ndate >>{marker}\nkubectl --kubeconfig {learner.workspace}/ci-kubeconfig "
                    f"-n {DRYRUN_NS} create deployment {POST_RECEIVE_OBJECT} --image=nginx:1.27-alpine\n",
                    encoding="utf-8")
    hook.chmod(0o755)
    try:
        yield
        ran = plane.kubectl("-n", DRYRUN_NS, "get", "deployment", POST_RECEIVE_OBJECT, check=False)
        assert ran.returncode != 0 and not marker.exists(), "the post-receive hook ran while grading"
    finally:
        hook.unlink()
        marker.unlink(missing_ok=True)
        plane.kubectl("-n", DRYRUN_NS, "delete", "deployment", POST_RECEIVE_OBJECT, "--ignore-not-found",
                      "--wait=false")


def mutation_hand_written_blocked_txt(plane, learner):
    return replaced(learner.workspace / "blocked.txt", "the push to main was rejected by the hook\n")


def mutation_bump_calls_kubectl(plane, learner):
    return edited(learner.workspace / "bump.sh", "git push -q origin main\n",
                  "git push -q origin main\nkubectl -n ci-web rollout status deployment/web\n")


def mutation_bump_hard_coded_tag(plane, learner):
    return edited(learner.workspace / "bump.sh", 'image: nginx:$tag#', 'image: nginx:1.28-alpine#')


def mutation_bump_without_push(plane, learner):
    return edited(learner.workspace / "bump.sh", "git push -q origin main\n", "")


def mutation_can_write_prod_as_string(plane, learner):
    return edited(learner.workspace / "report.json", '"ci_can_write_prod": false', '"ci_can_write_prod": "false"')


@contextlib.contextmanager
def mutation_token_lives_one_hour(plane, learner):
    kubeconfig = learner.workspace / "ci-kubeconfig"
    original = kubeconfig.read_text(encoding="utf-8")
    token = plane.kubectl("create", "token", "validator", "-n", "ci", "--duration=1h").stdout.strip()
    plane.run([str(plane.bin_dir / "kubectl"), "config", "--kubeconfig", str(kubeconfig), "set-credentials",
               "validator", f"--token={token}"])
    try:
        yield
    finally:
        kubeconfig.write_text(original, encoding="utf-8")


# Pushes that reproduce what reached main before the gate existed: receive-pack without hooks.
NO_HOOKS = ["--receive-pack=git -c core.hooksPath=/dev/null receive-pack"]


@contextlib.contextmanager
def rewritten_main(plane, learner, build, push=()):
    """Bare main replaced by what `build(rewrite)` leaves checked out in a scratch clone (pushed
    with `push` options); Argo CD follows it. Yields {"old": original head, "new": new head}.
    Restored by force-pushing the original main back and waiting for Argo CD to follow."""
    rewrite = Rewrite(learner)
    original = rewrite.git("rev-parse", "HEAD")
    build(rewrite)
    rewrite.push(options=push)
    heads = {"old": original, "new": rewrite.git("rev-parse", "HEAD")}
    try:
        follow(plane, heads["new"])
        yield heads
    finally:
        rewrite.push(original)
        follow(plane, original)
        rewrite.close()


def drop_broken_commit(rewrite):
    """main rebuilt from its root with the bump alone: no broken commit, no revert."""
    rewrite.git("reset", "-q", "--hard", rewrite.git("rev-list", "--max-parents=0", "HEAD"))
    rewrite.commit({"deploy/web.yaml": web_yaml(image="nginx:1.28-alpine")}, "ci: web nginx:1.28-alpine")


def mutation_history_rewritten(plane, learner):
    """The broken commit dropped from main by a rewrite (force-push) instead of a revert; Argo CD
    follows the rewritten main. Restored by force-pushing the original main back."""
    return rewritten_main(plane, learner, drop_broken_commit)


@contextlib.contextmanager
def mutation_commit_pushed_before_argo_cd_polls(plane, learner):
    """A commit pushed to bare main (through the gate) right after Argo CD compared: a hard refresh,
    then the push, then the grade at once. Argo CD reads the commit only at a later poll
    (timeout.reconciliation, after its revision cache: checks/argocd.py UNREAD_SECONDS), so the
    grade, settling 90 s, sees it converging. Then, before main is put back: Argo CD reads it by
    itself (no refresh) within UNREAD_SECONDS of the push, and the live checks PASS (report.json's
    deployed_revision, written before, is then stale)."""
    plane.hard_refresh(APP)
    plane.wait_app(APP, lambda a: "argocd.argoproj.io/refresh" not in a["metadata"].get("annotations", {}),
                   "the hard refresh done")
    rewrite = Rewrite(learner)
    original = rewrite.git("rev-parse", "HEAD")
    web = (rewrite.work / "deploy" / "web.yaml").read_text(encoding="utf-8")
    new = rewrite.commit({"deploy/web.yaml": web.replace("metadata:\n  name: web\n",
                                                         "metadata:\n  name: web\n  annotations:\n    team: web\n", 1)},
                         "web: team annotation")
    rewrite.push()
    pushed = time.monotonic()
    try:
        yield
        plane.wait_app(APP, lambda a: app_status(a).get("sync", {}).get("revision") == new
                       and app_status(a)["sync"].get("status") == "Synced"
                       and app_status(a).get("health", {}).get("status") == "Healthy",
                       "read the pushed commit by itself", timeout=UNREAD_SECONDS + 60)
        read_after = time.monotonic() - pushed
        print(f"\nArgo CD read the pushed commit by itself {read_after:.0f} s after the push")
        assert read_after < UNREAD_SECONDS
        _, checks = grade_learner(learner, settle_seconds=0)
        assert {cid: v for cid, v in verdicts(checks, learner).items() if v[0] != "PASS"} == {
            "cgoa-ci.8.deployed-revision": ("FAIL", f'report.json deployed_revision: expected "{new}", found '
                                                    f'"{original}"')}
    finally:
        rewrite.push(original)
        follow(plane, original)
        rewrite.close()


def follow(plane, revision):
    """Argo CD has read `revision` of main: the same manifests, so only status.sync.revision moves."""
    plane.hard_refresh(APP)
    plane.wait_app(APP, lambda a: a.get("status", {}).get("sync", {}).get("revision") == revision
                   and a["status"]["sync"].get("status") == "Synced", f"synced at {revision}", timeout=180)


def typo_then_fix(rewrite):
    """A replica: typo committed on main and fixed by the next commit (before the gate existed)."""
    good = (rewrite.work / "deploy" / "web.yaml").read_text(encoding="utf-8")
    rewrite.commit({"deploy/web.yaml": good.replace("  replicas: 2\n", "  replica: 2\n")}, "web: replica typo")
    rewrite.commit({"deploy/web.yaml": good}, "web: fix the replica typo")


def bump_message_changed(rewrite):
    rewrite.git("commit", "-q", "--amend", "-m", "bump web to 1.28-alpine")


def namespace_in_every_commit(rewrite):
    """main rebuilt commit by commit, each deploy/web.yaml naming metadata.namespace ci-web."""
    commits = rewrite.git("rev-list", "--reverse", "HEAD").split()
    rewrite.git("checkout", "-q", "--orphan", "rebuilt")
    for sha in commits:
        rewrite.git("read-tree", "-u", "--reset", sha)
        web = rewrite.work / "deploy" / "web.yaml"
        web.write_text(web.read_text(encoding="utf-8").replace("  name: web\n", "  name: web\n  namespace: ci-web\n",
                                                               1), encoding="utf-8")
        rewrite.git("add", "-A")
        rewrite.git("commit", "-q", "-C", sha)


@contextlib.contextmanager
def history_with_evidence(plane, learner, build, push=()):
    """main rewritten, and the evidence a learner writes at the end names the new commits:
    report.json deployed_revision the new head, broken.json commit the new broken commit."""
    with rewritten_main(plane, learner, build, push) as heads:
        broken = next(sha for sha in git(learner.bare, "rev-list", "main").split()
                      if "replicas: two" in git(learner.bare, "show", f"{sha}:deploy/web.yaml"))
        with evidence(learner, "report.json", deployed_revision=heads["new"]), \
                evidence(learner, "broken.json", commit=broken):
            yield


def mutation_typo_reached_main_before_the_gate(plane, learner):
    return history_with_evidence(plane, learner, typo_then_fix, NO_HOOKS)


def mutation_bump_with_another_message(plane, learner):
    return history_with_evidence(plane, learner, bump_message_changed)


def mutation_baseline_names_namespace(plane, learner):
    """The learner's own gate would refuse these manifests (-n ci-dryrun against namespace ci-web):
    they reached main before it existed."""
    return history_with_evidence(plane, learner, namespace_in_every_commit, NO_HOOKS)


# ---------------------------------------------------------------- the clone


@contextlib.contextmanager
def mutation_clone_not_reset(plane, learner):
    """The typo commit the hook refused stays on the clone's main (no git reset --hard origin/main).
    Undo puts the clone back as it was (its .git included)."""
    saved = Path(learner.root) / "clone-saved"
    shutil.rmtree(saved, ignore_errors=True)
    shutil.copytree(learner.clone, saved, symlinks=True)
    try:
        web = learner.clone / "deploy" / "web.yaml"
        web.write_text(web_yaml(image="nginx:1.28-alpine", replicas_key="replica"), encoding="utf-8")
        learner.git("commit", "-q", "-am", "web: typo")
        yield
    finally:
        shutil.rmtree(learner.clone)
        saved.rename(learner.clone)


def mutation_clone_origin_elsewhere(plane, learner):
    return edited(learner.clone / ".git" / "config", f"url = {learner.bare}", "url = /root/ci.git")


# ---------------------------------------------------------------- evidence files


def mutation_sync_status_after_revert(plane, learner):
    """broken.json written after the revert had synced."""
    return evidence(learner, "broken.json", sync_status="Synced")


def mutation_sync_status_of_another_diff(plane, learner):
    """broken.json says Unknown, a server-side diff's answer, of an Application that diffs by default."""
    return evidence(learner, "broken.json", sync_status="Unknown")


def mutation_live_replicas_from_git(plane, learner):
    """live_replicas copied from git (the string "two") instead of read from the live Deployment."""
    return evidence(learner, "broken.json", live_replicas="two")


def mutation_operation_message_invented(plane, learner):
    return evidence(learner, "broken.json", operation_message="sync failed: replicas must be a number")


def mutation_roles_swapped(plane, learner):
    return evidence(learner, "report.json", ci_writes="cluster", cd_writes="git")


def mutation_gate_pre_commit(plane, learner):
    """A client-side hook named as the gate: it runs in the learner's clone, which anyone can skip."""
    return evidence(learner, "report.json", gate="pre-commit")


def mutation_deployed_revision_before_bump(plane, learner):
    """report.json deployed_revision read before the bump had synced (the revert commit)."""
    revert = git(learner.bare, "rev-parse", "main~1")
    return evidence(learner, "report.json", deployed_revision=revert)


# ---------------------------------------------------------------- kubeconfigs


@contextlib.contextmanager
def kubeconfig_changed(plane, path, *commands):
    """`path` changed by `kubectl config --kubeconfig <path> <command>` for each command; restored."""
    original, mode = path.read_text(encoding="utf-8"), path.stat().st_mode
    try:
        for command in commands:
            plane.run([str(plane.bin_dir / "kubectl"), "config", "--kubeconfig", str(path), *command])
        yield
    finally:
        path.write_text(original, encoding="utf-8")
        path.chmod(mode)


def mutation_argocd_kubeconfig_namespace_default(plane, learner):
    return kubeconfig_changed(plane, learner.workspace / "kubeconfig", ["set-context", "--current",
                                                                         "--namespace=default"])


def mutation_ci_kubeconfig_without_namespace(plane, learner):
    """validate.sh passes -n ci-dryrun itself, so only the file's context is wrong."""
    return kubeconfig_changed(plane, learner.workspace / "ci-kubeconfig", ["unset", "contexts.ci.namespace"])


def mutation_ci_kubeconfig_in_cluster_server(plane, learner):
    """The in-cluster address, which the VM itself cannot resolve."""
    return kubeconfig_changed(plane, learner.workspace / "ci-kubeconfig",
                              ["set-cluster", "lab", "--server=https://kubernetes.default.svc"])


@contextlib.contextmanager
def mutation_token_of_default_account(plane, learner):
    """`kubectl create token default -n ci`: 8 hours, but another ServiceAccount."""
    token = plane.kubectl("create", "token", "default", "-n", CI_NS, "--duration=8h").stdout.strip()
    with kubeconfig_changed(plane, learner.workspace / "ci-kubeconfig",
                            ["set-credentials", "validator", f"--token={token}"]):
        yield


def mutation_admin_certificate_beside_the_token(plane, learner):
    """The plane's admin client certificate and key embedded in ci-kubeconfig's user, its
    validator token kept: kubectl sends both and the API server authenticates the certificate.
    (The plane's admin kubeconfig names its key by file, so the probes do not withhold this
    ci-kubeconfig and validate.sh runs as admin: only the identity check flips. On a k3s VM the
    same key is in the admin kubeconfig's data and validate.sh's copy goes without the file.)"""
    pki = plane.root / "pki"
    return kubeconfig_changed(plane, learner.workspace / "ci-kubeconfig", [
        "set-credentials", "validator", f"--client-certificate={pki / 'admin.crt'}",
        f"--client-key={pki / 'admin.key'}", "--embed-certs=true"])


# ---------------------------------------------------------------- RBAC


@contextlib.contextmanager
def json_patched(plane, kind, name, namespace, patch, undo):
    plane.kubectl("-n", namespace, "patch", kind, name, "--type=json", "-p", json.dumps(patch))
    try:
        yield
    finally:
        plane.kubectl("-n", namespace, "patch", kind, name, "--type=json", "-p", json.dumps(undo))


def role_verbs(verbs):
    return [{"op": "replace", "path": "/rules/0/verbs", "value": verbs}]


SOLVED_VERBS = ["get", "create", "patch"]


def mutation_role_with_star_verbs(plane, learner):
    return json_patched(plane, "role", "dryrun-deployments", DRYRUN_NS, role_verbs(["*"]), role_verbs(SOLVED_VERBS))


def mutation_role_grants_delete(plane, learner):
    return json_patched(plane, "role", "dryrun-deployments", DRYRUN_NS, role_verbs([*SOLVED_VERBS, "delete"]),
                        role_verbs(SOLVED_VERBS))


def mutation_role_without_patch(plane, learner):
    """kubectl apply of a Deployment that is not there only creates it: validate.sh still works."""
    return json_patched(plane, "role", "dryrun-deployments", DRYRUN_NS, role_verbs(["get", "create"]),
                        role_verbs(SOLVED_VERBS))


def mutation_role_with_star_groups_and_resources(plane, learner):
    star = [{"op": "replace", "path": "/rules/0/apiGroups", "value": ["*"]},
            {"op": "replace", "path": "/rules/0/resources", "value": ["*"]}]
    solved = [{"op": "replace", "path": "/rules/0/apiGroups", "value": ["apps"]},
              {"op": "replace", "path": "/rules/0/resources", "value": ["deployments"]}]
    return json_patched(plane, "role", "dryrun-deployments", DRYRUN_NS, star, solved)


def mutation_role_rules_split(plane, learner):
    """The same grant in two rules, in another order: nothing flips."""
    rules = [{"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["patch"]},
             {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "get"]}]
    solved = [{"apiGroups": ["apps"], "resources": ["deployments"], "verbs": SOLVED_VERBS}]
    return json_patched(plane, "role", "dryrun-deployments", DRYRUN_NS,
                        [{"op": "replace", "path": "/rules", "value": rules}],
                        [{"op": "replace", "path": "/rules", "value": solved}])


def mutation_binding_subject_as_user(plane, learner):
    """`kubectl create rolebinding --user=system:serviceaccount:ci:validator`: the user name the
    ServiceAccount authenticates as, which the RBAC authorizer matches alike: nothing flips."""
    user = [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": f"system:serviceaccount:{CI_NS}:validator"}]
    solved = [{"kind": "ServiceAccount", "name": "validator", "namespace": CI_NS}]
    return json_patched(plane, "rolebinding", "validator-dryrun", DRYRUN_NS,
                        [{"op": "replace", "path": "/subjects", "value": user}],
                        [{"op": "replace", "path": "/subjects", "value": solved}])


@contextlib.contextmanager
def mutation_cluster_role_binding_edit(plane, learner):
    """A ClusterRoleBinding gives ci:validator ClusterRole edit in every namespace."""
    plane.kubectl("create", "clusterrolebinding", "validator-edit", "--clusterrole=edit",
                  f"--serviceaccount={CI_NS}:validator")
    try:
        yield
    finally:
        plane.kubectl("delete", "clusterrolebinding", "validator-edit")


def subject_namespace(namespace):
    return [{"op": "replace", "path": "/subjects/0/namespace", "value": namespace}]


def mutation_binding_names_wrong_namespace(plane, learner):
    """The subject's namespace is the RoleBinding's own (ci-dryrun): another, non-existent account."""
    return json_patched(plane, "rolebinding", "validator-dryrun", DRYRUN_NS, subject_namespace(DRYRUN_NS),
                        subject_namespace(CI_NS))


@contextlib.contextmanager
def mutation_validator_bound_to_edit_in_prod(plane, learner):
    """A second RoleBinding in ci-web gives ci:validator ClusterRole edit there: CI can write prod."""
    plane.kubectl("-n", PROD_NS, "create", "rolebinding", "validator-edit", "--clusterrole=edit",
                  f"--serviceaccount={CI_NS}:validator")
    try:
        yield
    finally:
        plane.kubectl("-n", PROD_NS, "delete", "rolebinding", "validator-edit")


@contextlib.contextmanager
def mutation_service_account_missing(plane, learner):
    """ServiceAccount ci/validator deleted: its tokens stop authenticating. Undo creates it again with
    a new 8-hour token in ci-kubeconfig (a token belongs to the account's uid; the old one cannot
    come back)."""
    plane.kubectl("-n", CI_NS, "delete", "serviceaccount", "validator")
    kubeconfig = learner.workspace / "ci-kubeconfig"
    try:
        # The API server caches a token's authentication for up to 10 s.
        wait_until("the token no longer authenticates", lambda: "Unauthorized" in plane.kubectl(
            "auth", "whoami", kubeconfig=kubeconfig, check=False).stderr, timeout=60)
        yield
    finally:
        plane.kubectl("-n", CI_NS, "create", "serviceaccount", "validator")
        token = plane.kubectl("create", "token", "validator", "-n", CI_NS, "--duration=8h").stdout.strip()
        plane.run([str(plane.bin_dir / "kubectl"), "config", "--kubeconfig", str(kubeconfig), "set-credentials",
                   "validator", f"--token={token}"])


# ---------------------------------------------------------------- scripts


@contextlib.contextmanager
def mode_removed(path, bits):
    mode = path.stat().st_mode
    path.chmod(mode & ~bits)
    try:
        yield
    finally:
        path.chmod(mode)


EXECUTE = 0o111


def mutation_validate_not_executable(plane, learner):
    return mode_removed(learner.workspace / "validate.sh", EXECUTE)


def mutation_hook_not_executable(plane, learner):
    """git skips a pre-receive hook it cannot execute (with a hint): every push goes through."""
    return mode_removed(learner.bare / "hooks" / "pre-receive", EXECUTE)


@contextlib.contextmanager
def mutation_validate_without_dry_run(plane, learner):
    """kubectl apply without --dry-run: every valid probe manifest is really created in ci-dryrun.
    Undo deletes them."""
    with edited(learner.workspace / "validate.sh", " --dry-run=server", ""):
        try:
            yield
        finally:
            plane.kubectl("-n", DRYRUN_NS, "delete", "deployments", *PROBE_OBJECTS, "--ignore-not-found",
                          "--wait=false")


# ---------------------------------------------------------------- the live Application


def app_status(app):
    return app.get("status", {})


# What `argocd app sync` says when the Application already has an operation: SetAppOperation
# (argo-cd v3.5.2 util/argo/argo.go) refuses while `a.Operation != nil`.
OPERATION_IN_PROGRESS = "another operation is already in progress"


def sync_now(plane, learner):
    """`argocd app sync ci-web --core`: the last operation is Succeeded at bare main's head again.
    An undo that has just put selfHeal back on an OutOfSync Application races Argo CD's own
    automated sync (CI, 2026-12-03: the CLI was refused while it ran); that sync is the one
    waited for then."""
    result = plane.argocd("app", "sync", APP, "--core", "--timeout", "180", timeout=240)
    assert result.returncode == 0 or OPERATION_IN_PROGRESS in result.stdout + result.stderr, \
        result.stdout + result.stderr
    plane.wait_synced_healthy(APP, git(learner.bare, "rev-parse", "main"), timeout=180)


def automated_flag(flag, present):
    path = f"/spec/syncPolicy/automated/{flag}"
    return [{"op": "add", "path": path, "value": True}] if present else [{"op": "remove", "path": path}]


def mutation_live_app_without_prune(plane, learner):
    """`kubectl edit` of the live Application drops prune; app.yaml keeps it."""
    return json_patched(plane, "applications.argoproj.io", APP, "argocd", automated_flag("prune", False),
                        automated_flag("prune", True))


def mutation_app_file_without_self_heal(plane, learner):
    """app.yaml lost selfHeal after it was applied (the live Application still has it)."""
    return edited(learner.workspace / "app.yaml", "      selfHeal: true\n", "")


def set_prod_image(plane):
    """`kubectl set image` of prod, and Argo CD has compared: OutOfSync, Healthy once rolled out."""
    plane.kubectl("-n", PROD_NS, "set", "image", "deployment/web", "web=nginx:1.29-alpine")
    plane.hard_refresh(APP)
    plane.wait_app(APP, lambda a: app_status(a).get("sync", {}).get("status") == "OutOfSync"
                   and app_status(a).get("health", {}).get("status") == "Healthy", "OutOfSync and Healthy")


@contextlib.contextmanager
def mutation_self_heal_off_then_set_image(plane, learner):
    """selfHeal removed from the live Application, then `kubectl set image` of the prod Deployment:
    Argo CD leaves the drift (OutOfSync) and prod runs what git does not say. Undo puts selfHeal
    back and syncs."""
    patch = automated_flag("selfHeal", False)
    plane.kubectl("-n", "argocd", "patch", "applications.argoproj.io", APP, "--type=json", "-p", json.dumps(patch))
    try:
        set_prod_image(plane)
        yield
    finally:
        plane.kubectl("-n", "argocd", "patch", "applications.argoproj.io", APP, "--type=json", "-p",
                      json.dumps(automated_flag("selfHeal", True)))
        sync_now(plane, learner)


@contextlib.contextmanager
def mutation_set_image_while_self_heal_backs_off(plane, learner):
    """`kubectl set image` of prod by a learner who has done it several times before: selfHeal will
    sync it back, but only after its backoff. v3.5.2 keeps counting self-heal attempts at one
    revision (operationState.operation.sync.autoHealAttemptsCount, never reset) and waits
    2 s x 3^(count-1), at most 300 s, from the last operation's end (controller/appcontroller.go
    autoSync); the count of earlier edits is written where the controller keeps it, after a fresh
    sync. The grade settles 90 s and still sees the drift: PENDING, never FAIL. Undo syncs."""
    sync_now(plane, learner)
    plane.kubectl("-n", "argocd", "patch", "applications.argoproj.io", APP, "--type=merge", "-p", json.dumps(
        {"status": {"operationState": {"operation": {"sync": {"autoHealAttemptsCount": 6}}}}}))
    try:
        set_prod_image(plane)
        yield
    finally:
        sync_now(plane, learner)


@contextlib.contextmanager
def mutation_broken_commit_still_retrying(plane, learner):
    """Moving on without terminate-op: the broken commit's auto-sync operation (what the controller
    writes: the commit, prune, the sync options, the default 5 retries) still runs. Undo
    terminates it and syncs main's head again."""
    broken = json.loads((learner.workspace / "broken.json").read_text(encoding="utf-8"))["commit"]
    operation = {"initiatedBy": {"automated": True}, "retry": {"limit": 5},
                 "sync": {"revision": broken, "prune": True, "syncOptions": ["CreateNamespace=true"]}}
    plane.kubectl("-n", "argocd", "patch", "applications.argoproj.io", APP, "--type=merge", "-p",
                  json.dumps({"operation": operation}))
    try:
        plane.wait_app(APP, lambda a: app_status(a).get("operationState", {}).get("phase") == "Running"
                       and "Retrying attempt" in app_status(a)["operationState"].get("message", ""),
                       "the broken commit's operation retrying")
        yield
    finally:
        plane.argocd("app", "terminate-op", APP, "--core")
        plane.wait_app(APP, lambda a: app_status(a).get("operationState", {}).get("phase") not in
                       ("Running", "Terminating"), "the operation ended")
        sync_now(plane, learner)


VALIDATE_REJECTS = {
    "cgoa-ci.4.validate-server-dry-run":
        "validate.sh rejects a Deployment whose selector does not match its template's labels (only the API server "
        "rejects it: validate on the server, --dry-run=server), but exited with code 0",
    "cgoa-ci.4.validate-rejects-string-replicas": "validate.sh rejects replicas: two, but exited with code 0",
    "cgoa-ci.4.validate-rejects-unknown-field":
        "validate.sh rejects the misspelled field replica:, but exited with code 0",
    "cgoa-ci.4.validate-rejects-mixed":
        "validate.sh rejects a folder with a bad api.yaml beside a good web.yaml, but exited with code 0",
    **dict.fromkeys(("cgoa-ci.5.hook-rejects-typo-on-main", "cgoa-ci.5.hook-rejects-typo-in-any-manifest",
                     "cgoa-ci.5.hook-reads-every-ref"),
                    "blocked by step 4: validate.sh accepts the misspelled field replica:, so no gate built on it "
                    "refuses it"),
}
# What the hook's pushes print when the gate lets a typo through (its check's first failing push).
TYPO_IN_YML = "pre-receive rejects a push to main with replica: in deploy/api.yml, but exited with code 0"
TYPO_IN_JSON = "pre-receive rejects a push to main with replica: in deploy/api.json, but exited with code 0"
TYPO_MAIN_SECOND = ("pre-receive rejects a push of another branch and of main with replica: at once (main on the "
                    "second line of stdin), but exited with code 0")
# validate.sh refuses the valid case with KUBECONFIG at the CI kubeconfig too (its identity is wrong).
OWN_KUBECONFIG_FAILS = {
    "cgoa-ci.4.validate-names-kubeconfig": "validate.sh accepts a valid Deployment with "
                                           "KUBECONFIG=/tmp/ci-runner/kubeconfig and no ~/.kube, so with the "
                                           "kubeconfig it names itself, but exited with code 1"}


def mixed_accepted(bad, good):
    return {"cgoa-ci.4.validate-rejects-mixed":
            f"validate.sh rejects a folder with a bad {bad} beside a good {good}, but exited with code 0"}


# mutation -> (how, {check id: the start of its message, <root> for the learner's root}); every
# other check must stay PASS. Messages end with the script's own output, which is not pinned.
MUTATIONS = {
    "client dry-run": (mutation_client_dry_run, VALIDATE_REJECTS),
    "relies on $KUBECONFIG": (mutation_relies_on_kubeconfig_env, {
        "cgoa-ci.4.validate-names-kubeconfig": "validate.sh accepts a valid Deployment only when KUBECONFIG names "
                                               "<root>/root/cgoa-ci/ci-kubeconfig: with "
                                               "KUBECONFIG=/tmp/ci-runner/kubeconfig it exited with code 1",
        # kubectl on a kubeconfig whose user holds no credentials asks for one (client-go's basic-auth
        # prompt) and ends at EOF: stdin is closed (observed on the plane)
        "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: Please "
                                            "enter Username: error: EOF",
        "cgoa-ci.5.hook-accepts-valid-main":
            "blocked by step 4: validate.sh does not accept a valid Deployment, so no gate built on it can"}),
    "the CI kubeconfig only when KUBECONFIG is unset": (mutation_kubeconfig_default_only, {
        "cgoa-ci.4.validate-names-kubeconfig": "validate.sh accepts a valid Deployment only when KUBECONFIG names "
                                               "<root>/root/cgoa-ci/ci-kubeconfig: with "
                                               "KUBECONFIG=/tmp/ci-runner/kubeconfig it exited with code 1",
        "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: Please "
                                            "enter Username: error: EOF"}),
    # The pre-receive hook runs validate.sh in the bare repository: it fails there too.
    "kubeconfig relative to the working directory": (mutation_kubeconfig_in_the_working_directory, {
        "cgoa-ci.4.validate-names-kubeconfig": "validate.sh accepts a valid Deployment only when it runs in "
                                               "<root>/root/cgoa-ci: run in /tmp it exited with code 1",
        "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: error: "
                                            "stat ci-kubeconfig: no such file or directory",
        "cgoa-ci.5.hook-accepts-valid-main":
            "blocked by step 4: validate.sh does not accept a valid Deployment, so no gate built on it can"}),
    "kubeconfig beside the script, a comment naming --dry-run=client": (mutation_kubeconfig_beside_the_script, {}),
    "pipe hides the failure (tee without pipefail)": (mutation_pipe_hides_failure, VALIDATE_REJECTS),
    # The loop reads *.yaml only: the gate built on it lets a bad deploy/api.yml through.
    "loop returns only the last file's status": (mutation_last_file_status_only, {
        **mixed_accepted("api.yaml", "web.yaml"), "cgoa-ci.5.hook-rejects-typo-in-any-manifest": TYPO_IN_YML}),
    "validates the first file only": (mutation_first_file_only, mixed_accepted("web.yaml", "api.yaml")),
    # A gate built on a validate.sh that skips a kind of file lets a bad file of that kind through.
    "validates *.yaml only": (mutation_yaml_files_only, {
        **mixed_accepted("api.yml", "web.yaml"), "cgoa-ci.5.hook-rejects-typo-in-any-manifest": TYPO_IN_YML}),
    "validates *.yaml and *.yml only": (mutation_yaml_and_yml_files_only, {
        **mixed_accepted("api.json", "web.yaml"), "cgoa-ci.5.hook-rejects-typo-in-any-manifest": TYPO_IN_JSON}),
    "server dry-run with --validate=false": (mutation_validate_false, {
        "cgoa-ci.4.validate-rejects-unknown-field":
            "validate.sh rejects the misspelled field replica:, but exited with code 0",
        **dict.fromkeys(("cgoa-ci.5.hook-rejects-typo-on-main", "cgoa-ci.5.hook-rejects-typo-in-any-manifest",
                         "cgoa-ci.5.hook-reads-every-ref"),
                        "blocked by step 4: validate.sh accepts the misspelled field replica:, so no gate built on it "
                        "refuses it")}),
    "ignores its argument, validates the clone's deploy/": (mutation_ignores_its_argument, VALIDATE_REJECTS),
    "hook lets main be deleted": (mutation_hook_allows_delete, {
        "cgoa-ci.5.hook-rejects-delete-main": "pre-receive rejects deleting main, but exited with code 0"}),
    "hook validates the old commit": (mutation_hook_validates_old_commit, {
        "cgoa-ci.5.hook-rejects-typo-on-main": "pre-receive rejects a push to main with replica:, but exited with code 0",
        "cgoa-ci.5.hook-rejects-typo-in-any-manifest": TYPO_IN_YML,
        "cgoa-ci.5.hook-reads-every-ref": TYPO_MAIN_SECOND}),
    "hook blocks every branch": (mutation_hook_blocks_every_branch, {
        "cgoa-ci.5.hook-accepts-other-branch": "pre-receive accepts a push to another branch, but exited with code 1",
        "cgoa-ci.5.hook-accepts-branch-deletion": "pre-receive accepts deleting another branch, but exited with code 1",
        "cgoa-ci.5.hook-accepts-main-lookalikes": "pre-receive accepts a push with replica: to branches whose names "
                                                  "contain main (mainline, maint, feature/main-fix, hotfix/main), but "
                                                  "exited with code 1"}),
    "hook reads only the first line of stdin": (mutation_hook_reads_one_line, {
        "cgoa-ci.5.hook-reads-every-ref": TYPO_MAIN_SECOND}),
    "hook matches the ref with grep main": (mutation_hook_greps_main, {
        "cgoa-ci.5.hook-accepts-main-lookalikes": "pre-receive accepts a push with replica: to branches whose names "
                                                  "contain main (mainline, maint, feature/main-fix, hotfix/main), but "
                                                  "exited with code 1"}),
    "hook rejects every deletion": (mutation_hook_rejects_every_deletion, {
        "cgoa-ci.5.hook-accepts-branch-deletion": "pre-receive accepts deleting another branch, but exited with code 1"}),
    "hook validates deploy/web.yaml only": (mutation_hook_checks_web_yaml_only, {
        "cgoa-ci.5.hook-rejects-typo-in-any-manifest": TYPO_IN_YML}),
    "a post-receive hook that writes": (mutation_post_receive_writes, {}),
    "blocked.txt hand-written": (mutation_hand_written_blocked_txt, {
        "cgoa-ci.6.blocked-transcript": "blocked.txt lacks `! [remote rejected] … -> main (pre-receive hook declined)`, "
                                        "`remote: …`: save the whole output of the rejected git push"}),
    # bump.sh runs with a tag chosen per run (probe_cases.BUMP_TAGS): its messages are pinned after it
    # by tests/grader/test_cgoa_bump.py; here the run shows that only bump-script flips.
    "bump.sh calls kubectl": (mutation_bump_calls_kubectl, {"cgoa-ci.7.bump-script": "bump.sh "}),
    "bump.sh with a hard-coded tag": (mutation_bump_hard_coded_tag, {"cgoa-ci.7.bump-script": "bump.sh "}),
    "bump.sh that never pushes": (mutation_bump_without_push, {"cgoa-ci.7.bump-script": "bump.sh "}),
    "a commit pushed before Argo CD polls it": (mutation_commit_pushed_before_argo_cd_polls, {
        "cgoa-ci.2.live-at-head": "Application ci-web still compares commit "}),
    "ci_can_write_prod as a string": (mutation_can_write_prod_as_string, {
        "cgoa-ci.8.ci-can-write-prod":
            'report.json ci_can_write_prod: the JSON type must be boolean, found string ("false")'}),
    "Role with * verbs": (mutation_role_with_star_verbs, {
        "cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
                                    "delete deployments in ci-dryrun: False / True"}),
    "token lifetime 1 h": (mutation_token_lives_one_hour, {
        "cgoa-ci.3.ci-token-lifetime": "the token lives 3600 s (exp - iat), expected 28800 s (8 hours)"}),
    "broken commit rewritten out of history": (mutation_history_rewritten, {
        "cgoa-ci.2.broken-commit": 'commit "',
        "cgoa-ci.2.revert-commit": 'no commit on bare main sets deploy/web.yaml replicas to the string "two" (the '
                                   "broken commit must stay in the history: revert it, do not rewrite it)",
        # Argo CD followed the rewritten main, so the recorded revision is stale too.
        "cgoa-ci.8.deployed-revision": 'report.json deployed_revision: expected "',
        "cgoa-ci.8.broken-reached-git": "report.json broken_reached_git: expected false, found true"}),
    "replica: typo on main before the gate, fixed by the next commit": (mutation_typo_reached_main_before_the_gate, {
        "cgoa-ci.6.no-typo-on-main": 'commits on bare main have a replica: key in deploy/web.yaml: ["'}),
    "bump commit with another message": (mutation_bump_with_another_message, {
        "cgoa-ci.7.bump-commit": 'no commit on bare main has the message "ci: web nginx:1.28-alpine" and image '
                                 'nginx:1.28-alpine (found: ["bump web to 1.28-alpine", "Revert \\"web: replicas two\\"", '
                                 '"web: replicas two", "deploy web nginx:1.27-alpine"])',
        "cgoa-ci.7.live-revision": 'no commit "ci: web nginx:1.28-alpine" on bare main'}),
    "baseline names its namespace": (mutation_baseline_names_namespace, {
        "cgoa-ci.1.baseline-commit": "the first commit adding deploy/web.yaml ("}),
    "clone not reset after the rejected push": (mutation_clone_not_reset, {
        "cgoa-ci.6.clone-reset": "the clone's main differs from origin/main: {\"main\": \""}),
    "clone's origin elsewhere": (mutation_clone_origin_elsewhere, {
        "cgoa-ci.1.clone-origin": '<root>/root/cgoa-ci/repo: origin is "/root/ci.git", expected "<bare>/ci.git"'}),
    "broken.json sync_status after the revert": (mutation_sync_status_after_revert, {
        "cgoa-ci.2.broken-sync-status": 'broken.json sync_status: expected "OutOfSync", found "Synced"'}),
    "broken.json sync_status of a server-side diff": (mutation_sync_status_of_another_diff, {
        "cgoa-ci.2.broken-sync-status": 'broken.json sync_status: "Unknown" is what a server-side diff reports, and '
                                        "Application ci-web does not diff on the server"}),
    "broken.json live_replicas from git": (mutation_live_replicas_from_git, {
        "cgoa-ci.2.broken-live-replicas": 'broken.json live_replicas: the JSON type must be integer, found string ("two")'}),
    "broken.json operation_message invented": (mutation_operation_message_invented, {
        "cgoa-ci.2.broken-operation-message": 'broken.json operation_message "sync failed: replicas must be a number" is '
                                              "not the message of a failed apply of replicas "
                                              "(status.operationState.message)"}),
    "report: who writes where swapped": (mutation_roles_swapped, {
        "cgoa-ci.8.ci-writes": 'report.json ci_writes: expected "git", found "cluster"',
        "cgoa-ci.8.cd-writes": 'report.json cd_writes: expected "cluster", found "git"'}),
    "report: gate pre-commit": (mutation_gate_pre_commit, {
        "cgoa-ci.8.gate": 'report.json gate: expected "pre-receive", found "pre-commit"'}),
    "report: deployed_revision before the bump synced": (mutation_deployed_revision_before_bump, {
        "cgoa-ci.8.deployed-revision": 'report.json deployed_revision: expected "'}),
    "argocd kubeconfig in namespace default": (mutation_argocd_kubeconfig_namespace_default, {
        "cgoa-ci.3.argocd-kubeconfig": 'kubeconfig (a copy of k3s\'s / namespace): expected {"server": true, "CA data": '
                                       'true, "namespace": "argocd"}, found {"server": true, "CA data": true, '
                                       '"namespace": "default"}'}),
    "ci-kubeconfig context without a namespace": (mutation_ci_kubeconfig_without_namespace, {
        "cgoa-ci.3.ci-kubeconfig": 'ci-kubeconfig (cluster of k3s / namespace / token): expected {"server": true, "CA '
                                   'data": true, "namespace": "ci-dryrun", "token": true}, found {"server": true, "CA '
                                   'data": true, "namespace": null, "token": true}'}),
    "ci-kubeconfig names the in-cluster server": (mutation_ci_kubeconfig_in_cluster_server, {
        "cgoa-ci.3.ci-kubeconfig": 'ci-kubeconfig (cluster of k3s / namespace / token): expected {"server": true, "CA '
                                   'data": true, "namespace": "ci-dryrun", "token": true}, found {"server": false, "CA '
                                   'data": true, "namespace": "ci-dryrun", "token": true}',
        # kubectl auth whoami cannot reach a server with it: the file as a whole is nobody.
        "cgoa-ci.3.ci-token-identity": "`kubectl auth whoami --kubeconfig ci-kubeconfig` failed: ",
        "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: error: "
                                            "error validating",
        **OWN_KUBECONFIG_FAILS,
        "cgoa-ci.5.hook-accepts-valid-main":
            "blocked by step 4: validate.sh does not accept a valid Deployment, so no gate built on it can"}),
    "token of ServiceAccount default": (mutation_token_of_default_account, {
        "cgoa-ci.3.ci-token-identity": 'the API server authenticates the token as "system:serviceaccount:ci:default", '
                                       'expected "system:serviceaccount:ci:validator"',
        "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: Error from "
                                            "server (Forbidden)",
        **OWN_KUBECONFIG_FAILS,
        "cgoa-ci.5.hook-accepts-valid-main":
            "blocked by step 4: validate.sh does not accept a valid Deployment, so no gate built on it can"}),
    "Role grants delete": (mutation_role_grants_delete, {
        "cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
                                    "delete deployments in ci-dryrun: False / True"}),
    "Role without patch": (mutation_role_without_patch, {
        "cgoa-ci.3.role": 'Role ci-dryrun/dryrun-deployments (what its rules allow on deployments.apps): expected '
                          '{"create": true, "get": true, "patch": true}, found {"create": true, "get": true, "patch": '
                          'false}',
        "cgoa-ci.3.access-dryrun": "the API server's answers for ci:validator differ (question: expected / answer): "
                                   "patch deployments in ci-dryrun: True / False"}),
    "Role with apiGroups and resources *": (mutation_role_with_star_groups_and_resources, {
        "cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
                                    "create pods in ci-dryrun: False / True; create secrets in ci-dryrun: False / True; "
                                    "patch configmaps in ci-dryrun: False / True; create roles in ci-dryrun: False / "
                                    "True; create rolebindings in ci-dryrun: False / True"}),
    "Role rules split and reordered (no flip)": (mutation_role_rules_split, {}),
    "RoleBinding subject as kind User (no flip)": (mutation_binding_subject_as_user, {}),
    "ClusterRoleBinding to edit for validator": (mutation_cluster_role_binding_edit, {
        "cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
                                    "delete deployments in ci-dryrun: False / True; create pods in ci-dryrun: False / "
                                    "True; create secrets in ci-dryrun: False / True; patch configmaps in ci-dryrun: "
                                    "False / True",
        "cgoa-ci.8.ci-can-write-prod": "report.json ci_can_write_prod: expected true, found false"}),
    "admin client certificate beside the token": (mutation_admin_certificate_beside_the_token, {
        "cgoa-ci.3.ci-token-identity": 'the API server authenticates ci-kubeconfig as a whole as "lab-admin" (groups '
                                       '["system:masters", "system:authenticated"]), expected '
                                       '"system:serviceaccount:ci:validator": its user holds ["client-certificate-data", '
                                       '"client-key-data"] beside the token'}),
    "RoleBinding subject in namespace ci-dryrun": (mutation_binding_names_wrong_namespace, {
        # (the found value is shown up to 120 characters)
        "cgoa-ci.3.role-binding": 'RoleBinding ci-dryrun/validator-dryrun: expected {"roleRef": {"kind": "Role", "name": '
                                  '"dryrun-deployments"}, "subject": "system:serviceaccount:ci:validator"}, found '
                                  '{"roleRef": {"kind": "Role", "name": "dryrun-deployments"}, "subject": [{"kind": '
                                  '"ServiceAccount", "namespace": "ci-d',
        "cgoa-ci.3.access-dryrun": "the API server's answers for ci:validator differ (question: expected / answer): "
                                   "get deployments in ci-dryrun: True / False; create deployments in ci-dryrun: "
                                   "True / False; patch deployments in ci-dryrun: True / False",
        "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: Error from "
                                            "server (Forbidden)",
        **OWN_KUBECONFIG_FAILS,
        "cgoa-ci.5.hook-accepts-valid-main":
            "blocked by step 4: validate.sh does not accept a valid Deployment, so no gate built on it can"}),
    "validator bound to ClusterRole edit in ci-web": (mutation_validator_bound_to_edit_in_prod, {
        "cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
                                    "create deployments in ci-web: False / True; patch deployments in ci-web: False / "
                                    "True; delete deployments in ci-web: False / True; create configmaps in ci-web: "
                                    "False / True",
        "cgoa-ci.8.ci-can-write-prod": "report.json ci_can_write_prod: expected true, found false"}),
    "ServiceAccount deleted": (mutation_service_account_missing, {
        "cgoa-ci.3.service-account": "ServiceAccount ci/validator does not exist",
        "cgoa-ci.3.no-access-prod": "ServiceAccount ci/validator does not exist",
        "cgoa-ci.3.ci-token-identity": 'the API server does not authenticate the token: [invalid token, '
                                       'serviceaccounts "validator" not found]',
        "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: error: "
                                            "error validating",
        **OWN_KUBECONFIG_FAILS,
        "cgoa-ci.5.hook-accepts-valid-main":
            "blocked by step 4: validate.sh does not accept a valid Deployment, so no gate built on it can"}),
    "validate.sh not executable": (mutation_validate_not_executable, {
        "cgoa-ci.4.validate-script": "<root>/root/cgoa-ci/validate.sh is not executable (chmod +x)",
        **{check: "validate.sh was not run: validate.sh is missing or not executable" for check in (
            "cgoa-ci.4.validate-names-kubeconfig", "cgoa-ci.4.validate-server-dry-run",
            "cgoa-ci.4.validate-accepts-valid", "cgoa-ci.4.validate-rejects-string-replicas",
            "cgoa-ci.4.validate-rejects-unknown-field", "cgoa-ci.4.validate-rejects-mixed",
            "cgoa-ci.4.validate-created-nothing")},
        # The hook calls validate.sh and fails on every push: it still refuses the typo.
        "cgoa-ci.5.hook-accepts-valid-main":
            "blocked by step 4: validate.sh does not accept a valid Deployment, so no gate built on it can"}),
    # The API server validates a real creation as it does a dry run: only validate-created-nothing flips.
    "validate.sh without --dry-run": (mutation_validate_without_dry_run, {
        "cgoa-ci.4.validate-created-nothing":
            'validate.sh really created or changed ["api", "web"] in ci-dryrun while it was run (not a dry run)'}),
    "pre-receive not executable": (mutation_hook_not_executable, {
        "cgoa-ci.5.hook-file": "<bare>/ci.git/hooks/pre-receive is not executable (chmod +x)",
        **{check: "pre-receive was not run: hooks/pre-receive is missing or not executable" for check in (
            "cgoa-ci.5.hook-rejects-typo-on-main", "cgoa-ci.5.hook-accepts-valid-main",
            "cgoa-ci.5.hook-rejects-delete-main", "cgoa-ci.5.hook-accepts-other-branch",
            "cgoa-ci.5.hook-accepts-branch-deletion", "cgoa-ci.5.hook-accepts-main-lookalikes",
            "cgoa-ci.5.hook-rejects-typo-in-any-manifest", "cgoa-ci.5.hook-reads-every-ref")}}),
    "live Application without prune": (mutation_live_app_without_prune, {
        "cgoa-ci.1.live-app": "Application ci-web: fields differ (field: expected / found): "
                              "spec.syncPolicy.automated.prune: true / null"}),
    "app.yaml without selfHeal": (mutation_app_file_without_self_heal, {
        "cgoa-ci.1.app-file": "app.yaml: fields differ (field: expected / found): spec.syncPolicy.automated.selfHeal: "
                              "true / null"}),
    "selfHeal off, then kubectl set image": (mutation_self_heal_off_then_set_image, {
        "cgoa-ci.1.live-app": "Application ci-web: fields differ (field: expected / found): "
                              "spec.syncPolicy.automated.selfHeal: true / null",
        "cgoa-ci.2.live-at-head": 'Application ci-web is at {"sync": "OutOfSync", "health": "Healthy", "revision": "',
        "cgoa-ci.6.live-still-synced": "Application ci-web is OutOfSync / Healthy, expected Synced / Healthy",
        "cgoa-ci.7.live-revision": 'Application ci-web is at {"sync": "OutOfSync", "health": "Healthy", "revision": "',
        "cgoa-ci.7.live-image": 'Deployment ci-web/web image: expected "nginx:1.28-alpine", found "nginx:1.29-alpine"'}),
    "kubectl set image while selfHeal backs off": (mutation_set_image_while_self_heal_backs_off, dict.fromkeys(
        ("cgoa-ci.2.live-at-head", "cgoa-ci.6.live-still-synced", "cgoa-ci.7.live-revision", "cgoa-ci.7.live-image"),
        "Application ci-web is OutOfSync with a live change that selfHeal will sync back after its backoff")),
    "moved on while the broken commit still retries": (mutation_broken_commit_still_retrying, {
        "cgoa-ci.2.no-broken-retry": "the operation of ci-web still retries the broken commit "}),
}

# Checks no mutation above flips, with the reason.
UNFLIPPED = {
    "cgoa-ci.1.bare-repo": "/srv/bare/ci.git itself missing or without main is not a mistake on a solved VM: every "
                           "git-reading check would be blocked with it, and Argo CD could not have deployed anything; "
                           "the unit tests grade the empty VM (tests/grader/test_cgoa_ci.py)",
}
