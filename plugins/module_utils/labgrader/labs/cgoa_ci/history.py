"""Facts of bare main's history that several cgoa-ci checks share: each commit's Deployment web
and the commits that broke it."""

from __future__ import annotations

import functools
import re

from ansible.module_utils.labgrader.checks.evidence import evidence
from ansible.module_utils.labgrader.checks.git import find_object, repo_blocked, yaml_documents
from ansible.module_utils.labgrader.checks.require import require, stop_if
from ansible.module_utils.labgrader.facts import dig, typed_field
from ansible.module_utils.labgrader.labs.cgoa_ci.spec import WEB_YAML
from ansible.module_utils.labgrader.result import failed


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
    data = require(evidence(state, "broken.json"))
    sha = require(typed_field(data, "commit", "string", "broken.json commit")).strip().lower()
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        stop_if(failed("value_mismatch", expected="40 hex characters", found=data["commit"], what="broken.json commit",
                       hint="ci_broken"))
    stop_if(repo_blocked(state))
    if sha not in state.repo.commits:
        stop_if(failed("commit_not_on_main", expected="a commit on bare main", found=sha, hint="ci_revert"))
    return sha
