"""python -m labworld record on the real control plane: cgoa-ci solved by its reference solution,
recorded (the probes run for real against the API server), replayed on the fake API server and
graded offline: every check has the verdict and the message of the grade of the plane, and
recording changed nothing in the workspace or the bare repo."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from ansible.module_utils.labgrader.collect import Site, collector
from ansible.module_utils.labgrader.grading import grade
from ansible.module_utils.labgrader.labs import LABS
from ansible.module_utils.labgrader.solutions import solve

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT))
from labworld.__main__ import main  # noqa: E402
from labworld.materialize import materialize  # noqa: E402
from labworld.server import make_server  # noqa: E402
from tests.labworld.test_record import digest  # noqa: E402

pytestmark = pytest.mark.controlplane
LAB = LABS["cgoa-ci"]
# What differs between two runs of the probes: their random object prefix and temp directories.
PROBE_RUN = re.compile(r"lab-probe-[0-9a-f]{6}-|/tmp/(lab-probe-|tmp\.)[\w.]+")


def checks(result, roots: dict[str, str], commits: dict[str, str]) -> dict:
    """{check: (status, message)} with the site's paths and server named alike, rebuilt commit
    ids (`commits`: {sha: original sha}) replaced, and what each probe run names by itself."""
    def same(text):
        for new, old in commits.items():
            text = text.replace(new, old).replace(new[:7], old[:7])
        for value, name in roots.items():
            text = text.replace(value, name)
        return PROBE_RUN.sub("<probe>", text)
    return {c["check"]: (c["status"], same(c["message"])) for s in result["steps"] for c in s["checks"]}


def reset(plane, vm: Path) -> None:
    """The lab as never started (an earlier test may have left it solved for another workspace)."""
    inventory = vm.parent / "inventory.json"
    inventory.write_text(json.dumps({"learners": {"hosts": {"vm": {
        "ansible_connection": "local", "ansible_python_interpreter": sys.executable,
        "lab_kubectl": [str(plane.bin_dir / "kubectl")], "lab_admin_kubeconfig": str(plane.kubeconfig),
        "lab_workspace_root": str(vm), "lab_bare_root": str(plane.bare_root)}}}}))
    result = subprocess.run([str(Path(sys.executable).with_name("ansible-playbook")), "-i", str(inventory),
                             "playbooks/reset.yml", "-e", f"reset_lab={LAB.id}", "-e", f"reset_confirm={LAB.id}"],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:]


def test_the_solved_plane_recorded_and_replayed_grades_the_same(plane, tmp_path):
    vm = tmp_path / "vm" / "root"
    vm.mkdir(parents=True)
    reset(plane, vm)
    kubectl, argocd, kubeconfig = str(plane.bin_dir / "kubectl"), str(plane.bin_dir / "argocd"), str(plane.kubeconfig)
    saved = os.environ["PATH"]
    os.environ["PATH"] = f"{plane.bin_dir}:{saved}"  # the probes run validate.sh, which calls kubectl
    try:
        solve({"lab": LAB.id, "until": 0, "kubectl": [kubectl], "argocd": [argocd], "kubeconfig": kubeconfig,
               "workspace_root": str(vm), "bare_root": str(plane.bare_root), "argocd_namespace": "argocd",
               "gitd_namespace": "gitsrv", "wait_timeout": 300, "api_timeout": 15})
        site = Site(bare_root=str(plane.bare_root), workspace_root=str(vm), k3s_kubeconfig=kubeconfig)
        original = grade(LAB, collector(LAB, site, kubeconfig, timeout=15), "en", settle_seconds=90, poll_seconds=3)
        world = tmp_path / "world.yaml"
        before = {path: digest(path) for path in (vm, plane.bare_root / "ci.git")}
        assert main(["record", "--lab", LAB.id, "--out", str(world), "--kubeconfig", kubeconfig,
                     "--k3s-kubeconfig", kubeconfig, "--workspace-root", str(vm),
                     "--bare-root", str(plane.bare_root), "--api-timeout", "15"]) == 0
        assert {path: digest(path) for path in before} == before  # the probes ran on copies
    finally:
        os.environ["PATH"] = saved
    hosts = tmp_path / "hosts"
    server = make_server(hosts, 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        summary = materialize(world, "replay", hosts, url)
        host = hosts / "replay"
        replay_site = Site(bare_root=str(host / "srv" / "bare"), workspace_root=str(host / "root"),
                           k3s_kubeconfig=str(host / "kubeconfig"), probe_replay=str(host / "probes.json"))
        replayed = grade(LAB, collector(LAB, replay_site, str(host / "kubeconfig"), timeout=5), "en", 0, 1)
    finally:
        server.shutdown()
        server.server_close()
    server_url = plane.run([kubectl, "--kubeconfig", kubeconfig, "config", "view", "--minify", "-o",
                            "jsonpath={.clusters[0].cluster.server}"]).stdout.strip()
    bare = str(plane.bare_root / "ci.git")
    rebuilt = {new: subprocess.run(["git", "--git-dir", bare, "rev-parse", label], capture_output=True, text=True,
                                   check=True).stdout.strip()
               for label, new in summary["repos"]["ci"]["commits"].items()}
    expected = checks(original, {str(plane.bare_root): "<bare>", str(vm): "<root>", server_url: "<server>"}, {})
    assert {status for status, _ in expected.values()} == {"PASS"}
    found = checks(replayed, {str(host / "srv" / "bare"): "<bare>", str(host / "root"): "<root>",
                              f"{url}/h/replay": "<server>"}, rebuilt)
    assert found == expected
    assert json.loads((host / "cluster.json").read_text())["reviews"]  # answered as recorded
