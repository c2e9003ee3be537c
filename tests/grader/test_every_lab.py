"""One harness for every lab of the registry (labs.LABS), found by path: its worlds in
fixtures/worlds/<lab id>/ and its mutation table tests/controlplane/mutations_<lab id, _ for ->.py.

- golden.yaml passes every check and empty.yaml fails every check, none an ERROR: each world
  says so itself (`expect.status`), and any world of the lab that carries `expect` grades as it
  says (`messages` pinned exactly, <host> for the host's directory);
- recorded.yaml (the lab solved on the real control plane by playbooks/solve.yml and recorded by
  `python -m labworld record`; `LAB_CP_RECORD=1 controlplane/ci-test` rewrites it) replayed
  offline passes every check: a recording of what Argo CD v3.5.2 and Kubernetes really wrote;
- every check is flipped by a mutation or explained (tests/grader/test_mutations_doc.py).

Counts come from len(lab.checks): adding a check is its function, its messages and its mutation
row; adding a lab is its package, its registry line, its worlds and its mutation table."""

from __future__ import annotations

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

from tests.conftest import WORLDS
from tests.grader.conftest import host_collector

# What the two worlds every lab has must expect (the "golden passes, empty fails").
REQUIRED = {"golden.yaml": "PASS", "empty.yaml": "FAIL"}


def expecting(lab_id):
    """The lab's worlds that carry their expected verdicts: [(path relative to WORLDS, expect)].
    A world's `expect` is its own (labworld does not inherit it through `extends`); the class
    file is no world and has none."""
    found = [(path, yaml.safe_load(path.read_text(encoding="utf-8")).get("expect"))
             for path in sorted((WORLDS / lab_id).glob("*.yaml"))]
    return [(str(path.relative_to(WORLDS)), expect) for path, expect in found if expect is not None]


WORLD_CASES = [(lab_id, world, expect) for lab_id in LABS for world, expect in expecting(lab_id)]


def graded(fake_api, world, lab_id):
    host = fake_api.world(world)
    result = grade(LABS[lab_id], host_collector(host, lab_id), "en", settle_seconds=0)
    assert result["summary"]["total"] == len(LABS[lab_id].checks)
    checks = {c["check"]: c for s in result["steps"] for c in s["checks"]}
    assert sorted(checks) == sorted(check.id for check in LABS[lab_id].checks)
    return host, checks


@pytest.mark.parametrize("lab_id", list(LABS))
def test_the_lab_has_a_golden_and_an_empty_world_that_say_what_they_grade(lab_id):
    declared = {world: expect.get("status") for world, expect in expecting(lab_id)}
    assert {name: declared.get(f"{lab_id}/{name}") for name in REQUIRED} == REQUIRED


@pytest.mark.parametrize(("lab_id", "world", "expect"), WORLD_CASES, ids=[world for _, world, _ in WORLD_CASES])
def test_a_world_grades_as_it_expects(fake_api, lab_id, world, expect):
    host, checks = graded(fake_api, world, lab_id)
    if "status" in expect:
        assert {cid: (c["status"], c["message"]) for cid, c in checks.items()
                if c["status"] != expect["status"]} == {}
    messages = expect.get("messages", {})
    assert set(messages) <= set(checks), set(messages) - set(checks)
    assert {cid: checks[cid]["message"].replace(str(host), "<host>") for cid in messages} == messages


@pytest.mark.parametrize("lab_id", list(LABS))
def test_the_recorded_solved_lab_passes_every_check_offline(fake_api, lab_id):
    _, checks = graded(fake_api, f"{lab_id}/recorded.yaml", lab_id)
    assert {cid: (c["status"], c["message"]) for cid, c in checks.items() if c["status"] != "PASS"} == {}
