"""capa-drift's checks, each passing on the golden world and failing with its exact English
message on a world or a state changed for it; its catalogue and what its checks say free of
English sentences in ja and ko (the word tests' own rules); the shared pieces it added
(AppProject rules, changed paths, self-heal backoff). Its worlds grade as they expect in
tests/grader/test_every_lab.py, as every registered lab's do."""

from __future__ import annotations

import copy
import json
import subprocess
import time

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import capa_drift

from tests.conftest import WORLDS
from tests.grader.conftest import collect_host, host_collector

LAB = capa_drift.lab
LAB_ID = LAB.id


def graded(fake_api, world):
    host = fake_api.world(world)
    result = grade(LAB, host_collector(host, LAB_ID), "en", settle_seconds=0)
    checks = {c["check"]: c for s in result["steps"] for c in s["checks"]}
    assert sorted(checks) == sorted(check.id for check in LAB.checks)
    return host, checks


# -------------------------------------------------------------------- each check, on the golden state
COMMITS = ("layout", "prune-rm", "health-bad", "health-revert", "hpa", "hpa-fix", "svc-a", "svc-b", "project", "fence")


@pytest.fixture(scope="module")
def golden_drift(fake_api):
    return collect_host(fake_api.world(f"{LAB_ID}/golden.yaml"), LAB_ID)


@pytest.fixture
def state(golden_drift):
    return copy.deepcopy(golden_drift)


def sha(state, commit):
    """The full SHA of the golden world's commit `commit` (commits are made in time order)."""
    return dict(zip(COMMITS, reversed(state.repo.order), strict=True))[commit]


def live(state, name):
    """The live Application as the reading holds it (changing it changes what the checks see)."""
    return next(a for a in state.cluster.snapshot.reads["applications"] if a["metadata"]["name"] == name)


def evidence(state, file):
    return state.files[file].data


def verdict(state, check_id):
    checks = {c["check"]: c for c in LAB.judge(state, "en")}
    return checks[f"{LAB_ID}.{check_id}"]


def fails(state, check_id, message):
    found = verdict(state, check_id)
    assert (found["status"], found["message"]) == ("FAIL", message)


def test_the_golden_state_passes_every_check(state):
    assert {c["check"]: c["message"] for c in LAB.judge(state, "en") if c["status"] != "PASS"} == {}


def test_a_changed_baseline_commit_fails(state):
    layout = sha(state, "layout")
    text = state.repo.history[layout]["oneway/web.yaml"]
    state.repo.history[layout]["oneway/web.yaml"] = text.replace("replicas: 2", "replicas: 3")
    fails(state, "1.oneway-commit", f"the first commit adding oneway/web.yaml ({layout[:7]}) differs: expected "
          '{"replicas": 2, "image": "nginx:1.27-alpine"}, found {"replicas": 3, "image": "nginx:1.27-alpine"}')


def test_recorded_oneway_values_must_be_the_live_ones(state):
    evidence(state, "oneway.json")["git_replicas"] = 5
    fails(state, "1.oneway-evidence", 'oneway.json: expected {"git_replicas": 2}, found {"git_replicas": 5}')


def test_a_scale_undone_by_hand_is_no_drift(state):
    next(d for d in state.cluster.snapshot.reads.values()
         if isinstance(d, dict) and d.get("metadata", {}).get("namespace") == "drift-oneway")["spec"]["replicas"] = 2
    fails(state, "1.drift-live", 'Application drift-oneway does not show a drift by hand: expected {"sync": "OutOfSync", '
          '"health": "Healthy", "web": "OutOfSync", "live_replicas": "≠ 2", "git_replicas": 2}, found {"sync": '
          '"OutOfSync", "health": "Healthy", "web": "OutOfSync", "live_replicas": 2, "git_replicas": 2}')


def test_kubectls_scale_entry_without_a_time_is_the_hand_scale(state):
    """`kubectl scale` leaves `{manager: kubectl, subresource: scale}` with no `time` (observed on
    the plane, docs/argocd-observations.md): the golden world holds it so; it was a FAIL before."""
    web = state.cluster.snapshot.reads["oneway_web"]
    entry = next(e for e in web["metadata"]["managedFields"] if e["manager"] == "kubectl")
    assert (entry["subresource"], "time" in entry) == ("scale", False)
    assert verdict(state, "1.drift-by-hand")["status"] == "PASS"


def test_a_replicas_owner_older_than_the_sync_is_not_the_scale(state):
    web = state.cluster.snapshot.reads["oneway_web"]
    next(e for e in web["metadata"]["managedFields"] if e["manager"] == "kubectl")["time"] = "2026-12-02T09:00:00Z"
    fails(state, "1.drift-by-hand", 'Application drift-oneway: expected one sync (the creation sync) and replicas set by '
          'hand after it, found {"history": 1, "operation": "creation-sync", "replicas_owner": null}')


def test_heal_evidence_of_another_operation_fails(state):
    evidence(state, "heal.json")["operation_started_at"] = "2026-12-02T09:02:05Z"
    fails(state, "2.heal-evidence", 'heal.json: expected {"operation_started_at": "2026-12-02T09:10:01Z"}, found '
          '{"operation_started_at": "2026-12-02T09:02:05Z"}')


def test_heal_times_of_another_revert_fail(state):
    evidence(state, "heal.json")["reverted_at"] += 120
    fails(state, "2.heal-evidence", 'heal.json times belong to another revert: expected {"changed_at": "≤ 1796202601", '
          '"reverted_at": "≈ 1796202602"}, found {"changed_at": 1796202600, "reverted_at": 1796202723} (this heal started '
          '2026-12-02T09:10:01Z, finished 2026-12-02T09:10:02Z)')


def test_a_change_older_than_the_backoff_fails_the_timing(state):
    evidence(state, "heal.json")["changed_at"] -= 400
    fails(state, "2.heal-timing", "the heal started 401 s after changed_at; attempt 1 waits at most 10 s: the times are of "
          "another change")


def test_the_backoff_of_each_attempt():
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import self_heal_wait
    # observed on the plane (docs/argocd-observations.md capa-drift §2): 0, 2, 6, 18, 54, 162, then 300 s
    assert [self_heal_wait(count) for count in range(1, 10)] == [0, 2, 6, 18, 54, 162, 300, 300, 300]
    assert self_heal_wait(None) == 0


def test_a_kubectl_owner_left_after_the_heal_fails(state):
    web = state.cluster.snapshot.reads["heal_web"]
    web["metadata"]["managedFields"].append({"manager": "kubectl", "operation": "Update", "subresource": "scale",
                                             "time": "2026-12-02T09:12:00Z", "fieldsV1": {"f:spec": {"f:replicas": {}}}})
    fails(state, "2.heal-managed-fields", 'managedFields of web (spec.replicas): expected {"argocd-controller": '
          '"≥ 1796202601", "other_owners": null}, found {"argocd-controller": 1796202602, "other_owners": ["kubectl"]}')


def test_a_live_change_selfheal_will_revert_is_pending_not_failed(state):
    state.cluster.snapshot.reads["heal_web"]["spec"]["replicas"] = 5
    app = live(state, "drift-heal")
    app["status"]["sync"]["status"] = "OutOfSync"
    app["status"]["resources"][0]["status"] = "OutOfSync"
    assert verdict(state, "2.live-equals-git")["status"] == "PENDING"
    app["status"]["operationState"]["phase"] = "Failed"
    fails(state, "2.live-equals-git", 'Application drift-heal: web differs from git at the synced revision: expected '
          '{"replicas": 2, "image": ["nginx:1.27-alpine"], "sync": "Synced"}, found {"replicas": 5, "image": '
          '["nginx:1.27-alpine"], "sync": "OutOfSync"}')


def test_a_removal_commit_must_remove_extra(state):
    layout = sha(state, "layout")
    evidence(state, "prune.json")["removed_in"] = layout
    fails(state, "3.removal-commit", f'commit {layout[:7]} does not remove ConfigMap extra (present in its parent / in it: '
          '{"parent": false, "commit": true})')


def test_prune_evidence_written_after_the_prune_fails(state):
    evidence(state, "prune.json")["observed_at"] += 600
    removal = sha(state, "prune-rm")
    fails(state, "3.evidence-before-prune", f"prune.json observed_at 1796203860 is not between commit {removal[:7]} and the "
          'first sync of it or a later commit ({"after": 1796203200, "before": 1796203490})')


def test_a_prune_just_switched_on_is_pending(state):
    app = live(state, "drift-prune")
    state.cluster.snapshot.reads["prune_configmaps"].append({"metadata": {"name": "extra", "namespace": "drift-prune"}})
    app["status"]["sync"]["status"] = "OutOfSync"
    assert verdict(state, "3.live-pruned")["status"] == "FAIL"
    app["metadata"]["managedFields"][0]["time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(state.now - 30))
    assert verdict(state, "3.live-pruned")["status"] == "PENDING"


def test_the_bad_commit_must_be_unschedulable(state):
    revert = sha(state, "health-revert")
    evidence(state, "health.json")["revision"] = revert
    fails(state, "4.bad-commit", f"commit {revert[:7]} is not a rollout no node can take after a schedulable one: expected "
          '{"progressDeadlineSeconds": "integer", "schedulable": false, "parent_schedulable": true}, found '
          '{"progressDeadlineSeconds": null, "nodeSelector": null, "schedulable": true, "parent_schedulable": false}')


def test_a_node_with_the_label_makes_the_commit_schedulable(state):
    node = state.cluster.snapshot.reads["nodes"][0]
    node["metadata"]["labels"]["drift.example.com/never"] = "true"
    assert verdict(state, "4.bad-commit")["message_key"] == "health_bad_wrong"


def test_a_bad_commit_never_synced_fails(state):
    app = live(state, "drift-health")
    app["status"]["history"] = [e for e in app["status"]["history"] if e["id"] != 1]
    bad = sha(state, "health-bad")
    fails(state, "4.bad-synced", f'status.history of drift-health has no bad commit (["{bad[:7]}"]); found '
          f'["{sha(state, "prune-rm")[:7]}", "{sha(state, "health-revert")[:7]}"]')


def test_a_fix_never_synced_fails(state):
    app = live(state, "drift-health")
    app["status"]["history"] = app["status"]["history"][:2]
    fails(state, "4.fix-commit", 'the bad rollout of drift-health is not fixed through git: expected {"head_schedulable": '
          f'true, "bad_without_synced_fix": null}}, found {{"head_schedulable": true, "bad_without_synced_fix": '
          f'["{sha(state, "health-bad")[:7]}"]}}')


def test_degraded_after_far_from_the_deadline_fails(state):
    evidence(state, "health.json")["degraded_after"] = 600
    fails(state, "4.degraded-evidence", 'health.json degraded_after 600: with progressDeadlineSeconds 60, expected "55..180"')


def test_a_degraded_health_app_fails(state):
    live(state, "drift-health")["status"]["health"]["status"] = "Degraded"
    fails(state, "4.live-healthy", "Application drift-health is Synced / Degraded, expected Synced / Healthy")


def test_a_fight_never_synced_fails(state):
    app = live(state, "drift-hpa")
    app["status"]["history"] = app["status"]["history"][1:]
    fails(state, "5.fight-commit", "no commit synced by drift-hpa sets replicas below the HPA's minReplicas (commits that "
          f'do: ["{sha(state, "hpa")[:7]}"])')


def test_rescales_beyond_the_event_count_fail(state):
    evidence(state, "hpa.json")["rescales"] = 20
    fails(state, "5.fight-evidence", 'hpa.json rescales 20: expected "2..9" (the HPA\'s SuccessfulRescale count)')


def test_a_lowered_min_replicas_is_not_the_live_one(state):
    evidence(state, "hpa.json")["min_replicas"] = 1
    fails(state, "5.fight-evidence", "hpa.json min_replicas: expected 3, found 1")


def test_ignore_differences_with_respect_is_the_other_fix(state):
    evidence(state, "hpa.json")["fix"] = "ignore-differences"
    app = live(state, "drift-hpa")
    fails(state, "5.fight-ended", 'hpa.json fix ignore-differences is not in force: {"replicas-removed": true, '
          '"ignore-differences": false}')
    app["spec"]["ignoreDifferences"] = [{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}]
    app["spec"]["syncPolicy"]["syncOptions"].append("RespectIgnoreDifferences=true")
    assert verdict(state, "5.fight-ended")["status"] == "PASS"
    app["spec"]["ignoreDifferences"][0]["group"] = "apps/v1"
    assert verdict(state, "5.fight-ended")["message_key"] == "hpa_fix_missing"


def test_live_replicas_other_than_the_hpa_fail(state):
    state.cluster.snapshot.reads["hpa_web"]["spec"]["replicas"] = 1
    fails(state, "5.live-replicas", 'Application drift-hpa: expected {"replicas": 3, "sync": "Synced", "health": '
          '"Healthy / Degraded (FailedGetResourceMetric)"}, found {"replicas": 1, "desiredReplicas": 3, "sync": "Synced", '
          '"health": "Degraded"}')


def test_no_empty_cluster_ip_in_git_fails(state):
    for files in state.repo.history.values():
        if files.get("oos/svc.yaml"):
            files["oos/svc.yaml"] = files["oos/svc.yaml"].replace('  clusterIP: ""\n', "")
    fails(state, "6.oos-in-git", 'no commit on bare main has Service web with clusterIP "" in oos/svc.yaml')


def test_another_resource_in_diff_fails(state):
    evidence(state, "diff.json")["name"] = "api"
    fails(state, "6.diff-evidence", 'diff.json: expected {"kind": "Service", "name": "web", "namespace": "drift-oos", '
          '"field": "/spec/clusterIP"}, found {"kind": "Service", "name": "api", "namespace": "drift-oos", '
          '"field": "/spec/clusterIP"}')


def test_removing_cluster_ip_from_git_is_the_other_fix(state):
    evidence(state, "diff.json")["fix"] = "removed-from-git"
    fails(state, "6.cleared", 'diff.json fix removed-from-git is not in force: {"ignore-differences": true, '
          '"removed-from-git": false, "explicit-in-git": false}')
    head = state.repo.head
    state.repo.tree["oos/svc.yaml"] = state.repo.history[head]["oos/svc.yaml"].replace('  clusterIP: ""\n', "")
    state.repo.history[head]["oos/svc.yaml"] = state.repo.tree["oos/svc.yaml"]
    assert verdict(state, "6.cleared")["status"] == "PASS"


def test_a_rule_with_kind_service_in_lower_case_ignores_nothing(state):
    live(state, "drift-oos")["spec"]["ignoreDifferences"][0]["kind"] = "service"
    assert verdict(state, "6.cleared")["message_key"] == "oos_fix_missing"


def test_one_out_of_sync_resource_fails(state):
    app = live(state, "drift-oos")
    app["status"]["sync"]["status"] = "OutOfSync"
    app["status"]["resources"][0]["status"] = "OutOfSync"
    fails(state, "6.all-synced", 'Application drift-oos: expected {"sync": "Synced", "not_synced": null}, found {"sync": '
          '"OutOfSync", "not_synced": ["Service/web"]}')


def test_a_service_commit_with_other_changes_fails(state):
    added = sha(state, "svc-b")
    state.repo.changed[added] = (*state.repo.changed[added], "oos/web.yaml")
    fails(state, "7.one-commit-service", f"commit {added[:7]} is not one commit adding the service: expected "
          '{"adds": "apps/svc-b.yaml", "also": "services/b/", "nothing_else": true}, found {"adds": "apps/svc-b.yaml", '
          '"also": true, "other_paths": ["oos/web.yaml"]}')


def test_a_root_without_its_child_fails(state):
    app = live(state, "drift-root")
    app["status"]["resources"] = [r for r in app["status"]["resources"] if r["name"] != "drift-svc-b"]
    fails(state, "7.root-resources", 'Application drift-root: expected {"sync": "Synced", "drift-svc-a": "Synced", '
          '"drift-svc-b": "Synced"} in its status, found {"sync": "Synced", "drift-svc-a": "Synced", "drift-svc-b": null}')


def test_a_degraded_child_fails(state):
    live(state, "drift-svc-b")["status"]["health"]["status"] = "Degraded"
    fails(state, "7.children-synced-healthy", "Application drift-svc-b is Synced / Degraded, expected Synced / Healthy")


def test_a_copied_tracking_id_must_be_the_live_one(state):
    evidence(state, "apps.json")["tracking_id"] = "drift-svc-b"
    fails(state, "7.apps-evidence", 'apps.json tracking_id: expected "drift-root:argoproj.io/Application:argocd/drift-svc-b", '
          'found "drift-svc-b"')


def test_an_empty_namespace_whitelist_refuses_every_namespaced_kind(state):
    state.cluster.snapshot.reads["project"]["spec"]["namespaceResourceWhitelist"] = []
    fails(state, "8.project-kinds", "AppProject drift, evaluated with Argo CD's rules: expected {\"/ConfigMap\": true, "
          '"apps/Deployment": true, "/Service": true}, found {"/ConfigMap": false, "apps/Deployment": false, '
          '"/Service": false}')


def test_a_star_destination_admits_kube_system(state):
    state.cluster.snapshot.reads["project"]["spec"]["destinations"][0]["namespace"] = "*"
    fails(state, "8.project-destinations", "AppProject drift, evaluated with Argo CD's rules: expected {\"kube-system\": "
          'false, "kube-public": false, "default": false, "argocd": false, "driftwood": false}, found {"kube-system": '
          'true, "kube-public": true, "default": true, "argocd": true, "driftwood": true}')


def test_a_child_left_in_default_fails(state):
    live(state, "drift-svc-a")["spec"]["project"] = "default"
    fails(state, "8.children-in-project", 'drift-svc-a are not in project drift both live and in git: {"drift-svc-a": '
          '{"live": "default", "git": "drift"}}')


def test_a_destination_child_without_its_condition_fails(state):
    live(state, "drift-fence-ns")["status"]["conditions"] = []
    fails(state, "8.destination-refused", "Application drift-fence-ns is not refused for its destination: expected "
          '{"condition": "do not match any of the allowed destinations in project \'drift\'", "operation": null}, found '
          '{"namespace_permitted": false, "condition": null, "operation": null}')


def test_a_created_cluster_role_fails_the_kind_fence(state):
    state.cluster.snapshot.reads["fence_clusterrole"] = {"metadata": {"name": "drift-fence-reader"}}
    assert verdict(state, "8.kind-refused")["message_key"] == "fence_kind_not_refused"


def test_a_kind_message_of_another_refusal_fails(state):
    evidence(state, "fence.json")["kind_message"] = "resource :Namespace is not permitted in project drift"
    assert verdict(state, "8.kind-refused")["message_key"] == "value_mismatch"


def test_a_fence_child_made_by_hand_fails(state):
    del live(state, "drift-fence-kind")["metadata"]["annotations"]
    fails(state, "8.fence-by-argocd", 'drift-fence-kind must stay in apps/ and be created by drift-root: '
          '{"untracked": ["drift-fence-kind"], "not_in_apps": null}')


# -------------------------------------------------------------------- the shared pieces capa-drift added
@pytest.mark.parametrize(("pattern", "value", "separators", "matches"), [
    # util/glob/glob_test.go Test_Match
    ("hello", "hello", "", True), ("hell", "hello", "", False), ("h*", "hello", "", True), ("hi*", "hello", "", False),
    ("e[[a*", "e[[a*", "", False),  # a pattern that does not compile matches nothing
    # what the lab's project meets: globs, not regular expressions
    ("drift-*", "drift-svc-a", "", True), ("drift-*", "driftwood", "", False), ("drift*", "driftwood", "", True),
    ("drift-?", "drift-a", "", True), ("{a,b}-svc", "b-svc", "", True), ("[!k]*", "kube-system", "", False),
    ("drift.*", "driftXsvc", "", False),
    # sourceRepos use "/" as separator: * stays within one path segment, ** crosses them
    ("git://host:9418/*", "git://host:9418/drift", "/", True), ("git://host:9418/*", "git://host:9418/a/b", "/", False),
    ("git://host:9418/**", "git://host:9418/a/b", "/", True),
])
def test_gobwas_glob_as_argo_cd_matches(pattern, value, separators, matches):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.appproject import glob_match
    assert glob_match(pattern, value, separators) is matches


def project(**spec):
    return {"spec": spec}


def test_destinations_as_argo_cd_permits_them():
    """app_project_types.go isDestinationMatched (cases after app_project_types_test.go)."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.appproject import destination_permitted
    server = "https://kubernetes.default.svc"
    fence = project(destinations=[{"namespace": "drift-*", "server": server}])
    assert destination_permitted(fence, server, "drift-svc-a") is True
    assert destination_permitted(fence, server, "kube-system") is False
    assert destination_permitted(fence, "https://other:6443", "drift-svc-a") is False
    by_name = project(destinations=[{"namespace": "*", "name": "in-cluster"}])
    assert destination_permitted(by_name, server, "kube-system", "in-cluster") is True
    deny = project(destinations=[{"namespace": "*", "server": "*"}, {"namespace": "!kube-system", "server": "*"}])
    assert destination_permitted(deny, server, "default") is True
    assert destination_permitted(deny, server, "kube-system") is False
    assert destination_permitted(project(), server, "default") is False


def test_sources_as_argo_cd_permits_them():
    """IsSourcePermitted: URLs normalised (lower case, no .git), "/" separates, a deny entry refuses."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.appproject import source_permitted
    gitd = project(sourceRepos=["git://gitd.gitsrv.svc.cluster.local:9418/*"])
    assert source_permitted(gitd, "git://gitd.gitsrv.svc.cluster.local:9418/drift.git") is True
    assert source_permitted(gitd, "GIT://gitd.gitsrv.svc.cluster.local:9418/Drift.git") is True
    assert source_permitted(gitd, "https://github.com/example/other.git") is False
    assert source_permitted(project(sourceRepos=["*"]), "https://github.com/example/other.git") is True
    denied = project(sourceRepos=["*", "!https://github.com/example/*"])
    assert source_permitted(denied, "https://github.com/example/other.git") is False
    assert source_permitted(denied, "https://gitlab.com/x/y.git") is True


@pytest.mark.parametrize(("spec", "namespace_kinds", "cluster_kinds"), [
    ({}, True, False),  # absent: every namespaced kind, no cluster-scoped one
    ({"clusterResourceWhitelist": []}, True, False),  # [] is the same as absent for cluster kinds
    ({"namespaceResourceWhitelist": []}, False, False),  # [] allows no namespaced kind
    ({"clusterResourceWhitelist": [{"group": "*", "kind": "*"}]}, True, True),
    ({"clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
      "clusterResourceBlacklist": [{"group": "rbac.authorization.k8s.io", "kind": "Cluster*"}]}, True, "Namespace only"),
])
def test_kinds_as_argo_cd_permits_them(spec, namespace_kinds, cluster_kinds):
    """IsGroupKindPermitted, kinds and groups compared with filepath.Match."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.appproject import group_kind_permitted
    found = project(**spec)
    assert group_kind_permitted(found, "", "ConfigMap", True) is namespace_kinds
    assert group_kind_permitted(found, "apps", "Deployment", True) is namespace_kinds
    assert group_kind_permitted(found, "", "Namespace", False) is bool(cluster_kinds)
    assert group_kind_permitted(found, "rbac.authorization.k8s.io", "ClusterRole", False) is (cluster_kinds is True)


def test_filepath_match_keeps_slashes_and_classes():
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.appproject import filepath_match
    assert filepath_match("Cluster*", "ClusterRole") and not filepath_match("cluster*", "ClusterRole")
    assert not filepath_match("*", "a/b") and filepath_match("[^a]pps", "xpps") and not filepath_match("[", "[")


def test_ignore_rules_match_group_and_kind_as_globs():
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import ignore_rule_covers
    rule = {"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}
    assert ignore_rule_covers(rule, "apps", "Deployment", "web", "ns", "/spec/replicas")
    assert ignore_rule_covers({**rule, "kind": "*"}, "apps", "Deployment", "web", "ns", "/spec/replicas")
    assert not ignore_rule_covers({**rule, "kind": "deployment"}, "apps", "Deployment", "web", "ns", "/spec/replicas")
    assert not ignore_rule_covers({**rule, "group": "apps/v1"}, "apps", "Deployment", "web", "ns", "/spec/replicas")
    assert not ignore_rule_covers({**rule, "jsonPointers": [".spec.replicas"]}, "apps", "Deployment", "web", "ns",
                                  "/spec/replicas")
    jq = {"group": "apps", "kind": "Deployment", "jqPathExpressions": [".spec.replicas"]}
    assert ignore_rule_covers(jq, "apps", "Deployment", "web", "ns", "/spec/replicas")
    assert ignore_rule_covers({"group": "", "kind": "Service", "jsonPointers": ["/spec/clusterIP"]}, "", "Service", "web",
                              "ns", "/spec/clusterIP")


def git(cwd, *args):
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def test_the_paths_each_commit_changes(tmp_path):
    """collect_repo(changed_paths=True): every commit's paths against its first parent, a merge's too."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.gitstate import collect_repo
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    (work / "a.yaml").write_text("a\n")
    git(work, "add", ".")
    git(work, "commit", "-qm", "a")
    git(work, "checkout", "-qb", "side")
    (work / "apps").mkdir()
    (work / "apps" / "b.yaml").write_text("b\n")
    git(work, "add", ".")
    git(work, "commit", "-qm", "b")
    side = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "-q", "main")
    git(work, "mv", "a.yaml", "c.yaml")
    git(work, "commit", "-qm", "c")
    renamed = git(work, "rev-parse", "HEAD")
    git(work, "merge", "-q", "--no-edit", "side")
    merge = git(work, "rev-parse", "HEAD")
    git(tmp_path, "clone", "-q", "--bare", str(work), "bare.git")
    state = collect_repo(str(tmp_path / "bare.git"), changed_paths=True)
    assert state.ok, state.detail
    assert {sha: state.changed[sha] for sha in (side, renamed, merge)} == {
        side: ("apps/b.yaml",), renamed: ("a.yaml", "c.yaml"), merge: ("apps/b.yaml",)}
    assert collect_repo(str(tmp_path / "bare.git")).changed == {}


# -------------------------------------------------------------------- words (tests/grader/test_words.py's rules)
def drift_catalogue():
    """(where, lang, template) of capa-drift's own texts: title, step titles, messages, hints."""
    from tests.grader.test_words import LANGS
    tables = {"lab title": {LAB_ID: LAB.title}, "message": LAB.messages, "hint": LAB.hints,
              "step title": {f"{LAB_ID} {step}": titles for step, titles in LAB.step_titles.items()}}
    return [(f"{name} {key}", lang, entry[lang]) for name, table in tables.items() for key, entry in table.items()
            for lang in LANGS]


def test_every_text_has_en_ja_ko():
    for table in (LAB.messages, LAB.hints, LAB.step_titles, {LAB_ID: LAB.title}):
        assert {key: sorted(entry) for key, entry in table.items() if sorted(entry) != ["en", "ja", "ko"]} == {}


def test_no_english_sentence_in_the_drift_catalogue():
    from tests.grader.test_words import MARK, fields, findings
    texts = [(where, lang, template.format_map(dict.fromkeys(fields(template), MARK)))
             for where, lang, template in drift_catalogue()]
    assert findings(texts) == []


def test_no_english_sentence_in_what_the_drift_checks_say(fake_api):
    from tests.grader.test_words import checked_texts, findings
    graded_checks = []
    for path in sorted((WORLDS / LAB_ID).glob("*.yaml")):
        state = collect_host(fake_api.world(f"{LAB_ID}/{path.name}"), LAB_ID)
        graded_checks += [(path.name, check) for check in LAB.judge(state, "en")]
    assert findings(checked_texts(graded_checks)) == []


def test_drift_japanese_and_korean_conventions():
    """Full-width parentheses in Japanese prose, 기댓값 and "N단계" in Korean."""
    import re
    texts = drift_catalogue()
    assert [w for w, lang, t in texts if lang == "ja" and re.search(r"[()]", re.sub(r"`[^`]*`", "", t))] == []
    assert [w for w, lang, t in texts if lang == "ko" and ("기대값" in t or re.search(r"단계\s*(?:\{[a-z_]+\}|\d)", t))] == []


def test_a_commit_argo_cd_has_not_read_yet_is_pending(state):
    """A fix pushed seconds ago: Argo CD still compares the commit before it (not final yet)."""
    app = live(state, "drift-health")
    app["status"]["history"] = app["status"]["history"][:2]
    fails(state, "4.fix-commit", 'the bad rollout of drift-health is not fixed through git: expected {"head_schedulable": '
          f'true, "bad_without_synced_fix": null}}, found {{"head_schedulable": true, "bad_without_synced_fix": '
          f'["{sha(state, "health-bad")[:7]}"]}}')
    app["status"]["sync"]["revision"] = sha(state, "project")
    state.repo.commits[state.repo.head]["time"] = int(state.now) - 30
    found = verdict(state, "4.fix-commit")
    assert (found["status"], found["message_key"]) == ("PENDING", "app_not_polled_yet")


def test_odd_manifests_in_git_are_judged_not_a_grader_error(state):
    """What a learner commits may be any YAML: an HPA whose scaleTargetRef is a number, a Service
    whose spec is a number (the grader failed on both before)."""
    head = state.repo.head
    state.repo.history[head]["hpa/hpa.yaml"] = "kind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {scaleTargetRef: 5}\n"
    state.repo.tree["oos/svc.yaml"] = state.repo.history[head]["oos/svc.yaml"] = "kind: Service\nmetadata: {name: web}\nspec: 7\n"
    evidence(state, "diff.json")["fix"] = "removed-from-git"
    checks = {c["check"]: c for c in LAB.judge(state, "en")}
    assert {cid: c["status"] for cid, c in checks.items() if c["status"] == "ERROR"} == {}
    assert checks[f"{LAB_ID}.6.cleared"]["message_key"] == "oos_fix_missing"


def test_grading_reads_only_with_14_gets(fake_api):
    """One reading of a solved learner: the 14 GET requests of reads.py, nothing written."""
    host, _ = graded(fake_api, f"{LAB_ID}/golden.yaml")
    requests = [json.loads(line) for line in (host / "requests.log").read_text().splitlines()]
    assert [r["method"] for r in requests] == ["GET"] * 14
