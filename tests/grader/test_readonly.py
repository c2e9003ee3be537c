"""Grading changes nothing: the workspace, the bare repo and the cluster are the same after a
real module run (ansible's module path, the kubernetes client's kubeconfig loader and git),
also on hostile input and when reads time out; nothing is left in the home directory or in
temp directories, no process stays behind, and the API server sees only GETs (and review POSTs,
which store nothing) on any path."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server

from labworld.server import make_server
from tests.conftest import REPO_ROOT
from tests.hostile.harness import copy_host, fifo, set_fault

REVIEW_PATHS = ("/apis/authorization.k8s.io/v1/", "/apis/authentication.k8s.io/v1/")


def tree_digest(root):
    """Every path under root with its type, mode, size, mtime, ctime and content hash (FIFOs
    and other special files are never opened)."""
    entries = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            digest = ""
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
            entries[os.path.relpath(path, root)] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, digest)
    return entries


def lab_grade_args(host_dir, api_timeout=10):
    return (f"labs=capa-src workspace_root={host_dir}/root bare_root={host_dir}/srv/bare "
            f"kubeconfig={host_dir}/kubeconfig settle_timeout=0 api_timeout={api_timeout} "
            f"helm_binary={repo_server.HELM_BINARY} kustomize_binary={repo_server.KUSTOMIZE_BINARY}")


def run_module(host_dir, private, *extra, api_timeout=10):
    """`ansible localhost -m lab_grade` with HOME and TMPDIR in `private` (to see what is left there)."""
    home, tmp = private / "home", private / "tmp"
    home.mkdir(exist_ok=True)
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp), "ANSIBLE_LOCAL_TEMP": str(home / ".ansible/tmp"),
           "ANSIBLE_REMOTE_TEMP": str(home / ".ansible/tmp")}
    ansible = os.path.join(os.path.dirname(sys.executable), "ansible")
    result = subprocess.run(
        [ansible, "localhost", "-m", "lab_grade", "-a", lab_grade_args(host_dir, api_timeout), "-e",
         f"ansible_python_interpreter={sys.executable}", "--one-line", *extra],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.split(" => ", 1)[1])


def assert_nothing_left(private):
    """HOME holds only ansible's own (empty) temp directory; TMPDIR is empty; no process runs
    in either (a git child left behind would sit in its private GIT_DIR under TMPDIR)."""
    left = [os.path.relpath(os.path.join(d, f), private / "home") for d, _, files in os.walk(private / "home")
            for f in files]
    assert left == []
    assert os.listdir(private / "tmp") == []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        assert not cwd.startswith(str(private)), pid


def git_refs(host_dir):
    return subprocess.run(["git", "--git-dir", str(host_dir / "srv/bare/src.git"), "for-each-ref"],
                          capture_output=True, text=True, check=True).stdout


def test_grading_writes_nothing(fake_api, reachable_tmp):
    tmp_path = reachable_tmp
    host_dir = fake_api.world("capa-src/golden.yaml")
    log = host_dir / "requests.log"
    before = tree_digest(host_dir)
    refs_before = git_refs(host_dir)
    result = run_module(host_dir, tmp_path)
    again = run_module(host_dir, tmp_path)
    assert result["health"]["healthy"] is True and result["changed"] is False
    assert result["labs"]["capa-src"]["status"] == "PASS"
    assert again["labs"]["capa-src"]["summary"] == result["labs"]["capa-src"]["summary"]
    after = tree_digest(host_dir)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed <= {"requests.log"}  # the fake API server's own request log
    assert git_refs(host_dir) == refs_before
    methods = [json.loads(line)["method"] for line in log.read_text().splitlines()]
    assert methods and set(methods) == {"GET"}
    assert len(methods) == 2 * (5 + 9)  # two runs: the health gate's five requests, then nine for capa-src
    assert_nothing_left(tmp_path)


def test_check_mode_runs_the_same_grading(fake_api, tmp_path):
    host_dir = fake_api.world("capa-src/half-done.yaml")
    data = run_module(host_dir, tmp_path, "--check")
    assert data["changed"] is False
    assert data["labs"]["capa-src"]["summary"]["FAIL"] > 0 and "skipped" not in data


def recording_server(root):
    """A second fake API server over the same hosts that records every request, on any path."""
    server = make_server(root, 0)
    seen = []
    base = server.RequestHandlerClass

    def record(handler):
        seen.append((handler.command, handler.path))
        base._dispatch(handler)

    server.RequestHandlerClass = type("Recording", (base,), dict.fromkeys(
        ("do_GET", "do_HEAD", "do_POST", "do_PUT", "do_PATCH", "do_DELETE"), record))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    return server, seen


def point_kubeconfig_at(host_dir, server):
    config = yaml.safe_load((host_dir / "kubeconfig").read_text())
    cluster = config["clusters"][0]["cluster"]
    cluster["server"] = f"http://127.0.0.1:{server.server_address[1]}/h/{host_dir.name}"
    (host_dir / "kubeconfig").write_text(yaml.safe_dump(config))


def api_path(path):
    """/h/<host>/api/v1/... -> /api/v1/..."""
    return "/" + path.split("/", 3)[3] if path.startswith("/h/") else path


def graded_against_recording_server(fake_api, host_dir, tmp_path, api_timeout=10):
    server, seen = recording_server(fake_api.root)
    try:
        point_kubeconfig_at(host_dir, server)
        before = tree_digest(host_dir)
        result = run_module(host_dir, tmp_path, api_timeout=api_timeout)
    finally:
        server.shutdown()
        server.server_close()
    after = tree_digest(host_dir)
    assert {k for k in set(before) | set(after) if before.get(k) != after.get(k)} <= {"requests.log"}
    assert seen
    assert all(method == "GET" or (method == "POST" and api_path(path).startswith(REVIEW_PATHS))
               for method, path in seen), seen
    assert_nothing_left(tmp_path)
    assert result["changed"] is False
    return {c["check"]: c for s in result["labs"]["capa-src"]["steps"] for c in s["checks"]} if result.get("labs") \
        else result


def test_hostile_files_and_a_git_timeout_change_nothing(fake_api, tmp_path):
    host_dir = copy_host(fake_api.world("capa-src/golden.yaml"), fake_api.root)
    bare = host_dir / "srv/bare/src.git"
    head = (bare / "refs/heads/main").read_text().strip()
    fifo(bare / "objects" / head[:2] / head[2:])  # git blocks on it until its timeout
    fifo(bare / "config")
    fifo(bare / "objects/info/alternates")
    fifo(host_dir / "root/capa-src/precedence.json")
    clone_config = host_dir / "root/capa-src/repo/.git/config"
    clone_config.write_text(clone_config.read_text() + "[include]\n\tpath = /dev/zero\n")
    (host_dir / "root/capa-src/app-src-helm.yaml").write_text("a: &a [x, x]\nb: [*a, *a]\n")
    checks = graded_against_recording_server(fake_api, host_dir, tmp_path)
    assert checks["capa-src.1.bare-repo"]["status"] == "FAIL"
    assert checks["capa-src.1.bare-repo"]["message"].endswith(
        "cannot be read: git rev-list did not finish within 20 s (a FIFO or a huge object among its objects?)")
    assert checks["capa-src.1.clone-origin"]["status"] == "PASS"


def test_trickling_api_server_changes_nothing(fake_api, tmp_path):
    host_dir = copy_host(fake_api.world("capa-src/golden.yaml"), fake_api.root)
    set_fault(host_dir, "trickle", 0.5)
    result = graded_against_recording_server(fake_api, host_dir, tmp_path, api_timeout=1)
    assert result["health"]["healthy"] is False
