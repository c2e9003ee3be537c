"""capa-src: the correct final state passes every check; each classic mistake fails exactly its
check(s) with the expected message. The golden state is collected once, for real (git repo,
workspace files, the kubernetes client against the fake API server), then mutated per case."""

from __future__ import annotations

import copy
import datetime

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import parse_time
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import capa_src
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import PASS

from tests.grader.conftest import judge

ALL_CHECKS = [check.id for check in capa_src.lab.checks]


def not_passing(state):
    return {check_id: c for check_id, c in judge(state).items() if c["status"] != PASS}


# ---------------------------------------------------------------- helpers to mutate a state


def set_json(state, name, data):
    read = state.files[name]
    read.problem, read.data = None, data


def edit_json(state, name, **changes):
    data = copy.deepcopy(state.files[name].data)
    data.update(changes)
    set_json(state, name, data)


def live_app(state, name):
    return state.cluster.find("applications", name)


def file_app(state, filename, name):
    return next(d for d in state.files[filename].data if d.get("kind") == "Application"
                and d["metadata"]["name"] == name)


def both_apps(state, filename, name):
    return [file_app(state, filename, name), live_app(state, name)]


# ---------------------------------------------------------------- the golden state


def test_golden_state_passes_every_check(golden_state):
    results = judge(golden_state)
    assert {k: (c["status"], c["message"]) for k, c in results.items() if c["status"] != PASS} == {}
    assert list(results) == ALL_CHECKS


def test_golden_state_costs_nine_api_requests(golden_state):
    assert golden_state.cluster.requests == 9


# ---------------------------------------------------------------- the classic mistakes (issue list)


def test_value_files_from_repo_root(state):
    for app in both_apps(state, "app-src-helm.yaml", "src-helm"):
        app["spec"]["source"]["helm"]["valueFiles"] = ["charts/web/values-prod.yaml"]
    failing = not_passing(state)
    assert set(failing) == {"capa-src.1.app-file-value-files", "capa-src.1.live-app",
                            "capa-src.2.app-file-values", "capa-src.2.live-app-values"}
    assert failing["capa-src.1.app-file-value-files"]["message"] == (
        'app-src-helm.yaml: valueFiles ["charts/web/values-prod.yaml"] is written from the repository root; '
        'it is relative to the chart directory, so write ["values-prod.yaml"]')
    assert failing["capa-src.1.live-app"]["message_key"] == "value_files_repo_root"


def test_precedence_copied_from_values_file(state):
    set_json(state, "precedence.json", {"replicas": 2, "greeting": "from-values-file"})
    failing = not_passing(state)
    assert set(failing) == {"capa-src.2.precedence-replicas", "capa-src.2.precedence-greeting",
                            "capa-src.8.helm-winner"}
    assert failing["capa-src.2.precedence-replicas"]["message"] == "precedence.json replicas: expected 3, found 2"
    assert failing["capa-src.2.precedence-greeting"]["message"] == (
        'precedence.json greeting: expected "from-parameter", found "from-values-file"')
    assert failing["capa-src.8.helm-winner"]["message"] == (
        'report.json helm_winner contradicts precedence.json greeting '
        '(found "from-values-file", expected "from-parameter")')


def test_instance_label_empty_string_instead_of_null(state):
    edit_json(state, "tracking.json", instance_label="")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.3.instance-label"}
    check = failing["capa-src.3.instance-label"]
    assert check["message"] == 'tracking.json instance_label: the label is absent, so the value must be JSON null, not ""'
    assert (check["expected"], check["found"]) == (None, "")
    assert check["hint"] == 'An absent label is written as JSON null: "instance_label": null.'


def test_instance_label_key_missing(state):
    data = dict(state.files["tracking.json"].data)
    del data["instance_label"]
    set_json(state, "tracking.json", data)
    failing = not_passing(state)
    assert set(failing) == {"capa-src.3.instance-label"}
    assert failing["capa-src.3.instance-label"]["message"] == 'tracking.json: the key "instance_label" is missing'


def test_image_override_committed_to_git(state):
    path = "kust/overlays/prod/kustomization.yaml"
    overlay = yaml.safe_load(state.repo.tree[path])
    overlay["images"] = [{"name": "nginx", "newTag": "1.28-alpine"}]
    state.repo.tree[path] = yaml.safe_dump(overlay)
    failing = not_passing(state)
    assert set(failing) == {"capa-src.4.no-override-in-git"}
    assert failing["capa-src.4.no-override-in-git"]["message"] == (
        "the 1.28 override is committed under kust/ (kust/overlays/prod/kustomization.yaml); "
        "it must live in the Application")


def test_hook_created_after_settings(state):
    waves = state.files["waves.json"].data
    edit_json(state, "waves.json", hook_created=waves["settings_created"][:-3] + "59Z")
    failing = not_passing(state)
    # the recorded time no longer matches the hook Job that still exists either
    assert set(failing) == {"capa-src.5.waves-times", "capa-src.5.live-hook-job"}
    assert failing["capa-src.5.waves-times"]["message_key"] == "hook_after_settings"
    assert failing["capa-src.5.waves-times"]["message"].startswith(
        "the PreSync hook was created after ConfigMap settings: ")


def test_failed_hook_split_across_two_commits(state):
    sha = state.files["failed-hook.json"].data["commit"]
    parent = state.repo.commits[sha]["parents"][0]
    # the named commit only changes mode; the migrate change went into another commit
    state.repo.history[sha]["waves/migrate.yaml"] = state.repo.history[parent]["waves/migrate.yaml"]
    failing = not_passing(state)
    assert set(failing) == {"capa-src.6.failed-commit"}
    check = failing["capa-src.6.failed-commit"]
    assert check["message_key"] == "failed_commit_split"
    assert check["message"].startswith(f"commit {sha[:7]} makes only one of the two changes; both belong in one commit")


def test_failed_commit_as_sha7_is_named_in_every_check_that_reads_it(state):
    """The checks that follow the recorded commit say what is wrong with it (a sha7 is on bare
    main, so "does not name a commit on bare main" was untrue; found by a plane mutation)."""
    short = state.files["failed-hook.json"].data["commit"][:7]
    edit_json(state, "failed-hook.json", commit=short, phase="Running")
    failing = not_passing(state)
    message = f'failed-hook.json commit must be a full 40-character SHA, found "{short}"'
    assert {cid: c["message"] for cid, c in failing.items()} == dict.fromkeys(
        ["capa-src.6.failed-commit", "capa-src.6.failed-phase", "capa-src.6.failed-live-mode",
         "capa-src.6.fix-commit"], message)


def test_live_mode_already_green(state):
    edit_json(state, "failed-hook.json", live_mode="green")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.6.failed-live-mode", "capa-src.8.hook-blocked-sync"}
    parent_mode = failing["capa-src.6.failed-live-mode"]["expected"]
    assert parent_mode != "green"
    assert failing["capa-src.6.failed-live-mode"]["message"] == (
        f'failed-hook.json live_mode: expected "{parent_mode}", found "green"')


def test_app_synced_while_operation_retries_failed_revision(state):
    failed_sha = state.files["failed-hook.json"].data["commit"]
    app = live_app(state, "src-waves")
    app["status"]["sync"]["status"] = "Synced"
    operation = app["status"]["operationState"]
    operation["phase"] = "Running"
    operation["operation"]["sync"]["revision"] = failed_sha
    operation["syncResult"]["revision"] = failed_sha
    operation["retryCount"] = 3
    operation["message"] = ("one or more synchronization tasks completed unsuccessfully. "
                            "Retrying attempt #3 at 9:41AM.")
    state.cluster.find("waves_configmaps", "settings")["data"]["mode"] = "blue"
    failing = not_passing(state)
    assert set(failing) == {"capa-src.6.live-revision", "capa-src.6.live-operation", "capa-src.6.live-mode-green"}
    for check_id in ("capa-src.6.live-revision", "capa-src.6.live-operation"):
        assert failing[check_id]["status"] == "FAIL"  # not PENDING: waiting will not fix it
        assert failing[check_id]["message"] == (
            f"the operation still retries the failed revision {failed_sha[:7]} (phase Running); "
            "the app may look Synced, but the new commit is not applied")
    assert "terminate-op" in failing["capa-src.6.live-operation"]["hint"]


def test_ignore_differences_without_respect_ignore_differences(state):
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        options = app["spec"]["syncPolicy"]["syncOptions"]
        options.remove("RespectIgnoreDifferences=true")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.7.app-file", "capa-src.7.live-app"}
    assert failing["capa-src.7.live-app"]["message"] == (
        "Application src-kust: ignoreDifferences is set but syncOptions lacks RespectIgnoreDifferences=true")


def test_ignore_json_waited_20_seconds(state):
    data = state.files["ignore.json"].data
    edit_json(state, "ignore.json", checked_at=data["scaled_at"] + 20)
    failing = not_passing(state)
    assert set(failing) == {"capa-src.7.ignore-times"}
    assert failing["capa-src.7.ignore-times"]["message"] == "checked_at - scaled_at is 20 s; wait at least 40 s"


def test_replicas_as_a_string(state):
    edit_json(state, "ignore.json", replicas="4")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.7.ignore-replicas"}
    check = failing["capa-src.7.ignore-replicas"]
    assert check["message"] == 'ignore.json replicas: the JSON type must be integer, found string ("4")'
    assert check["hint"].startswith("Write numbers without quotes")


def test_report_helm_winner_values_object(state):
    edit_json(state, "report.json", helm_winner="valuesObject")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.8.helm-winner"}
    assert failing["capa-src.8.helm-winner"]["message"] == (
        'report.json helm_winner: expected "parameters", found "valuesObject"')


def test_replicas_owner_hard_coded_to_argocd_controller(state):
    edit_json(state, "report.json", replicas_owner="argocd-controller")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.8.replicas-owner"}
    assert failing["capa-src.8.replicas-owner"]["message"] == (
        'report.json replicas_owner: expected "kubectl", found "argocd-controller"')


def test_replicas_owner_follows_the_live_manager(state):
    """Hard-coding the expected answer would be wrong: the truth is computed from managedFields."""
    deployment = state.cluster.find("kust_deployments", "prod-api")
    for entry in deployment["metadata"]["managedFields"]:
        if entry.get("subresource") == "scale":
            entry["manager"] = "kubectl-scale"
    edit_json(state, "report.json", replicas_owner="kubectl-scale")
    assert not_passing(state) == {}


def test_a_later_commit_that_does_not_touch_waves_is_accepted(state):
    """status.sync.revision follows HEAD, but no operation runs for a commit that changes nothing."""
    fix = state.repo.head
    later = "f" * 40
    state.repo.commits[later] = {"sha": later, "parents": [fix], "time": state.repo.commits[fix]["time"] + 60,
                                 "subject": "docs"}
    state.repo.history[later] = dict(state.repo.history[fix])
    state.repo.order.insert(0, later)
    state.repo.head = later
    live_app(state, "src-waves")["status"]["sync"]["revision"] = later
    assert not_passing(state) == {}


def test_live_revision_before_the_fix_is_behind(state):
    failed_sha = state.files["failed-hook.json"].data["commit"]
    waves_sha = state.repo.commits[failed_sha]["parents"][0]
    app = live_app(state, "src-waves")
    app["status"]["sync"]["revision"] = waves_sha
    failing = not_passing(state)
    assert set(failing) == {"capa-src.6.live-revision"}
    assert failing["capa-src.6.live-revision"]["message"].startswith(
        f"revisions must be {state.repo.head[:7]} (the fix) or a later commit on bare main: ")


def test_odd_kustomization_shapes_fail_without_grader_errors(state):
    path = "kust/overlays/prod/kustomization.yaml"
    state.repo.tree[path] = "bases: ../../base\nresources: {a: b}\nreplicas: api=2\nnamePrefix: [prod-]\n"
    failing = not_passing(state)
    assert set(failing) == {"capa-src.4.kust-overlay"}
    check = failing["capa-src.4.kust-overlay"]
    assert (check["status"], check["message_key"]) == ("FAIL", "git_values_mismatch")
    assert check["found"] == {"resources": [], "namePrefix": ["prod-"], "replicas": None}


def test_helm_values_that_are_not_mappings(state):
    """Helm reads values.yaml too: the chart does not render, in Argo CD either."""
    state.repo.tree["charts/web/values.yaml"] = "- just\n- a list\n"
    failing = not_passing(state)
    assert set(failing) == {"capa-src.1.chart-values", "capa-src.1.template-configmap",
                            "capa-src.1.template-deployment"}
    assert failing["capa-src.1.chart-values"]["message_key"] == "git_file_invalid"
    assert failing["capa-src.1.template-configmap"]["message"] == (
        "`helm template` of charts/web at bare main fails, as it fails in Argo CD: Error: cannot load values.yaml: "
        "cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array "
        "into Go value of type map[string]interface {}")


def test_hook_created_of_the_wrong_type_or_format_is_named_not_called_another_time(state):
    """The live hook Job check says what is wrong with hook_created (as waves-times does) instead
    of "expected <that value>, found <the Job's time>" for what may be the same instant (found by
    a plane mutation: Unix seconds of the right instant)."""
    hook = state.cluster.find("waves_jobs", state.files["waves.json"].data["hook_job"])
    created = hook["metadata"]["creationTimestamp"]
    unix = int(parse_time(created).timestamp())
    edit_json(state, "waves.json", hook_created=unix)
    failing = not_passing(state)
    message = f"waves.json hook_created: the JSON type must be string, found number ({unix})"
    assert {cid: c["message"] for cid, c in failing.items()} == {
        "capa-src.5.waves-times": message, "capa-src.5.live-hook-job": message}
    edit_json(state, "waves.json", hook_created=created.replace("T", " ").replace("Z", ""))
    failing = not_passing(state)
    assert set(failing) == {"capa-src.5.waves-times", "capa-src.5.live-hook-job"}
    assert failing["capa-src.5.live-hook-job"]["message"] == (
        f"waves.json hook_created \"{created.replace('T', ' ').replace('Z', '')}\" is not an RFC 3339 timestamp with a time zone")
    assert failing["capa-src.5.live-hook-job"]["message_key"] == "not_rfc3339"


def test_times_in_another_offset_are_the_same_instants(state):
    hook = state.cluster.find("waves_jobs", state.files["waves.json"].data["hook_job"])
    settings = state.cluster.find("waves_configmaps", "settings")
    in_tokyo = {key: parse_time(obj["metadata"]["creationTimestamp"]).astimezone(
        datetime.timezone(datetime.timedelta(hours=9))).isoformat()
        for key, obj in (("hook_created", hook), ("settings_created", settings))}
    edit_json(state, "waves.json", **in_tokyo)
    assert not_passing(state) == {}


def test_recorded_value_the_live_cluster_disagrees_with_is_shown_as_json(state):
    state.cluster.find("helm_configmaps", "src-helm-greeting")["data"]["greeting"] = "from-values-object"
    failing = not_passing(state)
    assert failing["capa-src.2.precedence-greeting"]["message"] == (
        'precedence.json greeting: you recorded "from-parameter", but the live cluster shows "from-values-object" '
        '(expected "from-parameter")')


def drifted_helm_app(state, self_heal):
    """A live edit to what src-helm synced (`kubectl edit configmap src-helm-greeting`): Argo CD
    compares and shows OutOfSync; its last operation Succeeded at an earlier commit of main (later
    commits did not touch charts/web)."""
    app = live_app(state, "src-helm")
    app["spec"]["syncPolicy"]["automated"]["selfHeal"] = self_heal
    app["status"]["sync"]["status"] = "OutOfSync"
    assert app["status"]["operationState"]["syncResult"]["revision"] != app["status"]["sync"]["revision"]


def test_live_drift_that_self_heal_will_sync_back_is_pending(state):
    """Argo CD's selfHeal syncs it back after its backoff (checks/argocd.py self_heal_due; observed
    on the plane for cgoa-ci, tests/controlplane/mutations_cgoa_ci.py)."""
    drifted_helm_app(state, self_heal=True)
    assert {cid: (c["status"], c["message"]) for cid, c in not_passing(state).items()} == {
        "capa-src.1.live-app-status": ("PENDING", "Application src-helm is OutOfSync with a live change that selfHeal "
                                       "will sync back after its backoff (by default at most 5 minutes); not final yet")}


def test_live_drift_without_self_heal_fails(state):
    drifted_helm_app(state, self_heal=False)
    assert {cid: (c["status"], c["message"]) for cid, c in not_passing(state).items()} == {
        "capa-src.1.live-app-status": ("FAIL", "Application src-helm is OutOfSync / Healthy, expected Synced / Healthy")}
