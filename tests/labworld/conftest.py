"""Fixtures for the labworld tests: a materialized golden world and a running fake API server."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from labworld.materialize import materialize  # noqa: E402
from labworld.server import make_server  # noqa: E402

WORLDS = REPO / "fixtures" / "worlds" / "capa-src"


@pytest.fixture(scope="session")
def class_root(tmp_path_factory):
    """One server for a whole class root; hosts are materialized into it by other fixtures."""
    root = tmp_path_factory.mktemp("class")
    server = make_server(root, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def golden(class_root):
    root, url = class_root
    summary = materialize(WORLDS / "golden.yaml", "learner01", root, url)
    return {"root": root, "url": url, "host_dir": root / "learner01", "summary": summary}


@pytest.fixture(scope="session")
def broken(class_root):
    root, url = class_root
    materialize(WORLDS / "broken-cluster.yaml", "learner07", root, url)
    return root / "learner07"


@pytest.fixture
def api(golden):
    from kubernetes import config
    client = config.new_client_from_config(config_file=str(golden["host_dir"] / "kubeconfig"))
    yield client
    client.close()
