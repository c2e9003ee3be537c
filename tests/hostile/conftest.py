"""Fixtures of the hostile-input corpus: a fresh copy of the golden capa-src host per case, and
the closing table of the worst time and memory seen per input class."""

from __future__ import annotations

import shutil
import sys

import pytest

from tests.hostile.harness import WORST, copy_host


@pytest.fixture(scope="session")
def golden_host(fake_api):
    return fake_api.world("capa-src/golden.yaml")


@pytest.fixture
def host(golden_host, fake_api):
    target = copy_host(golden_host, fake_api.root)
    yield target
    shutil.rmtree(target, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def worst_seen():
    """Print the worst time and memory per case class at the end (the issue's closing table)."""
    yield
    if not WORST:
        return
    classes = {}
    for case_id, (seconds, rss) in WORST.items():
        name = case_id.split("-", 1)[0]
        worst = classes.setdefault(name, [0, 0.0, 0.0])
        worst[0] += 1
        worst[1] = max(worst[1], seconds)
        worst[2] = max(worst[2], rss)
    lines = [f"{name:10} {n:3d} cases  worst {s:6.2f} s  {m:6.1f} MB" for name, (n, s, m) in sorted(classes.items())]
    sys.stderr.write("\nhostile corpus:\n" + "\n".join(lines) + "\n")
