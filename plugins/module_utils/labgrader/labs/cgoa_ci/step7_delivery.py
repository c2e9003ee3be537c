"""cgoa-ci steps 7 and 8: CI writes git and Argo CD deploys it; who writes where (report.json)."""

from __future__ import annotations

import copy
import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    self_heal_due,
    self_heal_pending,
    unread_commit,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import (
    blocked,
    evidence_field,
    report_answer,
    same_value,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import images, repo_blocked, wanted_or_first
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import ProbeRun
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import OutOfTime
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.application import (
    APPLICATION,
    app_at_revision,
    operation_progress,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.history import (
    history_broken,
    oldest_first,
    web_at,
    web_deployment,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probe_cases import bump_remote_manifest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.scripts import script_verdict
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import (
    APP,
    BUMP_IMAGE,
    BUMP_MESSAGE,
    PROD_NS,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.step4_gate import probe_runs
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed, pending


@lab.check(7, "bump-script", hint="ci_bump")
def bump_script(state):
    """bump.sh judged by what its run did (probes.bump_probe): the remote's main after it, what
    the traps recorded, its exit code; never by its text."""
    stop_if(script_verdict(state, "bump.sh", "ci_bump"))
    bump = probe_runs(state, "bump", BUMP_MESSAGE, "bump.sh")
    tag = bump["tag"]
    run = ProbeRun.from_dict(bump["run"])
    if run.out_of_time:
        raise OutOfTime("phrase_run_script", probes=True, script="bump.sh")
    if run.timed_out or run.truncated:
        return failed("bump_cut_short", expected=0, found=None, tag=tag,
                      reason_key="phrase_timed_out" if run.timed_out else "phrase_flooded")
    return bump_verdict(bump, run)


def bump_verdict(bump, run):
    """The first requirement the run of bump.sh <tag> misses, in the order a CI job meets them:
    no cluster call, main moved, on the remote's main, only the web image, the message, exit 0."""
    tag, remote, clone = bump["tag"], bump["remote_main"], bump["clone_main"]
    image, message = f"nginx:{tag}", f"ci: web nginx:{tag}"
    params = {"tag": tag, "returncode": run.returncode,
              **({"output": run.output} if run.output else {"output_key": "phrase_no_output"})}
    calls = [line for line in bump.get("calls", "").splitlines() if line.strip()]
    if calls:
        return failed("bump_called_cluster", expected=[], found=calls, calls="; ".join(calls), **params)
    head, _, subject = bump.get("main", "").partition("\n")
    ids = head.split()
    if not ids or not all(re.fullmatch(r"[0-9a-f]{40}", sha) for sha in ids):
        return failed("bump_main_gone", expected="refs/heads/main", found=None, **params)
    pushed, *parents = ids
    if pushed == remote:
        moved = sorted(set(ref_lines(bump.get("refs"))) - set(ref_lines(bump.get("refs_before"))))
        if moved:
            refs = ", ".join(line.split()[-1] for line in moved)
            return failed("bump_pushed_elsewhere", expected="refs/heads/main", found=refs, refs=refs, **params)
        return failed("bump_not_pushed", expected="refs/heads/main", found=remote[:7], **params)
    if parents != [remote]:
        key = "bump_stale_base" if parents == [clone] else "bump_wrong_base"
        return failed(key, expected=[remote], found=parents, remote=remote[:7], clone=clone[:7],
                      parents=", ".join(p[:7] for p in parents) or "-", **params)
    web = web_deployment(bump.get("web", ""))
    if web is None:
        return failed("bump_web_broken", expected=f"Deployment web, image {image}", found=None, **params)
    found_image = next((c.get("image") for c in dig(web, "spec", "template", "spec", "containers", default=[]) or []
                        if isinstance(c, dict) and c.get("name") == "web"), None)
    if found_image != image:
        return failed("bump_wrong_image", expected=image, found=found_image, image=str(found_image), **params)
    expected_web = copy.deepcopy(web_deployment(bump_remote_manifest()))
    for container in dig(expected_web, "spec", "template", "spec", "containers"):
        container["image"] = image
    changed = differences(expected_web, web)
    if changed:
        return failed("bump_changed_more", expected=[], found=changed, paths=", ".join(changed), **params)
    if subject != message:
        return failed("bump_wrong_message", expected=message, found=subject, **params)
    if run.returncode != 0:
        return failed("bump_exit_nonzero", expected=0, found=run.returncode, **params)
    return passed("bump_ok", expected=message, found=pushed, **params)


def ref_lines(text):
    """The "<sha> <ref>" lines of a for-each-ref listing (anything else git printed left out)."""
    return [line for line in (text or "").splitlines() if re.fullmatch(r"[0-9a-f]{40} refs/\S+", line)]


def differences(expected, found, path=""):
    """The dotted paths where `found` differs from `expected` (at most 5)."""
    if isinstance(expected, dict) and isinstance(found, dict):
        keys = list(expected) + [k for k in found if k not in expected]
        paths = [p for k in keys for p in differences(expected.get(k), found.get(k), f"{path}.{k}".lstrip("."))]
    elif isinstance(expected, list) and isinstance(found, list) and len(expected) == len(found):
        paths = [p for i, (e, f) in enumerate(zip(expected, found, strict=True))
                 for p in differences(e, f, f"{path}[{i}]")]
    else:
        paths = [] if expected == found else [path or "."]
    return paths[:5]


def bump_commit_sha(state):
    for sha in oldest_first(state):
        web = web_at(state, sha)
        if state.repo.commits[sha]["subject"] == BUMP_MESSAGE and BUMP_IMAGE in images(web or {}):
            return sha
    return None


@lab.check(7, "bump-commit", hint="ci_bump")
def bump_commit(state):
    stop_if(repo_blocked(state))
    sha = bump_commit_sha(state)
    if sha is None:
        subjects = [state.repo.commits[s]["subject"] for s in state.repo.order[:5]]
        return failed("bump_commit_missing", expected=BUMP_MESSAGE, found=subjects)
    return passed("bump_commit_ok", expected=BUMP_MESSAGE, found=sha, sha=sha[:7])


@lab.check(7, "live-revision", hint="app_sync_health")
def bump_live_revision(state):
    app = APPLICATION.live(state, 7, blocked_by=1)
    stop_if(repo_blocked(state))
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
    operation, progress = operation_progress(state, app)
    if operation.phase == "Running" and not progress.on_failing_revision:
        return pending("rollout_in_progress", expected=BUMP_IMAGE, found=image, what=f"Deployment {PROD_NS}/web")
    sha = bump_commit_sha(state) if state.repo.ok else None
    unread = sha and unread_commit(state, app, sha)
    if unread:
        return pending("app_not_polled_yet", expected=BUMP_IMAGE, found=image, name=APP, **unread)
    if self_heal_due(app):
        return self_heal_pending(app, APP, BUMP_IMAGE, image)
    return failed("live_values_mismatch", expected=BUMP_IMAGE, found=image, what=f"Deployment {PROD_NS}/web image")


# ---------------------------------------------------------------- step 8


@lab.check(8, "ci-writes", hint="ci_report")
def report_ci_writes(state):
    return report_answer(state, "ci_writes", "string", "git", hint="ci_report")


@lab.check(8, "cd-writes", hint="ci_report")
def report_cd_writes(state):
    return report_answer(state, "cd_writes", "string", "cluster", hint="ci_report")


@lab.check(8, "ci-can-write-prod", hint="ci_report")
def report_ci_can_write_prod(state):
    answer = dig(state.cluster.get("sar_patch-prod"), "allowed")
    return report_answer(state, "ci_can_write_prod", "boolean", answer is True, hint="ci_report")


@lab.check(8, "gate", hint="ci_report")
def report_gate(state):
    return report_answer(state, "gate", "string", "pre-receive", hint="ci_report")


@lab.check(8, "deployed-revision", hint="ci_report")
def report_deployed_revision(state):
    app = APPLICATION.live(state, 8, blocked_by=1)
    return report_answer(state, "deployed_revision", "string", dig(app, "status", "sync", "revision"), hint="ci_report")


@lab.check(8, "broken-reached-git", hint="ci_report")
def report_broken_reached_git(state):
    """`git merge-base --is-ancestor <broken> main` on the bare repo, the broken commit being the
    one git holds (a commit on main that sets replicas to "two"), not broken.json's spelling of it:
    every commit collected is reachable from main."""
    value = require(evidence_field(state, "report.json", "broken_reached_git", "boolean"))
    stop_if(repo_blocked(state))
    return same_value(value, bool(history_broken(state)), "report.json broken_reached_git", hint="ci_report")
