"""Checks on Argo CD Application manifests shared by the labs (file and live object alike)."""

from __future__ import annotations

import posixpath

from ansible.module_utils.labgrader.checks.evidence import blocked, file_problem
from ansible.module_utils.labgrader.facts import dig, json_type
from ansible.module_utils.labgrader.i18n import show
from ansible.module_utils.labgrader.result import failed, passed, pending


def find_application(documents, name):
    """(app, None) or (None, failing Verdict) from the parsed documents of a YAML file."""
    apps = [d for d in documents if isinstance(d, dict) and d.get("kind") == "Application"]
    for app in apps:
        if dig(app, "metadata", "name") == name:
            return app, None
    found = [dig(a, "metadata", "name") for a in apps]
    return None, failed("no_application_in_file", expected=name, found=found or None, name=name,
                        hint="application_manifest")


def application_file(read, name):
    """The Application `name` from a FileRead of a YAML file, or a failing Verdict."""
    if not read.ok:
        return None, file_problem(read, hint="application_manifest")
    return find_application(read.data, name)


def app_path(value):
    """spec.source.path as Argo CD resolves it inside the repository, or None when Argo CD refuses
    it. util/app/path/path.go Path(): an absolute path is an error, otherwise
    filepath.Join(repoRoot, path) (Clean: "./", "//", "a/../" and a trailing "/" vanish) must stay
    under the root; no other trimming (a space is part of the directory name)."""
    if not isinstance(value, str):
        return None
    cleaned = posixpath.normpath(value) if value else "."
    if cleaned.startswith("/") or cleaned == ".." or cleaned.startswith("../"):
        return None  # absolute, or outside the repository (its checkout directory name is random)
    return cleaned


def automated_enabled(app):
    automated = dig(app, "spec", "syncPolicy", "automated")
    # v3 has automated.enabled; an absent flag with the block present means enabled.
    return isinstance(automated, dict) and automated.get("enabled", True) is not False


def sync_options(app):
    """spec.syncPolicy.syncOptions as written. Argo CD matches them as exact strings
    (pkg/apis/application/v1alpha1/types.go SyncOptions.HasOption = slices.Contains; used by
    controller/sync.go for CreateNamespace=true and RespectIgnoreDifferences=true): no trimming,
    no case folding, so "CreateNamespace = true" is not recognised."""
    options = dig(app, "spec", "syncPolicy", "syncOptions", default=[])
    return [o for o in options if isinstance(o, str)] if isinstance(options, list) else []


def spec_problems(app, site, repo_url, path, destination, namespace_required):
    """Differences between an Application and what the lab asks for, as (field, expected, found)."""
    problems = []
    namespace = dig(app, "metadata", "namespace")
    if namespace != site.argocd_namespace and (namespace_required or namespace is not None):
        problems.append(("metadata.namespace", site.argocd_namespace, namespace))
    source = dig(app, "spec", "source")
    if not isinstance(source, dict):
        found = "spec.sources" if dig(app, "spec", "sources") is not None else json_type(source)
        problems.append(("spec.source", "object", found))
        source = {}
    found_url = source.get("repoURL")
    if not isinstance(found_url, str) or found_url.rstrip("/") != repo_url:
        problems.append(("spec.source.repoURL", repo_url, found_url))
    revision = source.get("targetRevision")
    if revision not in ("main", "refs/heads/main"):
        problems.append(("spec.source.targetRevision", "main", revision))
    if app_path(source.get("path")) != path:
        problems.append(("spec.source.path", path, source.get("path")))
    dest_ns = dig(app, "spec", "destination", "namespace")
    if dest_ns != destination:
        problems.append(("spec.destination.namespace", destination, dest_ns))
    if not automated_enabled(app):
        problems.append(("spec.syncPolicy.automated", "{}", dig(app, "spec", "syncPolicy", "automated")))
    if "CreateNamespace=true" not in sync_options(app):
        problems.append(("spec.syncPolicy.syncOptions", "CreateNamespace=true",
                         dig(app, "spec", "syncPolicy", "syncOptions")))
    return problems


def verdict_from_problems(problems, what, hint):
    if not problems:
        return passed("spec_ok", what=what)
    details = "; ".join(f"{field}: {show(exp)} / {show(found)}" for field, exp, found in problems)
    return failed("spec_mismatch", expected={f: e for f, e, _ in problems},
                  found={f: x for f, _, x in problems}, what=what, details=details, hint=hint)


def live_status(app):
    """(sync, health, operation phase) of a live Application."""
    return (dig(app, "status", "sync", "status"), dig(app, "status", "health", "status"),
            dig(app, "status", "operationState", "phase"))


def self_heal_due(app):
    """Argo CD will sync a live change back by itself (controller/appcontroller.go autoSync,
    v3.5.2): automated with selfHeal, OutOfSync, no operation running and the last one Succeeded,
    and more than pruning left or prune on. At the revision it last synced it first waits out the
    self-heal backoff: 2 s x 3^(attempts-1), at most 300 s, less the time since that operation
    finished (observed on the plane after repeated `kubectl set image` on cgoa-ci: 0.7 s, 17 s,
    54 s, 162 s); at a later revision of main it syncs too (observed: src-helm at 2e0b45c, last
    synced 39fb964, a `kubectl patch` of its ConfigMap was reverted within 2 s). A failed last
    attempt is never retried at the same revision (a SyncError instead)."""
    status = dig(app, "status", default={}) or {}
    operation = status.get("operationState") or {}
    automated = dig(app, "spec", "syncPolicy", "automated")
    if not (automated_enabled(app) and dig(automated, "selfHeal") is True
            and dig(status, "sync", "status") == "OutOfSync" and operation.get("phase") == "Succeeded"):
        return False
    drifted = [r for r in status.get("resources") or [] if isinstance(r, dict) and r.get("status") != "Synced"]
    return dig(automated, "prune") is True or any(not r.get("requiresPruning") for r in drifted)


def self_heal_pending(app, name, expected, found):
    """PENDING: what was checked is about to be synced back by Argo CD's selfHeal."""
    sync, health, _ = live_status(app)
    return pending("self_heal_due", expected=expected, found=found, name=name, sync=sync, health=health)


def synced_healthy(app, name):
    """PASS when Synced and Healthy; PENDING while Argo CD is still working or its selfHeal is
    about to sync a live change back; FAIL otherwise."""
    sync, health, phase = live_status(app)
    found = {"sync": sync, "health": health, "operation": phase}
    expected = {"sync": "Synced", "health": "Healthy"}
    if sync == "Synced" and health == "Healthy":
        return passed("app_synced_healthy", expected=expected, found=found, name=name)
    if phase in ("Running", "Terminating") or health == "Progressing":
        return pending("app_converging", expected=expected, found=found, name=name, sync=sync, health=health)
    if self_heal_due(app):
        return self_heal_pending(app, name, expected, found)
    return failed("app_not_synced_healthy", expected=expected, found=found, name=name, sync=sync,
                  health=health, hint="app_sync_health")


def live_app(state, name, step):
    """(app, None) or (None, failing Verdict) for a live Application."""
    app = state.app(name)
    if app is None:
        return None, failed("live_app_missing", expected=name, found=None, name=name, step=step,
                            hint="application_apply")
    return app, None


def live_app_blocked(state, name, step):
    """For later steps: a missing Application is 'blocked by step N', not a new mistake."""
    app = state.app(name)
    if app is None:
        return None, blocked(step, "live_app_missing", name=name)
    return app, None
