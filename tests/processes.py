"""What tests ask of processes they did not start (their pids from /proc)."""

from __future__ import annotations


def running(pid):
    """Whether `pid` is a process that has not ended (a zombie waiting for its reaper has)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
