"""capa-drift's mistakes (the lecture's, docs/capa-drift-design.md §4), each applied to a solved
learner on the real control plane and undone afterwards: mutation -> (how, {check id: the start of
its message}). test_labs_plane.py grades each and asserts that exactly these checks flip;
docs/mutations.md is generated from this table (mutations_doc.py). A row with no checks is an
accepted variant: a different way to do it right, which must flip nothing. UNFLIPPED lists, with
the reason, every check that no mutation here flips.

Undo restores only what a mutation touched: the workspace file it edited, the Application or
AppProject it re-applied (the original file applied again), the live object it changed (put back
by Argo CD, as a learner would: a sync of the Application)."""

from __future__ import annotations

import contextlib
import json
import time

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.solution import (
    FENCE_NS,
    HEAL,
    HEALTH,
    HPA,
    ONEWAY,
    OOS,
    PROGRESS_DEADLINE_SECONDS,
    PRUNE,
    ROOT,
    SCALED_REPLICAS,
)
from cpharness import wait_until
from labflow import evidence, read_evidence, replaced

# One reading of the solved VM: the GETs of docs/capa-drift-design.md §1.
SOLVED_API_REQUESTS = 14
PROBE_RUN_NAMES = ()  # the lab runs no learner program


def wait_app(plane, name, predicate, desc, timeout=120):
    return plane.wait_app(name, predicate, desc, timeout=timeout)


@contextlib.contextmanager
def applied(plane, learner, filename, change, *flags, refresh=False, until=None):
    """The workspace file `filename` (an Application or the AppProject) changed by `change(manifest)`
    and `kubectl apply {flags}`d; `until(live)` is what Argo CD shows once it took the change in.
    Undone: the original file back and applied again, Argo CD refreshed and settled."""
    path = learner.workspace / filename
    manifest = yaml.safe_load(path.read_text(encoding="utf-8"))
    kind, name = manifest["kind"], manifest["metadata"]["name"]
    resource = "applications.argoproj.io" if kind == "Application" else "appprojects.argoproj.io"
    original_spec = plane.get(resource, name, "argocd")["spec"]
    change(manifest)
    with replaced(path, yaml.safe_dump(manifest, sort_keys=False)):
        plane.kubectl("apply", *flags, "-f", str(path))
        if refresh:
            plane.hard_refresh(name)
        if until:
            wait_app(plane, name, until, "took the mistake in")
        yield
    plane.kubectl("apply", "-f", str(path))
    assert plane.get(resource, name, "argocd")["spec"] == original_spec, (name, "spec not restored")
    if refresh:
        plane.hard_refresh(name)
    if until:
        wait_app(plane, name, lambda app: app["status"].get("sync", {}).get("status") == "Synced", "Synced again")


def sync_policy(**policy):
    """A mutation that replaces spec.syncPolicy."""
    def change(manifest):
        manifest["spec"]["syncPolicy"] = policy
    return change


def mutation_self_heal_in_sync_options(plane, learner):
    return applied(plane, learner, "app-drift-heal.yaml",
                   sync_policy(syncOptions=["CreateNamespace=true", "SelfHeal=true"]))


def mutation_automated_disabled_with_self_heal(plane, learner):
    return applied(plane, learner, "app-drift-heal.yaml",
                   sync_policy(automated={"enabled": False, "selfHeal": True}, syncOptions=["CreateNamespace=true"]))


def mutation_self_heal_beside_automated(plane, learner):
    """`syncPolicy.selfHeal`: strict `kubectl apply` refuses it; with --validate=false it is dropped."""
    return applied(plane, learner, "app-drift-heal.yaml",
                   sync_policy(automated={}, selfHeal=True, syncOptions=["CreateNamespace=true"]), "--validate=false")


def mutation_prune_beside_automated(plane, learner):
    return applied(plane, learner, "app-drift-prune.yaml",
                   sync_policy(automated={}, prune=True, syncOptions=["CreateNamespace=true"]), "--validate=false")


def mutation_prune_in_sync_options(plane, learner):
    return applied(plane, learner, "app-drift-prune.yaml",
                   sync_policy(automated={}, syncOptions=["CreateNamespace=true", "Prune=true"]))


def mutation_self_heal_on_drift_health(plane, learner):
    """Accepted: selfHeal on the app of step 4 changes nothing once the fix went through git."""
    return applied(plane, learner, "app-drift-health.yaml",
                   sync_policy(automated={"selfHeal": True}, syncOptions=["CreateNamespace=true"]))


def mutation_health_without_automated(plane, learner):
    return applied(plane, learner, "app-drift-health.yaml", sync_policy(syncOptions=["CreateNamespace=true"]))


def mutation_hpa_without_self_heal(plane, learner):
    """selfHeal off once the fight ended: Argo CD would leave a later hand change of drift-hpa."""
    return applied(plane, learner, "app-drift-hpa.yaml", sync_policy(automated={}, syncOptions=["CreateNamespace=true"]))


def mutation_oos_without_automated(plane, learner):
    return applied(plane, learner, "app-drift-oos.yaml", sync_policy(syncOptions=["CreateNamespace=true"]))


def mutation_root_without_automated(plane, learner):
    return applied(plane, learner, "app-drift-root.yaml", sync_policy())


def mutation_oneway_file_tracks_main(plane, learner):
    """app-drift-oneway.yaml says `main` (never applied: applied, its next sync would erase the drift)."""
    path = learner.workspace / "app-drift-oneway.yaml"
    manifest = yaml.safe_load(path.read_text(encoding="utf-8"))
    manifest["spec"]["source"]["targetRevision"] = "main"
    return replaced(path, yaml.safe_dump(manifest, sort_keys=False))


def oos_ignore(**rule):
    def change(manifest):
        manifest["spec"]["ignoreDifferences"] = [{"group": "", "kind": "Service", "jsonPointers": ["/spec/clusterIP"],
                                                  **rule}]
    return change


def out_of_sync(app):
    return app.get("status", {}).get("sync", {}).get("status") == "OutOfSync"


def mutation_ignore_rule_kind_lowercase(plane, learner):
    return applied(plane, learner, "app-drift-oos.yaml", oos_ignore(kind="service"), refresh=True, until=out_of_sync)


def project_change(**spec):
    def change(manifest):
        manifest["spec"].update(spec)
    return change


def project_without_cluster_whitelist(manifest):
    manifest["spec"].pop("clusterResourceWhitelist")


def mutation_project_destination_drift_star(plane, learner):
    return applied(plane, learner, "project-drift.yaml", project_change(
        destinations=[{"namespace": "drift*", "server": "https://kubernetes.default.svc"}]))


@contextlib.contextmanager
def mutation_project_any_namespace(plane, learner):
    """Destination namespace `*`: kube-system is admitted, and Argo CD syncs drift-fence-ns there at
    once (its operation now Succeeded). Undone as an instructor would: the project back, what it put
    in kube-system deleted, drift-fence-ns deleted and re-created by a sync of
    drift-root, refused again and never synced."""
    with applied(plane, learner, "project-drift.yaml", project_change(
            destinations=[{"namespace": "*", "server": "https://kubernetes.default.svc"}])):
        synced = wait_app(plane, FENCE_NS, lambda app: app["status"].get("operationState", {}).get("phase")
                          == "Succeeded", "synced into kube-system")
        yield
    for resource in synced["status"].get("resources") or []:
        plane.kubectl("-n", resource["namespace"], "delete", resource["kind"].lower(), resource["name"], "--ignore-not-found")
    plane.kubectl("-n", "argocd", "delete", "applications.argoproj.io", FENCE_NS, "--wait=true")
    app_sync(plane, ROOT)

    def refused_again():
        app = plane.get("applications.argoproj.io", FENCE_NS, "argocd", missing_ok=True)
        return app and any(c.get("type") == "InvalidSpecError" for c in app.get("status", {}).get("conditions") or [])
    wait_until(f"{FENCE_NS} re-created by {ROOT} and refused again", refused_again, 180)


def mutation_project_admits_namespaces(plane, learner):
    """Namespaces whitelisted: nothing of the lab creates one now, so Argo CD does nothing new."""
    return applied(plane, learner, "project-drift.yaml", project_change(
        clusterResourceWhitelist=[{"group": "", "kind": "Namespace"}]))


def mutation_project_any_source(plane, learner):
    return applied(plane, learner, "project-drift.yaml", project_change(sourceRepos=["*"]))


def mutation_project_whitelist_left_out(plane, learner):
    """Accepted: an absent clusterResourceWhitelist forbids as much as `[]` (app_project_types.go:413-416)."""
    return applied(plane, learner, "project-drift.yaml", project_without_cluster_whitelist)


@contextlib.contextmanager
def mutation_scale_undone_by_hand(plane, learner):
    """The 3 a.m. scale of drift-oneway "fixed" by scaling back to git's value by hand."""
    plane.kubectl("-n", ONEWAY, "scale", "deploy/web", "--replicas=2")
    wait_app(plane, ONEWAY, lambda app: app["status"].get("sync", {}).get("status") == "Synced", "Synced")
    try:
        yield
    finally:
        plane.kubectl("-n", ONEWAY, "scale", "deploy/web", f"--replicas={SCALED_REPLICAS}")
        wait_app(plane, ONEWAY, out_of_sync, "OutOfSync again")


def app_sync(plane, name):
    """What `argocd app sync <name>` asks for: an operation on the Application (Argo CD runs it)."""
    plane.kubectl("-n", "argocd", "patch", "applications.argoproj.io", name, "--type", "merge", "-p", json.dumps(
        {"operation": {"initiatedBy": {"username": "admin"}, "sync": {"revision": "main"}}}))


@contextlib.contextmanager
def degraded_fixed_by_scaling(plane, learner, replicas):
    """Step 4 "fixed" with `kubectl scale`. drift-health is first synced to the bare repository's
    head, as Argo CD itself does at its next periodic refresh once the head has moved past the
    app's last sync (later steps' commits): appcontroller.go alreadyAttemptedSync counts a new head
    revision as not yet attempted, so that automated sync would undo the scale during the grade
    (observed: 2.3 min after the scale). Undone by a sync of drift-health, which applies git's
    replicas as argocd-controller (the kubectl manager loses the field)."""
    app_sync(plane, HEALTH)
    wait_app(plane, HEALTH, synced_at_head(learner), "synced to the head")
    plane.kubectl("-n", HEALTH, "scale", "deploy/web", f"--replicas={replicas}")
    wait_app(plane, HEALTH, out_of_sync, "OutOfSync")
    try:
        yield
    finally:
        app_sync(plane, HEALTH)
        wait_app(plane, HEALTH, lambda app: app["status"].get("sync", {}).get("status") == "Synced"
                 and app["status"].get("health", {}).get("status") == "Healthy"
                 and app["status"].get("operationState", {}).get("phase") == "Succeeded", "synced back")


def synced_at_head(learner):
    head = learner.git("rev-parse", "origin/main").stdout.strip()

    def synced(app):
        operation = app["status"].get("operationState", {})
        return operation.get("phase") == "Succeeded" and operation.get("syncResult", {}).get("revision") == head
    return synced


def mutation_degraded_fixed_by_scaling_to_zero(plane, learner):
    return degraded_fixed_by_scaling(plane, learner, 0)


def mutation_degraded_fixed_by_scaling_to_two(plane, learner):
    return degraded_fixed_by_scaling(plane, learner, 2)


def created_sync(plane):
    return plane.app(HEAL)["status"]["history"][0]["deployStartedAt"]


def mutation_heal_evidence_of_creation_sync(plane, learner):
    return evidence(learner, "heal.json", operation_started_at=created_sync(plane))


def parent_of(learner, revision):
    return learner.git("rev-parse", f"{revision}^").stdout.strip()


def mutation_prune_evidence_of_parent(plane, learner):
    return evidence(learner, "prune.json", removed_in=parent_of(learner, read_evidence(learner, "prune.json")["removed_in"]))


def mutation_prune_evidence_after_the_prune(plane, learner):
    return evidence(learner, "prune.json", observed_at=int(time.time()))


def mutation_health_evidence_of_fix(plane, learner):
    """The revert's SHA recorded instead of the bad commit's."""
    fix = learner.git("log", "-1", "--format=%H", "--grep=^Revert", "origin/main", "--", "health/web.yaml").stdout.strip()
    return evidence(learner, "health.json", revision=fix)


def first_service_commit(learner):
    return learner.git("log", "--format=%H", "--diff-filter=A", "origin/main", "--", "apps/svc-a.yaml").stdout.split()[-1]


def mutation_apps_evidence_first_service(plane, learner):
    return evidence(learner, "apps.json", service_commit=first_service_commit(learner))


def spec_differs(step, app, difference):
    """What app-file and live-app of `step` say when the Application file and the live spec of
    `app` both have `difference` ("field: expected / found")."""
    return {f"capa-drift.{step}.app-file": f"app-{app}.yaml: fields differ (field: expected / found): {difference}",
            f"capa-drift.{step}.live-app": f"Application {app}: fields differ (field: expected / found): {difference}"}


def changed_evidence(name, **changes):
    return lambda plane, learner: evidence(learner, name, **changes)


MUTATIONS = {
    # step 1
    "the 3 a.m. scale undone by hand": (mutation_scale_undone_by_hand, {
        "capa-drift.1.drift-live": 'Application drift-oneway does not show a drift by hand: expected {"sync": "OutOfSync", '
                                   '"health": "Healthy", "web": "OutOfSync", "live_replicas": "≠ 2", "git_replicas": 2}, '
                                   'found {"sync": "Synced", "health": "Healthy", "web": "Synced", "live_replicas": 2, '
                                   '"git_replicas": 2}',
        "capa-drift.1.oneway-evidence": 'oneway.json: expected {"sync": "Synced", "live_replicas": 2}, found '
                                        '{"sync": "OutOfSync", "live_replicas": 5}'}),
    "oneway.json git_replicas copied from live": (changed_evidence("oneway.json", git_replicas=SCALED_REPLICAS), {
        "capa-drift.1.oneway-evidence": 'oneway.json: expected {"git_replicas": 2}, found {"git_replicas": 5}'}),
    'oneway.json live_replicas "5"': (changed_evidence("oneway.json", live_replicas=str(SCALED_REPLICAS)), {
        "capa-drift.1.oneway-evidence": 'oneway.json live_replicas: the JSON type must be integer, found string ("5")'}),
    "oneway.json sync recorded before the scale": (changed_evidence("oneway.json", sync="Synced"), {
        "capa-drift.1.oneway-evidence": 'oneway.json: expected {"sync": "OutOfSync"}, found {"sync": "Synced"}'}),
    "app-drift-oneway.yaml tracks main": (mutation_oneway_file_tracks_main, {
        "capa-drift.1.app-file": 'app-drift-oneway.yaml: fields differ (field: expected / found): '
                                 'spec.source.targetRevision: "<SHA: oneway/web.yaml replicas 2>" / "main"'}),
    # step 2
    "selfHeal in syncOptions instead of automated": (mutation_self_heal_in_sync_options, spec_differs(
        2, HEAL, 'spec.syncPolicy.automated: "{}" / null')),
    "automated disabled with selfHeal": (mutation_automated_disabled_with_self_heal, spec_differs(
        2, HEAL, 'spec.syncPolicy.automated: "{}" / {"enabled": false, "selfHeal": true}')),
    "syncPolicy.selfHeal beside automated (--validate=false)": (mutation_self_heal_beside_automated, spec_differs(
        2, HEAL, "spec.syncPolicy.automated.selfHeal: true / null")),
    "heal.json records the label test": (changed_evidence("heal.json", field="metadata.labels.team"), {
        "capa-drift.2.heal-evidence": 'heal.json field "metadata.labels.team": Argo CD never reverts a field git does '
                                      'not set'}),
    "heal.json operation of the creation sync": (mutation_heal_evidence_of_creation_sync, {
        "capa-drift.2.heal-evidence": 'heal.json: expected {"operation_started_at": '}),
    "heal.json change 400 s before the heal": (changed_evidence("heal.json", changed_at=lambda t: t - 400), {
        "capa-drift.2.heal-timing": "the heal started 40"}),
    # step 3
    "syncPolicy.prune beside automated (--validate=false)": (mutation_prune_beside_automated, spec_differs(
        3, PRUNE, "spec.syncPolicy.automated.prune: true / null")),
    "Prune=true in syncOptions": (mutation_prune_in_sync_options, spec_differs(
        3, PRUNE, "spec.syncPolicy.automated.prune: true / null")),
    "prune.json written after the prune": (mutation_prune_evidence_after_the_prune, {
        "capa-drift.3.evidence-before-prune": "prune.json observed_at "}),
    # The removal's parent added the ConfigMap: every check that starts from removed_in fails alike.
    "prune.json removed_in the parent commit": (mutation_prune_evidence_of_parent, dict.fromkeys(
        ("capa-drift.3.removal-commit", "capa-drift.3.evidence-before-prune", "capa-drift.3.live-pruned"),
        "commit ")),
    'prune.json requires_pruning "true"': (changed_evidence("prune.json", requires_pruning="true"), {
        "capa-drift.3.in-between-evidence": 'prune.json requires_pruning: the JSON type must be boolean, found string '
                                            '("true")'}),
    "prune.json ConfigMap already gone": (changed_evidence("prune.json", still_live=False), {
        "capa-drift.3.in-between-evidence": 'prune.json: expected {"still_live": true}, found {"still_live": false}'}),
    # step 4
    "Degraded fixed with kubectl scale --replicas=0": (mutation_degraded_fixed_by_scaling_to_zero, {
        # 4.no-kubectl-fix cannot see this one: a scale to 0 leaves no managedFields entry (the scale
        # subresource's ScaleSpec.replicas is omitempty, so the field set of kubectl's update is empty;
        # observed on the plane); the app left OutOfSync says it.
        "capa-drift.4.live-healthy": "Application drift-health is OutOfSync / Healthy, expected Synced / Healthy"}),
    "Degraded fixed with kubectl scale --replicas=2": (mutation_degraded_fixed_by_scaling_to_two, {
        "capa-drift.4.no-kubectl-fix": 'web was fixed by hand, not through git: expected {"spec_written_by": null, '
                                       '"nodeSelector": null}, found {"spec_written_by": ["kubectl"], "nodeSelector": null}',
        "capa-drift.4.live-healthy": "Application drift-health is OutOfSync / Healthy, expected Synced / Healthy"}),
    "health.json recorded Progressing": (changed_evidence("health.json", health="Progressing"), {
        "capa-drift.4.degraded-evidence": f'health.json health "Progressing": recorded before the '
                                          f'{PROGRESS_DEADLINE_SECONDS} s deadline passed; wait for Degraded'}),
    "health.json revision of the fix": (mutation_health_evidence_of_fix, dict.fromkeys(
        ("capa-drift.4.bad-commit", "capa-drift.4.degraded-evidence"), "commit ")),
    "health.json degraded after 5 s": (changed_evidence("health.json", degraded_after=5), {
        "capa-drift.4.degraded-evidence": f"health.json degraded_after 5: with progressDeadlineSeconds "
                                          f"{PROGRESS_DEADLINE_SECONDS}, expected"}),
    "selfHeal on drift-health (accepted)": (mutation_self_heal_on_drift_health, {}),
    "drift-health without automated": (mutation_health_without_automated, spec_differs(
        4, HEALTH, 'spec.syncPolicy.automated: "{}" / null')),
    # step 5
    "hpa.json fix names ignoreDifferences": (changed_evidence("hpa.json", fix="ignore-differences"), {
        "capa-drift.5.fight-ended": 'hpa.json fix ignore-differences is not in force: {"replicas-removed": true, '
                                    '"ignore-differences": false}'}),
    "hpa.json one rescale": (changed_evidence("hpa.json", rescales=1), {
        "capa-drift.5.fight-evidence": 'hpa.json rescales 1: expected "2..'}),
    "hpa.json min_replicas of git": (changed_evidence("hpa.json", min_replicas=1), {
        "capa-drift.5.fight-evidence": "hpa.json min_replicas: expected 3, found 1"}),
    "selfHeal off on drift-hpa": (mutation_hpa_without_self_heal, spec_differs(
        5, HPA, "spec.syncPolicy.automated.selfHeal: true / null")),
    # step 6
    "drift-oos without automated": (mutation_oos_without_automated, spec_differs(
        6, OOS, 'spec.syncPolicy.automated: "{}" / null')),
    "diff.json the lecture's table: the Deployment's imagePullPolicy": (changed_evidence(
        "diff.json", kind="Deployment", field="/spec/template/spec/containers/0/imagePullPolicy"), {
        "capa-drift.6.diff-evidence": "diff.json names the Deployment, but Argo CD normalises its defaults: it was "
                                      "Synced in drift-oos all along"}),
    "diff.json filled_by controller": (changed_evidence("diff.json", filled_by="controller"), {
        "capa-drift.6.filled-by": 'diff.json filled_by: expected "api-server", found "controller"'}),
    "ignoreDifferences kind: service": (mutation_ignore_rule_kind_lowercase, {
        "capa-drift.6.cleared": 'diff.json fix ignore-differences is not in force: {"ignore-differences": false, '
                                '"removed-from-git": false, "explicit-in-git": false}',
        "capa-drift.6.all-synced": 'Application drift-oos: expected {"sync": "Synced", "not_synced": null}, found '
                                   '{"sync": "OutOfSync", "not_synced": ["Service/web"]}'}),
    'diff.json fix removed-from-git while git says clusterIP ""': (changed_evidence("diff.json", fix="removed-from-git"), {
        "capa-drift.6.cleared": 'diff.json fix removed-from-git is not in force: {"ignore-differences": true, '
                                '"removed-from-git": false, "explicit-in-git": false}'}),
    # step 7
    "apps.json service_commit of svc-a": (mutation_apps_evidence_first_service, {
        "capa-drift.7.one-commit-service": "commit "}),
    "apps.json tracking_id the root's name": (changed_evidence("apps.json", tracking_id="drift-root"), {
        "capa-drift.7.apps-evidence": 'apps.json tracking_id: expected "drift-root:argoproj.io/Application:argocd/'
                                      'drift-svc-b", found "drift-root"'}),
    "drift-root without automated": (mutation_root_without_automated, spec_differs(
        7, ROOT, 'spec.syncPolicy.automated: "{}" / null')),
    # step 8
    "AppProject whitelists Namespace": (mutation_project_admits_namespaces, {
        "capa-drift.8.project-kinds": "AppProject drift, evaluated with Argo CD's rules: expected {\"/Namespace\": false}, "
                                      'found {"/Namespace": true}'}),
    "AppProject destination drift*": (mutation_project_destination_drift_star, {
        "capa-drift.8.project-destinations": "AppProject drift, evaluated with Argo CD's rules: expected "
                                              '{"driftwood": false}, found {"driftwood": true}'}),
    "AppProject destination namespace *": (mutation_project_any_namespace, {
        "capa-drift.8.project-destinations": "AppProject drift, evaluated with Argo CD's rules: expected "
                                              '{"kube-system": false, "kube-public": false, "default": false, '
                                              '"argocd": false, "driftwood": false}, found {"kube-system": true, '
                                              '"kube-public": true, "default": true, "argocd": true, "driftwood": true}',
        "capa-drift.8.destination-refused": "Application drift-fence-ns is not refused for its destination: expected "
                                            '{"condition": "do not match any of the allowed destinations in project '
                                            '\'drift\'", "operation": null}, found {"namespace_permitted": true, '
                                            '"condition": null, "operation": "Succeeded"}'}),
    "AppProject sourceRepos *": (mutation_project_any_source, {
        "capa-drift.8.project-repos": "AppProject drift, evaluated with Argo CD's rules: expected "
                                      '{"https://github.com/example/other.git": false}, found '
                                      '{"https://github.com/example/other.git": true}'}),
    "AppProject clusterResourceWhitelist left out (accepted)": (mutation_project_whitelist_left_out, {}),
    "fence.json kind_resource without its group": (changed_evidence("fence.json", kind_resource="ClusterRole"), {
        "capa-drift.8.kind-refused": "Application drift-fence-kind is not refused for a cluster-scoped kind"}),
    "fence.json destination_app the kind child": (changed_evidence("fence.json", destination_app="drift-fence-kind"), {
        "capa-drift.8.destination-refused": "Application drift-fence-kind is not refused for its destination"}),
}

REWRITE = ("needs main's history rewritten (a force-push, which the lab forbids) and Argo CD's history of every Application "
           "re-made: graded on worlds instead (tests/grader/test_capa_drift_checks.py)")
IRREVERSIBLE = ("the mistake makes Argo CD sync, which adds to status.history and replaces operationState for good: "
                "graded on worlds instead (tests/grader/test_capa_drift_checks.py)")
# Checks no mutation above flips, with the reason.
UNFLIPPED = {
    "capa-drift.1.bare-repo": "a solved VM without /srv/bare/drift.git is not a mistake: Argo CD could have deployed "
                              "nothing; the empty world grades it (tests/grader/test_every_lab.py)",
    "capa-drift.1.clone-origin": "the clone is shared with capa-src and cgoa-ci (checks/git.py repository_checks), whose "
                                 "tables flip it",
    "capa-drift.1.oneway-commit": REWRITE,
    "capa-drift.1.live-app": "drift-oneway applied with selfHeal or tracking main is synced at once, and that sync "
                             "erases the drift: " + IRREVERSIBLE,
    "capa-drift.1.drift-by-hand": IRREVERSIBLE,
    "capa-drift.2.heal-operation": "a full sync of drift-heal (a commit to heal/) replaces the heal in operationState: "
                                   + IRREVERSIBLE,
    "capa-drift.2.heal-managed-fields": "a hand change that stays needs selfHeal off, and turning it on again heals it: "
                                        "the heal's time then no longer matches heal.json; " + IRREVERSIBLE,
    "capa-drift.2.live-equals-git": "a hand change to drift-heal is healed within seconds (PENDING while it waits); a "
                                    "lasting one needs selfHeal off, which 2.live-app's mutations already show",
    "capa-drift.4.bad-synced": REWRITE,
    "capa-drift.4.fix-commit": REWRITE,
    "capa-drift.5.fight-commit": REWRITE,
    "capa-drift.5.live-replicas": "replicas back in git restart the fight, and ending it again takes a commit, two HPA "
                                  "rounds and the selfHeal backoff (minutes of plane time); " + IRREVERSIBLE,
    "capa-drift.6.oos-in-git": REWRITE,
    "capa-drift.7.children-tracked": "a child made with kubectl apply instead of the root gets a new uid and keeps "
                                     "kubectl's managedFields: " + IRREVERSIBLE,
    "capa-drift.7.children-not-by-hand": "as 7.children-tracked: a child re-made by hand cannot be given back",
    "capa-drift.7.root-resources": "as 7.children-tracked: the root would have to re-create a deleted child by a sync",
    "capa-drift.7.children-synced-healthy": "a child's ConfigMap changed by hand stays OutOfSync until a sync of the "
                                            "child, which adds to its history: " + IRREVERSIBLE,
    "capa-drift.8.children-in-project": "children moved back to project default let Argo CD sync the fence children "
                                        "(a ConfigMap in kube-system, the ClusterRole): " + IRREVERSIBLE,
    "capa-drift.8.fence-by-argocd": "a fence child removed from apps/ is left by the root without prune, and re-adding "
                                    "it restarts its refusal: " + IRREVERSIBLE,
}
