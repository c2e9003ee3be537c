"""capa-src's mistakes, each applied to a solved learner on the real control plane and undone
afterwards: mutation -> (how, {check id: the start of its message, <root> for the learner's root}).
test_labs_plane.py grades each and asserts that exactly these checks flip; docs/mutations.md is
generated from this table (tests/controlplane/mutations_doc.py, which finds it by its path).
UNFLIPPED lists, with the reason, every check that no mutation here flips; SOLVED_API_REQUESTS
and PROBE_RUN_NAMES are what test_labs_plane.py expects of the solved VM.

Undo restores what grading reads: the workspace files, bare main (the original history
force-pushed back, Argo CD followed to it), the Applications' specs (the workspace file applied
again, Argo CD waited for) and the live objects (Jobs an extra sync created are deleted). A
Deployment's generation cannot go back; nothing graded reads it."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import parse_time
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.solution import (
    CHART,
    KUST,
    WAVES,
    config_yaml,
    migrate_yaml,
)
from labflow import MISSING, Rewrite, edited, evidence, git, read_evidence, replaced

HELM_APP, KUST_APP, WAVES_APP = "src-helm", "src-kust", "src-waves"
SOLVED_API_REQUESTS = 9  # one reading of the solved VM: 9 GETs
PROBE_RUN_NAMES = ()  # capa-src runs no learner program
APPS = (HELM_APP, KUST_APP, WAVES_APP)


def bare_log(learner):
    """bare main's commits, newest first: [(sha, subject)]."""
    out = git(learner.bare, "log", "--format=%H %s", "main")
    return [tuple(line.split(" ", 1)) for line in out.splitlines()]


def sha_of(log, subject_start):
    return next(sha for sha, subject in log if subject.startswith(subject_start))


def commit_of(learner, subject_start):
    return sha_of(bare_log(learner), subject_start)


# ---------------------------------------------------------------- evidence files only


def mutation_replicas_as_string(plane, learner):
    return edited(learner.workspace / "precedence.json", '"replicas": 3', '"replicas": "3"')


def mutation_precedence_guessed(plane, learner):
    """Written from "value files beat the rest" instead of read from the cluster."""
    return evidence(learner, "precedence.json", replicas=2, greeting="from-values-file")


def mutation_instance_label_empty(plane, learner):
    return evidence(learner, "tracking.json", instance_label="")


def mutation_instance_label_missing(plane, learner):
    return evidence(learner, "tracking.json", instance_label=MISSING)


def mutation_tracking_annotation_hand_written(plane, learner):
    """The annotation typed from the docs' pattern <app>:<group>/<kind>:<ns>/<name> with the group filled in."""
    return evidence(learner, "tracking.json", tracking_annotation="src-helm:v1/ConfigMap:src-helm/src-helm-greeting")


@contextlib.contextmanager
def mutation_helm_release_assumed(plane, learner):
    """"Argo CD installs the chart": one release Secret counted, helm_installed true."""
    with evidence(learner, "tracking.json", helm_release_secrets=1), evidence(learner, "report.json",
                                                                              helm_installed=True):
        yield


def hook_job_with(learner, sha):
    return evidence(learner, "waves.json", hook_job=lambda name: f"migrate-{sha[:7]}-presync-{name.rsplit('-', 1)[1]}")


def mutation_hook_job_commit_without_hook(plane, learner):
    """The sha7 of a commit on main (the chart's) that has no waves/migrate.yaml."""
    return hook_job_with(learner, commit_of(learner, "Add web chart"))


def mutation_hook_job_commit_not_synced(plane, learner):
    """The sha7 of the fix commit (on main, has the hook) with the first sync's start time: Argo CD
    never ran that commit at that time, and no such Job exists."""
    return hook_job_with(learner, commit_of(learner, "Restore the migrate command"))


def mutation_hook_job_hand_written(plane, learner):
    return evidence(learner, "waves.json", hook_job="migrate-presync")


def mutation_hook_created_as_unix(plane, learner):
    return evidence(learner, "waves.json", hook_created=lambda text: int(parse_time(text).timestamp()))


def mutation_waves_times_swapped(plane, learner):
    data = read_evidence(learner, "waves.json")
    return evidence(learner, "waves.json", hook_created=data["settings_created"], settings_created=data["hook_created"])


def mutation_failed_commit_is_fix(plane, learner):
    """failed-hook.json names the fix commit (HEAD at the end) instead of the one that failed."""
    return evidence(learner, "failed-hook.json", commit=commit_of(learner, "Restore the migrate command"))


def mutation_failed_commit_short(plane, learner):
    return evidence(learner, "failed-hook.json", commit=lambda sha: sha[:7])


def mutation_failed_hook_after_fix(plane, learner):
    """failed-hook.json written after the fix had synced."""
    return evidence(learner, "failed-hook.json", phase="Succeeded", live_mode="green")


def mutation_checked_too_early(plane, learner):
    return evidence(learner, "ignore.json", checked_at=read_evidence(learner, "ignore.json")["scaled_at"] + 10)


def mutation_ignore_times_as_text(plane, learner):
    return evidence(learner, "ignore.json", scaled_at=lambda t: str(t), checked_at=lambda t: str(t))


def mutation_ignore_replicas_as_string(plane, learner):
    return evidence(learner, "ignore.json", replicas="4")


def mutation_sync_status_lowercase(plane, learner):
    return evidence(learner, "ignore.json", sync_status="synced")


def mutation_report(**changes):
    return lambda plane, learner: evidence(learner, "report.json", **changes)


def mutation_remote_named_upstream(plane, learner):
    """The clone's remote is named upstream (git init, then `git remote add upstream`): `git push`
    has no origin to go to."""
    return edited(learner.clone / ".git" / "config", '[remote "origin"]', '[remote "upstream"]')


# ---------------------------------------------------------------- Application files, applied


def app_file(learner, name):
    return yaml.safe_load((learner.workspace / name).read_text(encoding="utf-8"))


def apply_file(plane, learner, name):
    plane.kubectl("apply", "-f", str(learner.workspace / name))


def settled(plane, name, extra=lambda app: True, desc="Synced and Healthy"):
    """Argo CD shows `name` Synced and Healthy with no operation running (and `extra`)."""
    def done(app):
        status = app.get("status", {})
        return (status.get("sync", {}).get("status") == "Synced" and status.get("health", {}).get("status") == "Healthy"
                and status.get("operationState", {}).get("phase") not in ("Running", "Terminating") and extra(app))
    plane.wait_app(name, done, desc, timeout=240)


@contextlib.contextmanager
def application_changed(plane, learner, name, change, live, reached=lambda app: True, desc="the change",
                        restored=lambda app: True):
    """The workspace Application file `name` edited by `change(manifest)`; with `live` also
    applied and waited for until `reached(app)`. Undone by applying the original file again and
    waiting until the app is settled and `restored(app)`."""
    path = learner.workspace / name
    manifest = app_file(learner, name)
    change(manifest)
    app_name = manifest["metadata"]["name"]
    try:
        with replaced(path, yaml.safe_dump(manifest, sort_keys=False)):
            if live:
                apply_file(plane, learner, name)
                plane.hard_refresh(app_name)
                plane.wait_app(app_name, reached, desc, timeout=240)
            yield
    finally:
        if live:
            apply_file(plane, learner, name)
            plane.hard_refresh(app_name)
            settled(plane, app_name, restored, "restored")


def set_value_files(files):
    return lambda app: app["spec"]["source"]["helm"].__setitem__("valueFiles", files)


def mutation_value_files_repo_root_file(plane, learner):
    return application_changed(plane, learner, "app-src-helm.yaml", set_value_files(["charts/web/values-prod.yaml"]),
                               live=False)


def comparison_error(app):
    return any(c.get("type") == "ComparisonError" for c in app.get("status", {}).get("conditions", []))


def mutation_value_files_repo_root_live(plane, learner):
    return application_changed(plane, learner, "app-src-helm.yaml", set_value_files(["charts/web/values-prod.yaml"]),
                               live=True, reached=comparison_error, desc="ComparisonError")


def set_sync_options(options):
    return lambda app: app["spec"]["syncPolicy"].__setitem__("syncOptions", options)


def mutation_create_namespace_capitalised(plane, learner):
    return application_changed(plane, learner, "app-src-helm.yaml", set_sync_options(["CreateNamespace=True"]),
                               live=True, reached=lambda app: app["spec"]["syncPolicy"]["syncOptions"]
                               == ["CreateNamespace=True"], desc="syncOptions [CreateNamespace=True]")


def mutation_ignore_without_respect(plane, learner):
    return application_changed(plane, learner, "app-src-kust.yaml", set_sync_options(["CreateNamespace=true"]),
                               live=True, reached=lambda app: app["spec"]["syncPolicy"]["syncOptions"]
                               == ["CreateNamespace=true"], desc="syncOptions without RespectIgnoreDifferences")


def mutation_namespace_made_by_hand(plane, learner):
    """`kubectl create namespace src-waves` instead of CreateNamespace=true: it syncs all the same."""
    return application_changed(plane, learner, "app-src-waves.yaml", set_sync_options([]), live=True,
                               reached=lambda app: not app["spec"]["syncPolicy"].get("syncOptions"),
                               desc="no syncOptions")


def image_is(plane, image):
    def rolled_out(app):
        deployment = plane.get("deployment", "prod-api", KUST_APP)
        return deployment["spec"]["template"]["spec"]["containers"][0]["image"] == image \
            and deployment["status"].get("updatedReplicas") == deployment["status"].get("readyReplicas") == 4 \
            and app.get("status", {}).get("sync", {}).get("status") == "Synced"
    return rolled_out


def mutation_image_entry_tag_only(plane, learner):
    """kustomize.images `nginx=1.28-alpine`: kustomize reads 1.28-alpine as the new image name and
    keeps the base's tag (observed: prod-api runs 1.28-alpine:1.27-alpine)."""
    def change(app):
        app["spec"]["source"]["kustomize"]["images"] = ["nginx=1.28-alpine"]
    return application_changed(plane, learner, "app-src-kust.yaml", change, live=True,
                               reached=image_is(plane, "1.28-alpine:1.27-alpine"), desc="prod-api runs 1.28-alpine",
                               restored=image_is(plane, "nginx:1.28-alpine"))


def greeting_is(plane, value):
    return lambda app: plane.get("configmap", "src-helm-greeting", HELM_APP)["data"]["greeting"] == value \
        and app.get("status", {}).get("sync", {}).get("status") == "Synced"


def mutation_parameter_name_typo(plane, learner):
    """helm.parameters name `greting`: Helm sets a value no template reads, valuesObject wins."""
    def change(app):
        app["spec"]["source"]["helm"]["parameters"] = [{"name": "greting", "value": "from-parameter"}]
    return application_changed(plane, learner, "app-src-helm.yaml", change, live=True,
                               reached=greeting_is(plane, "from-values-object"), desc="greeting from-values-object",
                               restored=greeting_is(plane, "from-parameter"))


# ---------------------------------------------------------------- live objects


def set_replicas_with_edit(plane, replicas):
    """`kubectl edit deployment prod-api` with an editor that sets spec.replicas."""
    editor = Path(plane.work) / "set-replicas-editor"
    editor.write_text(f"#!/bin/sh\nsed -i 's/^  replicas: [0-9]*$/  replicas: {replicas}/' \"$1\"\n", encoding="utf-8")
    editor.chmod(0o755)
    plane.run([str(plane.bin_dir / "kubectl"), "--kubeconfig", str(plane.kubeconfig), "-n", KUST_APP, "edit",
               "deployment", "prod-api"], env={"KUBE_EDITOR": str(editor), "EDITOR": str(editor)})


def prod_api_ready(plane, replicas):
    plane.kubectl("-n", KUST_APP, "rollout", "status", "deployment/prod-api", "--timeout=120s", timeout=150)
    deployment = plane.get("deployment", "prod-api", KUST_APP)
    assert deployment["spec"]["replicas"] == replicas, deployment["spec"]


@contextlib.contextmanager
def mutation_scaled_with_edit(plane, learner):
    """Scaled with `kubectl edit` (5, then 4): the manager kubectl-edit owns spec.replicas through
    the main resource, not the scale subresource; the learner reports that manager."""
    set_replicas_with_edit(plane, 5)
    set_replicas_with_edit(plane, 4)
    prod_api_ready(plane, 4)
    try:
        with evidence(learner, "report.json", replicas_owner="kubectl-edit"):
            yield
    finally:
        for replicas in (5, 4):
            plane.kubectl("-n", KUST_APP, "scale", "deployment", "prod-api", f"--replicas={replicas}")
        prod_api_ready(plane, 4)


def prod_api_at(plane, replicas):
    def scaled(app):
        deployment = plane.get("deployment", "prod-api", KUST_APP)
        return deployment["spec"]["replicas"] == deployment["status"].get("readyReplicas") == replicas \
            and app.get("status", {}).get("sync", {}).get("status") == "Synced"
    return scaled


@contextlib.contextmanager
def mutation_ignore_rule_names_the_base(plane, learner):
    """ignoreDifferences with `name: api`, the base's name: Argo CD does not apply the rule to
    prod-api, so selfHeal syncs its replicas back to 2. Undone by the right rule and the
    learner's `kubectl scale` to 4 again."""
    def change(app):
        app["spec"]["ignoreDifferences"][0]["name"] = "api"
    try:
        with application_changed(plane, learner, "app-src-kust.yaml", change, live=True,
                                 reached=prod_api_at(plane, 2), desc="selfHeal set prod-api to 2"):
            yield
    finally:
        plane.kubectl("-n", KUST_APP, "scale", "deployment", "prod-api", "--replicas=4")
        plane.wait_app(KUST_APP, prod_api_at(plane, 4), "prod-api at 4 again")


def job_names(plane):
    return {job["metadata"]["name"] for job in plane.list("jobs", WAVES_APP)}


def waves_back_at(plane, head, jobs):
    """src-waves synced at `head` again; Jobs a mutation's syncs created are deleted."""
    plane.wait_synced_healthy(WAVES_APP, head, timeout=300)
    plane.wait_app(WAVES_APP, lambda app: app["status"]["operationState"]["operation"]["sync"]["revision"] == head,
                   f"last operation at {head[:7]}")
    extra = sorted(job_names(plane) - jobs)
    if extra:
        plane.kubectl("-n", WAVES_APP, "delete", "job", *extra, "--wait=true", timeout=120)


@contextlib.contextmanager
def mutation_moved_on_while_retrying(plane, learner):
    """The fix pushed while the failed commit's operation still retries, and no terminate-op: an
    automated operation on the failed commit runs (as autoSync sets it), its hook fails, and
    ConfigMap settings still has the failed commit's parent's mode."""
    failing = commit_of(learner, "Switch mode to green")
    head = bare_log(learner)[0][0]
    jobs = job_names(plane)
    operation = {"initiatedBy": {"automated": True}, "retry": {"limit": 5},
                 "sync": {"prune": True, "revision": failing, "syncOptions": ["CreateNamespace=true"]}}
    plane.kubectl("-n", "argocd", "patch", "applications.argoproj.io", WAVES_APP, "--type=merge", "-p",
                  json.dumps({"operation": operation}))
    try:
        plane.wait_app(WAVES_APP, lambda app: app["status"].get("operationState", {}).get("operation", {}).get(
            "sync", {}).get("revision") == failing and (app["status"]["operationState"].get("retryCount") or 0) > 0,
            f"the operation of {failing[:7]} retries", timeout=240)
        plane.kubectl("-n", WAVES_APP, "patch", "configmap", "settings", "--type=merge", "-p",
                      '{"data": {"mode": "blue"}}')
        yield
    finally:
        plane.argocd("app", "terminate-op", WAVES_APP, "--core")
        waves_back_at(plane, head, jobs)


# ---------------------------------------------------------------- bare main rewritten


def followed(plane, app, head):
    """Argo CD compared `app` at `head` and finished what auto-sync started for it."""
    plane.hard_refresh(app)
    plane.wait_app(app, lambda a: a.get("status", {}).get("sync", {}).get("revision") == head
                   and a["status"]["sync"].get("status") == "Synced"
                   and a["status"].get("operationState", {}).get("phase") not in ("Running", "Terminating"),
                   f"compared at {head[:7]}", timeout=240)


def synced_to_head(plane, head):
    """`argocd app sync src-waves` as a learner would run it: the last operation is at `head`."""
    result = plane.argocd("app", "sync", WAVES_APP, "--core", "--timeout", "180", timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    plane.wait_synced_healthy(WAVES_APP, head, timeout=240)


@contextlib.contextmanager
def rewritten_main(plane, learner, build, broken=None):
    """bare main replaced by the history `build(rewrite, original_log)` makes (it returns the new
    head); every Application follows it, except `broken`, which cannot render it (ComparisonError).
    Undone by force-pushing the original main back."""
    original = bare_log(learner)
    head = original[0][0]
    jobs = job_names(plane)
    rewrite = Rewrite(learner)
    try:
        new_head = build(rewrite, original)
        rewrite.push()
        for app in APPS:
            if app == broken:
                plane.hard_refresh(app)
                plane.wait_app(app, comparison_error, "ComparisonError", timeout=240)
            else:
                followed(plane, app, new_head)
        yield new_head
    finally:
        rewrite.push(head)
        for app in APPS:
            followed(plane, app, head)
        if broken:
            settled(plane, broken, lambda app: not comparison_error(app))
        if plane.app(WAVES_APP)["status"]["operationState"]["operation"]["sync"]["revision"] != head:
            synced_to_head(plane, head)
        waves_back_at(plane, head, jobs)
        rewrite.close()


def committed(files, message, broken=None, delete=()):
    """A mutation: one more commit on bare main with `files` (and `delete` removed)."""
    def build(rewrite, original):
        for path in delete:
            rewrite.git("rm", "-q", path)
        return rewrite.commit(files, message)
    return lambda plane, learner: rewritten_main(plane, learner, build, broken)


@contextlib.contextmanager
def mutation_failed_commit_split(plane, learner):
    """Step 6 done in two commits (mode green, then the failing hook) and then the fix: mode green
    synced before the hook broke, so the learner saw green live."""
    def build(rewrite, original):
        rewrite.git("reset", "-q", "--hard", sha_of(original, "Add waves"))
        rewrite.commit({"waves/config.yaml": config_yaml("green")}, "Switch mode to green")
        rewrite.commit({"waves/migrate.yaml": migrate_yaml("echo migrate failed; exit 1")}, "Break migrate")
        return rewrite.commit({"waves/migrate.yaml": migrate_yaml("echo migrate ok")}, "Restore the migrate command")

    with rewritten_main(plane, learner, build) as head:
        synced_to_head(plane, head)
        broken = commit_of(learner, "Break migrate")
        with evidence(learner, "failed-hook.json", commit=broken, live_mode="green"):
            yield


@contextlib.contextmanager
def mutation_fix_reverts_mode(plane, learner):
    """The fix commit restores the migrate command and also puts mode back to blue."""
    def build(rewrite, original):
        rewrite.git("reset", "-q", "--hard", sha_of(original, "Switch mode to green"))
        return rewrite.commit({"waves/config.yaml": config_yaml("blue"), "waves/migrate.yaml": migrate_yaml(
            "echo migrate ok")}, "Restore the migrate command")

    with rewritten_main(plane, learner, build) as head:
        plane.wait_synced_healthy(WAVES_APP, head, timeout=240)
        yield


OVERLAY_WITH_IMAGE = ("resources:\n  - ../../base\nnamePrefix: prod-\nreplicas:\n  - name: api\n    count: 2\n"
                      "images:\n  - name: nginx\n    newTag: 1.28-alpine\n")


@contextlib.contextmanager
def mutation_image_in_git(plane, learner):
    """The 1.28 tag committed to the overlay's kustomization and dropped from the Application:
    the same Deployment renders, so nothing live changes but the Application's spec."""
    def build(rewrite, original):
        return rewrite.commit({"kust/overlays/prod/kustomization.yaml": OVERLAY_WITH_IMAGE}, "prod: nginx 1.28")

    def drop_images(app):
        del app["spec"]["source"]["kustomize"]

    without_images = application_changed(
        plane, learner, "app-src-kust.yaml", drop_images, live=True, desc="Synced without images",
        reached=lambda app: "kustomize" not in app["spec"]["source"]
        and app.get("status", {}).get("sync", {}).get("status") == "Synced")
    with rewritten_main(plane, learner, build), without_images, evidence(learner, "report.json", image_source="git"):
        yield


def chart_file(path, old, new):
    text = CHART[path]
    assert old in text, (path, old)
    return {path: text.replace(old, new)}


# valuesObject sets both keys, so the chart's own values and a hard-coded template render the same.
mutation_values_file_renamed = committed(  # Argo CD cannot find the file valueFiles names
    {"charts/web/values-production.yaml": CHART["charts/web/values-prod.yaml"]}, "Rename the prod values",
    broken=HELM_APP, delete=["charts/web/values-prod.yaml"])
mutation_chart_without_version = committed(  # helm refuses to render a chart without a version
    chart_file("charts/web/Chart.yaml", "version: 0.1.0\n", ""), "Chart without a version", broken=HELM_APP)
mutation_chart_values_typo = committed(
    chart_file("charts/web/values.yaml", "greeting:", "greting:"), "Chart defaults")
mutation_template_hard_codes_greeting = committed(
    chart_file("charts/web/templates/configmap.yaml", "{{ .Values.greeting | quote }}", "from-parameter"),
    "Greeting as seen live")
mutation_template_hard_codes_replicas = committed(
    chart_file("charts/web/templates/deployment.yaml", "{{ .Values.replicaCount }}", "3"), "Replicas as seen live")
# The Application's image entry sets the whole image, so the base's tag renders the same.
mutation_base_image_untagged = committed({"kust/base/deployment.yaml": KUST["kust/base/deployment.yaml"].replace(
    "nginx:1.27-alpine", "nginx")}, "api: nginx")
mutation_overlay_names_the_file = committed(  # kustomize's load restrictor refuses a file outside the overlay
    {"kust/overlays/prod/kustomization.yaml": KUST["kust/overlays/prod/kustomization.yaml"].replace(
        "../../base", "../../base/deployment.yaml")}, "prod: the base's Deployment", broken=KUST_APP)
# A hook is not part of the diff: the new commit starts no sync.
mutation_hook_with_fixed_name = committed(
    {"waves/migrate.yaml": migrate_yaml("echo migrate ok").replace("generateName: migrate-", "name: migrate")},
    "migrate: a fixed name")
mutation_waves_without_annotations = committed({  # auto-sync patches the annotations away, nothing is recreated
    "waves/config.yaml": config_yaml("green").replace('  annotations:\n    argocd.argoproj.io/sync-wave: "-1"\n', ""),
    "waves/smoke.yaml": WAVES["waves/smoke.yaml"].replace('  annotations:\n    argocd.argoproj.io/sync-wave: "1"\n', "")},
    "waves: no sync-wave annotations")
mutation_app_without_probe = committed({"waves/app.yaml": WAVES["waves/app.yaml"].split("          readinessProbe:")[0]},
                                       "app: no readinessProbe")


VALUE_FILES_FROM_ROOT = ('{what}: valueFiles ["charts/web/values-prod.yaml"] is written from the repository root; it '
                         'is relative to the chart directory, so write ["values-prod.yaml"]')
VALUE_FILES_DIFFER = ('fields differ (field: expected / found): spec.source.helm.valueFiles: ["values-prod.yaml"] / '
                      '["charts/web/values-prod.yaml"]')
# mutation -> (how, {check id: the start of its message, <root> for the learner's root}); every
# other check must stay PASS.
MUTATIONS = {
    "precedence.json replicas as a string": (mutation_replicas_as_string, {
        "capa-src.2.precedence-replicas": 'precedence.json replicas: the JSON type must be number, found string ("3")'}),
    "precedence.json guessed (value files win)": (mutation_precedence_guessed, {
        "capa-src.2.precedence-replicas": "precedence.json replicas: expected 3, found 2",
        "capa-src.2.precedence-greeting": 'precedence.json greeting: expected "from-parameter", found "from-values-file"',
        "capa-src.8.helm-winner": 'report.json helm_winner contradicts precedence.json greeting (found '
                                  '"from-values-file", expected "from-parameter")'}),
    'instance_label "" instead of null': (mutation_instance_label_empty, {
        "capa-src.3.instance-label": 'tracking.json instance_label: the label is absent, so the value must be JSON '
                                     'null, not ""'}),
    "instance_label left out": (mutation_instance_label_missing, {
        "capa-src.3.instance-label": 'tracking.json: the key "instance_label" is missing'}),
    "tracking annotation hand-written": (mutation_tracking_annotation_hand_written, {
        "capa-src.3.tracking-annotation": 'tracking.json tracking_annotation: expected '
                                          '"src-helm:/ConfigMap:src-helm/src-helm-greeting", found '
                                          '"src-helm:v1/ConfigMap:src-helm/src-helm-greeting"',
        "capa-src.3.tracking-method": 'the tracking method in force is annotation; it writes {"tracking_annotation": '
                                      '"src-helm:/ConfigMap:src-helm/src-helm-greeting"}, you recorded '
                                      '{"tracking_annotation": "src-helm:v1/ConfigMap:src-helm/src-helm-greeting"}'}),
    "Helm release assumed": (mutation_helm_release_assumed, {
        "capa-src.3.helm-release-secrets": "tracking.json helm_release_secrets: expected 0, found 1",
        "capa-src.8.helm-installed": "report.json helm_installed: expected false, found true"}),
    "hook_job: sha7 of a commit without the hook": (mutation_hook_job_commit_without_hook, {
        "capa-src.5.waves-hook-job": 'waves.json hook_job "migrate-'}),  # ...: commit <sha7> has no PreSync hook
    "hook_job: sha7 of a commit not synced then": (mutation_hook_job_commit_not_synced, {
        "capa-src.5.waves-hook-job": 'waves.json hook_job "migrate-'}),  # ...: Application src-waves has no sync of
    "hook_job hand-written": (mutation_hook_job_hand_written, {
        "capa-src.5.waves-hook-job": 'waves.json hook_job "migrate-presync" is not a name Argo CD generates '
                                     '("migrate-<7 hex of the synced commit>-presync-<unix start time>")'}),
    "hook_created as Unix seconds": (mutation_hook_created_as_unix, dict.fromkeys(
        ["capa-src.5.waves-times", "capa-src.5.live-hook-job"],
        "waves.json hook_created: the JSON type must be string, found number (")),
    "hook_created and settings_created swapped": (mutation_waves_times_swapped, {
        "capa-src.5.waves-times": "the PreSync hook was created after ConfigMap settings: ",
        "capa-src.5.waves-settings-created": "waves.json settings_created: expected ",
        "capa-src.5.live-hook-job": "Job src-waves/migrate-"}),
    "failed-hook.json names the fix commit": (mutation_failed_commit_is_fix, {
        "capa-src.6.failed-commit": "commit ",  # <sha7> does not change mode to green nor break the hook
        "capa-src.6.failed-phase": "failed-hook.json phase Running, but nothing in the cluster shows that the "
                                   "operation of ",
        "capa-src.6.failed-live-mode": 'failed-hook.json live_mode: expected "green", found "blue"',
        "capa-src.6.fix-commit": "no commit after the failing one restores `echo migrate ok` with mode green: "}),
    "failed-hook.json commit as sha7": (mutation_failed_commit_short, dict.fromkeys(
        ["capa-src.6.failed-commit", "capa-src.6.failed-phase", "capa-src.6.failed-live-mode", "capa-src.6.fix-commit"],
        "failed-hook.json commit must be a full 40-character SHA, found ")),
    "failed-hook.json written after the fix": (mutation_failed_hook_after_fix, {
        "capa-src.6.failed-phase": 'failed-hook.json phase: expected "Failed", found "Succeeded"',
        "capa-src.6.failed-live-mode": 'failed-hook.json live_mode: expected "blue", found "green"',
        "capa-src.8.hook-blocked-sync": 'report.json hook_blocked_sync contradicts failed-hook.json live_mode (found '
                                        '"green", expected "live_mode != green")'}),
    "ignore.json checked 10 s after scaling": (mutation_checked_too_early, {
        "capa-src.7.ignore-times": "checked_at - scaled_at is 10 s; wait at least 40 s"}),
    "ignore.json times as text": (mutation_ignore_times_as_text, {
        "capa-src.7.ignore-times": 'ignore.json scaled_at: the JSON type must be integer, found string ("'}),
    "ignore.json replicas as a string": (mutation_ignore_replicas_as_string, {
        "capa-src.7.ignore-replicas": 'ignore.json replicas: the JSON type must be integer, found string ("4")'}),
    "ignore.json sync_status lowercase": (mutation_sync_status_lowercase, {
        "capa-src.7.ignore-sync-status": 'ignore.json sync_status: expected "Synced", found "synced"'}),
    "report helm_winner valuesObject": (mutation_report(helm_winner="valuesObject"), {
        "capa-src.8.helm-winner": 'report.json helm_winner: expected "parameters", found "valuesObject"'}),
    "report replicas_winner valueFiles": (mutation_report(replicas_winner="valueFiles"), {
        "capa-src.8.replicas-winner": 'report.json replicas_winner: expected "valuesObject", found "valueFiles"'}),
    "report helm_installed as a string": (mutation_report(helm_installed="false"), {
        "capa-src.8.helm-installed": 'report.json helm_installed: the JSON type must be boolean, found string ("false")'}),
    "report image_source git": (mutation_report(image_source="git"), {
        "capa-src.8.image-source": 'report.json image_source: expected "application", found "git"'}),
    "report hook_blocked_sync false": (mutation_report(hook_blocked_sync=False), {
        "capa-src.8.hook-blocked-sync": "report.json hook_blocked_sync: expected true, found false"}),
    "report replicas_owner hard-coded": (mutation_report(replicas_owner="argocd-controller"), {
        "capa-src.8.replicas-owner": 'report.json replicas_owner: expected "kubectl", found "argocd-controller"'}),
    "clone's remote not named origin": (mutation_remote_named_upstream, {
        "capa-src.1.clone-origin": "<root>/root/capa-src/repo: origin is null, expected "}),
    "valueFiles from the repo root (file)": (mutation_value_files_repo_root_file, {
        "capa-src.1.app-file-value-files": VALUE_FILES_FROM_ROOT.format(what="app-src-helm.yaml"),
        "capa-src.2.app-file-values": "app-src-helm.yaml: " + VALUE_FILES_DIFFER}),
    "valueFiles from the repo root (file and live)": (mutation_value_files_repo_root_live, {
        "capa-src.1.app-file-value-files": VALUE_FILES_FROM_ROOT.format(what="app-src-helm.yaml"),
        "capa-src.1.live-app": VALUE_FILES_FROM_ROOT.format(what="Application src-helm"),
        # Argo CD cannot render the chart: no values file at charts/web/charts/web/values-prod.yaml
        "capa-src.1.live-app-status": "Application src-helm is Unknown / Healthy, expected Synced / Healthy",
        "capa-src.2.app-file-values": "app-src-helm.yaml: " + VALUE_FILES_DIFFER,
        "capa-src.2.live-app-values": "Application src-helm: " + VALUE_FILES_DIFFER}),
    "CreateNamespace=True": (mutation_create_namespace_capitalised, {
        f"capa-src.1.{check}": f"{what}: fields differ (field: expected / found): spec.syncPolicy.syncOptions: "
                               '"CreateNamespace=true" / ["CreateNamespace=True"]'
        for check, what in (("app-file", "app-src-helm.yaml"), ("live-app", "Application src-helm"))}),
    "ignoreDifferences without RespectIgnoreDifferences": (mutation_ignore_without_respect, {
        f"capa-src.7.{check}": f"{what}: ignoreDifferences is set but syncOptions lacks RespectIgnoreDifferences=true"
        for check, what in (("app-file", "app-src-kust.yaml"), ("live-app", "Application src-kust"))}),
    "Helm parameter name typo": (mutation_parameter_name_typo, {
        **{f"capa-src.2.{check}": f"{what}: fields differ (field: expected / found): spec.source.helm.parameters: "
                                  '[{"name": "greeting", "value": "from-parameter"}] / [{"name": "greting", '
                                  '"value": "from-parameter"}]'
           for check, what in (("app-file-values", "app-src-helm.yaml"), ("live-app-values", "Application src-helm"))},
        "capa-src.2.precedence-greeting": 'precedence.json greeting: you recorded "from-parameter", but the live cluster '
                                          'shows "from-values-object" (expected "from-parameter")'}),
    "kustomize image entry with the tag only": (mutation_image_entry_tag_only, {
        **{check: f"{what}: fields differ (field: expected / found): spec.source.kustomize.images: "
                  '["nginx=nginx:1.28-alpine"] / ["nginx=1.28-alpine"]'
           for check, what in (("capa-src.4.app-file", "app-src-kust.yaml"), ("capa-src.4.live-app", "Application src-kust"),
                               ("capa-src.7.app-file", "app-src-kust.yaml"), ("capa-src.7.live-app", "Application src-kust"))},
        "capa-src.4.live-deployment": 'Deployment src-kust/prod-api: expected {"image": "nginx:1.28-alpine", '
                                      '"readyReplicas": 4, "health": "Healthy"}, found {"image": '
                                      '"1.28-alpine:1.27-alpine", "readyReplicas": 4, "health": "Healthy"}'}),
    "ignoreDifferences names the base Deployment": (mutation_ignore_rule_names_the_base, {
        **{f"capa-src.7.{check}": f"{what}: fields differ (field: expected / found): spec.ignoreDifferences: "
                                  '[{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}] / '
           for check, what in (("app-file", "app-src-kust.yaml"), ("live-app", "Application src-kust"))},
        # Argo CD did not apply the rule to prod-api: selfHeal synced replicas back to 2 (its manager now)
        "capa-src.7.live-replicas": 'src-kust / prod-api: expected {"prod-api spec.replicas": 4, "src-kust sync": '
                                    '"Synced"}, found {"prod-api spec.replicas": 2, "src-kust sync": "Synced"}',
        "capa-src.7.replicas-owner": 'f:spec.f:replicas of prod-api is owned by {"manager": "argocd-controller", '
                                     '"subresource": null}',
        "capa-src.8.replicas-owner": 'report.json replicas_owner: expected "argocd-controller", found "kubectl"'}),
    "scaled with kubectl edit": (mutation_scaled_with_edit, {
        "capa-src.7.replicas-owner": 'f:spec.f:replicas of prod-api is owned by {"manager": "kubectl-edit", '
                                     '"subresource": null}, expected {"manager": "kubectl | kubectl-scale | k3s", '
                                     '"subresource": "scale"}'}),
    "moved on while the failed revision retries": (mutation_moved_on_while_retrying, {
        **dict.fromkeys(["capa-src.6.live-revision", "capa-src.6.live-operation"],
                        "the operation still retries the failed revision "),  # <sha7> (phase Running); the app may
        "capa-src.6.live-mode-green": 'ConfigMap src-waves/settings data.mode: expected "green", found "blue"'}),
    "failed-hook commit split in two": (mutation_failed_commit_split, {
        "capa-src.6.failed-commit": "commit ",  # <sha7> makes only one of the two changes; both belong in one commit
        "capa-src.8.hook-blocked-sync": 'report.json hook_blocked_sync contradicts failed-hook.json live_mode (found '
                                        '"green", expected "live_mode != green")'}),
    "fix commit also reverts mode": (mutation_fix_reverts_mode, {
        "capa-src.6.fix-commit": "no commit after the failing one restores `echo migrate ok` with mode green: ",
        "capa-src.6.live-mode-green": 'ConfigMap src-waves/settings data.mode: expected "green", found "blue"'}),
    "image override committed to git": (mutation_image_in_git, {
        "capa-src.4.no-override-in-git": "the 1.28 override is committed under kust/ "
                                         "(kust/overlays/prod/kustomization.yaml); it must live in the Application",
        **{check: f"{what}: fields differ (field: expected / found): spec.source.kustomize.images: "
                  '["nginx=nginx:1.28-alpine"] / null'
           for check, what in (("capa-src.4.app-file", "app-src-kust.yaml"), ("capa-src.4.live-app", "Application src-kust"),
                               ("capa-src.7.app-file", "app-src-kust.yaml"), ("capa-src.7.live-app", "Application src-kust"))},
        "capa-src.8.image-source": 'report.json image_source: expected "application", found "git"'}),
    "values-prod.yaml renamed in git": (mutation_values_file_renamed, {
        "capa-src.1.chart-values-prod": "the bare repository's main has no charts/web/values-prod.yaml",
        "capa-src.1.live-app-status": "Application src-helm is Unknown / Healthy, expected Synced / Healthy"}),
    "Chart.yaml without a version": (mutation_chart_without_version, {
        "capa-src.1.chart-yaml": 'charts/web/Chart.yaml on the bare repository\'s main: '
                                 'expected {"name": "web", "version": "0.1.0"}, '
                                 'found {"name": "web", "version": null}',
        # helm refuses the chart, as Argo CD's repo server does (hence Unknown).
        **{check: "`helm template` of charts/web at bare main fails, as it fails in Argo CD: Error: validation: "
                  "chart.metadata.version is required"
           for check in ("capa-src.1.template-configmap", "capa-src.1.template-deployment")},
        "capa-src.1.live-app-status": "Application src-helm is Unknown / Healthy, expected Synced / Healthy"}),
    "values.yaml key misspelled": (mutation_chart_values_typo, {
        "capa-src.1.chart-values": 'charts/web/values.yaml on the bare repository\'s main: '
                                   'expected {"replicaCount": 1, "greeting": '
                                   '"chart-default"}, found {"replicaCount": 1, "greeting": null}'}),
    "ConfigMap template hard-codes the greeting": (mutation_template_hard_codes_greeting, {
        "capa-src.1.template-configmap": "charts/web/templates/configmap.yaml does not render data.greeting from "
                                         ".Values.greeting"}),
    "Deployment template hard-codes replicas": (mutation_template_hard_codes_replicas, {
        "capa-src.1.template-deployment": "charts/web/templates/deployment.yaml does not render spec.replicas from "
                                          ".Values.replicaCount"}),
    "base image without a tag": (mutation_base_image_untagged, {
        "capa-src.4.kust-base": 'kust/base/deployment.yaml on the bare repository\'s main: '
                                'expected {"replicas": 1, "label app": "api", '
                                '"image": "nginx:1.27-alpine", "kustomization": true}, found {"replicas": 1, '
                                '"label app": "api", "image": "nginx", "kustomization": true}'}),
    "overlay names the base's file": (mutation_overlay_names_the_file, {
        "capa-src.4.kust-overlay": 'kust/overlays/prod/kustomization.yaml on the bare repository\'s main: expected {"resources": '
                                   '"../../base", "namePrefix": "prod-", "replicas": {"name": "api", "count": 2}}, '
                                   'found {"resources": ["../../base/deployment.yaml"], ',
        # Argo CD cannot render the overlay, so src-kust's sync status is Unknown
        "capa-src.7.live-replicas": 'src-kust / prod-api: expected {"prod-api spec.replicas": 4, "src-kust sync": '
                                    '"Synced"}, found {"prod-api spec.replicas": 4, "src-kust sync": "Unknown"}'}),
    "migrate hook with a fixed name": (mutation_hook_with_fixed_name, {
        "capa-src.5.git-migrate-hook": 'waves/migrate.yaml on the bare repository\'s main: '
                                       'expected {"generateName": "migrate-", '}),
    "waves without sync-wave annotations": (mutation_waves_without_annotations, {
        "capa-src.5.git-settings": 'waves/config.yaml on the bare repository\'s main: expected {"sync-wave": -1, "data.mode": '
                                   '"present"}, found {"sync-wave": 0, "data.mode": "present"}',
        "capa-src.5.git-smoke": 'waves/smoke.yaml on the bare repository\'s main: '
                                'expected {"sync-wave": 1, "image": "busybox:1.36", '
                                '"runs": "echo smoke ok"}, found {"sync-wave": 0, '}),
    "src-waves without CreateNamespace=true": (mutation_namespace_made_by_hand, {
        f"capa-src.5.{check}": f"{what}: fields differ (field: expected / found): spec.syncPolicy.syncOptions: "
                               '"CreateNamespace=true" / '
        for check, what in (("app-file", "app-src-waves.yaml"), ("live-app", "Application src-waves"))}),
    "Deployment app without a readinessProbe": (mutation_app_without_probe, {
        "capa-src.5.git-app": 'waves/app.yaml on the bare repository\'s main: '
                              'expected {"sync-wave": 0, "readinessProbe": true, "image": '
                              '"nginx:1.27-alpine"}, found {"sync-wave": 0, "readinessProbe": false, '}),
}

# Every capa-src check no mutation above flips, and why.
UNFLIPPED = {
    "capa-src.1.bare-repo": "no learner mistake leaves a VM where only this fails: without /srv/bare/src.git (or "
                            "without main) every git check fails with it; its FAIL is covered by "
                            "tests/grader/test_every_check_fails.py and test_readonly.py",
    "capa-src.5.live-order": "the creation order is Argo CD's doing (waves); a learner cannot make it wrong "
                             "without deleting and re-creating the objects, and a wave mistake in git flips "
                             "git-settings/git-smoke first (mutation \"waves without sync-wave annotations\": "
                             "the objects are patched, not re-created); its FAIL is covered by "
                             "tests/grader/test_every_check_fails.py",
}
