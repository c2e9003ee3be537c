"""The runner: step roll-up, ERROR when the cluster cannot be read, grader bugs isolated,
bounded settling while Argo CD converges."""

from __future__ import annotations

from ansible.module_utils.labgrader.grading import Lab, grade
from ansible.module_utils.labgrader.kubestate import ClusterState
from ansible.module_utils.labgrader.result import failed, passed, pending


class State:
    def __init__(self, phase="Succeeded", cluster=None):
        self.phase = phase
        self.cluster = cluster or ClusterState(requests=3)


def make_lab():
    lab = Lab("demo", {1: {"en": "One", "ja": "一"}, 2: {"en": "Two"}})

    @lab.check(1, "file", hint="json_types")
    def file_check(state):
        return failed("file_missing", path="/w/a.json")

    @lab.check(2, "live", cluster=True, hint="app_sync_health")
    def live_check(state):
        if state.phase == "Running":
            return pending("app_converging", name="app", sync="OutOfSync", health="Progressing")
        return passed("app_synced_healthy", name="app")

    @lab.check(2, "buggy")
    def buggy_check(state):
        return {}["boom"]

    return lab


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_statuses_roll_up_and_messages_render():
    result = grade(make_lab(), lambda: State(), lang="ja", settle_seconds=0)
    assert result["changed"] is False
    assert [s["status"] for s in result["steps"]] == ["FAIL", "ERROR"]
    assert result["steps"][0]["title"] == "一"
    assert result["steps"][1]["title"] == "Two"  # falls back to English
    file_check, live_check, buggy = [c for s in result["steps"] for c in s["checks"]]
    assert file_check["message"] == "/w/a.json がない"
    assert file_check["hint"].startswith("数値は引用符なし")
    assert live_check["status"] == "PASS" and live_check["hint"] == ""
    assert buggy["status"] == "ERROR"
    assert buggy["message"] == "この項目の採点に失敗した: KeyError: 'boom'"
    assert result["summary"] == {"PASS": 1, "FAIL": 1, "PENDING": 0, "ERROR": 1, "total": 3}
    assert result["collected"]["api_requests"] == 3


def test_unreadable_cluster_makes_cluster_checks_error_not_fail():
    state = State(cluster=ClusterState(problem="unreachable", detail="connection refused"))
    result = grade(make_lab(), lambda: state, settle_seconds=0)
    live = result["steps"][1]["checks"][0]
    assert (live["status"], live["message"]) == ("ERROR", "the cluster could not be read (unreachable: connection refused)")
    assert live["hint"] == ""
    assert result["error"] == {"kind": "unreachable", "detail": "connection refused"}


def test_pending_is_re_read_until_converged():
    phases = iter(["Running", "Running", "Succeeded"])
    clock = Clock()
    result = grade(make_lab(), lambda: State(next(phases)), settle_seconds=30, poll_seconds=5,
                   sleep=clock.sleep, clock=clock)
    assert result["collected"]["attempts"] == 3
    assert result["steps"][1]["checks"][0]["status"] == "PASS"
    assert clock.now == 10


def test_settling_is_bounded_and_reports_what_it_saw():
    clock = Clock()
    result = grade(make_lab(), lambda: State("Running"), settle_seconds=12, poll_seconds=5,
                   sleep=clock.sleep, clock=clock)
    assert result["collected"]["attempts"] == 3  # t=0, 5, 10; a 4th would end past 12 s
    live = result["steps"][1]["checks"][0]
    assert live["status"] == "PENDING"
    assert live["message"] == "Application app is still converging (OutOfSync / Progressing); graded as seen"
