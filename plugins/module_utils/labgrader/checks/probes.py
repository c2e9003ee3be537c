"""Active probes of a learner's scripts, run so that they cannot harm the learner or the grader.

- Scripts run on throw-away inputs the grader writes into its own temp directory, with stdin
  closed, `HOME` and the working directory inside that temp directory, a wall-clock timeout,
  capped output and a process-group kill (limits.run_bounded): a script that hangs, forks a
  daemon, prints megabytes or reads stdin ends as a finding, not a hang.
- A push probe never touches the learner's bare repository: it copies it (bounded in size and
  file count, regular files and links only, no alternates) and pushes to the copy, hooks included.
- Scripts run as the module's user (root on the VM): they must read the learner's files under
  /root, which an unprivileged user cannot; what a script does to files outside its temp
  directory is the learner's own doing on their own VM.

A probe result is plain data (ProbeRun.as_dict) so that a recorded world can replay it.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile

from ansible.module_utils.labgrader.limits import run_bounded, scrub

SCRIPT_TIMEOUT = 30.0
OUTPUT_BYTES = 256 * 1024
SHOWN_OUTPUT_CHARS = 600
# kubectl and git are Go/C programs that reserve address space generously; 4 GiB of it still
# stops a runaway script long before the VM runs out of memory.
SCRIPT_MEMORY_BYTES = 4 * 1024 * 1024 * 1024
COPY_MAX_BYTES = 64 * 1024 * 1024
COPY_MAX_FILES = 20000
# Our own git commands ignore system/global config and never prompt.
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_AUTHOR_NAME": "Lab Grader Probe",
    "GIT_AUTHOR_EMAIL": "probe@lab.invalid",
    "GIT_COMMITTER_NAME": "Lab Grader Probe",
    "GIT_COMMITTER_EMAIL": "probe@lab.invalid",
}


class ProbeRun:
    """One run of a learner's script: exit code, whether it was cut short, the end of its output."""

    __slots__ = ("output", "returncode", "timed_out", "truncated")

    def __init__(self, returncode, timed_out=False, truncated=False, output=""):
        self.returncode = returncode
        self.timed_out = timed_out
        self.truncated = truncated
        self.output = output

    @classmethod
    def from_result(cls, result):
        text = (result.stdout + result.stderr).decode("utf-8", "replace")
        return cls(result.returncode, result.timed_out, result.truncated, scrub(tail(text)))

    @classmethod
    def from_dict(cls, data):
        return cls(data.get("returncode"), bool(data.get("timed_out")), bool(data.get("truncated")),
                   str(data.get("output") or ""))

    def as_dict(self):
        return {"returncode": self.returncode, "timed_out": self.timed_out, "truncated": self.truncated,
                "output": self.output}

    @property
    def succeeded(self):
        return self.returncode == 0 and not self.timed_out and not self.truncated


class ProbeUnavailable(Exception):
    """The probe could not be set up (the learner's repo cannot be copied, git is missing)."""


def tail(text, limit=SHOWN_OUTPUT_CHARS):
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def probe_env(home, extra=None):
    """A small, explicit environment: PATH of the module (kubectl, git), HOME in our temp dir."""
    env = {"PATH": os.environ.get("PATH") or "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"}
    env.update(extra or {})
    return env


def run_script(argv, workdir, env, timeout=SCRIPT_TIMEOUT):
    """Run a learner script once; never raises for what the script does."""
    try:
        result = run_bounded(argv, cwd=workdir, env=env, timeout=timeout, max_output=OUTPUT_BYTES,
                             memory_bytes=SCRIPT_MEMORY_BYTES)
    except OSError as exc:
        return ProbeRun(None, output=f"cannot start {os.path.basename(argv[0])}: {exc.strerror or exc}")
    return ProbeRun.from_result(result)


def write_tree(root, files):
    """Write {relative path: text} under root (the grader's own temp files)."""
    for relpath, text in files.items():
        path = os.path.join(root, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def copy_bare_repo(source, target):
    """Copy a bare repository without following links out of it, bounded in size and count;
    objects/info/alternates is dropped so that the copy reads only its own objects."""
    total = count = 0
    for dirpath, dirnames, filenames in os.walk(source):
        relative = os.path.relpath(dirpath, source)
        os.makedirs(os.path.join(target, relative), exist_ok=True)
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            dest = os.path.join(target, relative, name)
            info = os.lstat(path)
            count += 1
            if count > COPY_MAX_FILES:
                raise ProbeUnavailable(f"the repository has more than {COPY_MAX_FILES} files")
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(path), dest)
                if name in dirnames:
                    dirnames.remove(name)
            elif stat.S_ISREG(info.st_mode):
                total += info.st_size
                if total > COPY_MAX_BYTES:
                    raise ProbeUnavailable(f"the repository is larger than {COPY_MAX_BYTES // (1024 * 1024)} MiB")
                shutil.copy2(path, dest, follow_symlinks=False)
            # FIFOs, sockets and devices are not copied: nothing of git's is one
    for name in ("alternates", "http-alternates"):
        path = os.path.join(target, "objects", "info", name)
        if os.path.lexists(path):
            os.remove(path)


def git(args, cwd, home, timeout=SCRIPT_TIMEOUT, extra_env=None):
    """Our own git command (not the learner's): hardened env, bounded."""
    env = probe_env(home, {**GIT_ENV, "GIT_CONFIG_GLOBAL": os.devnull, **(extra_env or {})})
    try:
        result = run_bounded(["git", *args], cwd=cwd, env=env, timeout=timeout, max_output=OUTPUT_BYTES,
                             memory_bytes=SCRIPT_MEMORY_BYTES)
    except OSError as exc:
        raise ProbeUnavailable(f"git cannot run: {exc.strerror or exc}") from None
    return result


def push_probe(bare_path, branch, files, delete=False, probe_env_extra=None, timeout=SCRIPT_TIMEOUT):
    """Push one commit (the base branch main with `files` changed) to `branch` of a throw-away
    copy of `bare_path` (or delete `branch` when `delete`), so that the copy's hooks judge it.
    Returns a ProbeRun of the push; the learner's repository is only read."""
    with tempfile.TemporaryDirectory(prefix="lab-probe-") as tmp:
        copy = os.path.join(tmp, "copy.git")
        work = os.path.join(tmp, "work")
        try:
            copy_bare_repo(bare_path, copy)
        except OSError as exc:
            raise ProbeUnavailable(f"the repository cannot be copied: {exc.strerror or exc}") from None
        cloned = git(["clone", "--quiet", "--no-hardlinks", "--branch", "main", copy, work], tmp, tmp)
        if not cloned.ok:
            raise ProbeUnavailable("main cannot be cloned: " + tail(cloned.stderr.decode("utf-8", "replace"), 200))
        if delete:
            # git itself refuses to delete the branch HEAD names (receive.denyDeleteCurrent);
            # the copy lets it through so that only the learner's hook decides.
            git(["--git-dir", copy, "config", "receive.denyDeleteCurrent", "ignore"], tmp, tmp)
            refspec = f":refs/heads/{branch}"
        else:
            write_tree(work, files)
            added = git(["add", "--all"], work, tmp)
            committed = git(["commit", "--quiet", "--no-verify", "-m", "lab grader probe"], work, tmp)
            if not (added.ok and committed.ok):
                raise ProbeUnavailable("the probe commit cannot be made")
            refspec = f"HEAD:refs/heads/{branch}"
        # The learner's hook runs here, in the copy, with our environment (KUBECONFIG bogus).
        pushed = git(["push", "--porcelain", "origin", refspec], work, tmp, timeout, probe_env_extra)
        return ProbeRun.from_result(pushed)
