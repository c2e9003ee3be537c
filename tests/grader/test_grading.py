"""The lab object and its runner: step roll-up, ERROR by construction when a check touches an
unreadable cluster, undeclared reads and grader bugs isolated as ERROR, rendering inside the
guard, the site's namespace in messages, bounded settling while Argo CD converges."""

from __future__ import annotations

import datetime

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Reads, Site
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import (
    ClusterView,
    Declared,
    Lab,
    LabState,
    grade,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import ClusterState
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed, pending

API = {"applications": ("/apis/argoproj.io/v1alpha1/namespaces/argocd/applications", None)}


def make_state(phase="Succeeded", cluster=None, site=None):
    snapshot = cluster or ClusterState({"applications": [{"metadata": {"name": "app"}, "phase": phase}]}, requests=3)
    return LabState(site or Site(), "/w", None, Declared(), None, None, ClusterView(snapshot, API), Declared())


def make_lab():
    lab = Lab("demo", {"en": "Demo"}, {1: {"en": "One", "ja": "一"}, 2: {"en": "Two"}},
              Reads(api=lambda site: API))

    @lab.check(1, "file", hint="json_types")
    def file_check(state):
        return failed("file_missing", path="/w/a.json")

    @lab.check(2, "live", hint="app_sync_health")
    def live_check(state):
        if state.app("app")["phase"] == "Running":
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
    result = grade(make_lab(), lambda: make_state(), lang="ja", settle_seconds=0)
    assert result["changed"] is False
    assert [s["status"] for s in result["steps"]] == ["FAIL", "ERROR"]
    assert result["steps"][0]["title"] == "一"
    assert result["steps"][1]["title"] == "Two"  # falls back to English
    file_check, live_check, buggy = [c for s in result["steps"] for c in s["checks"]]
    assert file_check["message"] == "/w/a.json がありません"
    assert file_check["hint"] == "/w/a.json を作成してください。何を書くかはステップに書かれています。"  # not the check's hint
    assert live_check["status"] == "PASS" and live_check["hint"] == ""
    assert buggy["status"] == "ERROR"
    assert buggy["message"] == "このチェックの採点に失敗しました: KeyError: 'boom'"
    assert result["summary"] == {"PASS": 1, "FAIL": 1, "PENDING": 0, "ERROR": 1, "total": 3}
    assert result["collected"]["api_requests"] == 3


def test_a_check_touching_an_unreadable_cluster_is_error_by_construction():
    state = make_state(cluster=ClusterState(problem="unreachable", detail="connection refused"))
    result = grade(make_lab(), lambda: state, settle_seconds=0)
    file_check, live, _ = [c for s in result["steps"] for c in s["checks"]]
    assert file_check["status"] == "FAIL"  # reads no cluster data: still the learner's finding
    assert (live["status"], live["message"]) == ("ERROR", "the cluster could not be read (unreachable: connection refused)")
    assert live["hint"] == ""
    assert result["error"] == {"kind": "unreachable", "detail": "connection refused"}


def test_an_undeclared_read_is_a_grader_error_not_a_learner_fail():
    lab = Lab("demo", {"en": "Demo"}, {1: {"en": "One"}}, Reads(api=lambda site: API))

    @lab.check(1, "typo")
    def typo(state):
        return failed("value_mismatch", what="x") if not state.cluster.items("aplications") else passed()

    @lab.check(1, "file-typo")
    def file_typo(state):
        return state.files["precedence.jsn"]

    checks = lab.judge(make_state(), "en")
    assert [(c["status"], c["message"]) for c in checks] == [
        ("ERROR", "the grader failed on this check: UndeclaredRead: undeclared read 'aplications'"),
        ("ERROR", "the grader failed on this check: UndeclaredRead: undeclared read 'precedence.jsn'"),
    ]


class Unprintable:
    def __str__(self):
        raise RuntimeError("no text")

    __repr__ = __str__


def test_values_are_bounded_before_rendering():
    lab = Lab("demo", {"en": "Demo"}, {1: {"en": "One"}}, Reads())

    @lab.check(1, "date-key")
    def date_key(state):  # a YAML date as a mapping key: rendered as text, not a crash
        return failed("value_mismatch", what="values.yaml", expected=1, found={datetime.date(2026, 1, 1): 1})

    @lab.check(1, "unprintable")
    def unprintable(state):
        return failed("value_mismatch", what="x", expected=1, found=Unprintable())

    dated, odd = lab.judge(make_state(), "en")
    assert (dated["status"], dated["message"]) == ("FAIL", 'values.yaml: expected 1, found {"2026-01-01": 1}')
    assert (odd["status"], odd["message"]) == ("FAIL", 'x: expected 1, found "…[Unprintable]"')


def test_rendering_runs_inside_the_guard(monkeypatch):
    lab = Lab("demo", {"en": "Demo"}, {1: {"en": "One"}}, Reads())
    real_message = i18n.message

    def message(key, params, lang):
        if key == "value_mismatch":
            raise ValueError("broken template")
        return real_message(key, params, lang)

    monkeypatch.setattr(i18n, "message", message)

    @lab.check(1, "breaks-rendering")
    def breaks(state):
        return failed("value_mismatch", what="x", expected=1, found=2)

    @lab.check(1, "fine")
    def fine(state):
        return passed("value_ok", what="x", found=1)

    bad, good = lab.judge(make_state(), "en")
    assert (bad["status"], bad["message"]) == ("ERROR", "the grader failed on this check: ValueError: broken template")
    assert good["status"] == "PASS"


def test_messages_and_hints_name_the_sites_argocd_namespace():
    lab = Lab("demo", {"en": "Demo"}, {1: {"en": "One"}}, Reads())

    @lab.check(1, "app", hint="application_apply")
    def app(state):
        return failed("live_app_missing", name="web")

    check, = lab.judge(make_state(site=Site(argocd_namespace="gitops")), "en")
    assert check["message"] == "Application web does not exist in namespace gitops"
    assert check["hint"].startswith("Apply the file with `kubectl apply -n gitops -f <file>`")


def test_pending_is_re_read_until_converged():
    phases = iter(["Running", "Running", "Succeeded"])
    clock = Clock()
    result = grade(make_lab(), lambda: make_state(next(phases)), settle_seconds=30, poll_seconds=5,
                   sleep=clock.sleep, clock=clock)
    assert result["collected"]["attempts"] == 3
    assert result["steps"][1]["checks"][0]["status"] == "PASS"
    assert clock.now == 10


def test_settling_is_bounded_and_reports_what_it_saw():
    clock = Clock()
    result = grade(make_lab(), lambda: make_state("Running"), settle_seconds=12, poll_seconds=5,
                   sleep=clock.sleep, clock=clock)
    assert result["collected"]["attempts"] == 3  # t=0, 5, 10; a 4th would end past 12 s
    live = result["steps"][1]["checks"][0]
    assert live["status"] == "PENDING"
    assert live["message"] == "Application app is still converging (OutOfSync / Progressing); not final yet"
