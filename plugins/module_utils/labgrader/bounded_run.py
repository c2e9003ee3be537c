"""Programs run so that they cannot hang, flood or outlive the grader (docs/hostile-input.md):
git here, the learner's own scripts in cgoa-ci (inside sandbox.py)."""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import signal
import subprocess
import time


class RunResult:
    """What `run_bounded` saw. `returncode` is negative for a signal (-9 after a kill)."""

    __slots__ = ("killed", "returncode", "seconds", "stderr", "stdout", "timed_out", "truncated")

    def __init__(self, returncode, stdout, stderr, timed_out, truncated, killed, seconds):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.timed_out = timed_out
        self.truncated = truncated
        self.killed = killed
        self.seconds = seconds

    @property
    def ok(self):
        return self.returncode == 0 and not self.killed

    def __repr__(self):
        return (f"RunResult(returncode={self.returncode}, timed_out={self.timed_out}, "
                f"truncated={self.truncated}, killed={self.killed}, seconds={self.seconds:.2f})")


DEFAULT_MEMORY_BYTES = 1024 * 1024 * 1024


def run_bounded(argv, cwd=None, env=None, timeout=10.0, max_output=1024 * 1024, stdin=subprocess.DEVNULL,
                as_user=None, memory_bytes=DEFAULT_MEMORY_BYTES, file_bytes=None):
    """Run `argv` (a list, never a shell string) so that it cannot hang, flood or outlive the caller.

    - `env` is the complete environment (nothing is inherited when it is given); `cwd` the directory.
    - `stdin`: subprocess.DEVNULL (default) or bytes fed to the process.
    - The process gets its own session and process group; at `timeout` seconds (wall clock) or
      when stdout or stderr exceeds `max_output` bytes, the whole group gets SIGKILL. When the
      process exits, what is left of its group (background children) is killed too.
    - `memory_bytes` is its RLIMIT_AS (None: inherited); core dumps are off; `file_bytes` is an
      optional RLIMIT_FSIZE for scripts that might write huge files.
    - `as_user`: a user name or uid to run as (needs root), with that user's primary group and
      no supplementary groups; for learner scripts.

    Returns RunResult(returncode, stdout, stderr, timed_out, truncated, killed, seconds), stdout
    and stderr as bytes of at most max_output each. Never raises for what the process does; raises
    OSError when argv[0] cannot be started.
    """
    feed = stdin if isinstance(stdin, bytes) else None
    started = time.monotonic()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE if feed is not None else stdin, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_resource_limits(memory_bytes, file_bytes),
        close_fds=True, **_user_args(as_user))
    outputs = {process.stdout: bytearray(), process.stderr: bytearray()}
    timed_out, truncated = _pump(process, feed, outputs, started + timeout, max_output)
    _kill_group(process)
    try:
        returncode = process.wait(timeout=5)
    except subprocess.TimeoutExpired:  # unkillable (D state): report, do not wait forever
        returncode = None
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None and not stream.closed:
            stream.close()
    return RunResult(returncode, bytes(outputs[process.stdout]), bytes(outputs[process.stderr]),
                     timed_out, truncated, timed_out or truncated, time.monotonic() - started)


def _resource_limits(memory_bytes, file_bytes):
    """The child's preexec_fn: no core dumps, RLIMIT_AS and the optional RLIMIT_FSIZE."""
    def limit():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory_bytes is not None:
            # Never above what this process may have itself (raising a hard limit needs
            # CAP_SYS_RESOURCE, which a container may lack): a child bound by its caller stays so.
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            bound = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
            resource.setrlimit(resource.RLIMIT_AS, (bound, bound))
        if file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    return limit


def _user_args(as_user):
    """Popen's user, group and extra_groups for `as_user` (a name or uid), {} for None."""
    if as_user is None:
        return {}
    import pwd  # only where learner scripts run

    entry = pwd.getpwuid(as_user) if isinstance(as_user, int) else pwd.getpwnam(as_user)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _kill_group(process):
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _pump(process, feed, outputs, deadline, max_output):
    """Feed stdin and collect stdout and stderr into `outputs` until both close, the `deadline`
    (monotonic) passes or an output exceeds `max_output`. Returns (timed_out, truncated)."""
    timed_out = truncated = False
    with selectors.DefaultSelector() as selector:
        for stream in outputs:
            os.set_blocking(stream.fileno(), False)
            selector.register(stream, selectors.EVENT_READ)
        if feed is not None:
            os.set_blocking(process.stdin.fileno(), False)
            if feed:
                selector.register(process.stdin, selectors.EVENT_WRITE)
            else:
                process.stdin.close()
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(min(remaining, 0.5)):
                stream = key.fileobj
                if stream is process.stdin:
                    feed = _write_some(selector, stream, feed)
                    continue
                chunk = os.read(stream.fileno(), 65536)
                if not chunk:
                    selector.unregister(stream)
                    continue
                buffer = outputs[stream]
                room = max_output - len(buffer)
                buffer += chunk[:room]
                truncated = truncated or len(chunk) > room
            if truncated:
                break
            if process.poll() is not None:
                _kill_group(process)  # background children must not keep the pipes open
    return timed_out, truncated


def _write_some(selector, stream, feed):
    """Write what the pipe takes of `feed` to the child's stdin; close it once all is written
    (or the child closed its end). Returns what is left to write."""
    try:
        written = os.write(stream.fileno(), feed[:65536])
    except BrokenPipeError:
        written = len(feed)
    feed = feed[written:]
    if not feed:
        selector.unregister(stream)
        stream.close()
    return feed
