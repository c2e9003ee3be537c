"""What the push design costs the controller per learner (docs/performance.md, "The push design").

    LAB_TOOLS_BIN=$(controlplane/build helm kustomize | tail -n 1) .venv/bin/python -m benchmarks.bench_push --n 1000

Each learner's result is a real lab_grade result: the bench class's world combinations
(bench_class.host_plan, the same worlds as scripts/bench-class) graded once in this process
against the fake API server, host i pushing combination i's result. The collector
(plugins/plugin_utils/collector.py) runs in a process of its own, as it would on the
controller; the pushes come from a pool of client threads here (the VMs' side, not counted).
Printed: the collector's CPU per learner (every push validated, normalised, kept and rendered
into its part of every report format as it arrives, HTTP included) and, after the last push,
the class report assembled from those parts (Collector.finish, the files written): the serial
part left after the last host. A number, not a timed test; the machine's load is printed beside
it."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import bench_class  # puts the grader's collection on sys.path (imported below)

CLIENTS = 16  # pushes in flight at once: VMs on timers, a minute apart, rarely more
PUSH_ATTEMPTS = 5  # a loaded machine can time a push out; the collector still counts each one once


def real_results(work):
    """One lab_grade result per world combination of the bench class, graded here."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC, grade_host

    tools = bench_class.tools_bin()
    stack = bench_class.Stack()
    try:
        api, class_dir = bench_class.start_api(stack, work)
        worlds = bench_class.learner_worlds()
        (work / "worlds").mkdir()
        plan = bench_class.host_plan(math.lcm(*map(len, worlds.values())), worlds, work / "worlds")
        bench_class.materialize_hosts(plan, class_dir, api)
        results = []
        for host, _ in plan:
            root = class_dir / host
            params = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}
            params.update(labs=list(worlds), kubeconfig=str(root / "kubeconfig"),
                          k3s_kubeconfig=str(root / "kubeconfig"), bare_root=str(root / "srv" / "bare"),
                          workspace_root=str(root / "root"), settle_timeout=0,
                          probe_replay=str(root / "probes.json") if (root / "probes.json").exists() else None,
                          **{f"{tool}_binary": os.path.join(tools, tool) for tool in bench_class.TOOLS})
            results.append(grade_host(params))
        return list(worlds), results
    finally:
        stack.close()


def serve(spec_path):
    """The collector process: serve until every host pushed, then build the report and say the CPU."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.files import write_report
    from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import Collector, CollectorServer

    spec = json.loads(Path(spec_path).read_text())
    collector = Collector(spec["hosts"], spec["digests"], spec["run"], report_dir=spec["report_dir"])
    server = CollectorServer(("127.0.0.1", 0), collector)
    ready = os.times()
    print(server.server_address[1], flush=True)
    server.timeout = 0.2
    # every host pushed, or the pushing side gave up on some (it says so by the done file)
    while len(collector.records) < len(spec["hosts"]) and not os.path.exists(spec["done_file"]):
        server.handle_request()
    pushed = os.times()
    started = time.monotonic()
    report = collector.finish()
    write_report(spec["report_dir"], report["contents"])
    done = os.times()
    print(json.dumps({"push_cpu": (pushed.user + pushed.system) - (ready.user + ready.system),
                      "report_cpu": (done.user + done.system) - (pushed.user + pushed.system),
                      "report_wall": time.monotonic() - started,
                      "states": report["counts"]}), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchmarks.bench_push", description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="learners (default 1000)")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve)
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import push
    from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import issue_tokens, token_digest

    work = Path(tempfile.mkdtemp(prefix="bench-push-"))
    try:
        labs, results = real_results(work)
        hosts = [f"learner{i:04d}" for i in range(1, args.n + 1)]
        tokens = issue_tokens(hosts)
        spec = {"hosts": {host: {"labs": labs, "lang": "en"} for host in hosts},
                "digests": {host: token_digest(token) for host, token in tokens.items()},
                "report_dir": str(work / "reports" / "run"), "done_file": str(work / "pushed"), "run": "bench"}
        (work / "spec.json").write_text(json.dumps(spec))
        sizes = [len(push.envelope("learner0001", spec["run"], result)) for result in results]
        collector = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_push", "--serve", str(work / "spec.json")],
                                     stdout=subprocess.PIPE, text=True, cwd=bench_class.ROOT)
        url = f"http://127.0.0.1:{collector.stdout.readline().strip()}"
        load_before = bench_class.loadavg()
        started = time.monotonic()
        def push_until_answered(i):  # as a VM's timer would: again when the collector was not reached
            for _attempt in range(PUSH_ATTEMPTS):
                answer = push.push_result(url, hosts[i], tokens[hosts[i]], spec["run"], results[i % len(results)])
                if answer[0]:
                    break
            return answer

        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
            answers = list(pool.map(push_until_answered, range(args.n)))
        pushed_in = time.monotonic() - started
        (work / "pushed").touch()
        measured = json.loads(collector.stdout.readline())
        collector.wait(60)
        refused = [answer for answer in answers if answer[0] != 202]
        print(f"bench-push: {args.n} learners, labs {', '.join(labs)}, {len(results)} distinct results of "
              f"{min(sizes) // 1024}-{max(sizes) // 1024} KiB, {CLIENTS} clients; load {load_before} -> "
              f"{bench_class.loadavg()}")
        print(f"  pushes: {pushed_in:.1f} s wall, {len(refused)} not accepted {refused[:1]}")
        print(f"  collector CPU: {measured['push_cpu']:.2f} s = {1000 * measured['push_cpu'] / args.n:.1f} ms "
              f"per learner (HTTP, token, schema, registry validation, normalise, scrub, render its parts)")
        print(f"  class report after the last push: {measured['report_wall']:.2f} s wall, "
              f"{measured['report_cpu']:.2f} CPU-s (every format assembled from the hosts' parts, files written)")
        print(f"  counts: {measured['states']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
