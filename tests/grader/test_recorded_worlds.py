"""The recorded worlds (fixtures/worlds/<lab>/recorded.yaml): each lab solved on the real control
plane by playbooks/solve.yml and recorded by `python -m labworld record`
(`LAB_CP_RECORD=1 controlplane/ci-test` rewrites them). Replayed offline, every check passes: a
fixture that is a recording of what Argo CD v3.5.2 and Kubernetes really wrote, not a guess."""

from __future__ import annotations

import pytest
from ansible.module_utils.labgrader.grading import grade
from ansible.module_utils.labgrader.labs import LABS

from tests.grader.conftest import host_collector


@pytest.mark.parametrize("lab_id", list(LABS))
def test_the_recorded_solved_lab_passes_every_check_offline(fake_api, lab_id):
    host = fake_api.world(f"{lab_id}/recorded.yaml")
    result = grade(LABS[lab_id], host_collector(host, lab_id), "en", settle_seconds=0)
    failing = {c["check"]: (c["status"], c["message"]) for s in result["steps"] for c in s["checks"]
               if c["status"] != "PASS"}
    assert failing == {}
    assert result["summary"]["total"] == len(LABS[lab_id].checks)
