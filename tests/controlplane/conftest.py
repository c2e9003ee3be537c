"""Fixtures for tests against the real local control plane (controlplane/cp).

The session fixture `plane` runs `controlplane/cp up` under a temporary state root and
`controlplane/cp down` at the end. With LAB_CP_REUSE=1 it uses a plane that is already up under
LAB_CP_ROOT instead (and leaves it running).

LAB_CP_RECORD=1 writes the recorded API objects to fixtures/recorded/ (or LAB_CP_RECORD_DIR).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cpharness import Plane, PlaneNotUp, started_plane

REPO_ROOT = Path(__file__).resolve().parents[2]


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
    record = os.environ.get("LAB_CP_RECORD") == "1"
    record_dir = Path(os.environ.get("LAB_CP_RECORD_DIR", REPO_ROOT / "fixtures" / "recorded")) if record else None
    try:
        with started_plane(os.environ.get("LAB_CP_REUSE") == "1", record_dir) as started:
            yield started
    except PlaneNotUp as exc:
        pytest.fail(str(exc))
