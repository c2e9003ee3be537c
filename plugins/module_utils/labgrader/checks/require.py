"""Ending a check early with its verdict. A check reads what it needs one thing after another;
each read may instead be the failing Verdict that says why it cannot be judged (a missing file, a
repository that cannot be read, an Application that does not exist). `require` takes the thing or
ends the check with that Verdict, so a check is written as the straight line it is:

    app = require(application_file(state.files["app.yaml"], APP))
    stop_if(repo_blocked(state))
    return verdict_from_problems(...)

A check registered with `Lab.check` (grading.py) returns the Verdict a `require` ended it with;
nothing else needs to know."""

from __future__ import annotations

import functools


class CheckEnded(Exception):
    """Carries the Verdict a check ended with before its last line."""

    def __init__(self, verdict):
        super().__init__(verdict.key)
        self.verdict = verdict


def stop_if(problem):
    """End the check with `problem` (a Verdict) when it is set; None lets the check go on."""
    if problem is not None:
        raise CheckEnded(problem)


def require(found):
    """The value of a (value, problem) pair, or end the check with `problem` when it is set."""
    value, problem = found
    stop_if(problem)
    return value


def ends_with_verdict(function):
    """A check function that returns the Verdict a `require` or `stop_if` inside it ended with."""
    @functools.wraps(function)
    def check(state):
        try:
            return function(state)
        except CheckEnded as ended:
            return ended.verdict
    return check
