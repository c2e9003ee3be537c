"""Per-host task timings for scripts/bench-class: when each host's task started and ended.

Writes JSON to $BENCH_TIMING_OUT at the end of the run:
{"tasks": {task name: {host: [start, end, status]}}} with time.time() values."""

from __future__ import annotations

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = r"""
name: bench_timing
type: aggregate
short_description: per-host task start/end times for scripts/bench-class
description: Records when each host's task started and ended and writes them to $BENCH_TIMING_OUT.
requirements: [enable in callbacks_enabled]
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_timing"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.tasks = {}

    def _mark(self, result, status):
        entry = self.tasks.setdefault(result._task.get_name(), {}).setdefault(result._host.get_name(), [None, None, None])
        entry[1], entry[2] = time.time(), status

    def v2_runner_on_start(self, host, task):
        self.tasks.setdefault(task.get_name(), {})[host.get_name()] = [time.time(), None, None]

    def v2_runner_on_ok(self, result):
        self._mark(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._mark(result, "failed")

    def v2_runner_on_unreachable(self, result):
        self._mark(result, "unreachable")

    def v2_runner_on_skipped(self, result):
        self._mark(result, "skipped")

    def v2_playbook_on_stats(self, stats):
        out = os.environ.get("BENCH_TIMING_OUT")
        if out:
            with open(out, "w", encoding="utf-8") as fh:
                json.dump({"tasks": self.tasks}, fh)
