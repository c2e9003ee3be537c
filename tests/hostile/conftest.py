"""Fixtures of the hostile-input corpus: a fresh copy of the golden capa-src host per case, and
the closing table of the worst time and memory seen per input class."""

from __future__ import annotations

import shutil

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


def pytest_terminal_summary(terminalreporter):
    """The worst time and memory seen per input class (the issue's closing table)."""
    if not WORST:
        return
    classes = {}
    for case_id, (seconds, rss) in WORST.items():
        worst = classes.setdefault(case_id.split("-", 1)[0], [0, 0.0, 0.0])
        worst[0] += 1
        worst[1] = max(worst[1], seconds)
        worst[2] = max(worst[2], rss)
    terminalreporter.section("hostile corpus: worst time and peak RSS per input class")
    for name, (count, seconds, rss) in sorted(classes.items()):
        terminalreporter.write_line(f"{name:6} {count:3d} cases  worst {seconds:6.2f} s  {rss:6.1f} MB")
    if terminalreporter.verbosity > 0:
        for case_id, (seconds, rss) in sorted(WORST.items()):
            terminalreporter.write_line(f"  {case_id:40} {seconds:6.2f} s  {rss:6.1f} MB")
