"""No check decides a requirement on a learner's script, hook or transcript by a regex over its
text (issue 18, shared/labs/README.md principle 8): validate.sh, the pre-receive hook and bump.sh
are judged by running them (labs/cgoa_ci/probes.py), RBAC and kubeconfigs by asking the API
server. This lists every regular expression the labs and the shared check modules still use and
why it is not such a requirement; a new one fails here until it is listed with its reason (or,
better, replaced by behaviour)."""

from __future__ import annotations

import ast

from tests.conftest import REPO_ROOT

LIBRARY = REPO_ROOT / "plugins" / "module_utils" / "labgrader"

# (module, function): why a regex is right there. Parsing a format as its program parses it is
# judging as that program judges; reading a learner's program is not.
REMAINING = {
    ("checks/git.py", "named_commit"): "a commit id the learner recorded in evidence: 40 hex digits, as git names it",
    ("checks/appproject.py", "_class"): "a [...] class of an AppProject glob, translated as gobwas/glob reads it",
    ("checks/appproject.py", "_gobwas_regex"): "an AppProject pattern compiled as Argo CD's util/glob (gobwas) compiles it",
    ("checks/appproject.py", "filepath_match"): "an AppProject kind/group pattern matched as Go's filepath.Match does",
    ("checks/appproject.py", "normalize_git_url"): "a repository URL normalised as Argo CD's NormalizeGitURL does",
    ("labs/capa_drift/step1_oneway.py", "pinned_revision"): "a targetRevision that is a full SHA, as Argo CD tells one",
    ("labs/capa_drift/step8_fence.py", "<module>"): "RETRY_TAIL: what Argo CD appends to a sync message while it retries",
    ("labs/capa_drift/step8_fence.py", "refusal"): "Argo CD's operation message without its retry tail",
    ("labs/capa_drift/solution.py", "<module>"): "NOT_PERMITTED: the reference solution reads Argo CD's refusal message",
    ("labs/capa_drift/solution.py", "fence_refused"): "the solution waits for Argo CD's refusal message (not graded)",
    ("labs/capa_drift/solution.py", "step8"): "the solution records the kind Argo CD's refusal message names",
    ("checks/repo_server.py", "<module>"): "URL_SCHEME, GLOB, DOCUMENT_START, HELM_SOURCE: how Argo CD's repo server "
                                           "reads a valueFiles entry and helm's output (sources cited there)",
    ("checks/repo_server.py", "resolve_value_files"): "a valueFiles entry read as Argo CD reads it (URL scheme, glob)",
    ("checks/repo_server.py", "sandbox_run"): "helm's own `# Source:` lines in its output",
    ("checks/waves_hooks.py", "<module>"): "GO_ATOI: what Go's strconv.Atoi accepts, as gitops-engine reads a wave",
    ("checks/waves_hooks.py", "wave_of"): "a sync-wave annotation parsed as strconv.Atoi parses it",
    ("labs/capa_src/step5_waves.py", "<module>"): "HOOK_JOB_NAME: the name gitops-engine gives a hook Job",
    ("labs/capa_src/step5_waves.py", "waves_hook_job"): "a live Job's name (the cluster's, not the learner's text)",
    ("labs/cgoa_ci/step3_identity.py", "token_user"): "the API server's TokenReview error, reworded for the scrubber",
    ("labs/cgoa_ci/step6_blocked.py", "<module>"): "git's push transcript (evidence git printed, not a program): "
                                                   "the forms transport.c and sideband.c print, cited there",
    ("labs/cgoa_ci/step6_blocked.py", "transcript_lines"): "terminal colour codes git adds, dropped before reading",
    ("labs/cgoa_ci/step6_blocked.py", "transcript_parts"): "git's rejected-push line and relayed hook lines",
    ("labs/cgoa_ci/step6_blocked.py", "hook_prints"): "whether the hook printed anything in its probe run",
    ("labs/cgoa_ci/step7_delivery.py", "bump_verdict"): "commit ids in what git printed after bump.sh's run",
    ("labs/cgoa_ci/step7_delivery.py", "ref_lines"): "git for-each-ref's output after bump.sh's run",
}


PATTERN_METHODS = {"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def library_sources():
    return {path.relative_to(LIBRARY).as_posix(): path.read_text()
            for path in sorted([*(LIBRARY / "labs").rglob("*.py"), *(LIBRARY / "checks").rglob("*.py")])}


def regex_uses(sources):
    """{(module, function)} of every call of re.* or of a compiled pattern (an UPPER_CASE name)."""
    uses = set()
    for where, source in sources.items():

        def walk(node, function, where=where):
            for child in ast.iter_child_nodes(node):
                inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
                call = child.func if isinstance(child, ast.Call) else None
                if isinstance(call, ast.Attribute) and isinstance(call.value, ast.Name) and (
                        call.value.id == "re" or (call.value.id.isupper() and call.attr in PATTERN_METHODS)):
                    uses.add((where, function))
                walk(child, inner)
        walk(ast.parse(source), "<module>")
    return uses


def test_every_regex_left_is_listed_with_why_it_is_not_a_text_requirement():
    assert sorted(regex_uses(library_sources()) - set(REMAINING)) == []


def test_the_list_has_nothing_that_is_gone():
    assert sorted(set(REMAINING) - regex_uses(library_sources())) == []


def test_the_scan_sees_a_regex_over_a_script():
    """The scan catches the text checks this issue removed (scripts.script_text, as it was)."""
    removed = ("import re\n\n\ndef script_text(state, name, pattern, forbidden=None):\n"
               "    read = state.files[name]\n"
               "    return re.search(pattern, read.text) is not None and not (forbidden and re.search(forbidden, read.text))\n")
    assert regex_uses({"labs/cgoa_ci/scripts.py": removed}) == {("labs/cgoa_ci/scripts.py", "script_text")}
