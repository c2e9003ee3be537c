"""cgoa-ci's mistakes, each applied to a solved learner on the real control plane and undone
afterwards: mutation -> (how, {check id: the start of its message, <root> for the learner's root}).
test_labs_plane.py grades each and asserts that exactly these checks flip; docs/mutations.md is
generated from this table (tests/controlplane/mutations_doc.py). Messages that end with a
script's own output are pinned up to that output."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

from ansible.module_utils.labgrader.solutions.cgoa_ci import web_yaml
from labflow import edited, replaced


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


def mutation_hook_allows_delete(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", "    status=1\n    continue\n", "    continue\n")


def mutation_hook_validates_old_commit(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", 'git archive "$new" deploy', 'git archive "$old" deploy')


def mutation_hook_blocks_every_branch(plane, learner):
    return edited(learner.bare / "hooks" / "pre-receive", '  [ "$ref" = refs/heads/main ] || continue\n',
                  '  [ "$ref" = refs/heads/main ] || { echo "only main"; status=1; continue; }\n')


def mutation_hand_written_blocked_txt(plane, learner):
    return replaced(learner.workspace / "blocked.txt", "the push to main was rejected by the hook\n")


def mutation_bump_calls_kubectl(plane, learner):
    return edited(learner.workspace / "bump.sh", "git push -q origin main\n",
                  "git push -q origin main\nkubectl -n ci-web rollout status deployment/web\n")


def mutation_can_write_prod_as_string(plane, learner):
    return edited(learner.workspace / "report.json", '"ci_can_write_prod": false', '"ci_can_write_prod": "false"')


@contextlib.contextmanager
def mutation_role_with_star_verbs(plane, learner):
    plane.kubectl("-n", "ci-dryrun", "patch", "role", "dryrun-deployments", "--type=json", "-p",
                  '[{"op": "replace", "path": "/rules/0/verbs", "value": ["*"]}]')
    try:
        yield
    finally:
        plane.kubectl("-n", "ci-dryrun", "patch", "role", "dryrun-deployments", "--type=json", "-p",
                      '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "create", "patch"]}]')


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


@contextlib.contextmanager
def mutation_history_rewritten(plane, learner):
    """The broken commit dropped from main by a rewrite (force-push) instead of a revert; Argo CD
    follows the rewritten main. Restored by force-pushing the original main back."""
    work = Path(learner.root) / "rewrite"
    shutil.rmtree(work, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(learner.bare), str(work)], check=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "l", "GIT_AUTHOR_EMAIL": "l@x", "GIT_COMMITTER_NAME": "l",
           "GIT_COMMITTER_EMAIL": "l@x", "PATH": f"{plane.bin_dir}:{os.environ['PATH']}"}
    original = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    root = subprocess.run(["git", "-C", str(work), "rev-list", "--max-parents=0", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    subprocess.run(["git", "-C", str(work), "reset", "-q", "--hard", root], check=True, env=env)
    (work / "deploy" / "web.yaml").write_text(web_yaml(image="nginx:1.28-alpine"), encoding="utf-8")
    subprocess.run(["git", "-C", str(work), "commit", "-q", "-am", "ci: web nginx:1.28-alpine"], check=True, env=env)
    subprocess.run(["git", "-C", str(work), "push", "-q", "-f", "origin", "main"], check=True, env=env)
    rewritten = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True,
                               check=True).stdout.strip()
    try:
        follow(plane, rewritten)
        yield
    finally:
        subprocess.run(["git", "-C", str(work), "push", "-q", "-f", "origin", f"{original}:refs/heads/main"],
                       check=True, env=env)
        follow(plane, original)


def follow(plane, revision):
    """Argo CD has read `revision` of main: the same manifests, so only status.sync.revision moves."""
    plane.hard_refresh("ci-web")
    plane.wait_app("ci-web", lambda a: a.get("status", {}).get("sync", {}).get("revision") == revision
                   and a["status"]["sync"].get("status") == "Synced", f"synced at {revision}", timeout=180)


VALIDATE_REJECTS = {
    "cgoa-ci.4.validate-rejects-string-replicas": "validate.sh rejects replicas: two, but exited with code 0",
    "cgoa-ci.4.validate-rejects-unknown-field":
        "validate.sh rejects the misspelled field replica:, but exited with code 0",
    "cgoa-ci.4.validate-rejects-mixed":
        "validate.sh rejects a folder with one good and one bad manifest, but exited with code 0",
    "cgoa-ci.5.hook-rejects-typo-on-main":
        "blocked by step 4: validate.sh accepts the misspelled field replica:, so no gate built on it refuses it",
}
# mutation -> (how, {check id: the start of its message, <root> for the learner's root}); every
# other check must stay PASS. Messages end with the script's own output, which is not pinned.
MUTATIONS = {
    "client dry-run": (mutation_client_dry_run, {
        "cgoa-ci.4.validate-server-dry-run": "<root>/root/cgoa-ci/validate.sh must use --dry-run=server (not client)",
        **VALIDATE_REJECTS}),
    "relies on $KUBECONFIG": (mutation_relies_on_kubeconfig_env, {
        "cgoa-ci.4.validate-names-kubeconfig": "<root>/root/cgoa-ci/validate.sh must name <root>/root/cgoa-ci/ci-kubeconfig",
        "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: error: "
                                            "error validating",
        "cgoa-ci.5.hook-accepts-valid-main":
            "blocked by step 4: validate.sh does not accept a valid Deployment, so no gate built on it can"}),
    "pipe hides the failure (tee without pipefail)": (mutation_pipe_hides_failure, VALIDATE_REJECTS),
    "loop returns only the last file's status": (mutation_last_file_status_only, {
        "cgoa-ci.4.validate-rejects-mixed":
            "validate.sh rejects a folder with one good and one bad manifest, but exited with code 0"}),
    "hook lets main be deleted": (mutation_hook_allows_delete, {
        "cgoa-ci.5.hook-rejects-delete-main": "pre-receive rejects deleting main, but exited with code 0"}),
    "hook validates the old commit": (mutation_hook_validates_old_commit, {
        "cgoa-ci.5.hook-rejects-typo-on-main": "pre-receive rejects a push to main with replica:, but exited with code 0"}),
    "hook blocks every branch": (mutation_hook_blocks_every_branch, {
        "cgoa-ci.5.hook-accepts-other-branch": "pre-receive accepts a push to another branch, but exited with code 1"}),
    "blocked.txt hand-written": (mutation_hand_written_blocked_txt, {
        "cgoa-ci.6.blocked-transcript": "blocked.txt lacks [remote rejected] main, pre-receive hook declined, the "
                                        "hook's own output (remote: ...): save the whole output of the rejected git push"}),
    "bump.sh calls kubectl": (mutation_bump_calls_kubectl, {
        "cgoa-ci.7.bump-script": "<root>/root/cgoa-ci/bump.sh must take the tag as $1 and never call kubectl"}),
    "ci_can_write_prod as a string": (mutation_can_write_prod_as_string, {
        "cgoa-ci.8.ci-can-write-prod":
            'report.json ci_can_write_prod: the JSON type must be boolean, found string ("false")'}),
    "Role with * verbs": (mutation_role_with_star_verbs, {
        "cgoa-ci.3.role": 'Role ci-dryrun/dryrun-deployments rules: expected [{"apiGroups": ["apps"], "resources": '
                          '["deployments"], "verbs": ["create", "get", "patch"]}], found [{"apiGroups": ["apps"], '
                          '"resources": ["deployments"], "verbs": ["*"]}]'}),
    "token lifetime 1 h": (mutation_token_lives_one_hour, {
        "cgoa-ci.3.ci-token-lifetime": "the token lives 3600 s (exp - iat), expected 28800 s (8 hours)"}),
    "broken commit rewritten out of history": (mutation_history_rewritten, {
        "cgoa-ci.2.broken-commit": 'commit "',
        "cgoa-ci.2.revert-commit": 'no commit on bare main sets deploy/web.yaml replicas to the string "two" (the '
                                   "broken commit must stay in the history: revert it, do not rewrite it)",
        # Argo CD followed the rewritten main, so the recorded revision is stale too.
        "cgoa-ci.8.deployed-revision": 'report.json deployed_revision: expected "',
        "cgoa-ci.8.broken-reached-git": "report.json broken_reached_git: expected false, found true"}),
}
