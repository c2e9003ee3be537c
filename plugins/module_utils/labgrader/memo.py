"""A bounded memo for the report's per-check work, which a class repeats (every learner who
passes a check has the same message, row and record).

Not functools.lru_cache: the collector meets a class's distinct checks in the same order host
after host, and an LRU smaller than that cycle evicts each entry just before its next use (every
call a miss: measured, docs/performance.md). This one keeps the results of the first `entries`
distinct calls and computes the rest every time. Bounded per entry too: a call whose last
argument, a text, is longer than `text_limit` is not kept (a learner's values that never repeat
must not grow the collector's memory)."""

from __future__ import annotations

import functools


def first_seen(entries, text_limit):
    """Decorator: memoise a function of hashable arguments whose last is a str (see above). The
    memoised function has `forget()`, which empties it (when what it computes changes)."""

    def wrap(function):
        kept = {}

        @functools.wraps(function)
        def memoised(*args):
            if len(args[-1]) > text_limit:
                return function(*args)
            try:
                return kept[args]
            except KeyError:
                value = function(*args)
                if len(kept) < entries:
                    kept[args] = value
                return value

        memoised.forget = kept.clear
        memoised.kept = kept
        return memoised

    return wrap
