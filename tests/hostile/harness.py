"""Hostile-input corpus helpers: `run` runs one grader operation in a fresh process under an
address-space limit and checks the bounds every case shares (time, memory, no canary secret in
anything it printed); `copy_host` gives each case its own copy of the golden capa-src host."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

DRIVER = Path(__file__).with_name("driver.py")
CANARY = "canary-token-6f1d2c9e8b7a"
MEMORY_LIMIT_MB = 2048  # RLIMIT_AS of the driver process: an unbounded read dies here
MEMORY_BOUND_MB = 400  # peak RSS any case may use (grader process or its git children)
WORST = {}  # case id -> (outcome, seconds, max_rss_mb), printed by the summary test
_names = itertools.count(1)


def run(case_id, op, time_bound, memory_mb=MEMORY_LIMIT_MB, **args):
    """Run `op` in the driver; assert it finished within `time_bound` seconds and
    MEMORY_BOUND_MB of RSS without printing the canary; return the operation's answer."""
    completed = subprocess.run([sys.executable, str(DRIVER)], input=json.dumps({"op": op, "memory_mb": memory_mb, **args}),
                               capture_output=True, text=True, timeout=time_bound + 60, check=False)
    output = completed.stdout + completed.stderr
    assert CANARY not in output
    assert completed.returncode == 0, output[-3000:]
    report = json.loads(completed.stdout)
    assert report["seconds"] < time_bound, report
    assert report["max_rss_mb"] < MEMORY_BOUND_MB, report
    WORST[case_id] = (report["seconds"], report["max_rss_mb"])
    return report["answer"]


def copy_host(source, api_root, token=CANARY):
    """A copy of a materialized host under a new name in the fake API's root, with its own
    token (the canary) and every path that names the host rewritten."""
    name = f"x{next(_names):03d}"
    target = Path(api_root) / name
    shutil.copytree(source, target, symlinks=True)
    old_dir, old_name = str(source), source.name
    state = json.loads((target / "cluster.json").read_text())
    state.update(host=name, token=token)
    (target / "cluster.json").write_text(json.dumps(state))
    config = yaml.safe_load((target / "kubeconfig").read_text())
    config["clusters"][0]["cluster"]["server"] = config["clusters"][0]["cluster"]["server"].replace(
        f"/h/{old_name}", f"/h/{name}")
    config["users"][0]["user"]["token"] = token
    (target / "kubeconfig").write_text(yaml.safe_dump(config))
    clone_config = target / "root" / "capa-src" / "repo" / ".git" / "config"
    if clone_config.exists():
        clone_config.write_text(clone_config.read_text().replace(old_dir, str(target)))
    (target / "requests.log").unlink(missing_ok=True)
    return target


def set_fault(host, mode, seconds):
    state = json.loads((host / "cluster.json").read_text())
    state["fault"] = {"mode": mode, "seconds": seconds}
    (host / "cluster.json").write_text(json.dumps(state))


def edit_kubeconfig(host, change):
    path = host / "kubeconfig"
    config = yaml.safe_load(path.read_text())
    change(config, host)
    path.write_text(yaml.safe_dump(config))


def fifo(path):
    path = Path(path)
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)


def symlink(path, target):
    path = Path(path)
    if path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(target)


def sparse(path, size=1024 ** 3):
    path = Path(path)
    if path.is_symlink():
        path.unlink()
    with open(path, "wb") as handle:
        handle.truncate(size)
