"""Facts of bare main's history that several cgoa-ci checks share: each commit's Deployment web
and the commits that broke it."""

from __future__ import annotations

import functools

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import (
    find_object,
    named_commit,
    yaml_documents,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import WEB_YAML
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed


@functools.lru_cache(maxsize=1024)
def web_deployment(text):
    """The Deployment web of a deploy/web.yaml text, or None. Several checks walk every commit's
    web.yaml: each text is parsed once (the result is shared, so callers only read it)."""
    _, doc = find_object([("", d) for d in yaml_documents(text)], "Deployment", name="web")
    return doc


def web_at(state, sha):
    return web_deployment(state.repo.history.get(sha, {}).get(WEB_YAML))


def oldest_first(state):
    return list(reversed(state.repo.order))


def history_broken(state):
    """The commits on bare main whose deploy/web.yaml sets replicas to the string "two"."""
    if not state.repo.ok:
        return []
    return [sha for sha in oldest_first(state) if dig(web_at(state, sha), "spec", "replicas") == "two"]


def broken_commit(state):
    """broken.json's commit when it is on bare main, or the check ends with why not."""
    return require(named_commit(state, "broken.json", malformed_commit, hint="ci_revert"))


def malformed_commit(found):
    """broken.json commit is not a full SHA."""
    return failed("value_mismatch", expected="40 hex characters", found=found, what="broken.json commit",
                  hint="ci_broken")
