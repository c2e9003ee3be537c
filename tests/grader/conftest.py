"""The golden capa-src state, collected once for real (git, files, the kubernetes client against
the fake API server) and handed to each test as a fresh copy to mutate."""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS


def host_collector(host_dir, lab_id="capa-src", **site):
    """The module's collector for one lab of a materialized fixture host (its probes replayed
    from the world's recording, the host's kubeconfig standing in for the VM's admin one)."""
    replay = host_dir / "probes.json"
    site.setdefault("probe_replay", str(replay) if replay.exists() else None)
    site.setdefault("k3s_kubeconfig", str(host_dir / "kubeconfig"))
    site = Site(bare_root=str(host_dir / "srv" / "bare"), workspace_root=str(host_dir / "root"), **site)
    return collector(LABS[lab_id], site, str(host_dir / "kubeconfig"), timeout=5)


def collect_host(host_dir, lab_id="capa-src", **site):
    return host_collector(host_dir, lab_id, **site)()


def judge(state, lang="en", lab_id="capa-src"):
    return {c["check"]: c for c in LABS[lab_id].judge(state, lang)}


@pytest.fixture(scope="session")
def golden_state(fake_api):
    return collect_host(fake_api.world("capa-src/golden.yaml"))


@pytest.fixture
def state(golden_state):
    return copy.deepcopy(golden_state)


@pytest.fixture
def reachable_tmp():
    """A private folder the sandbox's user can pass through (pytest's tmp_path sits in a 0700
    folder): the tool runs' sandboxes are made under TMPDIR."""
    path = tempfile.mkdtemp(prefix="readonly-", dir="/tmp")
    os.chmod(path, 0o711)
    yield Path(path)
    shutil.rmtree(path, ignore_errors=True)
