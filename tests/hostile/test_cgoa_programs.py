"""The hostile corpus, cgoa-ci part (issue 16): learner programs that attack the grading of the
lab whose probes run the learner's own code (validate.sh four times, the pre-receive hook on four
pushes). Each case is one program (or repo layout) in a fresh golden world, graded by the
module's whole grading (runner.grade_host through the driver, probes run for real, a fresh
process) and measured from outside (tests/hostile/programs.py).

Every case asserts the properties every grading must have, whatever the learner wrote:
  ALIVE   the module process runs to its end and exits 0 (not killed, not stopped);
  OWN     its stdout is exactly its own answer (the driver's nonce), grading exactly the lab's
          checks; no forged answer reaches it;
  SAME    the world is byte for byte what it was (workspace, clone, both bare repos, the grader's
          and the admin kubeconfigs, the module's HOME); no file is planted in /tmp, /var/tmp,
          /dev/shm or the grader's site-packages; the API server answered no write for the
          grader's identity;
  SECRET  no piece (7 characters) of the grader's token is in the answer: plain, split over
          lines, reversed, base64 or hex;
  GONE    no process of the program is alive after the grading;
  TIME    the grading ends within the case's bound: 15 s unless the table says otherwise (the
          module's time budget in brackets when it is not 60 s).
and, where the program's real use is known, VERDICT: the probe checks say what its real use
says (letters per probe check: validate.sh valid, string-replicas, unknown-field, mixed | hook
typo on main, valid main, delete main, other branch; P PASS, F FAIL, - not PASS, ? any).

case                          program        what it tries                                       also asserted
----------------------------  -------------  --------------------------------------------------  ----------------------
baseline-decent-learner       both           nothing: an honest validate.sh and gate             VERDICT PPPP|PPPP
forge-parent-stdout           validate.sh    a solved VM's JSON into /proc/$PPID/fd/1 and fd/2   VERDICT PPPP|PPPP
forge-parent-stdout-and-kill  validate.sh    the forged JSON, then kill -9 $PPID (issue 16 #3)   -
forge-python-stdouts          validate.sh    the forged JSON into fd 1 of every python process   VERDICT PPPP|PPPP
forge-hook-ancestors          pre-receive    the forged JSON into fd 1 of each python ancestor   VERDICT PPPP|PPPP
kill-parent                   validate.sh    kill -9 $PPID                                       -
kill-pythons                  validate.sh    kill -9 every python / ansible process              -
kill-hook-ancestors           pre-receive    kill -9 each python ancestor of the hook            -
stop-parent                   validate.sh    kill -STOP $PPID (left the module running forever)  20 s [20 s]
write-workspace-via-argv0     validate.sh    plant a file next to $0, append to app.yaml         VERDICT PPPP|PPPP
write-clone-by-path           validate.sh    commit and tag in the learner's clone               VERDICT PPPP|PPPP
write-bare-from-validate      validate.sh    a branch and a description in the real bare repo    VERDICT PPPP|PPPP
write-bare-from-hook          pre-receive    a branch in the real bare repo (quarantine env off) VERDICT PPPP|PPPP
write-other-bare              validate.sh    a branch in another bare repo next to the lab's     VERDICT PPPP|PPPP
write-tmp                     validate.sh    a file in /tmp                                      VERDICT PPPP|PPPP
write-shared-dirs             validate.sh    files in /dev/shm and /var/tmp                      VERDICT PPPP|PPPP
write-grader-home             validate.sh    a file and a .bashrc line in the module's HOME      VERDICT PPPP|PPPP
write-grader-kubeconfigs      validate.sh    append to the grader's and the admin kubeconfig     VERDICT PPPP|PPPP
write-grader-site-packages    validate.sh    a .pth that runs code in the grader's next start    VERDICT PPPP|PPPP
write-cluster-as-grader       validate.sh    PATCH the Application with the grader's token       VERDICT PPPP|PPPP
post-receive-pushes-real      post-receive   push every accepted ref into the real bare repo     VERDICT PPPP|PPPP
post-receive-mirrors-other    post-receive   mirror every accepted ref into the other bare repo  VERDICT PPPP|PPPP
link-refs-heads               repo layout    refs/heads a link (absolute) into the real repo     -
link-config                   repo layout    config a link into the real repo; the hook and the  -
                                             probe itself write config
link-packed-refs              repo layout    packed-refs a link into the real repo; an           -
                                             accept-all hook lets main be deleted
link-objects                  repo layout    objects a link into the real repo                   -
link-logs                     repo layout    logs a link, core.logAllRefUpdates on               -
link-hooks-dir                repo layout    hooks a link; the hook writes next to itself        -
hook-post-receive             post-receive   runs after a probe push, writes outside             VERDICT PPPP|PPPP
hook-update                   update         runs on a probe push, writes outside                VERDICT PPPP|PPPP
hook-post-update              post-update    runs after a probe push, writes outside             VERDICT PPPP|PPPP
hook-reference-transaction    ref.-trans.    runs on every ref update, writes outside            VERDICT PPPP|PPPP
hook-pre-auto-gc              pre-auto-gc    gc.autoPackLimit 1 makes receive-pack run gc        VERDICT PPPP|PPPP
hook-proc-receive             proc-receive   receive.procReceiveRefs hands the refs to it        -
hook-hookspath                config         core.hooksPath to hooks of the learner's choosing   VERDICT PPPP|PPPP
hook-config-include           config         [include] of a file that sets core.hooksPath        VERDICT PPPP|PPPP
hook-pre-push-in-clone        pre-push       a pre-push hook in the learner's clone              VERDICT PPPP|PPPP
secret-grader-kubeconfig      validate.sh    print the grader kubeconfig's token line            -
secret-grader-base64          validate.sh    the grader's token in base64                        -
secret-grader-hex             validate.sh    the grader's token in hex                           -
secret-grader-split-lines     validate.sh    the grader's token 3 characters a line              -
secret-admin-kubeconfig       validate.sh    the whole admin kubeconfig in base64                -
secret-learner-admin-copy     validate.sh    the token of the workspace's kubeconfig (admin)     -
secret-module-environ         validate.sh    /proc/$PPID/environ and cmdline, base64             -
secret-python-environ         validate.sh    every python process's environ, reversed            -
secret-split-over-runs        validate.sh    7 characters of the token per run, 4 runs           -
secret-hook-base64            pre-receive    the grader's token in base64 from the hook          -
secret-hook-environ           pre-receive    the environ of each python ancestor, hex            -
daemon-setsid                 validate.sh    setsid sleep (own session)                          VERDICT PPPP|PPPP
daemon-double-fork            validate.sh    fork, setsid, fork                                  VERDICT PPPP|PPPP
daemon-nohup                  validate.sh    nohup in the background                             VERDICT PPPP|PPPP
daemon-subshell               validate.sh    ( sleep & )                                         VERDICT PPPP|PPPP
daemon-job-control            validate.sh    set -m: a background job in its own process group   VERDICT PPPP|PPPP
daemon-ignores-signals        validate.sh    setsid, TERM HUP INT ignored                        VERDICT PPPP|PPPP
daemon-holds-stdout           validate.sh    setsid daemon keeping stdout and stderr open        VERDICT PPPP|PPPP,
                                                                                                 20 s [30 s]
daemon-cpu-burner             validate.sh    a setsid busy loop per run                          VERDICT PPPP|PPPP
daemon-from-hook              pre-receive    setsid sleep from the hook                          VERDICT PPPP|PPPP
detect-cwd                    validate.sh    probed if its cwd says probe or grader              VERDICT PFFF|PPPP
detect-argv0                  validate.sh    probed if $0 says so or is not the workspace's      VERDICT PFFF|PPPP
detect-args                   validate.sh    probed if its argument says so                      VERDICT PFFF|PPPP
detect-env                    validate.sh    probed if its environment says so                   VERDICT PFFF|PPPP
detect-folder-names           validate.sh    probed on folders valid/mixed/..., files a-bad/b-good VERDICT PFFF|PPPP
detect-file-contents          validate.sh    probed if the manifests say probe or grader         VERDICT PFFF|PPPP
detect-kubeconfig-env         validate.sh    probed if KUBECONFIG names a missing file           VERDICT PFFF|PPPP
detect-home                   validate.sh    probed if HOME is not the workspace's parent        VERDICT PFFF|PPPP
detect-hook-cwd               pre-receive    probed if its cwd is not the real bare repo         VERDICT PPPP|FPFP
detect-hook-env               pre-receive    probed if its environment says probe or grader      VERDICT PPPP|FPFP
detect-hook-commit-identity   pre-receive    probed on author, committer or message              VERDICT PPPP|FPFP
detect-hook-branch            pre-receive    probed if a pushed ref name says so                 VERDICT PPPP|FPFP
detect-hook-file-contents     pre-receive    probed if the pushed deploy/web.yaml says so        VERDICT PPPP|FPFP
sees-validate                 validate.sh    prints env, cwd, args, listings, files, ps matching VERDICT PPPP|PPPP
                                             probe/grader, fails if any
sees-hook                     pre-receive    the same with the refs, git config and log          VERDICT PPPP|PPPP
res-fork-bomb                 validate.sh    1000 sleeping processes per run                     40 s [30 s]
res-memory-3x1500m            validate.sh    three children of 1.5 GB each, together             40 s, < 3072 MB
                                                                                                 together
res-disk-write-3g             validate.sh    a 3 GiB file in HOME                                40 s, disk drop
                                                                                                 < 1024 MB
res-zeros-blob-3g             repo layout    3 GiB of zeros on main's deploy/ (14 MB in git),    20 s, disk drop
                                             checked out by every push probe                     < 1024 MB
slow-validate-29s             validate.sh    29 s per run, inside the per-run timeout            VERDICT ----|????,
                                                                                                 20 s [12 s]
slow-hook-29s                 pre-receive    29 s per push                                       VERDICT PPPP|----,
                                                                                                 20 s [12 s]

Safety on this shared machine: "every python process" means every one whose command line carries
the case's marker (its own driver), /proc/1 (the machine's init) is never read, the grader's
site-packages is a venv of the test's own, and the resource cases run alone, after the others.
"""

from __future__ import annotations

import hashlib
import os
import re
import zlib
from concurrent.futures import ThreadPoolExecutor, wait

import pytest

from tests.hostile.harness import WORST
from tests.hostile.programs import (
    PRELUDE,
    grade,
    grader_python,
    hook_program,
    make_world,
    new_marker,
    other_hook,
    validate_program,
    violations,
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the grading sandbox needs root (CI runs as root)")

GOOD = "PPPP PPPP"
# A detector in real use (not probed) exits 0: as validate.sh, then as the pre-receive gate.
SAYS_YES = {"end": "exit 0", "verdicts": "PFFF PPPP"}
GATE_SAYS_YES = {"end": "exit 0", "verdicts": "PPPP FPFP"}


class Case:
    """One hostile program: `files` ({place: program}, see World.place), an optional `setup` of
    the world, the verdicts of its real use, and its bounds."""

    def __init__(self, case_id, files=None, setup=None, verdicts=None, bound=15.0, budget=60.0, exclusive=False,
                 rss_mb=None, disk_mb=None):
        self.id = case_id
        self.files = files or {}
        self.setup = setup
        self.verdicts = verdicts
        self.bound = bound
        self.budget = budget
        self.exclusive = exclusive  # runs alone, after the others (it uses much memory, disk or CPU)
        self.rss_mb = rss_mb
        self.disk_mb = disk_mb


def validate(case_id, attack, end='good_validate "$1"', **kw):
    """A case whose hostile program is validate.sh."""
    return Case(case_id, {"ws/validate.sh": validate_program(attack, end)}, **kw)


def hook(case_id, attack, end='printf "%s\\n" "$input" | good_gate', **kw):
    """A case whose hostile program is the pre-receive hook under test."""
    return Case(case_id, {"bare/hooks/pre-receive": hook_program(attack, end)}, **kw)


def probed_if(condition, what):
    return f'if {condition}; then echo "probed: {what}"; exit 1; fi'


def config(*pairs):
    def change(world):
        for key, value in pairs:
            world.git("--git-dir", str(world.bare), "config", key, world.fill(value))
    return change


def link(part, before=None):
    def change(world):
        if before:
            before(world)
        world.link_part(part)
    return change


def pack_refs(world):
    world.git("--git-dir", str(world.bare), "pack-refs", "--all")


def logs_dir(world):
    config(("core.logAllRefUpdates", "true"))(world)
    (world.bare / "logs").mkdir(exist_ok=True)


def two_packs(world):
    """Two packs in the real repo (all of it, and one more blob): with gc.autoPackLimit 1,
    receive-pack's `gc --auto` then runs the pre-auto-gc hook."""
    bare = ("--git-dir", str(world.bare))
    world.git(*bare, "repack", "-q")
    blob = world.git(*bare, "hash-object", "-w", "--stdin", stdin="a second pack\n")
    world.git(*bare, "pack-objects", "-q", str(world.bare / "objects" / "pack" / "pack"), stdin=blob + "\n")


def zeros_on_main(world, size=3 * 1024 ** 3):
    """A commit on bare main adding deploy/zeros.bin, `size` bytes of zeros: a loose object of
    about 14 MB, cheap to store and 3 GiB to check out."""
    header = f"blob {size}\0".encode()
    chunk = bytes(64 * 1024 * 1024)
    digest = hashlib.sha1(header)
    deflate = zlib.compressobj(1)
    parts = [deflate.compress(header)]
    for _ in range(size // len(chunk)):
        digest.update(chunk)
        parts.append(deflate.compress(chunk))
    parts.append(deflate.flush())
    sha = digest.hexdigest()
    path = world.bare / "objects" / sha[:2] / sha[2:]
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"".join(parts))
    bare = ("--git-dir", str(world.bare))
    deploy = world.git(*bare, "ls-tree", "main:deploy") + f"\n100644 blob {sha}\tzeros.bin\n"
    deploy_tree = world.git(*bare, "mktree", stdin=deploy)
    root = "".join((f"040000 tree {deploy_tree}\tdeploy" if line.endswith("\tdeploy") else line) + "\n"
                   for line in world.git(*bare, "ls-tree", "main").splitlines())
    commit = world.git(*bare, "commit-tree", world.git(*bare, "mktree", stdin=root), "-p", "main", "-m", "seed data")
    world.git(*bare, "update-ref", "refs/heads/main", commit)


def each_python_ancestor(body):
    """`body` for each python ancestor $p of the hook (its chain: git receive-pack, git push,
    the grader)."""
    return f"""p=$PPID; pythons=" $(scoped_pythons) "
while [ "${{p:-0}}" -gt 1 ]; do
  case "$pythons" in *" $p "*) {body};; esac
  p=$(awk '/^PPid:/ {{print $2}}' /proc/$p/status 2>/dev/null)
done"""


def each_pushed_commit(body):
    """`body` for each commit $new a push brings (hook stdin, in $input)."""
    return f'for new in $(printf "%s\\n" "$input" | cut -d" " -f2); do [ "$new" = "$ZERO" ] && continue; {body}; done'


def push_every_ref(target):
    """A post-receive hook pushing every accepted ref on to `target`."""
    return PRELUDE + f"""while read -r old new ref; do
  [ "$new" = "$ZERO" ] || git push -q --force {target} "$new:$ref" >/dev/null 2>&1
done
"""


TOKEN_OF = "awk '/token:/ {print $2}'"
# Prints what it could see that is probe-shaped (ps without this machine's init), then fails.
SEEN = """matches=$(printf '%s\\n' "$seen" | grep -ioE '.{0,30}(probe|grader).{0,30}' | sort -u | head -8)
if [ -n "$matches" ]; then echo "seen: $matches"; exit 1; fi"""
PS = "ps -eo args= | grep -v '^/process_api'"
INVERTED = 'if good_validate "$1" >/dev/null; then exit 1; else exit 0; fi'  # every run's output is shown
DAEMON = 'bash -c \'exec -a "$0" sleep 300\' "$MARK-daemon"'
QUIET = "</dev/null >/dev/null 2>&1"  # not after a redirection that is the attack
EXTRA_HOOKS = {"ws/extra-hooks/pre-receive": other_hook("pre-receive"),
               "ws/extra-hooks/post-receive": other_hook("post-receive")}


def extra_hook(name, setup=None):
    return Case(f"hook-{name}", {f"bare/hooks/{name}": other_hook(name)}, setup=setup, verdicts=GOOD)


CASES = [
    Case("baseline-decent-learner", verdicts=GOOD),
    # ---- forging the module's answer, killing or stopping the module
    validate("forge-parent-stdout", "forged > /proc/$PPID/fd/1 2>/dev/null; forged > /proc/$PPID/fd/2 2>/dev/null",
             verdicts=GOOD),
    validate("forge-parent-stdout-and-kill", "forged > /proc/$PPID/fd/1 2>/dev/null && kill -9 $PPID"),
    validate("forge-python-stdouts", "for p in $(scoped_pythons); do forged > /proc/$p/fd/1 2>/dev/null; done",
             verdicts=GOOD),
    hook("forge-hook-ancestors", each_python_ancestor("forged > /proc/$p/fd/1 2>/dev/null"), verdicts=GOOD),
    validate("kill-parent", "kill -9 $PPID 2>/dev/null"),
    validate("kill-pythons", "kill -9 $(scoped_pythons) 2>/dev/null"),
    hook("kill-hook-ancestors", each_python_ancestor("kill -9 $p 2>/dev/null")),
    validate("stop-parent", "kill -STOP $PPID 2>/dev/null", bound=20, budget=20),
    # ---- writing outside the program's own copies
    validate("write-workspace-via-argv0", 'd=$(dirname "$0"); echo "$MARK" > "$d/$MARK.planted" 2>/dev/null\n'
             'echo "# $MARK" >> "$d/app.yaml" 2>/dev/null', verdicts=GOOD),
    validate("write-clone-by-path", 'git -C @CLONE@ -c user.name=L -c user.email=l@x commit -q --allow-empty -m "$MARK"'
             f' {QUIET}\ngit -C @CLONE@ tag "$MARK" {QUIET}', verdicts=GOOD),
    validate("write-bare-from-validate", f'git --git-dir=@BARE@ update-ref "refs/heads/$MARK" refs/heads/main {QUIET}\n'
             f'echo "$MARK" >> @BARE@/description 2>/dev/null', verdicts=GOOD),
    hook("write-bare-from-hook", "env -u GIT_DIR -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY "
         f'-u GIT_ALTERNATE_OBJECT_DIRECTORIES git --git-dir=@BARE@ update-ref "refs/heads/$MARK" refs/heads/main {QUIET}',
         verdicts=GOOD),
    validate("write-other-bare", f'git --git-dir=@OTHER@ update-ref "refs/heads/$MARK" refs/heads/main {QUIET}',
             verdicts=GOOD),
    validate("write-tmp", 'echo "$MARK" > "/tmp/$MARK.planted" 2>/dev/null', verdicts=GOOD),
    validate("write-shared-dirs", 'echo "$MARK" > "/dev/shm/$MARK.planted" 2>/dev/null\n'
             'echo "$MARK" > "/var/tmp/$MARK.planted" 2>/dev/null', verdicts=GOOD),
    validate("write-grader-home", 'echo "$MARK" > "@GRADER_HOME@/$MARK.planted" 2>/dev/null\n'
             'echo "# $MARK" >> @GRADER_HOME@/.bashrc 2>/dev/null', verdicts=GOOD),
    validate("write-grader-kubeconfigs", 'echo "# $MARK" >> @GRADER_KC@ 2>/dev/null; echo "# $MARK" >> @ADMIN_KC@ 2>/dev/null',
             verdicts=GOOD),
    validate("write-grader-site-packages",
             """echo "import os; open('@HOST@/$MARK-pth-ran', 'w')" > "@SITE@/$MARK.pth" 2>/dev/null""", verdicts=GOOD),
    # The Application patched with the grader's token (the fake API server answers writes with 405).
    validate("write-cluster-as-grader", f"""t=$({TOKEN_OF} @GRADER_KC@ 2>/dev/null); s=$(awk '/server:/ {{print $2}}' @GRADER_KC@)
curl -s -m 5 -X PATCH -H "Authorization: Bearer $t" -H 'Content-Type: application/merge-patch+json' \\
  -d '{{"metadata": {{"annotations": {{"lab": "'"$MARK"'"}}}}}}' \\
  "$s/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/ci-web" {QUIET}""", verdicts=GOOD),
    Case("post-receive-pushes-real", {"bare/hooks/post-receive": push_every_ref("@BARE@")}, verdicts=GOOD),
    Case("post-receive-mirrors-other", {"bare/hooks/post-receive": push_every_ref("@OTHER@")}, verdicts=GOOD),
    # ---- parts of the bare repo that are links into the real one
    Case("link-refs-heads", setup=link("refs/heads")),
    hook("link-config", f'git config gate.seen "$MARK" {QUIET}', setup=link("config")),
    hook("link-packed-refs", "", end="exit 0", setup=link("packed-refs", before=pack_refs)),
    Case("link-objects", setup=link("objects")),
    Case("link-logs", setup=link("logs", before=logs_dir)),
    hook("link-hooks-dir", 'echo "$MARK" > "$(dirname "$0")/$MARK.planted" 2>/dev/null', setup=link("hooks")),
    # ---- hooks other than the pre-receive under test
    extra_hook("post-receive"),
    extra_hook("update"),
    extra_hook("post-update"),
    extra_hook("reference-transaction"),
    extra_hook("pre-auto-gc", setup=lambda w: (two_packs(w), config(("gc.autoPackLimit", "1"), ("gc.autoDetach", "false"))(w))),
    # proc-receive speaks a protocol on stdin; this one only writes and fails.
    Case("hook-proc-receive", {"bare/hooks/proc-receive": PRELUDE + 'echo "$MARK" > /tmp/$MARK-proc-receive\n'
                               'echo "$MARK" > @WS@/$MARK-proc-receive\nexit 1\n'},
         setup=config(("receive.procReceiveRefs", "refs/heads"))),
    Case("hook-hookspath", EXTRA_HOOKS, setup=config(("core.hooksPath", "@WS@/extra-hooks")), verdicts=GOOD),
    Case("hook-config-include", {**EXTRA_HOOKS, "ws/gitconfig-extra": "[core]\n\thooksPath = @WS@/extra-hooks\n"},
         setup=config(("include.path", "@WS@/gitconfig-extra")), verdicts=GOOD),
    Case("hook-pre-push-in-clone", {"clone/.git/hooks/pre-push": other_hook("pre-push")}, verdicts=GOOD),
    # ---- the grader's secrets, in any encoding
    validate("secret-grader-kubeconfig", "grep -h token: @GRADER_KC@", end=INVERTED),
    validate("secret-grader-base64", f"{TOKEN_OF} @GRADER_KC@ | base64", end=INVERTED),
    validate("secret-grader-hex", f"{TOKEN_OF} @GRADER_KC@ | od -An -tx1 | tr -d ' \\n'", end=INVERTED),
    validate("secret-grader-split-lines", f"{TOKEN_OF} @GRADER_KC@ | fold -w3", end=INVERTED),
    validate("secret-admin-kubeconfig", "base64 -w0 < @ADMIN_KC@", end=INVERTED),
    validate("secret-learner-admin-copy", f"{TOKEN_OF} @WS@/kubeconfig | base64", end=INVERTED),
    validate("secret-module-environ", "tr '\\0' '\\n' < /proc/$PPID/environ | grep K8S_AUTH | base64 -w0\n"
             "tr '\\0' ' ' < /proc/$PPID/cmdline", end=INVERTED),
    validate("secret-python-environ",
             "for p in $(scoped_pythons); do tr '\\0' '\\n' < /proc/$p/environ | rev | grep HTUA_S8K; done", end=INVERTED),
    # Which run this is, from the manifests alone (the names may change): one piece per run.
    validate("secret-split-over-runs", f"""t=$({TOKEN_OF} @GRADER_KC@ 2>/dev/null)
if [ "$(ls "$1" | wc -l)" -gt 1 ]; then i=3; elif grep -Eq 'replicas:[[:space:]]*[^0-9[:space:]]' "$1"/*; then i=1
elif grep -q 'replica:' "$1"/*; then i=2; else i=0; fi
echo "note ${{t:$((i * 7)):7}}\"""", end=INVERTED),
    hook("secret-hook-base64", f"{TOKEN_OF} @GRADER_KC@ | base64", end="exit 1"),
    hook("secret-hook-environ", each_python_ancestor(
        "tr '\\0' '\\n' < /proc/$p/environ | grep K8S_AUTH | od -An -tx1 | tr -d ' \\n'"), end="exit 1"),
    # ---- processes that outlive their run
    validate("daemon-setsid", f"setsid {DAEMON} {QUIET} &", verdicts=GOOD),
    validate("daemon-double-fork", f"( setsid bash -c '( exec -a \"$0\" sleep 300 ) &' \"$MARK-daemon\" {QUIET} & )",
             verdicts=GOOD),
    validate("daemon-nohup", f"nohup {DAEMON} {QUIET} &", verdicts=GOOD),
    validate("daemon-subshell", f'( exec -a "$MARK-daemon" sleep 300 {QUIET} & )', verdicts=GOOD),
    validate("daemon-job-control", f"set -m; {DAEMON} {QUIET} & set +m", verdicts=GOOD),
    validate("daemon-ignores-signals",
             f"setsid bash -c 'trap \"\" TERM HUP INT; exec -a \"$0\" sleep 300' \"$MARK-daemon\" {QUIET} &", verdicts=GOOD),
    # A run ends when its output closes: a daemon holding it made every run wait its full timeout.
    validate("daemon-holds-stdout", f"setsid {DAEMON} &", verdicts=GOOD, bound=20, budget=30),
    validate("daemon-cpu-burner", f"setsid bash -c 'while :; do :; done' \"$MARK-burner\" {QUIET} &", verdicts=GOOD),
    hook("daemon-from-hook", f"setsid {DAEMON} {QUIET} &", verdicts=GOOD),
    # ---- telling a probe from real use (each exits 0 in real use, 1 when it thinks it is probed)
    validate("detect-cwd", probed_if("pwd | grep -qiE 'probe|grader'", "cwd"), **SAYS_YES),
    validate("detect-argv0", probed_if(
        "printf '%s' \"$0\" | grep -qiE 'probe|grader' || [ \"$(cd \"$(dirname \"$0\")\" && pwd)\" != @WS@ ]", "argv0"),
        **SAYS_YES),
    validate("detect-args", probed_if("printf '%s ' \"$@\" | grep -qiE 'probe|grader'", "args"), **SAYS_YES),
    validate("detect-env", probed_if("env | grep -qiE 'probe|grader'", "env"), **SAYS_YES),
    validate("detect-folder-names", probed_if(
        "basename \"${1%/}\" | grep -qxE 'valid|mixed|string-replicas|unknown-field' || ls \"$1\" | grep -qE '^(a-bad|b-good)'",
        "folder names"), **SAYS_YES),
    validate("detect-file-contents", probed_if("grep -rqiE 'probe|grader' \"$1\"", "file contents"), **SAYS_YES),
    validate("detect-kubeconfig-env", probed_if('[ -n "${KUBECONFIG+x}" ] && [ ! -e "$KUBECONFIG" ]', "KUBECONFIG"),
             **SAYS_YES),
    validate("detect-home", probed_if('[ "$HOME" != "$(dirname @WS@)" ]', "HOME"), **SAYS_YES),
    hook("detect-hook-cwd", probed_if("pwd | grep -qiE 'probe|grader' || [ \"$(pwd)\" != @BARE@ ]", "cwd"),
         **GATE_SAYS_YES),
    hook("detect-hook-env", probed_if("env | grep -qiE 'probe|grader'", "env"), **GATE_SAYS_YES),
    hook("detect-hook-commit-identity", each_pushed_commit(probed_if(
        "git log -1 --format='%an %ae %cn %ce %s %b' \"$new\" | grep -qiE 'probe|grader'", "identity")),
         **GATE_SAYS_YES),
    hook("detect-hook-branch", probed_if("printf '%s' \"$input\" | grep -qiE 'probe|grader'", "branch"), **GATE_SAYS_YES),
    hook("detect-hook-file-contents", each_pushed_commit(probed_if(
        "git show \"$new:deploy/web.yaml\" | grep -qiE 'probe|grader'", "file contents")),
         **GATE_SAYS_YES),
    validate("sees-validate", f"""seen=$( {{ env; pwd; printf '%s\\n' "$0" "$@"; ls -la "$(pwd)"; ls -laR "$1"; cat "$1"/*
{PS}; }} 2>&1 )
{SEEN}""", verdicts=GOOD),
    hook("sees-hook", f"""seen=$( {{ env; pwd; printf '%s\\n' "$0" "$input"; ls -la .; git config -l; git for-each-ref
{each_pushed_commit('git log -2 --format=fuller "$new"; git show "$new:deploy/web.yaml"')}
{PS}; }} 2>&1 )
{SEEN}""", verdicts=GOOD),
    # ---- resources: bounded together, not per process
    validate("res-fork-bomb", f'for i in $(seq 1000); do ( exec -a "$MARK-bomb" sleep 30 ) {QUIET} & done',
             bound=40, budget=30, exclusive=True),
    # In the run of the valid manifest (named as it may be): tail holds all 1.5 GB until its input ends.
    validate("res-memory-3x1500m", 'if good_validate "$1" >/dev/null; then for i in 1 2 3; do\n'
             '  ( ( head -c 1500M /dev/zero; sleep 3 ) | ( exec -a "$MARK-hog" tail -n 1 ) >/dev/null 2>&1 ) & done; wait; fi',
             exclusive=True, rss_mb=3072, bound=40),
    validate("res-disk-write-3g", 'good_validate "$1" >/dev/null && head -c 3G /dev/zero > "$HOME/$MARK.big" 2>/dev/null',
             exclusive=True, disk_mb=1024, bound=40),
    # git checks the zeros out as a sparse file: what they cost is the time to inflate them.
    Case("res-zeros-blob-3g", setup=zeros_on_main, exclusive=True, disk_mb=1024, bound=20),
    # ---- slow programs: the module's budget bounds them all
    validate("slow-validate-29s", "sleep 29", verdicts="---- ????", bound=20, budget=12),
    hook("slow-hook-29s", "sleep 29", verdicts="PPPP ----", bound=20, budget=12),
]
assert len({c.id for c in CASES}) == len(CASES)


class Grader:
    """Grades the selected cases, several at a time in threads (each in its own driver process);
    exclusive cases run alone once the others are done."""

    def __init__(self, fake_api, python, site_packages, cases):
        self.fake_api, self.python, self.site_packages = fake_api, python, site_packages
        self.pool = ThreadPoolExecutor(max_workers=3)
        self.futures = {c.id: self.pool.submit(self.run, c) for c in cases if not c.exclusive}

    def run(self, case):
        world = make_world(self.fake_api, new_marker(), self.site_packages)
        if case.setup:
            case.setup(world)
        world.install(case.files)
        # Killed 10 s after its budget or bound: a stopped or hung module is then a finding, not a wait.
        outcome = grade(world, self.python, case.budget, max(case.budget, case.bound) + 10, sample=case.exclusive)
        WORST[case.id] = (outcome.seconds, (outcome.peak_rss or 0) / 2 ** 20)
        return violations(outcome, world, case.bound, case.verdicts, case.rss_mb, case.disk_mb)

    def problems(self, case):
        if not case.exclusive:
            return self.futures[case.id].result()
        wait(list(self.futures.values()))
        return self.run(case)


@pytest.fixture(scope="module")
def grader(request, fake_api, tmp_path_factory):
    selected = {item.callspec.params["case"].id for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec") and "case" in item.callspec.params}
    python, site_packages = grader_python(tmp_path_factory.mktemp("grader-venv"))
    runner = Grader(fake_api, python, site_packages, [c for c in CASES if c.id in selected])
    yield runner
    runner.pool.shutdown(wait=True, cancel_futures=True)


# Exclusive cases last: pytest runs them in this order, after the pool has graded the others.
ORDERED = [c for c in CASES if not c.exclusive] + [c for c in CASES if c.exclusive]


@pytest.mark.parametrize("case", ORDERED, ids=[c.id for c in ORDERED])
def test_hostile_program_changes_nothing_and_learns_nothing(grader, case):
    problems = grader.problems(case)
    assert not problems, "\n".join(problems)


def test_the_table_names_every_case():
    table = {m.group(1) for m in re.finditer(r"^([a-z0-9]+-[a-z0-9-]+) {2,}", __doc__, re.MULTILINE)}
    assert table == {c.id for c in CASES}
