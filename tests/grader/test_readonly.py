"""Grading changes nothing: the workspace, the bare repo and the cluster are the same after a
real module run (ansible-playbook's module path, the real kubernetes client and git)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

from tests.conftest import REPO_ROOT


def tree_digest(root):
    """Every path under root with its type, mode, size, mtime and content hash."""
    entries = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            digest = ""
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
            entries[os.path.relpath(path, root)] = (st.st_mode, st.st_size, st.st_mtime_ns, digest)
    return entries


def lab_grade_args(host_dir):
    return (f"labs=capa-src workspace_root={host_dir}/root bare_root={host_dir}/srv/bare "
            f"kubeconfig={host_dir}/kubeconfig settle_timeout=0")


def run_module(host_dir):
    ansible = os.path.join(os.path.dirname(sys.executable), "ansible")
    result = subprocess.run(
        [ansible, "localhost", "-m", "lab_grade", "-a", lab_grade_args(host_dir), "-e",
         f"ansible_python_interpreter={sys.executable}", "--one-line"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.split(" => ", 1)[1])


def test_grading_writes_nothing(fake_api):
    host_dir = fake_api.world("capa-src/golden.yaml")
    log = host_dir / "requests.log"
    before = tree_digest(host_dir)
    refs_before = subprocess.run(["git", "--git-dir", str(host_dir / "srv/bare/src.git"), "for-each-ref"],
                                 capture_output=True, text=True, check=True).stdout
    result = run_module(host_dir)
    again = run_module(host_dir)
    assert result["health"]["healthy"] is True and result["changed"] is False
    assert result["labs"]["capa-src"]["status"] == "PASS"
    assert again["labs"]["capa-src"]["summary"] == result["labs"]["capa-src"]["summary"]
    after = tree_digest(host_dir)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed <= {"requests.log"}  # the fake API server's own request log
    refs_after = subprocess.run(["git", "--git-dir", str(host_dir / "srv/bare/src.git"), "for-each-ref"],
                                capture_output=True, text=True, check=True).stdout
    assert refs_after == refs_before
    methods = [json.loads(line)["method"] for line in log.read_text().splitlines()]
    assert methods and set(methods) == {"GET"}
    assert len(methods) == 2 * (5 + 9)  # two runs: the health gate's five requests, then nine for capa-src


def test_check_mode_runs_the_same_grading(fake_api):
    host_dir = fake_api.world("capa-src/half-done.yaml")
    ansible = os.path.join(os.path.dirname(sys.executable), "ansible")
    result = subprocess.run([ansible, "localhost", "-m", "lab_grade", "-a", lab_grade_args(host_dir), "--check", "-e",
                             f"ansible_python_interpreter={sys.executable}", "--one-line"],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    data = json.loads(result.stdout.split(" => ", 1)[1])
    assert data["changed"] is False
    assert data["labs"]["capa-src"]["summary"]["FAIL"] > 0 and "skipped" not in data
