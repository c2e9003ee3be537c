"""Step 5 of capa-src: sync waves and a PreSync hook, in git and as Argo CD ran them."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    history_limit,
    operations_started,
    spec_judge,
    spec_problems,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence, evidence_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import (
    find_object,
    images,
    object_verdict,
    repo_blocked,
    repo_url,
    wanted_or_first,
    yaml_documents,
    yaml_objects,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.waves_hooks import (
    HOOK,
    HOOK_DELETE_POLICY,
    annotation_csv,
    delete_policies,
    hook_types,
    wave_of,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, parse_time, typed_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import command_line, condition, containers
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.definition import WAVES, WAVES_APP, lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import parse_yaml_text


def as_argo_cd_reads(effective, expected, written):
    """What Argo CD reads when it is what the lab asks for, else what the learner wrote (or what
    Argo CD reads when nothing was written)."""
    return effective if effective == expected else written or effective


def waves_object(state, kind, name=None, generate_name=None):
    """(path, object) of `kind` under waves/ on bare main, or the check ends saying it is missing."""
    stop_if(repo_blocked(state))
    objects = yaml_objects(state.repo.tree, "waves")
    path, doc = find_object(objects, kind, name=name, generate_name=generate_name)
    if doc is None:
        label = name or f"generateName {generate_name}"
        stop_if(failed("git_object_missing", expected=f"{kind} {label}", found=None, kind=kind, name=label,
                       path="waves/"))
    return path, doc


@lab.check(5, "git-settings", hint="sync_waves")
def waves_settings(state):
    path, doc = waves_object(state, "ConfigMap", name="settings")
    expected = {"sync-wave": -1, "data.mode": "present"}
    found = {"sync-wave": wave_of(doc), "data.mode": "present" if dig(doc, "data", "mode") is not None else None}
    return object_verdict(path, expected, found)


@lab.check(5, "git-app", hint="sync_waves")
def waves_app(state):
    path, doc = waves_object(state, "Deployment", name="app")
    expected = {"sync-wave": 0, "readinessProbe": True, "image": "nginx:1.27-alpine"}
    found = {
        "sync-wave": wave_of(doc),
        "readinessProbe": any(isinstance(c.get("readinessProbe"), dict) for c in containers(doc)),
        "image": wanted_or_first(images(doc), "nginx:1.27-alpine"),
    }
    return object_verdict(path, expected, found)


@lab.check(5, "git-smoke", hint="sync_waves")
def waves_smoke(state):
    path, doc = waves_object(state, "Job", name="smoke")
    expected = {"sync-wave": 1, "image": "busybox:1.36", "runs": "echo smoke ok"}
    commands = " ".join(command_line(c) for c in containers(doc))
    found = {
        "sync-wave": wave_of(doc),
        "image": wanted_or_first(images(doc), "busybox:1.36"),
        "runs": "echo smoke ok" if "echo smoke ok" in commands else commands or None,
    }
    return object_verdict(path, expected, found)


@lab.check(5, "git-migrate-hook", hint="sync_hooks")
def waves_migrate(state):
    stop_if(repo_blocked(state))
    text = state.repo.tree.get("waves/migrate.yaml")
    if text is None:
        return failed("git_file_missing", expected="waves/migrate.yaml", found=None, path="waves/migrate.yaml")
    documents, error = parse_yaml_text(text)
    jobs = [d for d in documents or [] if isinstance(d, dict) and d.get("kind") == "Job"]
    expected = {"generateName": "migrate-", "hook": ["PreSync"], "hook-delete-policy": ["BeforeHookCreation"],
                "image": "busybox:1.36", "runs": "echo migrate ok"}
    if not jobs:
        return failed("git_object_missing", expected=expected, found=error, kind="Job", name="migrate-",
                      path="waves/migrate.yaml")
    job = jobs[0]
    commands = " ".join(command_line(c) for c in containers(job))
    found = {
        "generateName": dig(job, "metadata", "generateName"),
        "hook": as_argo_cd_reads(hook_types(job), ["PreSync"], annotation_csv(job, HOOK)),
        "hook-delete-policy": as_argo_cd_reads(delete_policies(job), ["BeforeHookCreation"],
                                               annotation_csv(job, HOOK_DELETE_POLICY)),
        "image": wanted_or_first(images(job), "busybox:1.36"),
        # At the end of step 6 the command is `echo migrate ok` again.
        "runs": "echo migrate ok" if "echo migrate ok" in commands and "exit 1" not in commands else commands,
    }
    return object_verdict("waves/migrate.yaml", expected, found)


WAVES.checks(lab, 5, spec_judge(lambda state, app, where: spec_problems(
    app, state.site, repo_url(state), "waves", WAVES_APP, where.live)), "application_manifest",
    live_hint="application_apply")


# gitops-engine sync_context.go getSyncTasks: generateName + "<rev[0:7]>-<phase>-<startedAt unix>".
HOOK_JOB_NAME = re.compile(r"^migrate-([0-9a-f]{7})-presync-([0-9]{9,11})$")


CLOCK_SKEW = 300  # seconds forgiven between the learner's git clock and the controller's


def has_presync_hook(text):
    return any(doc.get("kind") == "Job" and dig(doc, "metadata", "generateName") == "migrate-"
               and "PreSync" in hook_types(doc) for doc in yaml_documents(text))


def hook_name_problem(state, name, sha7, started):
    """Why Argo CD cannot have named a hook Job `name`, or None. gitops-engine sync_context.go
    names it generateName + "<revision[0:7]>-presync-<operation startedAt unix>": the revision is
    a commit on main that contains the hook, the operation started after that commit existed, and
    Argo CD recorded that operation (status.history / operationState) unless the Job itself is
    still in the cluster or the history is full."""
    expected = "migrate-<7 hex of the synced commit>-presync-<unix start time>"
    commits = [sha for sha in state.repo.order if sha.startswith(sha7)]
    if not commits:
        return failed("hook_commit_unknown", expected=expected, found=name, sha7=sha7)
    with_hook = [sha for sha in commits if has_presync_hook(state.repo.history.get(sha, {}).get("waves/migrate.yaml"))]
    if not with_hook:
        return failed("hook_commit_without_hook", expected=expected, found=name, sha7=sha7)
    committed = min(state.repo.commits[sha]["time"] for sha in with_hook)
    if started < committed - CLOCK_SKEW:
        return failed("hook_before_commit", expected=f">= {committed}", found=name, sha7=sha7, started=started,
                      committed=committed)
    if state.cluster.find("waves_jobs", name) is not None:
        return None
    app = state.app(WAVES_APP)
    if app is None:
        return None  # step 5's live-app check says the Application is missing
    recorded, history_size = operations_started(app)
    if any((sha, started) in recorded for sha in with_hook) or history_size >= history_limit(app):
        return None
    return failed("hook_not_synced", expected=expected, found=name, sha7=sha7, started=started)


@lab.check(5, "waves-hook-job", hint="sync_hooks")
def waves_hook_job(state):
    name = require(evidence_field(state, "waves.json", "hook_job", "string"))
    match = HOOK_JOB_NAME.match(name)
    expected = "migrate-<7 hex of the synced commit>-presync-<unix start time>"
    if not match:
        return failed("hook_name_format", expected=expected, found=name)
    sha7, started = match.group(1), int(match.group(2))
    stop_if(repo_blocked(state) or hook_name_problem(state, name, sha7, started))
    recorded_created = state.files["waves.json"].data.get("hook_created")
    created = parse_time(recorded_created)
    if created is not None:
        delay = created.timestamp() - started
        # The Job is created right after the operation starts (startedAt is in its name).
        if not 0 <= delay <= 3600:
            return failed("hook_name_time", expected=int(created.timestamp()), found=name,
                          started=started, created=recorded_created)
    return passed("value_ok", expected=expected, found=name, what="waves.json hook_job")


def recorded_instant(data, key):
    """(aware datetime, None) for waves.json[key] when it is an RFC 3339 string, else (None, FAIL)."""
    value, problem = typed_field(data, key, "string", f"waves.json {key}")
    if problem:
        return None, problem
    when = parse_time(value)
    if when is None:
        return None, failed("not_rfc3339", expected="RFC 3339", found=value, what=f"waves.json {key}")
    return when, None


@lab.check(5, "waves-times", hint="sync_waves")
def waves_times(state):
    data = require(evidence(state, "waves.json"))
    times = {}
    for key in ("hook_created", "settings_created"):
        times[key] = require(recorded_instant(data, key))
    found = {key: data[key] for key in times}
    if times["hook_created"] > times["settings_created"]:
        return failed("hook_after_settings", expected="hook_created <= settings_created", found=found)
    return passed("hook_before_settings", expected="hook_created <= settings_created", found=found)


@lab.check(5, "waves-settings-created", hint="sync_waves")
def waves_settings_created(state):
    value = require(evidence_field(state, "waves.json", "settings_created", "string"))
    settings = state.cluster.find("waves_configmaps", "settings")
    if settings is None:  # this step's own object: a plain failure, not "blocked by step 5"
        return failed("live_object_missing", expected="ConfigMap src-waves/settings", found=None,
                      what="ConfigMap src-waves/settings")
    live = dig(settings, "metadata", "creationTimestamp")
    recorded, live_time = parse_time(value), parse_time(live)
    if recorded is None or live_time is None or recorded != live_time:
        return failed("value_mismatch", expected=live, found=value, what="waves.json settings_created")
    return passed("value_ok", expected=live, found=value, what="waves.json settings_created")


@lab.check(5, "live-hook-job", hint="sync_hooks")
def waves_live_hook_job(state):
    """The recorded hook Job, if it still exists, must match. Absence is fine: the lab text says
    BeforeHookCreation deletes it, while a generateName hook gets a new name per operation and
    usually remains (sync/hook/delete_policy.go); either way nothing is owed."""
    data = require(evidence(state, "waves.json"))
    name = data.get("hook_job")
    job = state.cluster.find("waves_jobs", name) if isinstance(name, str) else None
    if job is None:
        return passed("hook_job_gone", found=None, name=name)
    recorded = require(recorded_instant(data, "hook_created"))  # a wrong type or format is not a different time: say what it is
    created = dig(job, "metadata", "creationTimestamp")
    complete = condition(job, "Complete")
    found = {"creationTimestamp": created, "Complete": dig(complete, "status")}
    expected = {"creationTimestamp": data["hook_created"], "Complete": "True"}
    if parse_time(created) != recorded or dig(complete, "status") != "True":
        return failed("live_values_mismatch", expected=expected, found=found, what=f"Job src-waves/{name}")
    return passed("live_values_ok", expected=expected, found=found, what=f"Job src-waves/{name}")


@lab.check(5, "live-order", hint="sync_waves")
def waves_live_order(state):
    settings = state.cluster.find("waves_configmaps", "settings")
    app = state.cluster.find("waves_deployments", "app")
    smoke = state.cluster.find("waves_jobs", "smoke")
    missing = [n for n, o in (("ConfigMap settings", settings), ("Deployment app", app), ("Job smoke", smoke)) if o is None]
    if missing:
        return failed("live_objects_missing", expected=["ConfigMap settings", "Deployment app", "Job smoke"],
                      found=None, what=", ".join(missing), namespace=WAVES_APP)
    settings_at = parse_time(dig(settings, "metadata", "creationTimestamp"))
    app_at = parse_time(dig(app, "metadata", "creationTimestamp"))
    available = parse_time(dig(condition(app, "Available"), "lastTransitionTime"))
    smoke_at = parse_time(dig(smoke, "metadata", "creationTimestamp"))
    found = {"settings": dig(settings, "metadata", "creationTimestamp"),
             "app": dig(app, "metadata", "creationTimestamp"),
             "app Available": dig(condition(app, "Available"), "lastTransitionTime"),
             "smoke": dig(smoke, "metadata", "creationTimestamp")}
    expected = "settings <= app, app Available <= smoke"
    if None in (settings_at, app_at, smoke_at) or settings_at > app_at:
        return failed("wave_order_wrong", expected=expected, found=found)
    if available is None or available > smoke_at:
        return failed("wave_order_wrong", expected=expected, found=found)
    return passed("wave_order_ok", expected=expected, found=found)


