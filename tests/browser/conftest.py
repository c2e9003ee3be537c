"""The browser tests build reports with the samples of tests/report."""

from __future__ import annotations

import sys
from pathlib import Path

_REPORT_TESTS = str(Path(__file__).resolve().parents[1] / "report")
if _REPORT_TESTS not in sys.path:
    sys.path.insert(0, _REPORT_TESTS)
