"""What the push design costs the controller per learner (docs/performance.md, "The push design").

    LAB_TOOLS_BIN=$(controlplane/build helm kustomize | tail -n 1) .venv/bin/python -m benchmarks.bench_push --n 1000
    ... -m benchmarks.bench_push --n 1000 --run     # a grade-push run with VMs polling on timers

Each learner's result is a real lab_grade result: the bench class's world combinations
(bench_class.host_plan, the same worlds as scripts/bench-class) graded once in this process
against the fake API server, host i pushing combination i's result. The collector
(plugins/plugin_utils/collector.py) runs in a process of its own, as it would on the
controller; the pushes come from a pool of client threads here (the VMs' side, not counted).
Printed: the collector's CPU per learner (every push validated, normalised, kept and rendered
into its part of every report format as it arrives, HTTP included) and, after the last push,
the class report assembled from those parts (Collector.finish, the files written): the serial
part left after the last host. A number, not a timed test; the machine's load is printed beside
it.

With --run, the collector is grade-push's run (plugin_utils/grade_push.py ClassRun) and each
learner is a simulated VM on its timer, a thread running the real client (push.poll_and_push)
every 5 s + up to 5 s (the designed timer, RandomizedDelaySec), whose grading takes
--grade-seconds (the VMs grade in parallel; the recorded result is pushed): the wall time from
the run's opening to its report written, and the collector's CPU for it per learner, every poll
included; then, with the run closed, the CPU of the polls alone (answered 204) per poll."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks import bench_class, measure  # bench_class puts the grader's collection on sys.path (imported below)

CLIENTS = 16  # pushes in flight at once: VMs on timers, a minute apart, rarely more
PUSH_ATTEMPTS = 5  # a loaded machine can time a push out; the collector still counts each one once


TIMER_SECONDS, TIMER_RANDOM_SECONDS = 5, 5  # lab-grade-push.timer: OnUnitActiveSec, RandomizedDelaySec
IDLE_SECONDS = 10  # the polls of a closed run, measured alone


def real_results(work, tools=True, langs=("en",)):
    """{lang: one lab_grade result per world combination of the bench class, graded in `lang`},
    graded here (without helm and kustomize when not `tools`: capa-src's rendering checks are
    then ERROR "tool_unavailable")."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC, grade_host

    tools = bench_class.tools_bin() if tools else str(work / "no-tools")
    stack = bench_class.Stack()
    try:
        api, class_dir = bench_class.start_api(stack, work)
        worlds = bench_class.learner_worlds()
        (work / "worlds").mkdir()
        plan = bench_class.host_plan(math.lcm(*map(len, worlds.values())), worlds, work / "worlds")
        bench_class.materialize_hosts(plan, class_dir, api)
        results = {lang: [] for lang in langs}
        for host, _ in plan:
            root = class_dir / host
            params = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}
            params.update(labs=list(worlds), kubeconfig=str(root / "kubeconfig"),
                          k3s_kubeconfig=str(root / "kubeconfig"), bare_root=str(root / "srv" / "bare"),
                          workspace_root=str(root / "root"), settle_timeout=0,
                          probe_replay=str(root / "probes.json") if (root / "probes.json").exists() else None,
                          **{f"{tool}_binary": os.path.join(tools, tool) for tool in bench_class.TOOLS})
            for lang in langs:
                results[lang].append(grade_host({**params, "lang": lang}))
        return list(worlds), results
    finally:
        stack.close()


def recorded_results(path, work, tools, langs=("en",)):
    """real_results, read from `path` when it holds them in every one of `langs`, else graded and
    kept there (when given): a re-run of the bench pushes the same results without grading them
    again."""
    if path and os.path.exists(path):
        recorded = json.loads(Path(path).read_text())
        if isinstance(recorded["results"], dict) and set(langs) <= set(recorded["results"]):
            return recorded["labs"], recorded["results"]
    labs, results = real_results(work, tools, langs)
    if path:
        Path(path).write_text(json.dumps({"labs": labs, "results": results}))
    return labs, results


def bench_class_hosts(n, langs, results):
    """(hosts, {host: its lab_lang}, [host i's result]): host i in langs[i % len(langs)], pushing
    a result graded in that language; the hosts of each language go through every world
    combination in turn (host i: combination i // len(langs))."""
    hosts = [f"learner{i:04d}" for i in range(1, n + 1)]
    host_langs = {host: langs[i % len(langs)] for i, host in enumerate(hosts)}
    return hosts, host_langs, [results[host_langs[host]][i // len(langs) % len(results[host_langs[host]])]
                               for i, host in enumerate(hosts)]


def serve(spec_path):
    """The collector process: serve until every host pushed, then build the report and say the CPU."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.files import write_report
    from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import Collector, CollectorServer

    spec = json.loads(Path(spec_path).read_text())
    collector = Collector(spec["hosts"], spec["digests"], spec["run"], report_dir=spec["report_dir"],
                          workers=spec["workers"])
    server = CollectorServer(("127.0.0.1", 0), collector)
    ready = cpu_seconds()
    print(server.server_address[1], flush=True)
    server.timeout = 0.2
    # every host pushed, or the pushing side gave up on some (it says so by the done file)
    while len(collector.records) < len(spec["hosts"]) and not os.path.exists(spec["done_file"]):
        server.handle_request()
    pushed = cpu_seconds()
    started = time.monotonic()
    report = collector.finish()
    write_report(spec["report_dir"], report["contents"])
    done = cpu_seconds()
    collector.shutdown()
    print(json.dumps({"push_cpu": pushed - ready, "report_cpu": done - pushed,
                      "report_wall": time.monotonic() - started,
                      "states": report["counts"]}), flush=True)


def serve_run(spec_path):
    """The collector process of --run: grade-push's run, open until every host pushed or the
    deadline, its report written; then the run closed and only polls answered for IDLE_SECONDS."""
    from ansible_collections.gitops_lab.grader.plugins.plugin_utils.grade_push import ClassRun

    spec = json.loads(Path(spec_path).read_text())
    settings = {"hosts": spec["hosts"], "report_lang": "en"}
    opened, cpu_opened = time.monotonic(), cpu_seconds()
    run = ClassRun(settings, list(spec["hosts"]), spec["output_dir"], spec["digests"], ("127.0.0.1", 0),
                   workers=spec["workers"])
    print(run.url, flush=True)
    everyone = run.wait(spec["deadline"])
    last_push = time.monotonic()
    report, _ = run.close()
    done, cpu_done = time.monotonic(), cpu_seconds()
    print(json.dumps({"wall": done - opened, "cpu": cpu_done - cpu_opened, "everyone_pushed": everyone,
                      "report_wall": done - last_push, "pushed": len(run.collector.records),
                      "states": report["counts"]}), flush=True)
    time.sleep(IDLE_SECONDS)
    print(json.dumps({"idle_cpu": cpu_seconds() - cpu_done}), flush=True)
    run.shutdown()


def cpu_seconds():
    """This process's CPU and its running descendants' (the collector's workers, forked by its
    forkserver)."""
    times, table = os.times(), measure.processes()
    return times.user + times.system + sum(table[pid][2] for pid in measure.descendants(os.getpid(), table))


class VMs:
    """The class's VMs on their timers, a thread each running the real client; counts the polls
    (requests that were not a push) per phase."""

    def __init__(self, url, hosts, tokens, results, work, grade_seconds):
        self.url, self.tokens, self.results, self.work = url, tokens, results, work
        self.grade_seconds, self.random = grade_seconds, random.Random(23)
        self.stop, self.lock = threading.Event(), threading.Lock()
        self.requests, self.pushes, self.answers = 0, 0, {}
        threading.stack_size(256 * 1024)  # 1,000 threads: their stacks, not their default 8 MiB
        self.threads = [threading.Thread(target=self.timer, args=(i, host, self.random.uniform(0, 1)), daemon=True)
                        for i, host in enumerate(hosts)]
        for thread in self.threads:
            thread.start()

    def timer(self, i, host, phase):
        from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import push

        def grade(options):  # the VM's grading: the recorded result after the time a VM takes
            time.sleep(self.grade_seconds)
            with self.lock:
                self.pushes += 1
            return self.results[i]

        # the timer was started before the run opened: its first tick at a random point of its period
        wait = phase * (TIMER_SECONDS + TIMER_RANDOM_SECONDS)
        while not self.stop.wait(wait):
            answer = push.poll_and_push(self.url, host, self.tokens[host], str(self.work / f"{host}.run"), grade)
            with self.lock:
                self.requests += 1
                if answer[0] not in (200, 204):  # not a poll's answer: the push's, or a failure
                    self.answers[host] = answer
            wait = TIMER_SECONDS + self.random.uniform(0, TIMER_RANDOM_SECONDS)

    def polls(self):
        """Timer runs so far: a poll each (and, once per run, a push)."""
        with self.lock:
            return self.requests

    def close(self):
        self.stop.set()
        for thread in self.threads:
            thread.join()


def run_bench(args, hosts, host_langs, tokens, labs, results, work):
    """--run: grade-push's run at N, the VMs polling on their timers (host i pushing results[i])."""
    from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import token_digest

    spec = {"hosts": {host: {"labs": labs, "lang": host_langs[host]} for host in hosts},
            "digests": {host: token_digest(token) for host, token in tokens.items()},
            "output_dir": str(work / "reports"), "deadline": args.deadline, "workers": args.workers}
    (work / "spec.json").write_text(json.dumps(spec))
    collector = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_push", "--serve-run", str(work / "spec.json")],
                                 stdout=subprocess.PIPE, text=True, cwd=bench_class.ROOT)
    url = collector.stdout.readline().strip()
    load_before, vms_cpu = bench_class.loadavg(), cpu_seconds()
    vms = VMs(url, hosts, tokens, results, work, args.grade_seconds)
    measured = json.loads(collector.stdout.readline())
    vms_cpu = cpu_seconds() - vms_cpu
    polls_in_run = vms.polls()
    idle = json.loads(collector.stdout.readline())
    idle_polls = vms.polls() - polls_in_run
    load_after = bench_class.loadavg()
    vms.close()
    collector.wait(60)
    not_kept = {h: a for h, a in vms.answers.items() if a[0] not in (202, 422)}
    print(f"bench-push --run: {args.n} learners in {args.langs}, labs {', '.join(labs)}, "
          f"{len({id(result) for result in results})} distinct results; timers "
          f"every {TIMER_SECONDS}-{TIMER_SECONDS + TIMER_RANDOM_SECONDS} s, grading {args.grade_seconds:g} s per VM, "
          f"deadline {args.deadline:g} s; load {load_before} -> {load_after}")
    print(f"  run opened -> report written: {measured['wall']:.1f} s wall ({measured['pushed']} of {args.n} pushed, "
          f"every host {'yes' if measured['everyone_pushed'] else 'no'}; report after the last push "
          f"{measured['report_wall']:.2f} s)")
    print(f"  collector CPU for the run: {measured['cpu']:.2f} s = {1000 * measured['cpu'] / args.n:.1f} ms per learner "
          f"({polls_in_run} polls answered, {vms.pushes} of them followed by a grading and its push); "
          f"the simulated VMs' own CPU on this machine meanwhile: {vms_cpu:.1f} s")
    print(f"  run closed, polls alone: {idle_polls} in {IDLE_SECONDS} s, {idle['idle_cpu']:.2f} CPU-s = "
          f"{1000 * idle['idle_cpu'] / max(idle_polls, 1):.2f} ms per poll")
    print(f"  not kept: {len(not_kept)} {list(not_kept.items())[:2]}; counts: {measured['states']}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchmarks.bench_push", description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="learners (default 1000)")
    parser.add_argument("--run", action="store_true", help="grade-push's run with VMs polling on their timers")
    parser.add_argument("--grade-seconds", type=float, default=3.4,
                        help="with --run: one VM's grading time (default 3.4: one learner alone x 3/2 labs)")
    parser.add_argument("--deadline", type=float, default=45, help="with --run: grade-push's --deadline")
    parser.add_argument("--no-tools", action="store_true",
                        help="grade the recorded results without helm and kustomize (capa-src's rendering checks ERROR)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(),
                        help="the collector's worker processes (default: this machine's cores; 0: none)")
    parser.add_argument("--langs", default="en,ja,ko",
                        help="the hosts' lab_lang in turn, each pushing results graded in it (default en,ja,ko)")
    parser.add_argument("--recorded", help="a file to keep the graded results in and read them from next time")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--serve-run", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve)
    if args.serve_run:
        return serve_run(args.serve_run)
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import push
    from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import issue_tokens, token_digest

    work = Path(tempfile.mkdtemp(prefix="bench-push-"))
    try:
        langs = args.langs.split(",")
        labs, graded = recorded_results(args.recorded, work, not args.no_tools, langs)
        hosts, host_langs, results = bench_class_hosts(args.n, langs, graded)
        tokens = issue_tokens(hosts)
        if args.run:
            return run_bench(args, hosts, host_langs, tokens, labs, results, work)
        spec = {"hosts": {host: {"labs": labs, "lang": host_langs[host]} for host in hosts},
                "digests": {host: token_digest(token) for host, token in tokens.items()},
                "report_dir": str(work / "reports" / "run"), "done_file": str(work / "pushed"), "run": "bench",
                "workers": args.workers}
        (work / "spec.json").write_text(json.dumps(spec))
        sizes = [len(push.envelope("learner0001", spec["run"], result)) for result in {id(r): r for r in results}.values()]
        collector = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_push", "--serve", str(work / "spec.json")],
                                     stdout=subprocess.PIPE, text=True, cwd=bench_class.ROOT)
        url = f"http://127.0.0.1:{collector.stdout.readline().strip()}"
        load_before = bench_class.loadavg()
        started = time.monotonic()
        def push_until_answered(i):  # as a VM's timer would: again when the collector was not reached
            for _attempt in range(PUSH_ATTEMPTS):
                answer = push.push_result(url, hosts[i], tokens[hosts[i]], spec["run"], results[i])
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
        print(f"bench-push: {args.n} learners in {args.langs}, labs {', '.join(labs)}, {len(sizes)} distinct results of "
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
