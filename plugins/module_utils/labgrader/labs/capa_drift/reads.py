"""What capa-drift reads: its evidence and Application files, drift.git (with the paths each commit
changes, for step 7's "one commit"), the clone, and 14 GET requests (docs/capa-drift-design.md §1)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Reads, Repo
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import (
    APP_FILES,
    FENCE_CLUSTERROLE,
    HEAL,
    HEALTH,
    HPA,
    NAMESPACES,
    ONEWAY,
    OOS,
    PROJECT,
    PRUNE,
    REPO_NAME,
    TRACKED,
)

# The Deployment web of each step's namespace, by the read's name.
WEB_READS = {ONEWAY: "oneway_web", HEAL: "heal_web", PRUNE: "prune_web", HEALTH: "health_web", HPA: "hpa_web"}


def cluster_reads(site):
    """The 14 requests one reading sends (GET only)."""
    ns = site.argocd_namespace
    reads = {
        "applications": (f"/apis/argoproj.io/v1alpha1/namespaces/{ns}/applications", None),
        "project": (f"/apis/argoproj.io/v1alpha1/namespaces/{ns}/appprojects/{PROJECT}", None),
        "argocd_cm": (f"/api/v1/namespaces/{ns}/configmaps/argocd-cm", None),
        "prune_configmaps": (f"/api/v1/namespaces/{NAMESPACES[PRUNE]}/configmaps", None),
        "hpa": (f"/apis/autoscaling/v2/namespaces/{NAMESPACES[HPA]}/horizontalpodautoscalers/web", None),
        "hpa_events": (f"/api/v1/namespaces/{NAMESPACES[HPA]}/events",
                       {"fieldSelector": "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=web"}),
        "oos_service": (f"/api/v1/namespaces/{NAMESPACES[OOS]}/services/web", None),
        "nodes": ("/api/v1/nodes", None),
        "fence_clusterrole": (f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{FENCE_CLUSTERROLE}", None),
    }
    reads.update({name: (f"/apis/apps/v1/namespaces/{NAMESPACES[app]}/deployments/web", None)
                  for app, name in WEB_READS.items()})
    return reads


# The evidence files and the keys the checks read from each (tests/grader/test_hint_pairs.py
# records what the checks read).
EVIDENCE_JSON = {
    "oneway.json": ("sync", "health", "git_replicas", "live_replicas"),
    "heal.json": ("field", "changed_at", "reverted_at", "operation_started_at", "initiated_by"),
    "prune.json": ("removed_in", "resource", "sync_status", "requires_pruning", "still_live", "observed_at"),
    "health.json": ("revision", "sync", "health", "degraded_after"),
    "hpa.json": ("fight_revision", "min_replicas", "rescales", "fix"),
    "diff.json": ("kind", "name", "namespace", "field", "filled_by", "fix"),
    "apps.json": ("service_commit", "tracking_id"),
    "fence.json": ("destination_app", "destination_message", "kind_app", "kind_resource", "kind_message"),
}

READS = Reads(json_files=EVIDENCE_JSON, yaml_files=tuple(APP_FILES.values()),
              repo=Repo(REPO_NAME, prefixes=("oneway", "heal", "prune", "health", "hpa", "oos", "apps", "services",
                                             "fence"),
                        tracked_paths=TRACKED, changed_paths=True),
              clone="repo", api=cluster_reads)
