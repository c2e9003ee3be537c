"""cgoa-ci's pre-receive probes against real wrong hooks, and the push transcript in every form
git prints it.

Each hook below is a plausible wrong gate (docs/probes-cgoa-ci.md, "pre-receive"); the real
probe code pushes to it in the sandbox from the golden world (no probes.json: nothing replayed)
and it must fail exactly the step 5 checks its row says, the solution's gate none. The fake API
server cannot dry-run, so validate.sh is replaced by a stand-in that refuses what the API server
refuses in these pushes (a misspelled replica: key in a manifest kubectl apply -f <dir> reads);
the hooks call it as the learner's gate calls validate.sh."""

from __future__ import annotations

import subprocess

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probe_cases import hook_cases
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.solution import pre_receive
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.step6_blocked import (
    transcript_parts,
)

from tests.grader.conftest import collect_host, judge
from tests.grader.test_words import english_words

LAB = LABS["cgoa-ci"]
STEP5 = [c.id for c in LAB.checks if c.id.startswith("cgoa-ci.5.")]

# kubectl apply -f <dir> reads *.json, *.yaml and *.yml at the top of <dir> and fails when it finds
# none ("error: no objects passed to apply"); the API server refuses an unknown field (strict
# decoding). "replicas:" does not match.
STAND_IN_VALIDATE = r"""#!/bin/sh
found=0
for f in "$1"/*.yaml "$1"/*.yml "$1"/*.json; do
  [ -f "$f" ] || continue
  found=1
  if grep -Eq '"?replica"?:' "$f"; then echo "error: strict decoding error: unknown field spec.replica ($f)"; exit 1; fi
done
[ $found = 1 ] || { echo "error: no objects passed to apply"; exit 1; }
echo "validated $1"
"""

LOOP = """#!/usr/bin/env bash
set -uo pipefail
zero=0000000000000000000000000000000000000000
status=0
while read -r old new ref; do
{body}
done
exit $status
"""
CHECK_NEW = """  tmp=$(mktemp -d)
  git archive "$new" deploy | tar -x -C "$tmp"
  {validate} "$tmp/deploy" || status=1"""
ONLY_MAIN = '  [ "$ref" = refs/heads/main ] || continue\n  if [ "$new" = "$zero" ]; then status=1; continue; fi\n'


def loop(body):
    return LOOP.format(body=body)


def matching(test):
    """The gate with `test` instead of [ "$ref" = refs/heads/main ]."""
    return loop(ONLY_MAIN.replace('[ "$ref" = refs/heads/main ]', test) + CHECK_NEW)


def one_line(reading):
    """A gate without a loop: `reading` sets old, new and ref once."""
    return f"""#!/usr/bin/env bash
{reading}
[ "$ref" = refs/heads/main ] || exit 0
[ "$new" = 0000000000000000000000000000000000000000 ] && exit 1
tmp=$(mktemp -d)
git archive "$new" deploy | tar -x -C "$tmp"
exec {{validate}} "$tmp/deploy"
"""


# wrong hook -> (its text, {validate} standing for validate.sh's path; the step 5 checks it fails)
WRONG_HOOKS = {
    "reads only the first line of stdin": (one_line("read -r old new ref"), {"hook-reads-every-ref"}),
    "keeps only the last line of stdin": (
        one_line("while read -r o n r; do old=$o new=$n ref=$r; done"),
        {"hook-reads-every-ref"},
    ),
    "stops at the first ref that is not main": (
        loop(ONLY_MAIN.replace("|| continue", "|| exit 0") + CHECK_NEW),
        {"hook-reads-every-ref"},
    ),
    "matches the ref with grep main": (
        matching('echo "$ref" | grep -q main'),
        {"hook-accepts-main-lookalikes"},
    ),
    "matches the ref with refs/heads/main*": (
        matching("[[ $ref == refs/heads/main* ]]"),
        {"hook-accepts-main-lookalikes"},
    ),
    "matches the ref by its last part": (
        matching('[ "${ref##*/}" = main ]'),
        {"hook-accepts-main-lookalikes"},
    ),
    "rejects every deletion": (
        loop('  if [ "$new" = "$zero" ]; then status=1; continue; fi\n  [ "$ref" = refs/heads/main ] || continue\n' + CHECK_NEW),
        {"hook-accepts-branch-deletion"},
    ),
    "crashes on the zero sha (git diff old new for every ref)": (
        loop('  git diff --quiet "$old" "$new" 2>/dev/null; [ $? -le 1 ] || exit 1\n' + ONLY_MAIN + CHECK_NEW),
        {"hook-accepts-other-branch", "hook-accepts-branch-deletion", "hook-accepts-main-lookalikes"},
    ),
    "checks deploy/web.yaml only": (
        loop(
            ONLY_MAIN
            + """  tmp=$(mktemp -d)
  git show "$new:deploy/web.yaml" > "$tmp/web.yaml"
  {validate} "$tmp" || status=1"""
        ),
        {"hook-rejects-typo-in-any-manifest"},
    ),
    "checks *.yaml only": (
        loop(
            ONLY_MAIN
            + """  tmp=$(mktemp -d)
  git archive "$new" deploy | tar -x -C "$tmp" --wildcards '*.yaml'
  {validate} "$tmp/deploy" || status=1"""
        ),
        {"hook-rejects-typo-in-any-manifest"},
    ),
    "validates the repository's HEAD, not the pushed commit": (
        loop(ONLY_MAIN + CHECK_NEW.replace('"$new" deploy', "HEAD deploy")),
        {"hook-rejects-typo-on-main", "hook-rejects-typo-in-any-manifest", "hook-reads-every-ref"},
    ),
    "validates the learner's clone instead of the pushed commit": (
        loop(ONLY_MAIN + '  "{validate}" "$(dirname "{validate}")/repo/deploy" || status=1\n'),
        {"hook-rejects-typo-on-main", "hook-rejects-typo-in-any-manifest", "hook-reads-every-ref"},
    ),
    "ignores the validator's exit status": (
        loop(ONLY_MAIN + CHECK_NEW.replace("|| status=1", "|| echo invalid")),
        {"hook-rejects-typo-on-main", "hook-rejects-typo-in-any-manifest", "hook-reads-every-ref"},
    ),
    "refuses every push to main": (
        loop('  [ "$ref" = refs/heads/main ] && status=1\n'),
        {"hook-accepts-valid-main"},
    ),
    "validates the repository's root instead of deploy/": (
        loop(ONLY_MAIN + CHECK_NEW.replace(" deploy | tar", " | tar").replace('"$tmp/deploy"', '"$tmp"')),
        {"hook-accepts-valid-main"},
    ),
    "calls ./validate.sh (the hook runs in the bare repository)": (
        loop(ONLY_MAIN + CHECK_NEW.replace("{validate}", "./validate.sh")),
        {"hook-accepts-valid-main"},
    ),
    "skips deletions as nothing to validate": (
        loop('  [ "$new" = "$zero" ] && continue\n' + ONLY_MAIN + CHECK_NEW),
        {"hook-rejects-delete-main"},
    ),
    "handles the zero sha of main but forgets the status": (
        loop(ONLY_MAIN.replace("then status=1; continue", 'then echo "no deleting main"; continue') + CHECK_NEW),
        {"hook-rejects-delete-main"},
    ),
    "validates every ref": (
        loop('  if [ "$new" = "$zero" ]; then [ "$ref" = refs/heads/main ] && status=1; continue; fi\n' + CHECK_NEW),
        {"hook-accepts-other-branch", "hook-accepts-main-lookalikes"},
    ),
    "blocks every other branch": (
        loop(ONLY_MAIN.replace("|| continue", "|| { status=1; continue; }") + CHECK_NEW),
        {"hook-accepts-other-branch", "hook-accepts-branch-deletion", "hook-accepts-main-lookalikes"},
    ),
    "compares the ref with main, not refs/heads/main": (
        loop(ONLY_MAIN.replace("refs/heads/main", "main") + CHECK_NEW),
        {"hook-rejects-typo-on-main", "hook-rejects-delete-main", "hook-rejects-typo-in-any-manifest", "hook-reads-every-ref"},
    ),
}


def test_a_local_branch_of_the_pushes_holds_the_same_files_in_every_push():
    """The clone has one branch per name: two pushes that gave it different files would push one."""
    files = {}
    for _, commits, _ in hook_cases("dev/web-tuning", "wip/scale-web"):
        for branch, content in commits.items():
            assert files.setdefault(branch, content) == content, branch


def graded_with_hook(fake_api, hook_text):
    """The golden world with `hook_text` as its gate and the stand-in validate.sh, the probes
    run for real: {check: (status, message)} of step 5."""
    host = fake_api.world("cgoa-ci/golden.yaml")
    (host / "probes.json").unlink()
    validate = host / "root" / "cgoa-ci" / "validate.sh"
    validate.write_text(STAND_IN_VALIDATE)
    hook = host / "srv" / "bare" / "ci.git" / "hooks" / "pre-receive"
    hook.write_text(hook_text.replace("{validate}", str(validate)))
    checks = judge(collect_host(host, "cgoa-ci"), "en", "cgoa-ci")
    return {cid: (checks[cid]["status"], checks[cid]["message"]) for cid in STEP5}


def test_the_solutions_gate_passes_every_push(fake_api):
    class Workspace:  # what solution.pre_receive reads of the learner's workspace
        @staticmethod
        def file(name):
            return "{validate}" if name == "validate.sh" else name

    checks = graded_with_hook(fake_api, pre_receive(Workspace()))
    assert {cid: status for cid, (status, _) in checks.items()} == dict.fromkeys(STEP5, "PASS"), checks


@pytest.mark.parametrize("wrong", list(WRONG_HOOKS))
def test_a_wrong_gate_fails_exactly_its_checks(fake_api, wrong):
    text, fails = WRONG_HOOKS[wrong]
    checks = graded_with_hook(fake_api, text)
    assert {cid for cid, (status, _) in checks.items() if status != "PASS"} == {f"cgoa-ci.5.{c}" for c in fails}, checks
    assert {status for status, _ in checks.values()} <= {"PASS", "FAIL"}


# ---------------------------------------------------------------- the push transcript


def git(*args, cwd, check=True):
    return subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=check,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(cwd),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "a",
            "GIT_AUTHOR_EMAIL": "a@example.com",
            "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@example.com",
        },
    )


@pytest.fixture(scope="module")
def refusing_remote(tmp_path_factory):
    """A bare repository whose pre-receive hook prints a line and refuses everything, and a clone
    with a commit to push: the transcripts below are git's own."""
    root = tmp_path_factory.mktemp("transcripts")
    git("init", "-q", "--bare", "r.git", cwd=root)
    git("init", "-q", "c", cwd=root)
    clone = root / "c"
    git("commit", "-q", "--allow-empty", "-m", "a", cwd=clone)
    git("push", "-q", "../r.git", "HEAD:main", "HEAD:feature", cwd=clone)
    hook = root / "r.git" / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'pre-receive: deploy/ does not validate'\nexit 1\n")
    hook.chmod(0o755)
    git("commit", "-q", "--allow-empty", "-m", "b", cwd=clone)
    git("branch", "-q", "x", cwd=clone)
    return clone


def pushed(clone, *args):
    result = git("push", "../r.git", *args, cwd=clone, check=False)
    assert result.returncode == 1
    return result.stdout + result.stderr


REJECTED_MAIN = [
    ["main"],
    ["HEAD:main"],
    ["x:main"],
    ["refs/heads/x:refs/heads/main"],
    ["HEAD~0:main"],
    ["--porcelain", "HEAD:main"],
    ["--porcelain", "x:main"],
    ["-q", "HEAD:main"],
    ["HEAD:main", "HEAD:feature"],
    ["--porcelain", "HEAD:main", "HEAD:feature"],
]


@pytest.mark.parametrize("args", REJECTED_MAIN, ids=" ".join)
def test_every_form_git_prints_for_the_rejected_main_is_read(refusing_remote, args):
    text = pushed(refusing_remote, *args)
    assert transcript_parts(text) == {"rejected", "relayed"}, text
    assert transcript_parts(text.replace("\n", "\r\n")) == {"rejected", "relayed"}  # captured by script(1)


def test_a_commit_id_as_the_source_is_read(refusing_remote):
    sha = git("rev-parse", "HEAD", cwd=refusing_remote).stdout.strip()
    for args in ([f"{sha}:main"], ["--porcelain", f"{sha[:7]}:main"]):
        assert transcript_parts(pushed(refusing_remote, *args)) == {"rejected", "relayed"}


def test_a_coloured_transcript_is_read():
    # What git writes to a terminal: "!" and the summary in red (transport.c), relayed lines ending
    # with ESC [K (sideband.c).
    text = (
        "remote: pre-receive: deploy/ does not validate\x1b[K\nTo /srv/bare/ci.git\n"
        " \x1b[31m! [remote rejected]\x1b[m HEAD -> main (pre-receive hook declined)\n"
        "\x1b[31merror: failed to push some refs to '/srv/bare/ci.git'\x1b[m\n"
    )
    assert transcript_parts(text) == {"rejected", "relayed"}


@pytest.mark.parametrize(
    "args",
    [["HEAD:feature"], ["--delete", "main"], ["--porcelain", "--delete", "main"], ["--porcelain", "HEAD:feature"]],
    ids=" ".join,
)
def test_a_transcript_of_another_push_is_not_the_typo_push(refusing_remote, args):
    assert transcript_parts(pushed(refusing_remote, *args)) == {"relayed"}


def test_an_accepted_or_otherwise_refused_main_is_not_a_rejection_by_the_hook():
    accepted = "To /srv/bare/ci.git\n   80dd8f8..f7636bd  main -> main\n"
    not_fast_forward = " ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs\n"
    update_hook = " ! [remote rejected] main -> main (hook declined)\n"
    for text in (accepted, not_fast_forward, update_hook):
        assert transcript_parts(text) == set()


def test_what_a_transcript_lacks_reads_as_code_in_every_language(fake_api):
    """The missing parts are git's own text, in backticks: no English prose in ja or ko."""
    state = collect_host(fake_api.world("cgoa-ci/golden.yaml"), "cgoa-ci")
    state.files["blocked.txt"].text = "the push was rejected\n"
    check = judge(state, "ja", "cgoa-ci")["cgoa-ci.6.blocked-transcript"]
    for lang in ("ja", "ko"):
        text = i18n.message(check["message_key"], check["params"], lang)
        assert "`! [remote rejected] … -> main (pre-receive hook declined)`" in text and "`remote: …`" in text
        assert english_words(text) == [], text
