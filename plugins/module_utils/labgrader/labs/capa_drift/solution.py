"""Reference solution of capa-drift (shared/labs/capa-drift.md, docs/labs/capa-drift.en.md),
performed as a learner follows the lab text: git in /root/capa-drift/repo pushed to
/srv/bare/drift.git, one Application file per step written to the workspace and `kubectl apply`d,
`kubectl` changes by hand where the text asks for them, a refresh annotation where a learner would
click Refresh, bounded waits on what Argo CD and Kubernetes report, and evidence files written from
what the cluster shows at that moment (never constants).

Two deliberate differences from the text, both for the time a CI run spends: the bad rollout of
step 4 has `progressDeadlineSeconds: 20` instead of 60 (the grader compares `degraded_after` with
the deadline written in git, so any deadline is judged alike), and waits poll every second."""

from __future__ import annotations

import re
import time

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import json_values
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.machine import SolveError

ONEWAY, HEAL, PRUNE, HEALTH, HPA, OOS = "drift-oneway", "drift-heal", "drift-prune", "drift-health", "drift-hpa", "drift-oos"
ROOT, SVC_A, SVC_B = "drift-root", "drift-svc-a", "drift-svc-b"
FENCE_NS, FENCE_KIND = "drift-fence-ns", "drift-fence-kind"
PROJECT = "drift"
IN_CLUSTER = "https://kubernetes.default.svc"
IMAGE = "nginx:1.27-alpine"
SCALED_REPLICAS = 5  # the 3 a.m. `kubectl scale` of steps 1 and 2
PROGRESS_DEADLINE_SECONDS = 20
NEVER_SELECTOR = {"drift.example.com/never": "true"}
MIN_RESCALES = 2  # the HPA raised the Deployment at least twice: a fight, not a first scale-up
SETTLE_SECONDS = 1.1  # what a learner's pause between two commands makes sure of: a later second


def web_yaml(replicas=2, deadline=None, node_selector=None):
    """Deployment `web` as the lab text writes it; `replicas=None` leaves the field out."""
    spec = {} if replicas is None else {"replicas": replicas}
    if deadline is not None:
        spec["progressDeadlineSeconds"] = deadline
    spec["selector"] = {"matchLabels": {"app": "web"}}
    pod = {"nodeSelector": node_selector} if node_selector else {}
    pod["containers"] = [{"name": "web", "image": IMAGE}]
    spec["template"] = {"metadata": {"labels": {"app": "web"}}, "spec": pod}
    return yaml.safe_dump({"apiVersion": "apps/v1", "kind": "Deployment",
                           "metadata": {"name": "web", "labels": {"app": "web"}}, "spec": spec}, sort_keys=False)


EXTRA_YAML = ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n'
              '  note: "removed from git in step 3"\n')
OOS_SVC_YAML = ('apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  clusterIP: ""\n'
                '  selector: {app: web}\n  ports:\n    - port: 80\n')
HPA_YAML = """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 3
  maxReplicas: 5
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: 50}
"""
CLUSTER_ROLE_YAML = """apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: drift-fence-reader}
rules:
  - {apiGroups: [""], resources: [pods], verbs: [get]}
"""
FENCE_CONFIG_YAML = ('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fence}\n'
                     'data: {note: "never applied: its neighbour is refused"}\n')
IGNORE_CLUSTER_IP = [{"group": "", "kind": "Service", "jsonPointers": ["/spec/clusterIP"]}]
NOT_PERMITTED = re.compile(r"resource (\S+) is not permitted in project " + PROJECT)


def config_map(name, owner):
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{owner: {owner}}}\n"


def application(ws, name, path, namespace, automated, revision="main", sync_options=("CreateNamespace=true",),
                project="default", ignore=None):
    sync_policy = {"automated": automated}
    if sync_options:
        sync_policy["syncOptions"] = list(sync_options)
    spec = {"project": project, "source": {"repoURL": ws.repo_url, "targetRevision": revision, "path": path},
            "destination": {"server": IN_CLUSTER, "namespace": namespace}}
    if ignore:
        spec["ignoreDifferences"] = ignore
    spec["syncPolicy"] = sync_policy
    return yaml.safe_dump({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                           "metadata": {"name": name, "namespace": ws.machine.site.argocd_namespace}, "spec": spec},
                          sort_keys=False)


def child(ws, name, path, namespace, project="default"):
    """A child Application of drift-root as it is committed under apps/."""
    return application(ws, name, path, namespace, {}, sync_options=(), project=project)


def apply_file(ws, filename, text):
    ws.write(filename, text)
    ws.machine.apply(ws.file(filename))


def status(app):
    return app.get("status", {})


def operation(app):
    return status(app).get("operationState", {})


def sync_status(app):
    return status(app).get("sync", {}).get("status")


def health_status(app):
    return status(app).get("health", {}).get("status")


def idle(app):
    return operation(app).get("phase") not in ("Running", "Terminating")


def unix(stamp):
    """Argo CD's and Kubernetes' RFC 3339 times as whole unix seconds."""
    return int(json_values.unix(stamp))


def push(ws, files, message, *apps, removed=()):
    """Commit `files` (and the removal of `removed`) in one commit, push, and refresh `apps` as the
    text's `kubectl annotate ... refresh` does; returns bare main's head."""
    for path in removed:
        ws.git("rm", "-q", path)
    head = ws.commit_push(files, message)
    for app in apps:
        ws.machine.hard_refresh(app)
    return head


def deployment(m, namespace, managed_fields=False):
    return m.get("deployment", "web", namespace, managed_fields=managed_fields)


def step1(m, ws):
    ws.init_repo()
    layout = push(ws, {"oneway/web.yaml": web_yaml(), "heal/web.yaml": web_yaml(), "prune/web.yaml": web_yaml(),
                       "prune/extra.yaml": EXTRA_YAML, "health/web.yaml": web_yaml(3), "oos/web.yaml": web_yaml(),
                       "oos/svc.yaml": OOS_SVC_YAML}, "layout: oneway, heal, prune, health, oos")
    apply_file(ws, "app-drift-oneway.yaml", application(ws, ONEWAY, "oneway", ONEWAY, {}, revision=layout))
    m.wait_synced_healthy(ONEWAY, layout)
    time.sleep(SETTLE_SECONDS)  # the scale comes after the creation sync finished (1.drift-by-hand)
    m.kubectl("-n", ONEWAY, "scale", "deploy/web", f"--replicas={SCALED_REPLICAS}")
    app = m.wait_app(ONEWAY, lambda a: sync_status(a) == "OutOfSync" and health_status(a) == "Healthy",
                     "OutOfSync and Healthy after the scale")
    git_web = yaml.safe_load(ws.git("show", f"{layout}:oneway/web.yaml").stdout)
    ws.write_json("oneway.json", {"sync": sync_status(app), "health": health_status(app),
                                  "git_replicas": git_web["spec"]["replicas"],
                                  "live_replicas": deployment(m, ONEWAY)["spec"]["replicas"]})


def healed(m, changed_at):
    """The heal that followed a change made at `changed_at`: live back to git's 2 replicas and an
    automated operation limited to the drifted resources, started after the change."""
    def probe():
        app = m.app(HEAL)
        op = operation(app)
        if (deployment(m, HEAL)["spec"]["replicas"] == 2 and op.get("phase") == "Succeeded"
                and op.get("operation", {}).get("sync", {}).get("resources")
                and unix(op["startedAt"]) >= changed_at and sync_status(app) == "Synced"):
            return app, int(time.time())
        return None
    return m.wait(f"Application {HEAL}: the scale reverted by selfHeal", probe, interval=0.5)


def step2(m, ws):
    apply_file(ws, "app-drift-heal.yaml", application(ws, HEAL, "heal", HEAL, {"selfHeal": True}))
    m.wait_synced_healthy(HEAL, ws.bare_head())
    time.sleep(SETTLE_SECONDS)  # the heal must start in a later second than the creation sync
    changed_at = int(time.time())
    m.kubectl("-n", HEAL, "scale", "deploy/web", f"--replicas={SCALED_REPLICAS}")
    app, reverted_at = healed(m, changed_at)
    op = operation(app)
    ws.write_json("heal.json", {"field": "spec.replicas", "changed_at": changed_at, "reverted_at": reverted_at,
                                "operation_started_at": op["startedAt"],
                                "initiated_by": op["operation"]["initiatedBy"]})


def prune_app(ws, automated):
    apply_file(ws, "app-drift-prune.yaml", application(ws, PRUNE, "prune", PRUNE, automated))


def step3(m, ws):
    prune_app(ws, {})
    m.wait_synced_healthy(PRUNE, ws.bare_head())
    removed_in = push(ws, {}, "prune: drop ConfigMap extra", PRUNE, removed=("prune/extra.yaml",))

    def in_between(app):
        extra = [r for r in status(app).get("resources", []) if r.get("kind") == "ConfigMap" and r.get("name") == "extra"]
        return status(app).get("sync", {}).get("revision") == removed_in and extra and extra[0].get("requiresPruning")
    app = m.wait_app(PRUNE, in_between, f"ConfigMap extra requires pruning at {removed_in[:7]}")
    extra, = (r for r in status(app)["resources"] if r.get("kind") == "ConfigMap" and r.get("name") == "extra")
    still_live = m.get("configmap", "extra", PRUNE, missing_ok=True) is not None
    ws.write_json("prune.json", {"removed_in": removed_in, "resource": "ConfigMap/extra", "sync_status": sync_status(app),
                                 "requires_pruning": extra["requiresPruning"], "still_live": still_live,
                                 "observed_at": int(time.time())})
    time.sleep(SETTLE_SECONDS)  # the prune sync starts in a later second than the observation
    prune_app(ws, {"prune": True})
    m.hard_refresh(PRUNE)  # turning prune on does not make Argo CD compare again (the lab text)
    m.wait_synced_healthy(PRUNE, removed_in)
    m.wait("ConfigMap drift-prune/extra pruned", lambda: m.get("configmap", "extra", PRUNE, missing_ok=True) is None)


def step4(m, ws):
    apply_file(ws, "app-drift-health.yaml", application(ws, HEALTH, "health", HEALTH, {}))
    m.wait_synced_healthy(HEALTH, ws.bare_head())
    bad = push(ws, {"health/web.yaml": web_yaml(3, PROGRESS_DEADLINE_SECONDS, NEVER_SELECTOR)},
               "health: a rollout no node can take", HEALTH)
    app = m.wait_app(HEALTH, lambda a: sync_status(a) == "Synced" and status(a)["sync"].get("revision") == bad
                     and health_status(a) == "Degraded" and operation(a).get("syncResult", {}).get("revision") == bad,
                     f"Synced and Degraded at {bad[:7]}", timeout=PROGRESS_DEADLINE_SECONDS + m.wait_timeout)
    degraded_at = status(app)["health"].get("lastTransitionTime")
    degraded_after = (unix(degraded_at) if degraded_at else int(time.time())) - unix(operation(app)["startedAt"])
    ws.write_json("health.json", {"revision": bad, "sync": sync_status(app), "health": health_status(app),
                                  "degraded_after": degraded_after})
    ws.git("revert", "--no-edit", bad)
    ws.git("push", "-q", "origin", "main")
    m.hard_refresh(HEALTH)
    fixed = ws.bare_head()
    m.wait_synced_healthy(HEALTH, fixed)


def hpa_rescales(m):
    """`count` of the HPA's SuccessfulRescale event (0 before the first)."""
    events = m.items("events", HPA, "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=web")
    return max((e.get("count") or 1 for e in events if e.get("reason") == "SuccessfulRescale"), default=0)


def step5(m, ws):
    fight = push(ws, {"hpa/web.yaml": web_yaml(1), "hpa/hpa.yaml": HPA_YAML},
                 "hpa: replicas 1 beside an HPA with minReplicas 3")
    apply_file(ws, "app-drift-hpa.yaml", application(ws, HPA, "hpa", HPA, {"selfHeal": True}))
    # Argo CD puts 1 back, the HPA raises it to 3 again (every 15 s at most): wait for two rounds.
    rescales = m.wait(f"the HPA of {HPA} rescaled web {MIN_RESCALES} times", lambda: hpa_rescales(m) >= MIN_RESCALES
                      and hpa_rescales(m), timeout=m.wait_timeout)
    hpa = m.get("horizontalpodautoscalers.autoscaling", "web", HPA)
    ws.write_json("hpa.json", {"fight_revision": fight, "min_replicas": hpa["spec"]["minReplicas"],
                               "rescales": rescales, "fix": "replicas-removed"})
    fixed = push(ws, {"hpa/web.yaml": web_yaml(None)}, "hpa: replicas belong to the HPA", HPA)

    def settled(app):
        if not (sync_status(app) == "Synced" and status(app)["sync"].get("revision") == fixed and idle(app)):
            return False
        live = m.get("horizontalpodautoscalers.autoscaling", "web", HPA)
        return deployment(m, HPA)["spec"].get("replicas") == live.get("status", {}).get("desiredReplicas") >= 3
    m.wait_app(HPA, settled, f"Synced at {fixed[:7]} with the HPA's replicas")


def step6(m, ws):
    apply_file(ws, "app-drift-oos.yaml", application(ws, OOS, "oos", OOS, {}))
    head = ws.bare_head()
    app = m.wait_app(OOS, lambda a: operation(a).get("phase") == "Succeeded" and sync_status(a) == "OutOfSync"
                     and operation(a).get("syncResult", {}).get("revision") == head, "synced once, still OutOfSync")
    drifted, = (r for r in status(app)["resources"] if r.get("status") != "Synced")
    git_spec = yaml.safe_load(ws.git("show", f"{head}:oos/svc.yaml").stdout)["spec"]
    live_spec = m.get(drifted["kind"].lower(), drifted["name"], drifted["namespace"])["spec"]
    # What `argocd app diff` shows: a value git sets that live has otherwise (lists such as ports
    # differ only by API-server defaults, which Argo CD's diff normalises away).
    field, = (f"/spec/{key}" for key, value in git_spec.items()
              if not isinstance(value, (dict, list)) and live_spec.get(key) != value)
    ws.write_json("diff.json", {"kind": drifted["kind"], "name": drifted["name"], "namespace": drifted["namespace"],
                                "field": field, "filled_by": "api-server", "fix": "ignore-differences"})
    apply_file(ws, "app-drift-oos.yaml", application(ws, OOS, "oos", OOS, {}, ignore=IGNORE_CLUSTER_IP))
    m.hard_refresh(OOS)
    m.wait_app(OOS, lambda a: a["spec"].get("ignoreDifferences") == IGNORE_CLUSTER_IP and sync_status(a) == "Synced"
               and all(r.get("status") == "Synced" for r in status(a).get("resources", [])), "Synced, every resource")


def service(ws, letter, project="default"):
    """The files of one service: its child Application under apps/ and its manifests."""
    return {f"apps/svc-{letter}.yaml": child(ws, f"drift-svc-{letter}", f"services/{letter}", f"drift-svc-{letter}",
                                             project),
            f"services/{letter}/config.yaml": config_map(f"svc-{letter}", f"team-{letter}")}


def children_synced(m, names, revision):
    for name in names:
        m.wait(f"Application {name} created by {ROOT}", lambda name=name: m.get(
            "applications.argoproj.io", name, m.site.argocd_namespace, missing_ok=True))
        # A child whose path the commit did not change is not synced again: its last operation
        # may be of an earlier revision.
        m.wait_app(name, lambda a: sync_status(a) == "Synced" and status(a)["sync"].get("revision") == revision
                   and health_status(a) == "Healthy" and operation(a).get("phase") == "Succeeded",
                   f"Synced and Healthy at {revision[:7]}")


def step7(m, ws):
    for letter in "ab":
        if not m.get("namespace", f"drift-svc-{letter}", missing_ok=True):
            m.kubectl("create", "namespace", f"drift-svc-{letter}")
    first = push(ws, service(ws, "a"), "apps: svc-a")
    apply_file(ws, "app-drift-root.yaml", application(ws, ROOT, "apps", m.site.argocd_namespace, {}, sync_options=()))
    children_synced(m, (SVC_A,), first)
    service_commit = push(ws, service(ws, "b"), "apps: svc-b", ROOT)
    m.wait_synced_healthy(ROOT, service_commit)
    children_synced(m, (SVC_A, SVC_B), service_commit)
    tracking = m.app(SVC_B)["metadata"].get("annotations", {}).get("argocd.argoproj.io/tracking-id")
    ws.write_json("apps.json", {"service_commit": service_commit, "tracking_id": tracking})


def project_yaml(ws):
    return yaml.safe_dump({"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
                           "metadata": {"name": PROJECT, "namespace": ws.machine.site.argocd_namespace},
                           "spec": {"sourceRepos": [ws.repo_url.rsplit("/", 1)[0] + "/*"],
                                    "destinations": [{"namespace": "drift-*", "server": IN_CLUSTER}],
                                    "clusterResourceWhitelist": []}}, sort_keys=False)


def fence_refused(m):
    """(destination condition message, kind operation message) once Argo CD refused both fence children."""
    apps = {name: m.get("applications.argoproj.io", name, m.site.argocd_namespace, missing_ok=True)
            for name in (FENCE_NS, FENCE_KIND)}
    if not all(apps.values()):
        return None
    conditions = [c.get("message", "") for c in status(apps[FENCE_NS]).get("conditions") or []
                  if c.get("type") == "InvalidSpecError"]
    message = operation(apps[FENCE_KIND]).get("message") or ""
    if conditions and NOT_PERMITTED.search(message):
        return conditions[0], message
    return None


def step8(m, ws):
    apply_file(ws, "project-drift.yaml", project_yaml(ws))
    moved = push(ws, {**service(ws, "a", PROJECT), **service(ws, "b", PROJECT)}, "apps: services in project drift",
                 ROOT)
    m.wait_synced_healthy(ROOT, moved)
    m.wait("the services in project drift", lambda: all(m.app(name)["spec"].get("project") == PROJECT
                                                        for name in (SVC_A, SVC_B)))
    children_synced(m, (SVC_A, SVC_B), moved)
    if not m.get("namespace", "drift-fence", missing_ok=True):
        m.kubectl("create", "namespace", "drift-fence")
    push(ws, {"apps/fence-ns.yaml": child(ws, FENCE_NS, "services/a", "kube-system", PROJECT),
              "apps/fence-kind.yaml": child(ws, FENCE_KIND, "fence", "drift-fence", PROJECT),
              "fence/clusterrole.yaml": CLUSTER_ROLE_YAML, "fence/config.yaml": FENCE_CONFIG_YAML},
         "fence: two children the project must refuse", ROOT)
    destination_message, kind_message = m.wait("Argo CD refused both fence children", lambda: fence_refused(m))
    ws.write_json("fence.json", {"destination_app": FENCE_NS, "destination_message": destination_message,
                                 "kind_app": FENCE_KIND, "kind_resource": NOT_PERMITTED.search(kind_message).group(1),
                                 "kind_message": kind_message})
    if m.get("clusterrole", "drift-fence-reader", missing_ok=True):
        raise SolveError("ClusterRole drift-fence-reader exists although project drift refuses it")


STEPS = (step1, step2, step3, step4, step5, step6, step7, step8)
