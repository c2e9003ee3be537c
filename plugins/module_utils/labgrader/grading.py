"""The lab runner: register checks, judge a collected state, settle on transitional states."""

from __future__ import annotations

import time

from ansible.module_utils.labgrader import i18n
from ansible.module_utils.labgrader.result import ERROR, FAIL, PENDING, errored, summarize, worst


class Lab:
    """A lab is an id, step titles and an ordered list of checks.

    A check is a function `state -> Verdict`. `cluster=True` marks checks that read the
    cluster: when the cluster could not be read they are ERROR without being called.
    """

    def __init__(self, lab_id, step_titles):
        self.id = lab_id
        self.step_titles = step_titles  # {step: {lang: title}}
        self.checks = []

    def check(self, step, name, cluster=False, hint=None):
        def register(function):
            self.checks.append((step, f"{self.id}.{step}.{name}", function, cluster, hint))
            return function
        return register

    def judge(self, state, lang):
        results = []
        for step, check_id, function, needs_cluster, default_hint in self.checks:
            if needs_cluster and not state.cluster.ok:
                verdict = errored("cluster_unreadable", kind=state.cluster.problem, detail=state.cluster.detail)
            else:
                try:
                    verdict = function(state)
                except Exception as exc:  # a grader bug must not hide the other checks  # noqa: BLE001
                    verdict = errored("grader_bug", detail=f"{type(exc).__name__}: {exc}"[:300])
            results.append(render(self.id, step, check_id, verdict, default_hint, lang))
        return results

    def result(self, checks, lang, collected):
        steps = []
        for step in sorted(self.step_titles):
            step_checks = [c for c in checks if c["step"] == step]
            steps.append({
                "step": step,
                "title": i18n.pick(self.step_titles[step], lang),
                "status": worst(c["status"] for c in step_checks),
                "checks": step_checks,
            })
        return {
            "changed": False,
            "lab": self.id,
            "lang": lang,
            "status": worst(s["status"] for s in steps),
            "summary": summarize(checks),
            "steps": steps,
            "collected": collected,
        }


def render(lab_id, step, check_id, verdict, default_hint, lang):
    hint_key = verdict.hint or default_hint
    params = dict(verdict.params)
    params.setdefault("expected", verdict.expected)
    params.setdefault("found", verdict.found)
    return {
        "lab": lab_id,
        "step": step,
        "check": check_id,
        "status": verdict.status,
        "expected": verdict.expected,
        "found": verdict.found,
        "message_key": verdict.key,
        "params": i18n.plain(params),
        "message": i18n.message(verdict.key, params, lang),
        # Hints teach the learner; a PASS needs none and an ERROR is the environment's fault.
        "hint": i18n.hint(hint_key, lang) if verdict.status in (FAIL, PENDING) and hint_key else "",
    }


def grade(lab, collect, lang="en", settle_seconds=30.0, poll_seconds=5.0, sleep=time.sleep, clock=time.monotonic):
    """Collect and judge; while a check is PENDING (Argo CD still converging) and the settle
    budget allows, collect again. Reports the state it finally saw."""
    started = clock()
    attempts = 0
    api_requests = 0
    while True:
        state = collect()
        attempts += 1
        api_requests += state.cluster.requests
        checks = lab.judge(state, lang)
        waiting = any(c["status"] == PENDING for c in checks)
        if not waiting or clock() - started + poll_seconds > settle_seconds:
            break
        sleep(poll_seconds)
    collected = {
        "attempts": attempts,
        "api_requests": api_requests,
        "seconds": round(clock() - started, 3),
        "cluster_error": None if state.cluster.ok else {"kind": state.cluster.problem, "detail": state.cluster.detail},
    }
    result = lab.result(checks, lang, collected)
    if any(c["status"] == ERROR for c in checks) and not state.cluster.ok:
        result["error"] = collected["cluster_error"]
    return result
