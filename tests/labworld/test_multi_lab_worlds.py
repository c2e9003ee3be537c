"""Worlds for learners enrolled in several labs (`extends` a list), the templates that name the
materialized host (host_root, server, ca_data) and recorded probe results (probes.json)."""

from __future__ import annotations

import json

import pytest
import yaml

from labworld import WorldError
from labworld.materialize import FAKE_CA_DATA, materialize
from labworld.world import load
from tests.conftest import WORLDS


def test_extends_a_list_merges_both_labs_in_order():
    world = load(WORLDS / "demo" / "both-golden.yaml")
    assert set(world["repos"]) == {"src", "ci"}
    names = {o["metadata"]["name"] for o in world["cluster"]["objects"]}
    assert {"src-helm", "ci-web"} <= names
    assert set(world["probes"]) == {"cgoa-ci"}


def test_extends_must_name_files(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: [golden.yaml, 3]\n")
    with pytest.raises(WorldError, match="`extends` must be a file path or a list of them"):
        load(bad)


def test_host_templates_and_recorded_probes(tmp_path):
    summary = materialize(WORLDS / "cgoa-ci" / "golden.yaml", "h1", tmp_path, "http://127.0.0.1:1")
    host = tmp_path / "h1"
    script = (host / "root" / "cgoa-ci" / "validate.sh").read_text()
    assert f"--kubeconfig {host}/root/cgoa-ci/ci-kubeconfig" in script
    ci = yaml.safe_load((host / "root" / "cgoa-ci" / "ci-kubeconfig").read_text())
    assert ci["clusters"][0]["cluster"] == {"certificate-authority-data": FAKE_CA_DATA, "server": summary["api_server"]}
    probes = json.loads((host / "probes.json").read_text())["cgoa-ci"]
    assert probes["k3s"] == {"server": summary["api_server"], "ca_data": FAKE_CA_DATA}
    assert probes["validate"]["valid"]["returncode"] == 0
