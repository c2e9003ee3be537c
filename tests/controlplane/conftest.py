"""Fixtures for tests against the real local control plane (controlplane/cp).

The session fixture `plane` runs `controlplane/cp up` under a temporary state root and
`controlplane/cp down` at the end. With LAB_CP_REUSE=1 it uses a plane that is already up under
LAB_CP_ROOT instead (and leaves it running).

LAB_CP_RECORD=1 writes the recorded API objects to fixtures/recorded/ (or LAB_CP_RECORD_DIR).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from cpharness import Plane, parse_kv

REPO_ROOT = Path(__file__).resolve().parents[2]
CP = REPO_ROOT / "controlplane" / "cp"
UP_TIMEOUT = int(os.environ.get("LAB_CP_FIXTURE_UP_TIMEOUT", "5400"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--plane-labs", default="", help="labs of test_labs_plane.py: a,b or !a (all but a); default all")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """test_labs_plane.py's tests lab after lab, each lab's in file order (its last test resets
    the lab), at the place of the module's first test."""
    of_labs = [item for item in items if item.path.name == "test_labs_plane.py"]
    if of_labs:
        labs = list(dict.fromkeys(item.callspec.params["lab"] for item in of_labs))
        ordered = sorted(of_labs, key=lambda item: labs.index(item.callspec.params["lab"]))
        start = items.index(of_labs[0])
        rest = [item for item in items if item.path.name != "test_labs_plane.py"]
        items[:] = rest[:start] + ordered + rest[start:]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "controlplane: needs the real local Kubernetes + Argo CD plane (controlplane/cp)")


@pytest.fixture(scope="session")
def plane() -> Iterator[Plane]:
    reuse = os.environ.get("LAB_CP_REUSE") == "1"
    record = os.environ.get("LAB_CP_RECORD") == "1"
    record_dir = Path(os.environ.get("LAB_CP_RECORD_DIR", REPO_ROOT / "fixtures" / "recorded")) if record else None
    tmp = Path(tempfile.mkdtemp(prefix="lab-cp-tests-"))
    env = dict(os.environ)
    if reuse:
        root = Path(env.get("LAB_CP_ROOT", "/tmp/lab-controlplane"))
    else:
        root = tmp / "plane"
        env["LAB_CP_ROOT"] = str(root)
    env.setdefault("LAB_CP_BARE", str(root / "bare"))
    if not reuse:
        proc = subprocess.run([str(CP), "up"], capture_output=True, text=True, env=env, timeout=UP_TIMEOUT)
        if proc.returncode != 0:
            subprocess.run([str(CP), "down"], capture_output=True, text=True, env=env, timeout=180)
            shutil.rmtree(tmp, ignore_errors=True)
            pytest.fail(f"cp up failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
        info = parse_kv(proc.stdout)
    else:
        info = {
            "KUBECONFIG": str(root / "kubeconfig"),
            "KUBECONFIG_ARGOCD": str(root / "kubeconfig-argocd"),
            "BARE_ROOT": env["LAB_CP_BARE"],
            "BIN": (root / "bin").read_text().strip(),
        }
    work = tmp / "work"
    work.mkdir()
    p = Plane(
        root=root,
        kubeconfig=Path(info["KUBECONFIG"]),
        kubeconfig_argocd=Path(info["KUBECONFIG_ARGOCD"]),
        bare_root=Path(info["BARE_ROOT"]),
        bin_dir=Path(info["BIN"]),
        work=work,
        record_dir=record_dir,
        env={**env, "PATH": f"{info['BIN']}:{env.get('PATH', '')}", "GIT_TERMINAL_PROMPT": "0"},
    )
    try:
        yield p
    finally:
        if not reuse:
            subprocess.run([str(CP), "down"], capture_output=True, text=True, env=env, timeout=180)
        shutil.rmtree(tmp, ignore_errors=True)
