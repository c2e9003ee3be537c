"""cgoa-ci step 6: the same mistake no longer reaches main (the push transcript, git's history,
the clone, the live state)."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import synced_healthy
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import file_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import clone_origin_verdict, repo_blocked
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import ProbeRun
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.application import APPLICATION
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.history import web_at
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import APP
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed

# The line git prints for a ref the remote refused (transport.c print_one_push_status: for
# REF_STATUS_REMOTE_REJECT it calls print_ref_status('!', "[remote rejected]", ref, ref->peer_ref
# or NULL for a deletion, ref->remote_status)):
# - by default, on stderr, " ! [remote rejected] <src> -> <dst> (<reason>)": "[remote rejected]"
#   padded to the push's summary width (" %c %-*s "), both names through prettify_refname, which
#   drops refs/heads/: "main -> main", "HEAD -> main" for HEAD:main, "<sha> -> main" for a commit
#   id, "x -> main" for refs/heads/x:main or x:refs/heads/main;
# - with --porcelain, on stdout, "!\t<src>:<dst>\t[remote rejected] (<reason>)", the names in full
#   (refs/heads/main) and <src> as typed (HEAD, refs/heads/x, an abbreviated sha).
# A deletion has no source (" ! [remote rejected] main (...)", "!\t:refs/heads/main\t..."): it is
# not the typo push. The reason is receive-pack's for a pre-receive hook that exits non-zero
# (builtin/receive-pack.c execute_commands: "pre-receive hook declined"). Both forms observed with
# git 2.39 (tests/grader/test_cgoa_hook.py keeps them). On a terminal git colours "!" and the
# summary (transport.c TRANSPORT_COLOR_REJECTED) and ends relayed lines with ESC [K (sideband.c
# ANSI_SUFFIX); a capture by script(1) ends lines with CRLF: both are dropped before matching.
# Neither "To <url>" nor "error: failed to push some refs" is needed (git translates the latter).
REJECTED_MAIN = (
    re.compile(r"^ ?! +\[remote rejected\] +\S+ -> main \(pre-receive hook declined\) *$"),
    re.compile(r"^!\t[^\t:]+:refs/heads/main\t\[remote rejected\] \(pre-receive hook declined\)$"),
)
# receive-pack relays the hook's stdout and stderr through the sideband, which git prints
# after this prefix (sideband.c DISPLAY_PREFIX).
RELAYED = re.compile(r"^remote: \S")
ESCAPES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
PARTS = {"rejected": "`! [remote rejected] … -> main (pre-receive hook declined)`", "relayed": "`remote: …`"}


def transcript_lines(text):
    return [ESCAPES.sub("", line).rstrip("\r") for line in text.split("\n")]


def transcript_parts(text):
    """The parts of PARTS that `text` holds: git's rejection of a push to main by the
    pre-receive hook, and lines the hook printed."""
    lines = transcript_lines(text)
    found = set()
    if any(pattern.match(line) for line in lines for pattern in REJECTED_MAIN):
        found.add("rejected")
    if any(RELAYED.match(line) for line in lines):
        found.add("relayed")
    return found


def hook_prints(state):
    """Whether the learner's hook printed anything when it refused the typo push (its run in the
    probes): then blocked.txt must show it too. When the probe cannot say, it is asked for."""
    runs = state.probes.get("hook") or {}
    if "error" in state.probes or "typo-main" not in runs:
        return True
    run = ProbeRun.from_dict(runs["typo-main"])
    return (
        run.returncode is None
        or run.timed_out
        or run.truncated
        or any(RELAYED.match(line) for line in transcript_lines(run.output))
    )


@lab.check(6, "blocked-transcript", hint="ci_blocked")
def blocked_transcript(state):
    read = state.files["blocked.txt"]
    if not read.ok:
        return file_problem(read, hint="ci_blocked")
    wanted = ["rejected", "relayed"] if hook_prints(state) else ["rejected"]
    missing = [PARTS[part] for part in wanted if part not in transcript_parts(read.text)]
    expected = [PARTS[part] for part in wanted]
    if missing:
        return failed("transcript_incomplete", expected=expected, found=missing, missing=", ".join(missing))
    return passed("transcript_ok", expected=expected, found=expected)


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
