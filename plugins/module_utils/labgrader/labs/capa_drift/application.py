"""The capa-drift Applications as the checks judge them (one ApplicationTwin per workspace file,
the spec each step asks for) and the git facts several steps share (a file's object at a commit,
the commit that added a file)."""

from __future__ import annotations

import functools

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    ApplicationTwin,
    automated_enabled,
    history,
    live_app,
    live_status,
    spec_problems,
    unread_commit,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import (
    find_object,
    repo_blocked,
    repo_url,
    yaml_documents,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.reads import WEB_READS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import (
    APP_FILES,
    NAMESPACES,
    PATHS,
    ROOT,
    WEB,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, pending

TWINS = {app: ApplicationTwin(app, file) for app, file in APP_FILES.items()}
# The step that applies each Application: a check of a later step finds it missing "blocked by" it.
STEP_OF = {"drift-oneway": 1, "drift-heal": 2, "drift-prune": 3, "drift-health": 4, "drift-hpa": 5, "drift-oos": 6,
           ROOT: 7}


def drift_problems(state, app, where, name, flags=(), revision="main"):
    """What differs between an Application of steps 1-6 and the lab's: the shared spec (repoURL,
    targetRevision main unless `revision` is None, path, destination, automated,
    CreateNamespace=true) and each automated flag of `flags` ({flag: True or False}: True must
    be set, False must not be)."""
    problems = spec_problems(app, state.site, repo_url(state), PATHS[name], NAMESPACES[name], where.live)
    if revision is None:
        problems = [p for p in problems if p[0] != "spec.source.targetRevision"]
    automated = dig(app, "spec", "syncPolicy", "automated")
    if automated_enabled(app):
        for flag, wanted in dict(flags).items():
            if (dig(automated, flag) is True) != wanted:
                problems.append((f"spec.syncPolicy.automated.{flag}", wanted, dig(automated, flag)))
    return problems


def live(state, name, step):
    """The live Application `name` for a check of `step`: missing is this step's FAIL when the
    step applies it, else 'blocked by' the step that does."""
    owner = STEP_OF[name]
    return TWINS[name].live(state, step, blocked_by=owner if owner < step else None)


def live_child(state, name, step, blocked_by=None):
    """A live Application the root creates from git (steps 7, 8), or the check ends: missing, or
    blocked by step `blocked_by` (the step that adds it)."""
    params = {} if blocked_by else {"step": step}
    return require(live_app(state.app(name), name, blocked_by, **params))


def live_web(state, name):
    """The live Deployment web of a step's namespace, or None."""
    return state.cluster.get(WEB_READS[name])


def existing_web(state, name):
    """The live Deployment web of a step's namespace, or the check ends: it does not exist."""
    web = live_web(state, name)
    stop_if(None if web is not None else failed("live_object_missing_named", kind="Deployment",
                                                 namespace=NAMESPACES[name], name="web", expected="web", found=None))
    return web


@functools.lru_cache(maxsize=1024)
def parsed(text):
    """The mapping documents of a file's text, parsed once (callers only read them)."""
    return tuple(yaml_documents(text))


def object_in(text, kind, name=None):
    """The object `kind`/`name` of a YAML text (None when absent or unparsable)."""
    _, doc = find_object([("", d) for d in parsed(text)], kind, name=name)
    return doc


def at(state, path, sha):
    """The text of tracked `path` at commit `sha` (None when absent)."""
    return state.repo.history.get(sha, {}).get(path)


def web_at(state, name, sha):
    return object_in(at(state, WEB[name], sha), "Deployment", "web")


def oldest_first(state):
    return list(reversed(state.repo.order))


def first_parent(state, sha):
    parents = state.repo.commits[sha]["parents"]
    return parents[0] if parents else None


def adding_commit(state, path):
    """The oldest commit on main that adds `path` (its first parent lacks it), or None."""
    for sha in oldest_first(state):
        parent = first_parent(state, sha)
        if at(state, path, sha) is not None and (parent is None or at(state, path, parent) is None):
            return sha
    return None


def repo(state):
    """The bare repository's RepoState, or the check ends with why it cannot be read."""
    stop_if(repo_blocked(state))
    return state.repo


def synced_revisions(app, shas):
    """The commits of `shas` that status.history has an entry at (Argo CD synced them), oldest
    entry first."""
    return [e.get("revision") for e in history(app) if e.get("revision") in shas]


def descendants(state, sha):
    """Commits on main that have `sha` as an ancestor (itself included)."""
    return {c for c in state.repo.order if state.repo.is_ancestor(sha, c)}


def not_full_sha(what, found, hint=None):
    return failed("value_mismatch", expected="40 hex characters", found=found, what=what, hint=hint)


def still_syncing(state, app, name, expected, found):
    """A PENDING verdict while what a check found may still change by itself: Argo CD runs an
    operation on `app` (or its health is Progressing), or bare main's newest commit is younger than
    Argo CD takes to read it and `app` still compares an older one (checks/argocd.py
    unread_commit); else None. A check asks only before it would FAIL."""
    sync, health, phase = live_status(app)
    if phase in ("Running", "Terminating") or health == "Progressing":
        return pending("app_converging", expected=expected, found=found, name=name, sync=sync, health=health)
    unread = unread_commit(state, app, state.repo.head) if state.repo.ok else None
    if unread:
        return pending("app_not_polled_yet", expected=expected, found=found, name=name, **unread)
    return None
