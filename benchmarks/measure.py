"""Run a command and measure what it costs this machine, descendants included.

Usage: python measure.py [--leave-masters PIDS.json] [--count PIDS.json] OUT.json SECONDS -- COMMAND...

The process makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so processes that
detach from the command (ssh ControlPersist masters) are reparented here: when the command
ends they are stopped (SIGTERM, by pid, only processes this run started) and reaped, and their
CPU is counted too. With --leave-masters they are left running instead (the next run finds the
class's SSH masters warm) and their pids and CPU so far are written to PIDS.json; --count adds
the CPU that such processes of an earlier run spent during this one. A command still running
after SECONDS is stopped the same way (rc -15, "timed_out": true). OUT.json: wall seconds, exit
code, user/system CPU seconds of every descendant, peak of the summed PSS of all live descendants
(sampled every 0.1 s), the largest single RSS, and the CPU by kind of process as last sampled
(`by_kind`: the ansible-playbook process, its worker forks, ssh clients, ssh masters, other).
"""

from __future__ import annotations

import argparse
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
TICK = os.sysconf("SC_CLK_TCK")


def processes():
    """{pid: (parent pid, command name, CPU seconds)} of every process (a snapshot of /proc)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    head, tail = fh.read().rsplit(b")", 1)
                fields = tail.split()
                found[int(entry)] = (int(fields[1]), head.split(b"(", 1)[1].decode(errors="replace"),
                                     (int(fields[11]) + int(fields[12])) / TICK)
            except (OSError, IndexError, ValueError):
                continue
    return found


def descendants(root, table):
    """Pids whose ancestry reaches `root`."""
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, (ppid, _, _) in table.items() if ppid in frontier and pid not in found}
        found |= frontier
    return found


def kind(pid, table, me, main):
    """What a descendant is: the command itself, its forks (Ansible's workers), an ssh client, an ssh
    ControlPersist master (detached: reparented here), or anything else (local modules, shells)."""
    ppid, name, _ = table[pid]
    if pid == main:
        return "main process"
    if name == "ssh":
        return "ssh master" if ppid == me else "ssh client"
    if ppid == main:
        return "workers"
    return "other"


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
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("seconds", type=float)
    parser.add_argument("--leave-masters")
    parser.add_argument("--count")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    counted = {}
    if args.count:
        with open(args.count, encoding="utf-8") as fh:
            counted = json.load(fh)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    me = os.getpid()
    started = time.monotonic()
    child = subprocess.Popen(command)
    peak_sum = peak_one = 0
    timed_out = False
    last = {}  # pid -> (kind, CPU seconds) as last seen
    table = {}
    while child.poll() is None:
        if time.monotonic() - started > args.seconds:
            timed_out = True
            break
        table = processes()
        mine = descendants(me, table)
        for pid in mine:
            last[pid] = (kind(pid, table, me, child.pid), table[pid][2])
        sizes = [memory(pid) for pid in mine]
        peak_sum = max(peak_sum, sum(pss for pss, _ in sizes))
        peak_one = max([peak_one, *(rss for _, rss in sizes)])
        time.sleep(SAMPLE_SECONDS)
    wall = time.monotonic() - started
    table = processes()
    leftovers = descendants(me, table)  # ssh masters; everything, when the command ran out of time
    masters = {pid: table[pid][2] for pid in leftovers if table[pid][1] == "ssh"}
    for pid in masters:
        last[pid] = ("ssh master", masters[pid])
    earlier = sum(max(0.0, table[int(pid)][2] - cpu) for pid, cpu in counted.items() if int(pid) in table)
    if args.leave_masters and not timed_out:
        with open(args.leave_masters, "w", encoding="utf-8") as fh:
            json.dump(masters, fh)
        leftovers -= set(masters)
    for pid in leftovers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    # reap every exited descendant (their CPU counts once reaped) and the stopped ones; the masters
    # left running stay children of this process until it exits
    deadline = time.monotonic() + REAP_SECONDS
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            if not any(os.path.exists(f"/proc/{pid}") for pid in leftovers):
                break
            time.sleep(0.05)
    child.poll()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    by_kind = {}
    for what, cpu in last.values():
        by_kind[what] = by_kind.get(what, 0.0) + cpu
    # the masters left running are not reaped: their CPU so far is added here, and the next run
    # counts only what they spend during it
    left_cpu = sum(masters.values()) if args.leave_masters and not timed_out else 0.0
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump({"wall": wall, "rc": child.returncode, "cpu_user": usage.ru_utime,
                   "cpu_system": usage.ru_stime + left_cpu + earlier, "earlier_masters_cpu": earlier,
                   "by_kind": {**by_kind, "earlier ssh masters": earlier},
                   "peak_pss_sum": peak_sum, "peak_rss_one": peak_one, "left_running": len(leftovers),
                   "masters_left": len(masters) if args.leave_masters else 0, "timed_out": timed_out}, fh)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
