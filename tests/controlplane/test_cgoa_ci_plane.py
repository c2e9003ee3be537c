"""cgoa-ci end to end on the real control plane: the cases of labcases.py, for this lab."""

from __future__ import annotations

import pytest
from labcases import *  # noqa: F403 - the end-to-end cases and the mutation table's test

pytestmark = pytest.mark.controlplane
LAB = "cgoa-ci"
