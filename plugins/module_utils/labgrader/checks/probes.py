"""Active probes of a learner's programs: runs in the sandbox (sandbox.py) over throw-away
copies, so that they cannot touch the grader, the learner's real files or repositories, and
cannot tell a probe from real use.

- A script runs at its real path in a copy of the workspace, on inputs the lab writes into a
  mktemp-style directory of the sandbox's own /tmp.
- A push probe pushes one commit from a clone in a mktemp-style directory to a copy of the bare
  repository at its real path. The copy keeps only the hook under test (`stage_bare_repo`: no
  other hook runs, its config is reduced to what decides a push), the commit is made beside
  the sandbox with git's plumbing (nothing checked out: a 3 GiB blob in the history costs
  nothing), by the author of the learner's own last commit.
- Our own git commands run on the stage only, with a hardened environment and bounded.

A probe result is plain data (ProbeRun.as_dict) so that a recorded world can replay it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.bounded_run import run_bounded
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import scrub
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.sandbox import (
    SandboxUnavailable,
    TreeRefused,
    login_env,
)

SCRIPT_TIMEOUT = 30.0
OUTPUT_BYTES = 256 * 1024
SHOWN_OUTPUT_CHARS = 600
GIT_TIMEOUT = 30.0
GIT_MEMORY_BYTES = 4 * 1024 * 1024 * 1024
# Our own git commands ignore system/global config and never prompt.
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
           "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
# What of the learner's bare-repo config decides a push; everything else (core.hooksPath, include
# paths, fsmonitor and every command-valued key) is left out of the copy.
CONFIG_KEPT = ("core.repositoryformatversion", "core.bare", "core.ignorecase", "core.precomposeunicode",
               "core.logallrefupdates")
CONFIG_KEPT_SECTIONS = ("extensions.", "receive.", "transfer.", "fsck.")


class ProbeRun:
    """One run of a learner's program: exit code, whether it was cut short, the end of its output.
    `out_of_time`: it was cut short by the grader's deadline (the lab's probe time), which gave
    it less than SCRIPT_TIMEOUT, not by its own SCRIPT_TIMEOUT; then the grader, not the
    program, is why it did not finish."""

    __slots__ = ("out_of_time", "output", "returncode", "timed_out", "truncated")

    def __init__(self, returncode, timed_out=False, truncated=False, output="", out_of_time=False):
        self.returncode = returncode
        self.timed_out = timed_out
        self.truncated = truncated
        self.output = output
        self.out_of_time = out_of_time

    @classmethod
    def from_result(cls, result, timeout=SCRIPT_TIMEOUT):
        text = (result.stdout + result.stderr).decode("utf-8", "replace")
        return cls(result.returncode, result.timed_out, result.truncated, scrub(tail(text)),
                   result.timed_out and timeout < SCRIPT_TIMEOUT)

    @classmethod
    def from_dict(cls, data):
        return cls(data.get("returncode"), bool(data.get("timed_out")), bool(data.get("truncated")),
                   str(data.get("output") or ""), bool(data.get("out_of_time")))

    def as_dict(self):
        return {"returncode": self.returncode, "timed_out": self.timed_out, "truncated": self.truncated,
                "output": self.output, "out_of_time": self.out_of_time}

    @property
    def succeeded(self):
        return self.returncode == 0 and not self.timed_out and not self.truncated


NO_TIME_LEFT = ProbeRun(None, timed_out=True, out_of_time=True)  # not started: the probe time was over


class ProbeUnavailable(Exception):
    """The probe could not be set up because of the learner's state (their repository cannot be
    copied, main cannot be read): the checks that need it FAIL with this reason."""


def tail(text, limit=SHOWN_OUTPUT_CHARS):
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def run_probe(sandbox, argv, cwd, env, timeout, layer=None):
    """Run a learner's program once in `sandbox`; never raises for what the program does
    (SandboxUnavailable, the grader's own failure, goes up). With no `timeout` left it is not
    started."""
    if timeout <= 0:
        return NO_TIME_LEFT
    return ProbeRun.from_result(sandbox.run(argv, cwd, env, timeout, OUTPUT_BYTES, layer), timeout)


class ProbeOutOfTime(Exception):
    """The lab's probe time ended while the grader set a probe up: the grader's, not the learner's."""


def git(args, cwd=None, env=None, stdin=None, deadline=None):
    """Our own git command on the stage (never in the sandbox, never on the learner's files),
    within GIT_TIMEOUT and the probes' `deadline` (a time.monotonic() value); raises
    ProbeUnavailable when it fails, ProbeOutOfTime when the deadline cut it."""
    timeout = GIT_TIMEOUT if deadline is None else min(GIT_TIMEOUT, deadline - time.monotonic())
    if timeout <= 0:
        raise ProbeOutOfTime(f"git {args[0]}")
    try:
        result = run_bounded(["git", "-c", "safe.directory=*", "-c", "core.hooksPath=/dev/null", *args], cwd=cwd,
                             env={**GIT_ENV, "HOME": cwd or "/", **(env or {})}, timeout=timeout,
                             max_output=OUTPUT_BYTES, stdin=stdin if stdin is not None else b"",
                             memory_bytes=GIT_MEMORY_BYTES)
    except OSError as exc:
        raise SandboxUnavailable(f"git cannot run: {exc.strerror or exc}") from None
    if result.timed_out and timeout < GIT_TIMEOUT:
        raise ProbeOutOfTime(f"git {args[0]}")
    if not result.ok:
        detail = tail(result.stderr.decode("utf-8", "replace"), 200) or f"exit code {result.returncode}"
        raise ProbeUnavailable(f"git {args[0]} failed: {detail}")
    return result.stdout.decode("utf-8", "replace").strip()


def stage_bare_repo(sandbox, bare_path, hook, deadline=None):
    """A copy of the bare repository at its real path in `sandbox` that runs only `hook` (its
    file resolved if it is a link, kept if it is a compiled program: git runs either) and whose
    config holds only what decides a push. Raises ProbeUnavailable when it cannot be copied."""
    try:
        # git never runs a *.sample file (hook.c find_hook looks up the exact name): they stay, as
        # in any repository, so that the copy does not look emptied.
        sandbox.stage_tree(bare_path, skip=lambda rel, data: rel.startswith("hooks/") and rel != f"hooks/{hook}"
                           and not rel.endswith(".sample"))
    except TreeRefused as refused:
        raise ProbeUnavailable(f"the repository {refused}") from None
    copy = sandbox.staged(bare_path)
    for name in ("alternates", "http-alternates"):  # the copy reads only its own objects
        path = os.path.join(copy, "objects", "info", name)
        if os.path.lexists(path):
            os.remove(path)
    config = os.path.join(copy, "config")
    kept = []
    if os.path.isfile(config):
        listed = git(["config", "--file", config, "--list", "-z"], cwd=copy, deadline=deadline)
        for entry in filter(None, listed.split("\0")):
            key, _, value = entry.partition("\n")
            if key in CONFIG_KEPT or key.startswith(CONFIG_KEPT_SECTIONS):
                kept.append((key, value))
        os.remove(config)
    with open(config, "w", encoding="utf-8"):
        pass
    for key, value in kept or [("core.repositoryformatversion", "0"), ("core.bare", "true")]:
        git(["config", "--file", config, "--add", key, value], cwd=copy, deadline=deadline)
    return copy


def last_author(repo, ref="refs/heads/main", deadline=None):
    """{GIT_AUTHOR_NAME, ..., GIT_COMMITTER_EMAIL} of the newest commit at `ref` of `repo`: the
    probe's commits are the learner's own as far as anyone can see."""
    fields = git(["--git-dir", repo, "log", "-1", "--format=%an%x00%ae%x00%cn%x00%ce", ref], cwd=repo,
                 deadline=deadline).split("\0")
    names = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
    return dict(zip(names, (fields + [""] * 4)[:4], strict=True))


def work_clone(sandbox, bare_path, real_path, deadline=None):
    """A clone of the staged bare copy at `real_path` in the stage (nothing checked out), its
    origin the bare repository's real path, as a CI job's clone would be. Returns its stage path."""
    staged = sandbox.make_dirs(real_path)
    templates = tempfile.mkdtemp()  # no sample hooks, no template of the machine's
    try:
        git(["clone", "--quiet", "--no-checkout", "--no-hardlinks", f"--template={templates}",
             sandbox.staged(bare_path), staged], cwd=os.path.dirname(staged), deadline=deadline)
    finally:
        shutil.rmtree(templates, ignore_errors=True)
    git(["remote", "set-url", "origin", bare_path], cwd=staged, deadline=deadline)
    return staged


def commit_files(clone, branch, base, files, message, author, deadline=None):
    """Commit `files` ({path: text}) on top of `base` as local `branch` of `clone`, with git's
    plumbing only (a private index; nothing is checked out). Returns the commit id."""
    index = os.path.join(clone, ".git", "probe-index")
    env = {"GIT_INDEX_FILE": index, **author}
    try:
        git(["read-tree", base], cwd=clone, env=env, deadline=deadline)
        for path, text in files.items():
            blob = git(["hash-object", "-w", "--stdin"], cwd=clone, stdin=text.encode("utf-8"), deadline=deadline)
            git(["update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"], cwd=clone, env=env,
                deadline=deadline)
        tree = git(["write-tree"], cwd=clone, env=env, deadline=deadline)
        commit = git(["commit-tree", tree, "-p", base, "-m", message], cwd=clone, env=env, deadline=deadline)
    finally:
        if os.path.exists(index):
            os.remove(index)
    git(["update-ref", f"refs/heads/{branch}", commit], cwd=clone, deadline=deadline)
    return commit


def probe_env(context):
    """A root login's environment on the VM; PATH as the grader's (kubectl, git), minus its venv."""
    path = ":".join(d for d in (os.environ.get("PATH") or "").split(":")
                    if d and not d.startswith(sys.prefix.rstrip("/") + "/"))
    return login_env(context.site.workspace_root, path or None)


def probe_timeout(context):
    """Each run gets SCRIPT_TIMEOUT seconds, less when the lab's probe time ends sooner (none
    once it is over: the run is then not started)."""
    return max(0.0, min(SCRIPT_TIMEOUT, context.remaining()))
