"""Make `ansible.module_utils.labgrader` importable from plugins/module_utils (as ansible.cfg does).

Minimal and idempotent: a top-level tests/conftest.py may do the same later.
"""

from __future__ import annotations

from pathlib import Path

import ansible.module_utils

REPO_ROOT = Path(__file__).resolve().parents[2]
_MODULE_UTILS = str(REPO_ROOT / "plugins" / "module_utils")
if _MODULE_UTILS not in ansible.module_utils.__path__:
    ansible.module_utils.__path__.append(_MODULE_UTILS)


import pytest  # noqa: E402


@pytest.fixture
def sample_registry(monkeypatch):
    """The report checks records against, and takes columns from, the labs of report_sample."""
    from ansible.module_utils.labgrader.report import validate, views
    from report_sample import sample_labs

    labs = sample_labs()
    monkeypatch.setattr(validate, "LABS", labs)  # what a result is checked against
    monkeypatch.setattr(views, "LABS", labs)  # where the columns come from
