"""The collector's CPU per push in-process, without HTTP (docs/performance.md, "The push design end
to end"): Collector.accept for N hosts, each pushing one of bench_push's recorded results.

    .venv/bin/python -m benchmarks.bench_accept --recorded R.json --n 300 --langs en
    ... --langs en,ja,ko     # host i in the i-th of these languages (the default)

Each host pushes a result graded in its own lab_lang (bench_push.real_results grades each world
combination in each language; --recorded keeps them). Printed: CPU (time.process_time) per
push, the answers and the records' states, the load; --profile writes cProfile's stats."""

from __future__ import annotations

import argparse
import collections
import cProfile
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import bench_class  # puts the grader's collection on sys.path (imported below)
from benchmarks.bench_push import bench_class_hosts, recorded_results


def measure(labs, results, n, langs, profile=None):
    """{"ms_per_push", "answers", "states"} of n pushes, host i in langs[i % len(langs)]
    (`results`: {lang: [recorded results]})."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import push
    from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import Collector, issue_tokens, token_digest

    hosts, host_langs, pushed = bench_class_hosts(n, langs, results)
    tokens = issue_tokens(hosts)
    collector = Collector({host: {"labs": labs, "lang": host_langs[host]} for host in hosts},
                          {host: token_digest(token) for host, token in tokens.items()}, "bench")
    bodies = [push.envelope(host, "bench", result) for host, result in zip(hosts, pushed, strict=True)]
    profiler = cProfile.Profile() if profile else None
    answers = collections.Counter()
    started = time.process_time()
    if profiler:
        profiler.enable()
    for host, body in zip(hosts, bodies, strict=True):
        answers[collector.accept(host, f"Bearer {tokens[host]}", body)[0]] += 1
    if profiler:
        profiler.disable()
        profiler.dump_stats(profile)
    cpu = time.process_time() - started
    return {"ms_per_push": 1000 * cpu / n, "answers": dict(answers),
            "states": dict(collections.Counter(record["state"] for record in collector.records.values()))}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchmarks.bench_accept", description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300, help="pushes (default 300)")
    parser.add_argument("--langs", default="en,ja,ko", help="the hosts' lab_lang, in turn (default en,ja,ko)")
    parser.add_argument("--no-tools", action="store_true", help="results graded without helm and kustomize")
    parser.add_argument("--recorded", help="bench_push's file of graded results (graded and kept there if absent)")
    parser.add_argument("--profile", help="write cProfile's stats of the pushes here")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-accept-"))
    try:
        langs = args.langs.split(",")
        labs, results = recorded_results(args.recorded, work, not args.no_tools, langs)
        load_before = bench_class.loadavg()
        measured = measure(labs, results, args.n, langs, args.profile)
        print(f"bench-accept: {args.n} pushes, hosts in {args.langs}, {len(results[langs[0]])} world combinations "
              f"({'without' if args.no_tools else 'with'} helm and kustomize); load {load_before} -> "
              f"{bench_class.loadavg()}: {measured['ms_per_push']:.1f} ms CPU per push; answers "
              f"{measured['answers']}, records {measured['states']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
