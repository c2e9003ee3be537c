"""Every lab of the registry (labs.LABS) end to end on the real control plane (issue 12 §3, §4),
each on a fresh learner; a lab needs nothing here: its mutation table is found by path
(mutations_doc.table_path: mutations_<lab>.py). `--plane-labs` picks the labs of one pytest
process (controlplane/ci-test runs capa-src beside the others); the tests of one lab run in this
file's order, lab after lab (conftest.py):

reset (a clean VM) -> grade: nothing PASS, nothing ERROR -> playbooks/solve.yml -> grade: every
check PASS -> grade again: identical verdicts, state unchanged -> solve.yml again: nothing to do
-> `python -m labworld record` of the solved VM, replayed offline on the fake API server: the
same verdicts and messages (LAB_CP_RECORD=1 writes it to fixtures/worlds/<lab>/recorded.yaml)
-> each mistake of the lab's mutation table flips exactly its checks -> reset.yml -> grade: the
first picture again -> solve.yml -e solve_until=3: steps 1-3 pass, the rest is left undone.

The real grader reads everything a VM gives it: files, the bare repo over git, the API server
(GET, SubjectAccessReview, TokenReview) and, for cgoa-ci, the learner's scripts run against the
real API server's server-side dry-run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass

import mutations_doc
import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from labflow import REPO_ROOT, Learner, grade_learner, plane_labs, plane_path, reset, solve, state_digest, verdicts

from labworld.__main__ import main as labworld_main
from labworld.materialize import materialize
from labworld.server import make_server

pytestmark = pytest.mark.controlplane
PARTIAL_UNTIL = 3


@dataclass
class Solved:
    learner: Learner
    first: dict[str, tuple[str, str]]  # the grade of the clean VM
    solve_seconds: float


@pytest.fixture(scope="session")
def solved_labs(plane, tmp_path_factory):
    """{lab id: Solved}: each lab is reset, graded and solved once per session, when its first
    test asks for it."""
    def solve_lab(lab):
        learner = Learner(plane, lab, tmp_path_factory.mktemp(lab))
        cleaned = reset(learner, "-e", f"reset_confirm={lab}")  # what other tests on this plane left
        assert cleaned.returncode == 0, cleaned.stdout[-3000:]
        _, checks = grade_learner(learner)
        began = time.monotonic()
        solve(learner)
        solve_seconds = time.monotonic() - began
        print(f"\n{lab}: solve.yml took {solve_seconds:.1f} s")
        return Solved(learner, verdicts(checks, learner), solve_seconds)
    cache = {}

    def solved_lab(lab):
        if lab not in cache:
            cache[lab] = solve_lab(lab)
        return cache[lab]
    return solved_lab


@pytest.fixture
def solved(solved_labs, lab):
    return solved_labs(lab)


def probe_run(lab_id):
    """What differs between two runs of a lab's probes: their mktemp directories and the names
    each run picks by itself (the table's PROBE_RUN_NAMES: cgoa-ci's feature branch)."""
    names = mutations_doc.table_module(lab_id).PROBE_RUN_NAMES
    return re.compile("|".join([r"/tmp/tmp\.\w+", *map(re.escape, names)]))


def pytest_generate_tests(metafunc):
    """Each test once per lab of this process (conftest.py plane_labs); the mutation test once
    per mutation of each lab's table (found by path, mutations_doc.table_path)."""
    labs = plane_labs(metafunc.config)
    if "mutation" in metafunc.fixturenames:
        cases = [(lab, mutation) for lab in labs for mutation in mutations_doc.table(lab)[0]]
        metafunc.parametrize(("lab", "mutation"), cases, ids=[f"{lab}:{mutation}" for lab, mutation in cases])
    elif "lab" in metafunc.fixturenames:
        metafunc.parametrize("lab", labs)


def test_a_clean_vm_grades_fail_or_pending_only(solved):
    statuses = {status for status, _ in solved.first.values()}
    assert statuses <= {"FAIL", "PENDING"}, {cid: v for cid, v in solved.first.items() if v[0] not in ("FAIL", "PENDING")}


def test_solved_passes_every_check_and_grading_changes_nothing(solved):
    learner = solved.learner
    before = state_digest(learner)
    began = time.monotonic()
    result, checks = grade_learner(learner)
    grade_seconds = time.monotonic() - began
    first = verdicts(checks, learner)
    assert {cid: v for cid, v in first.items() if v[0] != "PASS"} == {}
    assert result["summary"]["total"] == len(LABS[learner.lab].checks)
    assert result["collected"]["api_requests"] == mutations_doc.table_module(learner.lab).SOLVED_API_REQUESTS
    _, again = grade_learner(learner)
    assert verdicts(again, learner) == first
    assert state_digest(learner) == before
    rerun = solve(learner)
    assert "changed=0" in rerun.stdout and "nothing to do, every step already passes" in rerun.stdout
    assert state_digest(learner) == before
    print(f"\n{learner.lab}: grade {grade_seconds:.1f} s, {result['collected']['api_requests']} API requests")


def normalized(result, roots: dict[str, str], commits: dict[str, str]) -> dict:
    """{check: (status, message)} with the site's paths and server named alike, rebuilt commit
    ids (`commits`: {sha: original sha}) replaced, and what each probe run names by itself."""
    per_run = probe_run(result["lab"])

    def same(text):
        for new, old in commits.items():
            text = text.replace(new, old).replace(new[:7], old[:7])
        for value, name in roots.items():
            text = text.replace(value, name)
        return per_run.sub("<probe>", text)
    return {c["check"]: (c["status"], same(c["message"])) for s in result["steps"] for c in s["checks"]}


def test_recorded_and_replayed_offline_grades_the_same(solved, tmp_path):
    """An instructor's recording of a disputed VM (README): replayed, it grades like the VM."""
    learner, plane = solved.learner, solved.learner.plane
    original, _ = grade_learner(learner)
    world = tmp_path / "world.yaml"
    before = state_digest(learner)
    with plane_path(plane):
        assert labworld_main(["record", "--lab", learner.lab, "--out", str(world), "--kubeconfig", str(plane.kubeconfig),
                              "--k3s-kubeconfig", str(plane.kubeconfig), "--workspace-root", str(learner.root / "root"),
                              "--bare-root", str(plane.bare_root), "--api-timeout", "15"]) == 0
    assert state_digest(learner) == before  # read-only; the probes ran on copies
    if os.environ.get("LAB_CP_RECORD") == "1":
        shutil.copyfile(world, REPO_ROOT / "fixtures" / "worlds" / learner.lab / "recorded.yaml")
    hosts = tmp_path / "hosts"
    server = make_server(hosts, 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        summary = materialize(world, "replay", hosts, url)
        host = hosts / "replay"
        site = Site(bare_root=str(host / "srv" / "bare"), workspace_root=str(host / "root"),
                    k3s_kubeconfig=str(host / "kubeconfig"), probe_replay=str(host / "probes.json"))
        lab = LABS[learner.lab]
        replayed = grade(lab, collector(lab, site, str(host / "kubeconfig"), timeout=5), "en", 0, 1)
    finally:
        server.shutdown()
        server.server_close()
    server_url = plane.kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}").stdout.strip()
    repo, = summary["repos"].values()
    rebuilt = {new: subprocess.run(["git", "--git-dir", str(learner.bare), "rev-parse", label], capture_output=True,
                                   text=True, check=True).stdout.strip() for label, new in repo["commits"].items()}
    expected = normalized(original, {str(plane.bare_root): "<bare>", str(learner.root / "root"): "<root>",
                                     server_url: "<server>"}, {})
    assert {status for status, _ in expected.values()} == {"PASS"}
    found = normalized(replayed, {str(host / "srv" / "bare"): "<bare>", str(host / "root"): "<root>",
                                  f"{url}/h/replay": "<server>"}, rebuilt)
    assert found == expected


def test_each_mistake_flips_exactly_its_checks(solved, mutation):
    learner = solved.learner
    mutations, _ = mutations_doc.table(learner.lab)
    apply, expected = mutations[mutation]
    with apply(learner.plane, learner):
        _, checks = grade_learner(learner)
    flipped = {cid: message for cid, (status, message) in verdicts(checks, learner).items() if status != "PASS"}
    assert sorted(flipped) == sorted(expected)
    for check_id, start in expected.items():
        assert flipped[check_id].startswith(start), (check_id, flipped[check_id])


def test_reset_refuses_without_confirmation(solved):
    learner = solved.learner
    result = reset(learner)
    assert result.returncode != 0
    assert "Name the lab twice: -e reset_lab=<lab id> -e reset_confirm=<lab id>" in result.stdout
    assert learner.bare.exists() and learner.workspace.exists()


def test_reset_brings_back_the_first_picture_and_solve_until_stops_there(solved):
    """Last for each lab: the learner starts over; then a partial solve for demos."""
    learner = solved.learner
    result = reset(learner, "-e", f"reset_confirm={learner.lab}")
    assert result.returncode == 0, result.stdout[-3000:]
    assert not learner.bare.exists() and not learner.workspace.exists()
    _, checks = grade_learner(learner)
    assert verdicts(checks, learner) == solved.first
    solve(learner, "-e", f"solve_until={PARTIAL_UNTIL}")
    _, checks = grade_learner(learner)
    by_step = {}
    for check in checks.values():
        by_step.setdefault(check["step"], set()).add(check["status"])
    assert all(by_step[step] == {"PASS"} for step in by_step if step <= PARTIAL_UNTIL), by_step
    assert all(by_step[step] != {"PASS"} for step in by_step if step > PARTIAL_UNTIL), by_step
