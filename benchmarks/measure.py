"""Run a command and measure what it costs this machine, descendants included.

Usage: python measure.py OUT.json SECONDS -- COMMAND...

The process makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so processes that
detach from the command (ssh ControlPersist masters) are reparented here: when the command
ends they are stopped (SIGTERM, by pid, only processes this run started) and reaped, and their
CPU is counted too. A command still running after SECONDS is stopped the same way (rc -15,
"timed_out": true). OUT.json: wall seconds, exit code, user/system CPU seconds of every
descendant, peak of the summed PSS of all live descendants (sampled every 0.1 s) and the largest
single RSS.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
SAMPLE_SECONDS = 0.1
REAP_SECONDS = 10


def descendants(root):
    """Pids whose ancestry reaches `root` (a snapshot of /proc)."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
                parent[int(entry)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parent.items() if ppid in frontier and pid not in found}
        found |= frontier
    return found


def memory(pid):
    """(PSS, RSS) in bytes: PSS shares each shared page among the processes that map it, so the
    sum over processes is the memory they really hold together."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            fields = dict(line.split(b":", 1) for line in fh.read().splitlines()[1:] if b":" in line)
        return int(fields[b"Pss"].split()[0]) * 1024, int(fields[b"Rss"].split()[0]) * 1024
    except (OSError, KeyError, IndexError, ValueError):
        return 0, 0


def main():
    out, limit, command = sys.argv[1], float(sys.argv[2]), sys.argv[4:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    me = os.getpid()
    started = time.monotonic()
    child = subprocess.Popen(command)
    peak_sum = peak_one = 0
    timed_out = False
    while child.poll() is None:
        if time.monotonic() - started > limit:
            timed_out = True
            break
        sizes = [memory(pid) for pid in descendants(me)]
        peak_sum = max(peak_sum, sum(pss for pss, _ in sizes))
        peak_one = max([peak_one, *(rss for _, rss in sizes)])
        time.sleep(SAMPLE_SECONDS)
    wall = time.monotonic() - started
    leftovers = descendants(me)  # ssh masters; everything, when the command ran out of time
    for pid in leftovers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + REAP_SECONDS
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.05)
    child.poll()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"wall": wall, "rc": child.returncode, "cpu_user": usage.ru_utime, "cpu_system": usage.ru_stime,
                   "peak_pss_sum": peak_sum, "peak_rss_one": peak_one, "left_running": len(leftovers),
                   "timed_out": timed_out}, fh)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
