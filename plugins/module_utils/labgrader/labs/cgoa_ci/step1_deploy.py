"""cgoa-ci steps 1 and 2: the baseline deployed from git; a broken commit git accepted and Argo CD
could not apply, reverted."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    automated_enabled,
    diffs_on_server,
    spec_judge,
    spec_problems,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field, same_value
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import (
    images,
    repo_blocked,
    repo_url,
    repository_checks,
    wanted_or_first,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, is_integer
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import containers
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.application import (
    APPLICATION,
    app_at_revision,
    operation_progress,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.history import (
    broken_commit,
    history_broken,
    oldest_first,
    web_at,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import (
    APP,
    BASE_IMAGE,
    PROD_NS,
    WEB_YAML,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

repository_checks(lab)


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
    stop_if(repo_blocked(state))
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


def app_problems(state, app, where):
    problems = spec_problems(app, state.site, repo_url(state), "deploy", PROD_NS, where.live)
    project = dig(app, "spec", "project")
    if project != "default":
        problems.append(("spec.project", "default", project))
    automated = dig(app, "spec", "syncPolicy", "automated")
    if automated_enabled(app):
        for flag in ("prune", "selfHeal"):
            if dig(automated, flag) is not True:
                problems.append((f"spec.syncPolicy.automated.{flag}", True, dig(automated, flag)))
    return problems


APPLICATION.checks(lab, 1, spec_judge(app_problems), hint="ci_application")


# ---------------------------------------------------------------- step 2


@lab.check(2, "broken-commit", hint="ci_broken")
def broken_commit_check(state):
    sha = broken_commit(state)
    replicas = dig(web_at(state, sha), "spec", "replicas")
    if replicas != "two":
        return failed("broken_commit_not_string", expected="two", found=replicas, sha=sha[:7])
    return passed("broken_commit_ok", expected="two", found=replicas, sha=sha[:7])


@lab.check(2, "broken-sync-status", hint="ci_broken")
def broken_sync_status(state):
    value = require(evidence_field(state, "broken.json", "sync_status", "string"))
    # OutOfSync with the default diff (docs/argocd-observations.md test 6); Unknown where the
    # Application diffs on the server (research argocd-facts.md §6: a ComparisonError), and only
    # there: an answer the live Application's diff mode cannot give was not seen on it.
    server_side = diffs_on_server(state.cluster.get("app"))
    expected = "Unknown" if server_side else "OutOfSync"
    if value == "Unknown" and not server_side:
        return failed("sync_status_other_diff", expected=expected, found=value, name=APP)
    if value not in ("OutOfSync", "Unknown"):
        return failed("value_mismatch", expected=expected, found=value, what="broken.json sync_status")
    return passed("value_ok", expected=expected, found=value, what="broken.json sync_status")


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
    value = require(evidence_field(state, "broken.json", "operation_message", "string"))
    lowered = value.lower()
    if APPLY_FAILED in lowered and any(word in lowered for word in TYPE_PROBLEM):
        return passed("operation_message_ok", expected=APPLY_FAILED, found=value)
    return failed("operation_message_wrong", expected=f"{APPLY_FAILED}, reason: ... replicas ...", found=value)


@lab.check(2, "broken-live-replicas", hint="ci_broken")
def broken_live_replicas(state):
    value = require(evidence_field(state, "broken.json", "live_replicas", "integer"))
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
    stop_if(repo_blocked(state))
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
    app = APPLICATION.live(state, 2, blocked_by=1)
    stop_if(repo_blocked(state))
    return app_at_revision(state, app, state.repo.head, "app_at_head", "app_not_at_head")


@lab.check(2, "no-broken-retry", hint="ci_terminate")
def no_broken_retry(state):
    operation, progress = operation_progress(state, APPLICATION.live(state, 2, blocked_by=1))
    found = {"operation.sync.revision": operation.revision, "phase": operation.phase}
    expected = {"operation": "not running on a commit with replicas: \"two\""}
    if progress.on_failing_revision:
        return failed("broken_still_retrying", expected=expected, found=found, name=APP, sha=operation.revision[:7],
                      phase=operation.phase)
    # A broken commit's operation that ended (Failed after its retries, or terminated) may stay
    # the last one: the revert restores what is live, so Argo CD has nothing to apply and starts
    # no new operation until a later commit changes the manifests (observed, test_cgoa_ci.py).
    return passed("no_broken_retry", expected=expected, found=found, name=APP)
