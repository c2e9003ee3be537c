"""cgoa-ci step 6: the same mistake no longer reaches main (the push transcript, git's history,
the clone, the live state)."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import synced_healthy
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import file_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import clone_origin_verdict, repo_blocked
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.application import APPLICATION
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.history import web_at
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import APP
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

# git's own lines for a push refused by a pre-receive hook (builtin/send-pack.c, transport.c):
# " ! [remote rejected] main -> main (pre-receive hook declined)"; the hook's output is relayed
# as "remote: ..." lines.
TRANSCRIPT = {"[remote rejected] main": r"\[remote rejected\]\s+main\b", "pre-receive hook declined":
              r"pre-receive hook declined", "the hook's own output (remote: ...)": r"(?m)^remote: \S"}


@lab.check(6, "blocked-transcript", hint="ci_blocked")
def blocked_transcript(state):
    read = state.files["blocked.txt"]
    if not read.ok:
        return file_problem(read, hint="ci_blocked")
    missing = [name for name, pattern in TRANSCRIPT.items() if not re.search(pattern, read.text)]
    if missing:
        return failed("transcript_incomplete", expected=list(TRANSCRIPT), found=missing, missing=", ".join(missing))
    return passed("transcript_ok", expected=list(TRANSCRIPT), found=list(TRANSCRIPT))


def has_typo(doc):
    spec = dig(doc, "spec")
    return isinstance(spec, dict) and "replica" in spec


@lab.check(6, "no-typo-on-main", hint="ci_hook")
def no_typo_on_main(state):
    stop_if(repo_blocked(state))
    typos = [sha[:7] for sha in state.repo.order if has_typo(web_at(state, sha))]
    if typos:
        return failed("typo_on_main", expected=[], found=typos)
    return passed("no_typo_on_main", expected=[], found=[])


@lab.check(6, "clone-reset", hint="ci_blocked")
def clone_reset(state):
    if not state.clone.ok:
        return clone_origin_verdict(state)
    refs = state.clone_refs
    if "error" in refs:
        return failed("clone_unreadable", path=state.clone.path, detail=refs["error"])
    found = {"main": refs["refs/heads/main"], "origin/main": refs["refs/remotes/origin/main"]}
    if found["main"] is None or found["main"] != found["origin/main"]:
        return failed("clone_main_differs", expected="main == origin/main", found=found)
    return passed("clone_main_ok", expected="main == origin/main", found=found["main"][:7])


@lab.check(6, "live-still-synced", hint="app_sync_health")
def live_still_synced(state):
    return synced_healthy(APPLICATION.live(state, 6, blocked_by=1), APP)
