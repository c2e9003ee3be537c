"""A slow or dead VM does not stall the class (issue 11, item 4).

scripts/bench-class --faults grades learners over real SSH together with three unhealthy VMs:
one whose SSH port accepts and never answers (blackholed), one whose SSH answers only after
10 s, one whose API server accepts and never answers (labworld `cluster.fault: stall`). The run
must end within the timeouts and report exactly those three as ERROR with the reason, while the
healthy learners are graded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.playbook,
    pytest.mark.skipif(not os.path.exists("/usr/sbin/sshd"), reason="needs openssh-server (/usr/sbin/sshd)"),
]

# ansible.cfg `timeout` (ssh ConnectTimeout, 5 s) + the module's api_timeout (10 s) + start-up
# and report on a loaded 2-core machine.
FAULT_RUN_SECONDS = 60


def test_unhealthy_vms_are_errors_with_their_reason(tmp_path):
    out = tmp_path / "bench.json"
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_class", "--n", "4", "--faults", "--no-baseline",
                           "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    fault_run = next(row for row in result["rows"] if row["name"] == "faults")
    assert fault_run["wall"] < FAULT_RUN_SECONDS, fault_run
    records = result["faults"]
    states = {host: record["state"] for host, record in records.items()}
    assert states == {"learner001": "graded", "learner002": "graded", "learner003": "graded", "learner004": "graded",
                      "vm-blackhole": "error", "vm-slow-ssh": "error", "vm-stalled-api": "error"}
    for host in ("vm-blackhole", "vm-slow-ssh"):
        error = records[host]["error"]
        assert error["kind"] == "unreachable", error
        assert "Connection timed out during banner exchange" in error["message"], error
    stalled = records["vm-stalled-api"]["error"]
    assert stalled["kind"] == "health", stalled
    assert "unreachable" in stalled["message"] and "Read timed out" in stalled["message"], stalled
    assert time.monotonic() - started < 600
