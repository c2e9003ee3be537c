"""capa-src judged as Argo CD judges (issue 12 section 1): one mutated golden state per mistake
variant, on both sides of each class - what Argo CD accepts must PASS (these failed before the
fix: false fails) and what Argo CD refuses or could not have produced must FAIL (false passes),
with the exact message."""

from __future__ import annotations

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import capa_src

from tests.grader.conftest import collect_host, judge
from tests.grader.test_capa_src import both_apps, edit_json, live_app, not_passing

HELM_CHECKS = {"capa-src.1.app-file-value-files", "capa-src.1.live-app",
               "capa-src.2.app-file-values", "capa-src.2.live-app-values"}


def set_value_files(state, value_files):
    for app in both_apps(state, "app-src-helm.yaml", "src-helm"):
        app["spec"]["source"]["helm"]["valueFiles"] = value_files


# ---------------------------------------------------------------- (a) paths as Argo CD resolves them


@pytest.mark.parametrize("value_files", [
    ["./values-prod.yaml"],
    ["/charts/web/values-prod.yaml"],  # a leading "/" is the repository root
    ["../web/values-prod.yaml"],
    ["values-prod.yaml", "./values-prod.yaml"],  # the same file counts once
    ["values-prod*.yaml"],  # a glob expands over the checkout
])
def test_value_files_naming_the_same_file_pass(state, value_files):
    set_value_files(state, value_files)
    assert not_passing(state) == {}


def test_value_file_from_the_repository_root_with_a_leading_slash_is_another_file(state):
    set_value_files(state, ["/values-prod.yaml"])
    failing = not_passing(state)
    assert set(failing) == HELM_CHECKS
    assert failing["capa-src.1.app-file-value-files"]["message"] == (
        'app-src-helm.yaml spec.source.helm.valueFiles: expected ["values-prod.yaml"], found ["/values-prod.yaml"]')


@pytest.mark.parametrize("value_files", [["../../../values-prod.yaml"], ["https://example.org/values-prod.yaml"],
                                         ["values-prod.yaml", "values.yaml"]])
def test_value_files_argo_cd_refuses_or_reads_elsewhere_fail(state, value_files):
    set_value_files(state, value_files)
    assert set(not_passing(state)) == HELM_CHECKS


def test_missing_value_file_is_skipped_only_with_ignore_missing(state):
    set_value_files(state, ["values-prod.yaml", "values-extra.yaml"])
    assert set(not_passing(state)) == HELM_CHECKS
    for app in both_apps(state, "app-src-helm.yaml", "src-helm"):
        app["spec"]["source"]["helm"]["ignoreMissingValueFiles"] = True
    assert not_passing(state) == {}


@pytest.mark.parametrize("path", ["./kust/overlays/prod/", "kust//overlays/prod", "kust/base/../overlays/prod"])
def test_source_path_cleaned_as_argo_cd_joins_it_passes(state, path):
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        app["spec"]["source"]["path"] = path
    assert not_passing(state) == {}


@pytest.mark.parametrize("path", ["/kust/overlays/prod", "kust/overlays/prod ", "../kust/overlays/prod"])
def test_source_path_argo_cd_refuses_fails(state, path):
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        app["spec"]["source"]["path"] = path
    failing = not_passing(state)
    assert set(failing) == {"capa-src.4.app-file", "capa-src.4.live-app"}
    assert failing["capa-src.4.app-file"]["message"] == (
        f'app-src-kust.yaml: fields differ (field: expected / found): spec.source.path: "kust/overlays/prod" / "{path}"')


# ---------------------------------------------------------------- (b) YAML as data


CONFIGMAP_RESTYLED = """\
---
# the greeting ConfigMap
"kind": 'ConfigMap'   # quoted, with a comment
metadata: {name: "{{ .Release.Name }}-greeting"}
apiVersion: v1
data:
  greeting: {{- " " -}} {{ .Values.greeting | quote }}
---
"""


def test_template_restyled_renders_the_same_object(state):
    state.repo.tree["charts/web/templates/configmap.yaml"] = CONFIGMAP_RESTYLED
    assert not_passing(state) == {}


@pytest.mark.parametrize(("path", "text", "check", "message"), [
    # the value only in a comment: the regex on raw text passed it
    ("configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\n"
                       "data:\n  greeting: chart-default  # was {{ .Values.greeting }}\n",
     "template-configmap", "charts/web/templates/configmap.yaml does not render data.greeting from .Values.greeting"),
    # the kind only in a comment
    ("deployment.yaml", "# kind: Deployment\nkind: StatefulSet\nmetadata:\n  name: {{ .Release.Name }}-web\n",
     "template-deployment", "no template in charts/web/templates renders Deployment {{ .Release.Name }}-web"),
])
def test_template_judged_on_rendered_data_fails(state, path, text, check, message):
    state.repo.tree[f"charts/web/templates/{path}"] = text
    failing = not_passing(state)
    assert set(failing) == {f"capa-src.1.{check}"}
    assert failing[f"capa-src.1.{check}"]["message"] == message


@pytest.mark.parametrize(("path", "text"), [
    ("kust/overlays/prod/kustomization.yaml",
     "# the 1.28 tag comes from the Application\nresources: [../../base]\nnamePrefix: prod-\n"
     "replicas: [{name: api, count: 2}]\n"),
    ("kust/README.md", "nginx:1.28-alpine is set in app-src-kust.yaml\n"),
])
def test_1_28_mentioned_outside_the_data_kustomize_reads_passes(state, path, text):
    state.repo.tree[path] = text
    assert not_passing(state) == {}


def test_1_28_set_by_an_inline_patch_fails(state):
    path = "kust/overlays/prod/kustomization.yaml"
    state.repo.tree[path] += (
        "patches:\n  - target: {kind: Deployment, name: api}\n    patch: |-\n"
        "      - op: replace\n        path: /spec/template/spec/containers/0/image\n"
        "        value: nginx:1.28-alpine\n")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.4.no-override-in-git"}
    assert failing["capa-src.4.no-override-in-git"]["message"] == (
        "the 1.28 override is committed under kust/ (kust/overlays/prod/kustomization.yaml); "
        "it must live in the Application")


# ---------------------------------------------------------------- (c) no leniency Argo CD lacks


def test_sync_option_with_spaces_is_not_recognised(state):
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        options = app["spec"]["syncPolicy"]["syncOptions"]
        options[options.index("CreateNamespace=true")] = "CreateNamespace = true"
    failing = not_passing(state)
    assert set(failing) == {"capa-src.4.app-file", "capa-src.4.live-app", "capa-src.7.app-file", "capa-src.7.live-app"}
    assert failing["capa-src.4.live-app"]["message"] == (
        'Application src-kust: fields differ (field: expected / found): spec.syncPolicy.syncOptions: '
        '"CreateNamespace=true" / ["CreateNamespace = true", "RespectIgnoreDifferences=true"]')


def test_kustomize_image_with_spaces_names_another_image(state):
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        app["spec"]["source"]["kustomize"]["images"] = ["nginx = nginx:1.28-alpine"]
    failing = not_passing(state)
    assert set(failing) == {"capa-src.4.app-file", "capa-src.4.live-app", "capa-src.7.app-file", "capa-src.7.live-app"}
    assert failing["capa-src.7.app-file"]["message"] == (
        'app-src-kust.yaml: fields differ (field: expected / found): spec.source.kustomize.images: '
        '["nginx=nginx:1.28-alpine"] / ["nginx = nginx:1.28-alpine"]')


@pytest.mark.parametrize("images", [["nginx:1.28-alpine"], ["nginx=:1.28-alpine"],
                                    ["nginx:1.27-alpine", "nginx=nginx:1.28-alpine"]])
def test_kustomize_image_entries_kustomize_reads_the_same_pass(state, images):
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        app["spec"]["source"]["kustomize"]["images"] = images
    assert not_passing(state) == {}


def test_a_later_kustomize_image_entry_wins(state):
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        app["spec"]["source"]["kustomize"]["images"] = ["nginx=nginx:1.28-alpine", "nginx:1.27-alpine"]
    assert set(not_passing(state)) == {"capa-src.4.app-file", "capa-src.4.live-app",
                                       "capa-src.7.app-file", "capa-src.7.live-app"}


def replace_in_tree(state, path, old, new):
    assert old in state.repo.tree[path]
    state.repo.tree[path] = state.repo.tree[path].replace(old, new)


@pytest.mark.parametrize(("old", "new"), [('"1"', '"+1"'), ('"1"', '"01"')])
def test_sync_wave_read_with_atoi_passes(state, old, new):
    replace_in_tree(state, "waves/smoke.yaml", f"sync-wave: {old}", f"sync-wave: {new}")
    assert not_passing(state) == {}


def test_sync_wave_with_a_space_is_wave_0(state):
    replace_in_tree(state, "waves/config.yaml", 'sync-wave: "-1"', 'sync-wave: " -1"')
    failing = not_passing(state)
    assert set(failing) == {"capa-src.5.git-settings"}
    assert failing["capa-src.5.git-settings"]["message"] == (
        'waves/config.yaml on the bare repository\'s main: expected {"sync-wave": -1, "data.mode": "present"}, '
        'found {"sync-wave": 0, "data.mode": "present"}')


def test_hook_annotation_is_a_trimmed_list_but_exact_words(state):
    replace_in_tree(state, "waves/migrate.yaml", "hook: PreSync", 'hook: " PreSync,PreSync"')
    assert not_passing(state) == {}
    replace_in_tree(state, "waves/migrate.yaml", 'hook: " PreSync,PreSync"', "hook: presync")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.5.git-migrate-hook"}
    assert failing["capa-src.5.git-migrate-hook"]["found"]["hook"] == ["presync"]


# ---------------------------------------------------------------- (d) only what Argo CD could have produced


def hook_job(state):
    return state.files["waves.json"].data["hook_job"]


def test_hook_name_of_a_commit_without_the_hook_fails(state):
    chart = state.repo.order[-1]  # "Add web chart": on main, but waves/ is not there yet
    name = hook_job(state).replace(hook_job(state)[8:15], chart[:7])
    edit_json(state, "waves.json", hook_job=name)
    failing = not_passing(state)
    assert set(failing) == {"capa-src.5.waves-hook-job"}
    assert failing["capa-src.5.waves-hook-job"]["message"] == (
        f'waves.json hook_job "{name}": commit {chart[:7]} has no PreSync hook migrate- in waves/migrate.yaml, '
        "so no sync of it ran that hook")


def test_hook_name_with_a_start_time_argo_cd_never_recorded_fails(state):
    name, started = hook_job(state).rsplit("-", 1)
    name = f"{name}-{int(started) - 60}"
    edit_json(state, "waves.json", hook_job=name)
    failing = not_passing(state)
    assert set(failing) == {"capa-src.5.waves-hook-job"}
    assert failing["capa-src.5.waves-hook-job"]["message"] == (
        f'waves.json hook_job "{name}": Application src-waves has no sync of {name[8:15]} started at '
        f"{int(started) - 60} (status.history, operationState) and no such Job exists")


def test_hook_name_started_before_its_commit_fails(state):
    prefix, _ = hook_job(state).rsplit("-", 1)
    sha = next(s for s in state.repo.order if s.startswith(prefix[8:15]))
    started = state.repo.commits[sha]["time"] - 3600
    edit_json(state, "waves.json", hook_job=f"{prefix}-{started}")
    failing = not_passing(state)
    assert failing["capa-src.5.waves-hook-job"]["message"] == (
        f'waves.json hook_job "{prefix}-{started}": the sync started at {started}, before commit {sha[:7]} '
        f"existed ({state.repo.commits[sha]['time']})")


def test_hook_job_still_in_the_cluster_is_enough(state):
    """A Job Argo CD created is proof even when status.history no longer lists its sync."""
    live_app(state, "src-waves")["status"]["history"] = []
    assert not_passing(state) == {}


# ---------------------------------------------------------------- (e)-(g) step 6: stuck, converging, done


def operation_on(state, revision, phase, **extra):
    app = live_app(state, "src-waves")
    operation = app["status"]["operationState"]
    operation["phase"] = phase
    operation["operation"]["sync"]["revision"] = revision
    operation.update(extra)
    return app


def test_an_operation_applying_the_fix_is_pending_not_failed(state):
    fix = state.repo.head
    app = operation_on(state, fix, "Running")
    app["status"]["sync"]["status"] = "OutOfSync"
    app["status"]["health"]["status"] = "Progressing"
    state.cluster.find("waves_configmaps", "settings")["data"]["mode"] = "blue"
    failing = not_passing(state)
    assert {k: c["status"] for k, c in failing.items()} == {"capa-src.6.live-operation": "PENDING",
                                                            "capa-src.6.live-mode-green": "PENDING"}
    assert failing["capa-src.6.live-mode-green"]["message"] == (
        "ConfigMap src-waves/settings data.mode is about to change: Application src-waves runs an operation on "
        f"{fix[:7]} (Running); not final yet")
    for check in failing.values():
        assert check["hint"] == ("Argo CD is still applying this revision: let the operation finish, then run "
                                 "`lab check 6` again in a minute.")


def test_a_succeeded_operation_of_the_failed_revision_is_not_called_retrying(state):
    failed_sha = state.files["failed-hook.json"].data["commit"]
    operation_on(state, failed_sha, "Succeeded")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.6.live-revision"}
    check = failing["capa-src.6.live-revision"]
    assert check["message"].startswith(f"revisions must be {state.repo.head[:7]} (the fix) or a later commit")
    assert "terminate-op" not in check["hint"]


def test_mode_not_green_without_any_operation_gives_no_terminate_advice(state):
    state.cluster.find("waves_configmaps", "settings")["data"]["mode"] = "blue"
    failing = not_passing(state)
    assert set(failing) == {"capa-src.6.live-mode-green"}
    assert failing["capa-src.6.live-mode-green"]["status"] == "FAIL"
    assert "terminate-op" not in failing["capa-src.6.live-mode-green"]["hint"]


def test_phase_running_passes_when_the_failed_hook_job_failed(state):
    edit_json(state, "failed-hook.json", phase="Running")
    failed_job = next(j["metadata"]["name"] for j in state.cluster.items("waves_jobs")
                      if j["metadata"]["name"].startswith(f"migrate-{state.files['failed-hook.json'].data['commit'][:7]}"))
    results = capa_src.lab.judge(state, "en")
    check = next(c for c in results if c["check"] == "capa-src.6.failed-phase")
    assert (check["status"], check["message"]) == (
        "PASS", f"failed-hook.json phase Running: the operation had already failed (Job {failed_job} Failed)")


def test_phase_running_passes_while_the_failed_revision_retries(state):
    failed_sha = state.files["failed-hook.json"].data["commit"]
    edit_json(state, "failed-hook.json", phase="Running")
    without_failed_hook_job(state, failed_sha)
    operation_on(state, failed_sha, "Running", retryCount=2)
    assert "capa-src.6.failed-phase" not in not_passing(state)


def without_failed_hook_job(state, failed_sha):
    state.cluster.snapshot.reads["waves_jobs"] = [
        j for j in state.cluster.items("waves_jobs") if not j["metadata"]["name"].startswith(f"migrate-{failed_sha[:7]}")]


def test_phase_running_passes_when_the_failed_job_is_gone_but_the_fix_synced(state):
    """Retries delete the failed hook Job every other attempt (observations, test 5)."""
    failed_sha = state.files["failed-hook.json"].data["commit"]
    edit_json(state, "failed-hook.json", phase="Running")
    without_failed_hook_job(state, failed_sha)
    results = {c["check"]: c for c in capa_src.lab.judge(state, "en")}
    assert (results["capa-src.6.failed-phase"]["status"], results["capa-src.6.failed-phase"]["message"]) == (
        "PASS", "failed-hook.json phase Running: the operation had already failed "
        f"(its hook exits 1 and src-waves later synced {state.repo.head[:7]})")


def test_phase_running_of_a_commit_argo_cd_never_synced_fails_without_a_wait_hint(state):
    failed_sha = state.files["failed-hook.json"].data["commit"]
    edit_json(state, "failed-hook.json", phase="Running")
    without_failed_hook_job(state, failed_sha)
    app = live_app(state, "src-waves")
    waves_sha = state.repo.commits[failed_sha]["parents"][0]
    app["status"]["history"] = [h for h in app["status"]["history"] if h["revision"] == waves_sha]
    operation_on(state, waves_sha, "Succeeded")
    app["status"]["operationState"]["syncResult"]["revision"] = waves_sha
    check = not_passing(state)["capa-src.6.failed-phase"]
    assert check["message"] == (
        f"failed-hook.json phase Running, but nothing in the cluster shows that the operation of {failed_sha[:7]} "
        f"failed (no failed Job migrate-{failed_sha[:7]}-presync-*, no retry, no later sync)")
    assert "wait" not in check["hint"].lower()


def test_own_step_object_missing_is_not_blocked_by_itself(state):
    state.cluster.snapshot.reads["waves_configmaps"] = []
    failing = not_passing(state)
    assert failing["capa-src.5.waves-settings-created"]["message"] == (
        "ConfigMap src-waves/settings does not exist in the cluster")
    assert failing["capa-src.6.live-mode-green"]["message"] == (
        "blocked by step 5: ConfigMap src-waves/settings does not exist in the cluster")


# ---------------------------------------------------------------- whole worlds, through collection


def test_argo_equivalents_world_passes_every_check(fake_api):
    """Written forms Argo CD reads the same as the golden ones; the pre-fix grader failed 8 checks."""
    results = judge(collect_host(fake_api.world("capa-src/argo-equivalents.yaml")))
    assert {k: c["message"] for k, c in results.items() if c["status"] != "PASS"} == {}


def test_mid_sync_world_is_pending_and_never_advises_aborting_the_sync(fake_api):
    results = judge(collect_host(fake_api.world("capa-src/mid-sync.yaml")))
    not_passing_now = {k: c for k, c in results.items() if c["status"] != "PASS"}
    assert {k: c["status"] for k, c in not_passing_now.items()} == {
        "capa-src.6.live-operation": "PENDING", "capa-src.6.live-mode-green": "PENDING"}
    assert all("terminate-op" not in c["hint"] for c in not_passing_now.values())


def test_tracking_method_argo_cd_does_not_know_means_annotation(state):
    """A misspelt method is not "no tracking": Argo CD falls back to the annotation."""
    state.cluster.get("argocd_cm").setdefault("data", {})["application.resourceTrackingMethod"] = "Label"
    assert "capa-src.3.tracking-method" not in not_passing(state)
    edit_json(state, "tracking.json", tracking_annotation=None)
    failing = not_passing(state)
    assert failing["capa-src.3.tracking-method"]["message"] == (
        'the tracking method in force is Label; it writes {"tracking_annotation": '
        '"src-helm:/ConfigMap:src-helm/src-helm-greeting"}, you recorded {"tracking_annotation": null}')


def retries_exhausted_fix_not_yet_started(state):
    """The failed revision's operation ended Failed; status.sync.revision already shows the fix."""
    failed_sha = state.files["failed-hook.json"].data["commit"]
    app = operation_on(state, failed_sha, "Failed", retryCount=5,
                       message="one or more synchronization tasks completed unsuccessfully (retried 5 times).")
    app["status"]["operationState"]["syncResult"]["revision"] = failed_sha
    app["status"]["sync"]["status"] = "OutOfSync"
    state.cluster.find("waves_configmaps", "settings")["data"]["mode"] = "blue"
    return app


def test_auto_sync_about_to_start_the_fix_is_pending(state):
    retries_exhausted_fix_not_yet_started(state)
    failing = not_passing(state)
    assert {k: c["status"] for k, c in failing.items()} == {
        "capa-src.6.live-revision": "PENDING", "capa-src.6.live-operation": "PENDING",
        "capa-src.6.live-mode-green": "PENDING"}
    assert failing["capa-src.6.live-operation"]["message"] == (
        f"Application src-waves status is about to change: Application src-waves is OutOfSync at "
        f"{state.repo.head[:7]} after an operation Failed, and automated sync starts that revision next; not final yet")
    assert all("terminate-op" not in c["hint"] for c in failing.values())


def test_without_automated_sync_nothing_will_start_the_fix(state):
    app = retries_exhausted_fix_not_yet_started(state)
    del app["spec"]["syncPolicy"]["automated"]
    statuses = {k: c["status"] for k, c in not_passing(state).items() if k.startswith("capa-src.6.live")}
    assert statuses == {"capa-src.6.live-revision": "FAIL", "capa-src.6.live-operation": "FAIL",
                        "capa-src.6.live-mode-green": "FAIL"}


@pytest.mark.parametrize(("old", "new"), [
    ("hook-delete-policy: BeforeHookCreation", "hook-delete-policy: BeforeHookCreate"),  # unknown: the default
    ("argocd.argoproj.io/hook-delete-policy: BeforeHookCreation", "helm.sh/hook-delete-policy: before-hook-creation"),
    ("argocd.argoproj.io/hook: PreSync", "helm.sh/hook: pre-install"),  # Helm's hook, mapped to PreSync
    ("hook: PreSync", "hook: PreSync,Presync"),  # the unknown word is ignored
])
def test_hook_annotations_argo_cd_reads_as_asked_pass(state, old, new):
    """gitops-engine reads hook types and delete policies as recognised words only (unknown ones
    ignored, Helm's mapped, BeforeHookCreation by default); these failed before."""
    replace_in_tree(state, "waves/migrate.yaml", old, new)
    assert not_passing(state) == {}


def test_hook_delete_policy_argo_cd_reads_otherwise_fails(state):
    replace_in_tree(state, "waves/migrate.yaml", "hook-delete-policy: BeforeHookCreation",
                    "hook-delete-policy: BeforeHookCreation,HookSucceeded")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.5.git-migrate-hook"}
    assert failing["capa-src.5.git-migrate-hook"]["found"]["hook-delete-policy"] == ["BeforeHookCreation",
                                                                                   "HookSucceeded"]


def test_replicas_entry_naming_the_prefixed_deployment_passes(state):
    """kustomize matches a replicas entry against the base's name or the prefixed one (resmap
    GetMatchingResourcesByAnyId); `prod-api` failed before."""
    replace_in_tree(state, "kust/overlays/prod/kustomization.yaml", "name: api", "name: prod-api")
    assert not_passing(state) == {}


def test_replicas_entry_naming_another_deployment_fails(state):
    replace_in_tree(state, "kust/overlays/prod/kustomization.yaml", "name: api", "name: prod-web")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.4.kust-overlay"}
    assert failing["capa-src.4.kust-overlay"]["found"]["replicas"] == [{"name": "prod-web", "count": 2}]


@pytest.mark.parametrize(("field", "value", "passes"), [
    ("name", "api", False),  # the base's name: Argo CD compares it with prod-api exactly
    ("namespace", "default", False),
    ("name", "prod-api", True),
    ("namespace", "src-kust", True),
])
def test_ignore_rule_applies_to_prod_api_as_argo_cd_matches_it(state, field, value, passes):
    """A rule that names another object is not applied to prod-api (diff_normalizer.go
    Normalize); `name: api` passed before (a false pass)."""
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        app["spec"]["ignoreDifferences"][0][field] = value
    failing = not_passing(state)
    assert set(failing) == (set() if passes else {"capa-src.7.app-file", "capa-src.7.live-app"})
    if not passes:
        assert failing["capa-src.7.app-file"]["message"].startswith(
            "app-src-kust.yaml: fields differ (field: expected / found): spec.ignoreDifferences: ")
