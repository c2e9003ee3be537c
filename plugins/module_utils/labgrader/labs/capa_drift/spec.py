"""What capa-drift's specification (shared/labs/capa-drift.md, docs/capa-drift-design.md §0) names:
the repository, the Applications and their paths, the namespaces, the AppProject, the images and
the files the learner writes."""

from __future__ import annotations

REPO_NAME = "drift"
IMAGE = "nginx:1.27-alpine"
IN_CLUSTER = "https://kubernetes.default.svc"

ONEWAY, HEAL, PRUNE, HEALTH, HPA, OOS = "drift-oneway", "drift-heal", "drift-prune", "drift-health", "drift-hpa", "drift-oos"
ROOT, SVC_A, SVC_B = "drift-root", "drift-svc-a", "drift-svc-b"
FENCE_NS, FENCE_KIND = "drift-fence-ns", "drift-fence-kind"
CHILDREN = (SVC_A, SVC_B)
FENCE_CHILDREN = (FENCE_NS, FENCE_KIND)
PROJECT = "drift"
FENCE_NAMESPACE = "drift-fence"
FENCE_CLUSTERROLE = "drift-fence-reader"

# The Application of each step 1-6: its path in drift.git, which is also its namespace's suffix.
PATHS = {ONEWAY: "oneway", HEAL: "heal", PRUNE: "prune", HEALTH: "health", HPA: "hpa", OOS: "oos"}
NAMESPACES = {app: f"drift-{path}" for app, path in PATHS.items()}
CHILD_NAMESPACES = {SVC_A: "drift-svc-a", SVC_B: "drift-svc-b"}

WEB = {app: f"{path}/web.yaml" for app, path in PATHS.items()}
EXTRA_YAML = "prune/extra.yaml"
HPA_YAML = "hpa/hpa.yaml"
SVC_YAML = "oos/svc.yaml"
CHILD_FILES = {SVC_A: "apps/svc-a.yaml", SVC_B: "apps/svc-b.yaml", FENCE_NS: "apps/fence-ns.yaml",
               FENCE_KIND: "apps/fence-kind.yaml"}
# Every file whose history a check walks (Repo tracked_paths).
TRACKED = (*WEB.values(), EXTRA_YAML, HPA_YAML, SVC_YAML, *CHILD_FILES.values())

APP_FILES = {app: f"app-{app}.yaml" for app in (*PATHS, ROOT)}
# project-drift.yaml is the learner's too; the grader judges the live AppProject (what Argo CD enforces).
