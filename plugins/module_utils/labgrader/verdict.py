"""Check results and how they roll up into steps and labs (docs/grading-contract.md)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import (  # noqa: F401
    ERROR,
    FAIL,
    PASS,
    PENDING,
    STATUSES,
    worst,
)


class Verdict:
    """What a check function returns: a status plus the evidence and a message key.

    The lab runner adds lab/step/check ids and renders the message, so check functions stay
    small and do not need to know their own id or the learner's language.
    """

    __slots__ = ("expected", "found", "hint", "key", "params", "status")

    def __init__(self, status, msg_key, expected=None, found=None, hint=None, **params):
        self.status = status
        self.key = msg_key
        self.expected = expected
        self.found = found
        self.hint = hint
        self.params = params

    def __repr__(self):
        return f"Verdict({self.status}, {self.key}, expected={self.expected!r}, found={self.found!r})"


# `msg_key` is positional-only so that a check can pass a message parameter named `key`.
def passed(msg_key="ok", /, expected=None, found=None, **params):
    return Verdict(PASS, msg_key, expected, found, **params)


def failed(msg_key, /, expected=None, found=None, hint=None, **params):
    return Verdict(FAIL, msg_key, expected, found, hint, **params)


def pending(msg_key, /, expected=None, found=None, hint=None, **params):
    return Verdict(PENDING, msg_key, expected, found, hint, **params)


def errored(msg_key, /, expected=None, found=None, **params):
    return Verdict(ERROR, msg_key, expected, found, **params)


def summarize(checks):
    counts = dict.fromkeys(STATUSES, 0)
    for check in checks:
        counts[check["status"]] += 1
    counts["total"] = len(checks)
    return counts
