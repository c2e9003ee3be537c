"""Git state the labs share: the bare repo's branch main, YAML objects in its tree, clones."""

from __future__ import annotations

import os
import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, typed_field
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import containers
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import parse_yaml_text


def repo_blocked(state):
    """A failing Verdict when the bare repo cannot be read, else None."""
    if state.repo.ok:
        return None
    return failed(f"repo_{state.repo.problem}", path=state.bare_path, detail=state.repo.detail, hint="bare_repo")


def repo_url(state):
    """The gitd URL of the lab's bare repository (what an Application's repoURL names)."""
    return state.site.repo_url(os.path.basename(state.bare_path)[:-len(".git")])


def bare_repo(state):
    """The lab's bare repository can be read and has branch main."""
    stop_if(repo_blocked(state))
    return passed("repo_ok", path=state.bare_path, found=state.repo.head)


def repository_checks(lab, step=1, hint="bare_repo"):
    """The two checks every lab with a repository starts with: bare-repo and clone-origin."""
    lab.check(step, "bare-repo", hint=hint)(bare_repo)
    lab.check(step, "clone-origin", hint=hint)(clone_origin_verdict)


def named_commit(state, name, malformed, key="commit", hint=None):
    """(sha, None) when `key` of the JSON evidence file `name` is the full SHA (40 hex; case and
    surrounding blanks forgiven) of a commit on bare main, else (None, failing Verdict).
    `malformed(found)` is the lab's Verdict for a value that is not a full SHA; `hint` goes with
    a commit that is not on main."""
    data, problem = evidence(state, name)
    if problem:
        return None, problem
    sha, problem = typed_field(data, key, "string", f"{name} {key}")
    if problem:
        return None, problem
    sha = sha.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        return None, malformed(data[key])
    problem = repo_blocked(state)
    if problem:
        return None, problem
    if sha not in state.repo.commits:
        return None, failed("commit_not_on_main", expected="a commit on bare main", found=sha, hint=hint)
    return sha, None


def yaml_documents(text):
    """The mapping documents of a YAML text ([] when it does not parse)."""
    documents, _ = parse_yaml_text(text or "")
    return [doc for doc in documents or [] if isinstance(doc, dict)]


def yaml_objects(files, prefix):
    """[(path, document)] for every YAML document under `prefix` in a {path: text} tree."""
    found = []
    for path, text in sorted(files.items()):
        if not path.startswith(prefix + "/") or not path.endswith((".yaml", ".yml")) or text is None:
            continue
        found.extend((path, doc) for doc in yaml_documents(text))
    return found


def find_object(objects, kind, name=None, generate_name=None):
    for path, doc in objects:
        if doc.get("kind") != kind:
            continue
        if name is not None and dig(doc, "metadata", "name") == name:
            return path, doc
        if generate_name is not None and dig(doc, "metadata", "generateName") == generate_name:
            return path, doc
    return None, None


def images(obj):
    return [c.get("image") for c in containers(obj)]


def wanted_or_first(values, wanted):
    """`wanted` when present (other entries may be sidecars), else what stands first."""
    return wanted if wanted in values else (values[0] if values else None)


def object_verdict(path, expected, found):
    """PASS when the fields found in a git file are the expected ones, else FAIL showing both."""
    if found != expected:
        return failed("git_values_mismatch", expected=expected, found=found, path=path)
    return passed("git_values_ok", expected=expected, found=found, path=path)


def same_repository(url, bare_path, repo_url):
    """True when a remote URL names the bare repo: its path (file:// or plain, with or without
    .git) or its gitd URL."""
    if not isinstance(url, str) or not url:
        return False
    if url.rstrip("/") == repo_url:
        return True
    path = url[len("file://"):] if url.startswith("file://") else url
    path = path.rstrip("/")
    candidates = {path, path + ".git"}
    real = os.path.realpath(bare_path)
    return any(os.path.isabs(p) and os.path.realpath(p) == real for p in candidates)


def clone_origin_verdict(state):
    """The learner's clone has `origin` pointing at the lab's bare repo."""
    clone = state.clone
    if not clone.ok:
        return failed(f"clone_{clone.problem}", expected=state.bare_path, found=clone.detail or None,
                      path=clone.path, detail=clone.detail)
    origin = clone.remotes.get("origin")
    url = repo_url(state)
    if not same_repository(origin, state.bare_path, url):
        return failed("origin_mismatch", expected=state.bare_path, found=origin, path=clone.path)
    # git pushes to remote.origin.pushurl when it is set: a push URL elsewhere never reaches the lab's repo.
    pushes = [push for push in clone.push_urls.get("origin") or [] if not same_repository(push, state.bare_path, url)]
    if pushes:
        return failed("push_url_mismatch", expected=state.bare_path, found=pushes, path=clone.path)
    return passed("origin_ok", expected=state.bare_path, found=origin, path=clone.path)
