"""One learner's grading with its probes run for real, against the same learner replayed as the
class benches grade it (docs/performance.md, "Real probes"): the per-host time on the VM
(`t_host`) the benches' replayed probes and fake API server leave out.

    LAB_TOOLS_BIN=... .venv/bin/python -m benchmarks.bench_probes [--labs cgoa-ci] [--rounds 3]

On a control plane of its own (controlplane/cp up under a temporary root, cp down at the end),
each lab is reset and solved on a fresh learner (playbooks/reset.yml, solve.yml), then graded
`--rounds` times as lab_grade grades it on a VM: the real API server, cgoa-ci's probes running the
learner's scripts against its server-side dry-run (real). The solved learner is then recorded
(`python -m labworld record`), materialized on the fake API server and graded the same number of
times with the recorded probe results (replayed: what bench_class and bench_push measure).
Printed per lab: each round's wall seconds; and the load before the plane starts and at the end."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks import bench_class  # puts the grader's collection on sys.path (imported below)

CONTROLPLANE_TESTS = Path(bench_class.__file__).resolve().parents[1] / "tests" / "controlplane"


def fresh_call():
    """A VM grades each time in a new process (a module call): no chart rendered by an earlier
    round is remembered."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server
    repo_server._memo.clear()


def real_rounds(learner, rounds):
    from labflow import grade_learner
    seconds = []
    for _ in range(rounds):
        fresh_call()
        began = time.monotonic()
        _, checks = grade_learner(learner, settle_seconds=0)
        seconds.append(time.monotonic() - began)
        wrong = {cid: f"{check['status']} {check['message']}" for cid, check in checks.items() if check["status"] != "PASS"}
        if wrong:
            raise SystemExit(f"bench-probes: {learner.lab} solved, not every check PASS: {wrong}")
    return seconds


def replayed_rounds(learner, rounds, work):
    """The solved learner recorded, materialized on the fake API server and graded with its
    recorded probe results."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
    from labflow import plane_path, plane_tools

    from labworld.__main__ import main as labworld_main
    from labworld.materialize import materialize
    from labworld.server import make_server

    plane, world = learner.plane, work / f"{learner.lab}.yaml"
    work.mkdir()
    with plane_path(plane):
        code = labworld_main(["record", "--lab", learner.lab, "--out", str(world), "--kubeconfig", str(plane.kubeconfig),
                              "--k3s-kubeconfig", str(plane.kubeconfig), "--workspace-root", str(learner.root / "root"),
                              "--bare-root", str(plane.bare_root), "--api-timeout", "15"])
    if code != 0:
        raise SystemExit(f"bench-probes: recording {learner.lab} failed ({code})")
    hosts = work / "hosts"
    server = make_server(hosts, 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    seconds = []
    try:
        materialize(world, learner.lab, hosts, f"http://127.0.0.1:{server.server_address[1]}")
        host = hosts / learner.lab
        site = Site(bare_root=str(host / "srv" / "bare"), workspace_root=str(host / "root"),
                    k3s_kubeconfig=str(host / "kubeconfig"), probe_replay=str(host / "probes.json"), **plane_tools(plane))
        lab = LABS[learner.lab]
        for _ in range(rounds):
            fresh_call()
            began = time.monotonic()
            result = grade(lab, collector(lab, site, str(host / "kubeconfig"), timeout=5), "en", 0, 1)
            seconds.append(time.monotonic() - began)
            if result["summary"]["total"] != result["summary"]["PASS"]:
                raise SystemExit(f"bench-probes: {learner.lab} replayed: {result['summary']}, not every check PASS")
    finally:
        server.shutdown()
        server.server_close()
    return seconds


def said(seconds):
    return f"{statistics.median(seconds):.2f} s median ({', '.join(f'{s:.2f}' for s in seconds)})"


def main(argv=None):
    sys.path.insert(0, str(CONTROLPLANE_TESTS))
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
    from cpharness import started_plane
    from labflow import Learner, reset, solve

    parser = argparse.ArgumentParser(prog="bench-probes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--labs", default=",".join(LABS), help="labs to grade (default: every lab of the registry)")
    parser.add_argument("--rounds", type=int, default=3, help="gradings of each kind per lab (default 3)")
    args = parser.parse_args(argv)
    labs = args.labs.split(",")
    unknown = [lab for lab in labs if lab not in LABS]
    if unknown or args.rounds < 1:
        parser.error(f"unknown labs {unknown}; known: {', '.join(LABS)}" if unknown else "--rounds must be 1 or more")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-probes-") as work, started_plane() as plane:
        print(f"bench-probes: plane up; labs {', '.join(labs)}, {args.rounds} rounds each; load "
              f"{' / '.join(f'{v:.2f}' for v in load)}", flush=True)
        for lab in labs:
            root = Path(work) / lab
            root.mkdir()
            learner = Learner(plane, lab, root)
            reset(learner, "-e", f"reset_confirm={lab}")
            solve(learner)
            real = real_rounds(learner, args.rounds)
            replayed = replayed_rounds(learner, args.rounds, Path(work) / f"{lab}-replay")
            probes = "its probes run for real" if LABS[lab].reads.probes else "no probes"
            print(f"  {lab} ({probes}): real API server {said(real)}; replayed {said(replayed)}", flush=True)
    print(f"  load after: {' / '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
