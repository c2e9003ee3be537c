"""The pinned versions and sha256 tables: complete for both architectures, and never a
placeholder. An empty string is the one allowed "not pinned" value; it makes the roles fall
back to the upstream checksum file or the mirror (docs/provisioning.md, "Checksums").

LAB_REQUIRE_ALL_PINS=1 turns every empty value into a failure (for a release branch).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

ROLES = Path(__file__).parents[2] / "roles"
ARCHES = ("amd64", "arm64")
SHA256 = re.compile(r"^[0-9a-f]{64}$")


def defaults(role: str) -> dict:
    return yaml.safe_load((ROLES / role / "defaults" / "main.yml").read_text())


def pins() -> dict[str, str]:
    """Every pinned sha256 of the project, by a readable name."""
    k3s, argocd = defaults("k3s_server"), defaults("argocd")
    table = {}
    for arch in ARCHES:
        for kind, value in k3s["k3s_server_checksums"][arch].items():
            table[f"k3s {arch} {kind}"] = value
        table[f"argocd cli {arch}"] = argocd["argocd_cli_checksums"][arch]
    table["k3s install.sh"] = k3s["k3s_server_install_script_sha256"]
    table["argocd install.yaml"] = argocd["argocd_install_manifest_sha256"]
    return table


def check_value(name: str, value: object) -> None:
    assert isinstance(value, str), f"{name}: {value!r} is not a string"
    if value == "":
        return
    assert SHA256.match(value), f"{name}: {value!r} is not a lowercase sha256"
    assert len(set(value)) > 4, f"{name}: {value!r} looks like a placeholder"


def test_versions_are_the_pinned_ones() -> None:
    assert defaults("argocd")["argocd_version"] == "v3.5.2"
    assert re.match(r"^v1\.\d+\.\d+\+k3s\d+$", defaults("k3s_server")["k3s_server_version"])


def test_tables_cover_both_architectures() -> None:
    k3s, argocd = defaults("k3s_server"), defaults("argocd")
    assert set(k3s["k3s_server_checksums"]) == set(ARCHES)
    assert set(argocd["argocd_cli_checksums"]) == set(ARCHES)
    for arch in ARCHES:
        assert set(k3s["k3s_server_checksums"][arch]) == {"binary", "airgap_images"}


@pytest.mark.parametrize("name,value", sorted(pins().items()))
def test_pin_is_a_sha256_or_explicitly_empty(name: str, value: str) -> None:
    check_value(name, value)
    if os.environ.get("LAB_REQUIRE_ALL_PINS") == "1":
        assert value, f"{name} is not pinned (LAB_REQUIRE_ALL_PINS=1)"


def test_no_two_artifacts_share_a_checksum() -> None:
    values = [v for v in pins().values() if v]
    assert len(values) == len(set(values)), "a copy-pasted sha256"


@pytest.mark.parametrize("bad", ["TODO", "0" * 64, "A" * 64, "abc", "f" * 63, "sha256:" + "ab12" * 16, None])
def test_placeholders_are_rejected(bad: object) -> None:
    with pytest.raises(AssertionError):
        check_value("example", bad)


def test_unpinned_values_are_documented() -> None:
    """Whatever is empty in the tables must be named in docs/provisioning.md."""
    doc = (Path(__file__).parents[2] / "docs" / "provisioning.md").read_text()
    for name, value in pins().items():
        if not value:
            assert f"`{name}`" in doc, f"{name} is unpinned but not listed in the docs"


def test_image_pattern_finds_every_image_form() -> None:
    """The mirror helper saves the images install.yaml names; a missed one breaks air-gapped VMs."""
    pattern = re.compile(defaults("argocd")["argocd_image_pattern"])
    manifest = """
spec:
  initContainers:
  - image: quay.io/argoproj/argocd:v3.5.2
  containers:
    - name: dex
      image: "ghcr.io/dexidp/dex:v2.45.1"
      imagePullPolicy: Always
    - image: 'public.ecr.aws/docker/library/redis:8.2.3-alpine'
# image: commented/out:1
"""
    assert sorted(set(pattern.findall(manifest))) == [
        "ghcr.io/dexidp/dex:v2.45.1",
        "public.ecr.aws/docker/library/redis:8.2.3-alpine",
        "quay.io/argoproj/argocd:v3.5.2",
    ]
