"""The golden capa-src state, collected once for real (git, files, the kubernetes client against
the fake API server) and handed to each test as a fresh copy to mutate."""

from __future__ import annotations

import copy

import pytest
from ansible.module_utils.labgrader.labs import capa_src


def collect_host(host_dir):
    return capa_src.collect(str(host_dir / "root" / "capa-src"), str(host_dir / "srv" / "bare"),
                            str(host_dir / "kubeconfig"), timeout=5)


def judge(state, lang="en"):
    return {c["check"]: c for c in capa_src.lab.judge(state, lang)}


@pytest.fixture(scope="session")
def golden_state(fake_api):
    return collect_host(fake_api.world("capa-src/golden.yaml"))


@pytest.fixture
def state(golden_state):
    return copy.deepcopy(golden_state)
