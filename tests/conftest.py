"""Test-wide setup. The grader's module_utils are imported by their collection name,
ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader (pytest.ini's pythonpath
puts collections/ first on sys.path)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def load_plugin(relpath, name):
    """Import a module or callback plugin from its file, as Ansible loads it (not a package)."""
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / relpath)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


import glob  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

import pytest  # noqa: E402

sys.path.insert(0, str(REPO_ROOT))  # the labworld package (fixture worlds, fake API server)

WORLDS = REPO_ROOT / "fixtures" / "worlds"


def control_plane_tools():
    """The folder holding helm and kustomize as Argo CD v3.5.2 runs them: $LAB_TOOLS_BIN
    (scripts/test sets it after `controlplane/build helm kustomize`), else a build in the control
    plane's cache that finished both; None when there is none (the grader then says, as ERROR,
    that helm is not installed)."""
    if os.environ.get("LAB_TOOLS_BIN"):
        return os.environ["LAB_TOOLS_BIN"]
    cache = os.environ.get("LAB_CP_CACHE", "/var/cache/lab-controlplane")
    built = [os.path.dirname(done) for done in glob.glob(os.path.join(cache, "bin", "*", ".done-helm"))
             if os.path.exists(os.path.join(os.path.dirname(done), ".done-kustomize"))]
    return max(built, key=os.path.getmtime) if built else None


def use_control_plane_tools():
    """Point the grader's defaults (checks/repo_server.py) at the control plane's builds, for
    every Site the tests make in this process; the environment carries the folder to the
    ansible-playbook and module processes the tests start (LAB_TOOLS_BIN, read by the test
    inventories' lab_helm_binary/lab_kustomize_binary where they grade capa-src)."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server

    tools = control_plane_tools()
    if tools:
        os.environ["LAB_TOOLS_BIN"] = tools
        repo_server.HELM_BINARY = os.path.join(tools, "helm")
        repo_server.KUSTOMIZE_BINARY = os.path.join(tools, "kustomize")


use_control_plane_tools()


class FakeApi:
    """One fake API server for the test session; every materialized host is served under /h/<host>."""

    def __init__(self, root):
        from labworld.server import make_server

        self.root = root
        self.server = make_server(root, 0)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()
        self._hosts = 0

    def world(self, relpath, host=None):
        """Materialize fixtures/worlds/<relpath> as a new host; returns its directory."""
        from labworld.materialize import materialize

        self._hosts += 1
        host = host or f"h{self._hosts:03d}"
        materialize(WORLDS / relpath, host, self.root, self.url)
        return self.root / host

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def fake_api(tmp_path_factory):
    api = FakeApi(tmp_path_factory.mktemp("worlds"))
    yield api
    api.close()
