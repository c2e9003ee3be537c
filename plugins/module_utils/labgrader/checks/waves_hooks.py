"""Argo CD's sync waves and hooks as gitops-engine reads them from an object's annotations: its
wave, its hook types and its hook delete policies (Argo CD's own annotations and Helm's)."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import annotation

SYNC_WAVE = "argocd.argoproj.io/sync-wave"
HOOK = "argocd.argoproj.io/hook"
HOOK_DELETE_POLICY = "argocd.argoproj.io/hook-delete-policy"


GO_ATOI = re.compile(r"^[+-]?[0-9]+$")  # what strconv.Atoi accepts: no spaces, no quotes inside


def wave_of(doc):
    """The sync wave Argo CD gives an object: gitops-engine pkg/sync/syncwaves/waves.go Wave()
    reads the annotation with strconv.Atoi, falls back to helm.sh/hook-weight, then 0."""
    for key in (SYNC_WAVE, "helm.sh/hook-weight"):
        value = annotation(doc, key)
        if isinstance(value, str) and GO_ATOI.match(value):
            return int(value)
    return 0


def annotation_csv(doc, key):
    """gitops-engine pkg/sync/resource/annotations.go GetAnnotationCSVs: the comma-separated
    values, each trimmed, empty ones and repeats dropped. Hook types and delete policies are then
    matched exactly (common.NewHookType, NewHookDeletePolicy)."""
    value = annotation(doc, key)
    items = (item.strip() for item in value.split(",")) if isinstance(value, str) else ()
    return list(dict.fromkeys(item for item in items if item))


# gitops-engine pkg/sync/common/types.go NewHookType / NewHookDeletePolicy match these exact words;
# pkg/sync/hook/helm maps Helm's hook annotations onto them.
HOOK_TYPES = ("PreSync", "Sync", "PostSync", "SyncFail", "Skip")
HELM_HOOK_TYPES = {"pre-install": "PreSync", "pre-upgrade": "PreSync", "post-upgrade": "PostSync",
                   "post-install": "PostSync"}
DELETE_POLICIES = ("HookSucceeded", "HookFailed", "BeforeHookCreation")
HELM_DELETE_POLICIES = {"before-hook-creation": "BeforeHookCreation", "hook-succeeded": "HookSucceeded",
                        "hook-failed": "HookFailed"}


def hook_types(doc):
    """The hook types Argo CD gives an object (pkg/sync/hook/hook.go Types): the recognised words
    of argocd.argoproj.io/hook, else those of helm.sh/hook; unknown words are ignored."""
    types = [t for t in annotation_csv(doc, HOOK) if t in HOOK_TYPES]
    return types or [HELM_HOOK_TYPES[t] for t in annotation_csv(doc, "helm.sh/hook") if t in HELM_HOOK_TYPES]


def delete_policies(doc):
    """pkg/sync/hook/delete_policy.go DeletePolicies: the recognised policies of both annotations,
    BeforeHookCreation when none is recognised (a misspelt policy changes nothing)."""
    policies = [p for p in annotation_csv(doc, HOOK_DELETE_POLICY) if p in DELETE_POLICIES]
    policies += [HELM_DELETE_POLICIES[p] for p in annotation_csv(doc, "helm.sh/hook-delete-policy")
                 if p in HELM_DELETE_POLICIES]
    return list(dict.fromkeys(policies)) or ["BeforeHookCreation"]
