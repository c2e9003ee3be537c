"""Fixtures of the report tests (the module_utils are importable by tests/conftest.py and pytest.ini)."""

from __future__ import annotations

import pytest


@pytest.fixture
def sample_registry(monkeypatch):
    """The report checks records against, and takes columns from, the labs of report_sample."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import validate, views
    from report_sample import sample_labs

    labs = sample_labs()
    monkeypatch.setattr(validate, "LABS", labs)  # what a result is checked against
    monkeypatch.setattr(views, "LABS", labs)  # where the columns come from
