"""scripts/bench-class: a class of simulated learners graded over real SSH.

Every learner is one inventory host reached over real SSH: one sshd on 127.0.0.1 (started here,
its own host key, an authorized key made for this run) behind benchmarks/sshproxy.py, which
gives each host its own port (its own ControlPersist master, as a real VM has) and counts the
bytes. Each host is its own fixture world (labworld), served by one fake API server whose
requests.log gives the API requests. Everything lives in one temp dir and is removed at the end.
See docs/performance.md for what each column means and the projection model.
"""

from __future__ import annotations

import argparse
import configparser
import contextlib
import getpass
import itertools
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
# The grader's registry (labs.LABS) by its collection name, as pytest.ini's pythonpath gives it.
if str(ROOT / "collections") not in sys.path:
    sys.path.insert(0, str(ROOT / "collections"))
BENCH = ROOT / "benchmarks"
PYTHON = ROOT / ".venv" / "bin" / "python"
WORLDS = ROOT / "fixtures" / "worlds"
# Not a learner's world: the class list. Worlds with a dead or faulty cluster are left out by
# learner_worlds (the fault run makes its own unhealthy VMs).
# A recording of the control plane (recorded.yaml) is not one either: the plane runs Argo CD as
# host processes, so the recording holds no StatefulSet or Deployments of Argo CD and grade.yml's
# health gate refuses it (the offline harness replays it without the gate).
NOT_LEARNER_WORLDS = {"class.yaml", "recorded.yaml"}
TOOLS = ("helm", "kustomize")  # what the simulated VMs run where Argo CD would (lab_<tool>_binary)
BASELINE_PLAYBOOK = BENCH / "baseline-capa-src.yml"
BASELINE_CHECKS = 12  # the tasks tagged as checks in BASELINE_PLAYBOOK
FLOOR_PLAYBOOK = BENCH / "floor-ping.yml"
GRADE_TASK = "Grade the enrolled labs"
REPORT_TASK = "Write grades.json, junit.xml and index.html"
ALONE_RUNS = 3
WAIT_SECONDS = 20  # for sshd, the API server and the proxy to listen
# one ansible-playbook run may take this long plus this per host (the modules of a class share
# this machine's cores with the controller); the bench never waits longer
RUN_TIMEOUT = 900
RUN_TIMEOUT_PER_HOST = 2.0
SSH_DELAY = 10.0  # the slow VM of the fault run
STALL_SECONDS = 120  # the stalled API server of the fault run holds each request this long
FAULT_HOSTS = {"vm-blackhole": "blackhole", "vm-slow-ssh": f"delay:{SSH_DELAY:g}", "vm-stalled-api": "relay"}


def wait_for(predicate, what, seconds=WAIT_SECONDS):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise SystemExit(f"bench-class: {what} not ready after {seconds} s")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening(port):
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class Stack:
    """The processes this run starts; stopped by pid in reverse order."""

    def __init__(self):
        self.procs = []

    def start(self, argv, log_path, **kw):
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, **kw)
        self.procs.append(proc)
        return proc

    def stop(self, proc):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def close(self):
        for proc in reversed(self.procs):
            self.stop(proc)


def start_sshd(stack, work):
    ssh = work / "ssh"
    ssh.mkdir()
    for key in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(ssh / key)], check=True)
    shutil.copy(ssh / "client_key.pub", ssh / "authorized_keys")
    meter = work / "meter"
    meter.mkdir()
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation directory (Debian's path)
    for _attempt in range(5):  # a free port can be taken between the probe and sshd's bind
        port = free_port()
        (ssh / "sshd_config").write_text(f"""ListenAddress 127.0.0.1:{port}
HostKey {ssh / 'host_key'}
AuthorizedKeysFile {ssh / 'authorized_keys'}
PidFile none
AllowUsers {getpass.getuser()}
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
# a class connects at once: far above the default 10 unauthenticated connections
MaxStartups 1000:100:1000
MaxSessions 100
LogLevel ERROR
Subsystem sftp internal-sftp
ForceCommand {BENCH / 'session-meter'} {meter}
""")
        proc = stack.start(["/usr/sbin/sshd", "-D", "-e", "-f", str(ssh / "sshd_config")],
                           ssh / "sshd.log")
        deadline = time.monotonic() + WAIT_SECONDS
        while proc.poll() is None and time.monotonic() < deadline and not listening(port):
            time.sleep(0.05)
        if proc.poll() is None and listening(port):
            host_key = (ssh / "host_key.pub").read_text().split()
            (ssh / "known_hosts").write_text(f"[127.0.0.1]:* {host_key[0]} {host_key[1]}\n")
            return port, ssh, meter
    raise SystemExit(f"bench-class: sshd did not start, see {ssh / 'sshd.log'}:\n{(ssh / 'sshd.log').read_text()}")


def start_api(stack, work):
    class_dir, port_file = work / "class", work / "api.port"
    class_dir.mkdir()
    stack.start([str(PYTHON), "-m", "labworld", "serve", "--root", str(class_dir), "--port", "0",
                 "--port-file", str(port_file)], work / "api.log", cwd=ROOT)
    wait_for(lambda: port_file.exists() and port_file.read_text().strip(), "the fake API server")
    return f"http://127.0.0.1:{port_file.read_text().strip()}", class_dir


def learner_worlds():
    """{lab: [world files]} for every lab of the grader's registry (labs.LABS, in its order) that has
    fixture worlds: the worlds a learner can be in (complete, partial, broken work). A lab
    registered later joins the class by itself; one without worlds is left out (main says so)."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

    from labworld.world import load
    worlds = {}
    for lab_id in LABS:
        usable = []
        for path in sorted((WORLDS / lab_id).glob("*.yaml")):
            if path.name in NOT_LEARNER_WORLDS:
                continue
            cluster = load(path).get("cluster") or {}
            if cluster.get("reachable", True) and not cluster.get("fault"):
                usable.append(path)
        if usable:
            worlds[lab_id] = usable
    return worlds


def combined_world(paths, out_dir):
    """One world file for a learner VM enrolled in several labs: `extends` lists one world per lab."""
    if len(paths) == 1:
        return paths[0]
    out = out_dir / ("+".join(f"{p.parent.name}-{p.stem}" for p in paths) + ".yaml")
    if not out.exists():
        out.write_text(yaml.safe_dump({"extends": [str(p) for p in paths],
                                       "description": " + ".join(f"{p.parent.name}/{p.stem}" for p in paths)}))
    return out


def host_plan(count, worlds, out_dir):
    """[(host, world file)] - host i takes world i of each lab's list, cycling, so that a class
    is a mix of complete, partial and broken work in every lab."""
    cycles = [itertools.cycle(paths) for paths in worlds.values()]
    return [(f"learner{i:03d}", combined_world([next(c) for c in cycles], out_dir)) for i in range(1, count + 1)]


def fault_plan(worlds, out_dir):
    """The three unhealthy VMs: their SSH is broken by the proxy, or their API server stalls."""
    golden = [paths[0].parent / "golden.yaml" if (paths[0].parent / "golden.yaml").exists() else paths[0]
              for paths in worlds.values()]
    base = combined_world(golden, out_dir)
    stalled = out_dir / "stalled-api.yaml"
    stalled.write_text(yaml.safe_dump({"extends": str(base), "description": "API server accepts, never answers",
                                       "cluster": {"fault": {"mode": "stall", "seconds": STALL_SECONDS}}}))
    return [("vm-blackhole", base), ("vm-slow-ssh", base), ("vm-stalled-api", stalled)]


def _materialize(args):
    from labworld.materialize import materialize
    world, host, out, api = args
    return host, materialize(world, host, out, api)


def materialize_hosts(plan, class_dir, api):
    """Each distinct world is materialised once, as `world-<k>`; each host of the plan is a symlink
    to its world's folder (grading reads it and writes nothing, so hosts can share it), so that a
    class of 1,000 costs as many materialisations as it has distinct worlds. Returns
    ({host: the world's summary}, {host: the world's folder name})."""
    names = {}
    for _, world in plan:
        names.setdefault(str(world), f"world-{len(names) + 1}")
    with ProcessPoolExecutor(max_workers=2) as pool:
        summaries = dict(pool.map(_materialize, [(w, name, str(class_dir), api) for w, name in names.items()]))
    folders = {}
    for host, world in plan:
        folders[host] = names[str(world)]
        (class_dir / host).symlink_to(folders[host])
    return {host: summaries[folder] for host, folder in folders.items()}, folders


def tools_bin():
    """The folder of helm and kustomize as Argo CD v3.5.2 runs them, for the simulated VMs:
    $LAB_TOOLS_BIN (scripts/bench-class sets it: `controlplane/build helm kustomize`). Without
    them capa-src's rendering checks are ERROR "tool_unavailable" and helm's time is not measured."""
    folder = os.environ.get("LAB_TOOLS_BIN", "")
    missing = [tool for tool in TOOLS if not os.access(os.path.join(folder, tool), os.X_OK)]
    if not folder or missing:
        raise SystemExit(f"bench-class: LAB_TOOLS_BIN={folder!r} has no executable {', '.join(missing)}: "
                         "run scripts/bench-class, or set it to `controlplane/build helm kustomize | tail -n 1`")
    return folder


def unexpected_errors(grades, spec):
    """What a run's grades.json (lab-grades/v1) holds in ERROR that the run did not make unhealthy on
    purpose (`spec`: the fault hosts): ["<host>: <why>"] of hosts, then of checks (grouped by
    message key). The bench measures grading, not the reporting of broken VMs or missing tools."""
    hosts = [f"{h['host']}: {h['error']['message']}" for h in grades["hosts"]
             if h["state"] == "error" and h["host"] not in spec]
    checks = {}
    for record in grades["records"]:
        if record["status"] == "ERROR" and record["host"] not in spec:
            checks.setdefault(record["message_key"], []).append(record["check"])
    return hosts + [f"{len(ids)} checks ERROR {key} ({ids[0]}, ...)" for key, ids in checks.items()]


def inventory(hosts, ports, labs, class_dir, ssh, summaries, settle, tools):
    common = (f"-o UserKnownHostsFile={ssh / 'known_hosts'} -o StrictHostKeyChecking=yes "
              "-o GlobalKnownHostsFile=/dev/null")
    learners = {}
    for host in hosts:
        root = class_dir / host
        learners[host] = {
            "ansible_host": "127.0.0.1", "ansible_port": ports[host],
            "lab_workspace_root": str(root / "root"), "lab_bare_root": str(root / "srv" / "bare"),
            "lab_grader_kubeconfig": str(root / "kubeconfig"), "lab_k3s_kubeconfig": str(root / "kubeconfig"),
            "lab_probe_replay": str(root / "probes.json"),
            # the baseline's uri tasks: the URL and token a typical grader keeps in its inventory
            "bench_api_url": summaries[host]["api_server"],
            "bench_api_token": f"labworld-{Path(summaries[host]['api_server']).name}-token",
        }
    return {"learners": {"hosts": learners, "vars": {
        "ansible_user": getpass.getuser(),
        "ansible_ssh_private_key_file": str(ssh / "client_key"),
        "ansible_ssh_common_args": common,
        "ansible_python_interpreter": str(PYTHON),
        "lab_grader_python": str(PYTHON),
        "lab_enrolled": labs,
        **{f"lab_{tool}_binary": os.path.join(tools, tool) for tool in TOOLS},
        # as grade.yml is configured (30 s) unless the bench is told otherwise (--settle)
        **({} if settle is None else {"grade_settle_timeout": settle}),
    }}}


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


def request_count(class_dir, folders):
    """Lines of every world folder's requests.log (hosts sharing a world share its log)."""
    total = 0
    for folder in set(folders):
        log = class_dir / folder / "requests.log"
        total += sum(1 for _ in log.open()) if log.exists() else 0
    return total


def meter_cpu(meter):
    """Sum of the CPU of every SSH session's command (session-meter), and clear the folder."""
    total = 0.0
    for path in meter.glob("*.times"):
        lines = path.read_text().split("\n")
        if len(lines) > 1 and lines[1].strip():
            for field in lines[1].split():
                minutes, seconds = field.rstrip("s").split("m")
                total += 60 * float(minutes) + float(seconds)
        path.unlink()
    return total


class ClassNetwork:
    """The proxy of a set of hosts: one port per host, relaying to the bench's sshd. Kept for a
    cold run and the warm re-run after it (the same ports: the same ssh ControlPersist masters)."""

    def __init__(self, name, hosts, spec, ctx):
        self.dir = ctx["work"] / "runs" / name
        self.dir.mkdir(parents=True)
        (self.dir / "spec.json").write_text(json.dumps({h: spec.get(h, "relay") for h in hosts}))
        self.stats_file = self.dir / "proxy.json"
        self.stack = ctx["stack"]
        self.proc = self.stack.start([str(PYTHON), str(BENCH / "sshproxy.py"), "--target", str(ctx["sshd_port"]),
                                      "--spec", str(self.dir / "spec.json"), "--ports-out", str(self.dir / "ports.json"),
                                      "--stats-out", str(self.stats_file)], self.dir / "proxy.log")
        wait_for(lambda: (self.dir / "ports.json").exists(), "the SSH proxy")
        self.ports = json.loads((self.dir / "ports.json").read_text())
        self.counted = self.snapshot()

    def snapshot(self):
        """The bytes per host so far ({} before the first connection)."""
        self.stats_file.unlink(missing_ok=True)
        self.proc.send_signal(signal.SIGUSR1)
        wait_for(self.stats_file.exists, "the SSH proxy's counts")
        return json.loads(self.stats_file.read_text())

    def bytes_since(self, hosts):
        """Bytes per host since the last call, both directions."""
        now = self.snapshot()
        moved = {h: sum(now[h][k] - self.counted.get(h, {}).get(k, 0) for k in ("up", "down")) for h in hosts}
        self.counted = now
        return moved

    def close(self):
        self.stack.stop(self.proc)


def run_playbook(name, playbook, hosts, spec, ctx, extra=(), network=None, masters=None):
    """One measured ansible-playbook run. `network`: the proxy of an earlier run to reuse (a warm
    re-run), else a new one, closed at the end. `masters`: "leave" (leave the ssh masters running
    for a warm re-run) or the pids file of the masters an earlier run left (count their CPU)."""
    work = ctx["work"]
    own_network = network is None
    network = network or ClassNetwork(name, hosts, spec, ctx)
    run_dir = work / "runs" / name
    run_dir.mkdir(parents=True, exist_ok=True)
    inv = inventory(hosts, network.ports, ctx["labs"], ctx["class_dir"], ctx["ssh"], ctx["summaries"], ctx["settle"],
                    ctx["tools"])
    (run_dir / "hosts.yml").write_text(yaml.safe_dump(inv))
    folders = [ctx["folders"][h] for h in hosts]
    before = request_count(ctx["class_dir"], folders)
    meter_cpu(ctx["meter"])
    env = {**os.environ,
           # the same folder for a cold run and its warm re-run: the masters' sockets
           "ANSIBLE_SSH_CONTROL_PATH_DIR": str(work / "cp" / network.dir.name),
           "ANSIBLE_CALLBACK_PLUGINS": f"{ROOT / 'plugins' / 'callback'}:{BENCH / 'callback'}",
           # grade.yml's own callback (its exit codes) and the timings
           "ANSIBLE_CALLBACKS_ENABLED": "gitops_lab.grader.grade_matrix,bench_timing",
           "ANSIBLE_LOCAL_TEMP": str(work / "ansible-tmp"),
           "ANSIBLE_NOCOLOR": "1",
           "BENCH_TIMING_OUT": str(run_dir / "timing.json"),
           "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}
    env.update(ctx.get("env") or {})
    options = []
    if masters == "leave":
        options = ["--leave-masters", str(run_dir / "masters.json")]
    elif masters:
        options = ["--count", str(masters)]
    limit = RUN_TIMEOUT + RUN_TIMEOUT_PER_HOST * len(hosts)
    argv = [str(PYTHON), str(BENCH / "measure.py"), *options, str(run_dir / "measure.json"), str(limit), "--",
            "ansible-playbook", "-i", str(run_dir / "hosts.yml"), str(playbook), *extra]
    started = time.time()
    with open(run_dir / "run.log", "wb") as log:
        subprocess.run(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    moved = network.bytes_since(hosts)
    if own_network and masters != "leave":
        network.close()
    measured = json.loads((run_dir / "measure.json").read_text())
    if measured["timed_out"]:
        raise SystemExit(f"bench-class: {name} ran longer than {limit:.0f} s, see {run_dir / 'run.log'}")
    timing = json.loads((run_dir / "timing.json").read_text()) if (run_dir / "timing.json").exists() else {"tasks": {}}
    after = request_count(ctx["class_dir"], folders)
    module_cpu = meter_cpu(ctx["meter"])
    # per host: its grading task (grade.yml) or its span over every task (the baseline)
    spans = {}
    for task, by_host in timing["tasks"].items():
        if task == GRADE_TASK or GRADE_TASK not in timing["tasks"]:
            for host, (start, end, _) in by_host.items():
                if start and end:
                    first, last = spans.get(host, (start, end))
                    spans[host] = (min(first, start), max(last, end))
    per_host = [end - start for start, end in spans.values()]
    starts = [start for start, _ in spans.values()]
    ends = [end for _, end in spans.values()]
    report_ends = [end for _, end, _ in timing["tasks"].get(REPORT_TASK, {}).values() if end]
    cpu = measured["cpu_user"] + measured["cpu_system"]
    return {
        "name": name, "n": len(hosts), "rc": measured["rc"], "wall": measured["wall"], "log": str(run_dir / "run.log"),
        "load": loadavg(), "host_p50": percentile(per_host, 0.5), "host_p95": percentile(per_host, 0.95),
        "host_max": max(per_host, default=float("nan")),
        "fixed": (min(starts) - started) + (started + measured["wall"] - max(ends)) if starts and ends else float("nan"),
        # the class report complete, after the last host's result came back
        "report_after_last": max(report_ends) - max(ends) if report_ends and ends else float("nan"),
        "requests_per_host": (after - before) / len(hosts),
        "ssh_kib_per_host": sum(moved.values()) / len(hosts) / 1024,
        "controller_cpu": cpu, "controller_cpu_per_host": cpu / len(hosts), "cpu_by_kind": measured["by_kind"],
        "peak_pss_mib": measured["peak_pss_sum"] / 2**20, "peak_rss_one_mib": measured["peak_rss_one"] / 2**20,
        "module_cpu": module_cpu, "module_cpu_per_host": module_cpu / len(hosts),
        "reports": run_dir / "reports", "network": network, "masters": run_dir / "masters.json",
    }


def grade(name, hosts, ctx, spec=None, extra=(), **kw):
    report_dir = ctx["work"] / "runs" / name / "reports"
    row = run_playbook(name, ctx["playbook"], hosts, spec or {}, ctx,
                       extra=["-e", f"grade_report_dir={report_dir}", *extra], **kw)
    grades = host_records(row)
    row["checks_graded"] = grades["counts"]["total"]  # a host in ERROR has none
    unexpected = unexpected_errors(grades, spec or {})
    if unexpected:
        raise SystemExit(f"bench-class: {name}: in ERROR: {'; '.join(unexpected[:10])}; see {row['log']}")
    return row


def host_records(row):
    grades = json.loads((row["reports"] / "latest" / "grades.json").read_text())
    return grades


def loadavg():
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())


def print_table(rows, labs, checks_per_host):
    print(f"\n{'run':<14}{'N':>5}{'wall s':>8}{'host p50':>9}{'p95':>7}{'max':>7}{'report+':>8}{'API/host-lab':>13}"
          f"{'SSH KiB/host':>13}{'ctrl CPU-s':>11}{'/learner':>9}{'peak MiB':>9}{'module CPU-s/learner':>21}"
          f"  load at end")
    for r in rows:
        per_lab = r["requests_per_host"] / (1 if r["name"].startswith("baseline") else len(labs))
        print(f"{r['name']:<14}{r['n']:>5}{r['wall']:>8.1f}{r['host_p50']:>9.2f}{r['host_p95']:>7.2f}"
              f"{r['host_max']:>7.2f}{r['report_after_last']:>8.1f}{per_lab:>13.1f}{r['ssh_kib_per_host']:>13.1f}"
              f"{r['controller_cpu']:>11.1f}{r['controller_cpu_per_host']:>9.3f}{r['peak_pss_mib']:>9.0f}"
              f"{r['module_cpu_per_host']:>21.3f}  {r['load']}")
    print(f"(labs per host: {', '.join(labs)}; checks per host: {checks_per_host:g}; report+: the class report "
          "complete, seconds after the last host's result; API/host-lab of grade.yml includes the health gate's "
          "5 GETs, split over the labs; the baseline grades capa-src only)")
    print("\nController CPU per learner by kind of process, ms (as last sampled every 0.1 s; 'unsampled' is what "
          "processes shorter than a sample spent):")
    kinds = ["main process", "workers", "ssh client", "ssh master", "earlier ssh masters", "other"]
    print(f"{'run':<14}" + "".join(f"{k:>20}" for k in [*kinds, "unsampled", "total"]))
    for r in rows:
        by_kind = r["cpu_by_kind"]
        sampled = sum(by_kind.values())
        cells = [by_kind.get(k, 0.0) for k in kinds] + [r["controller_cpu"] - sampled, r["controller_cpu"]]
        print(f"{r['name']:<14}" + "".join(f"{1000 * c / r['n']:>20.1f}" for c in cells))


WARM_PERSIST = "2h"  # ssh ControlPersist of a --warm bench (warm_ssh_args)
GOAL_N = 1000  # issue 23: 1,000 learners x 3 labs, <= 60 s warm, <= 90 s cold, <= 0.1 CPU-s per learner
GOAL_LABS = 3


def projection(rows, alone, forks, cores, labs, target_n=GOAL_N, target_labs=GOAL_LABS):
    """Projected wall time for `target_n` real VMs enrolled in `target_labs` labs, cold and warm: the
    module runs on each VM in parallel, the controller's work does not.
    T = start + max(waves x per-host time, controller CPU / cores) + report after the last host.
    Per-host time scales with the labs (one learner alone, measured with `labs`, x target_labs /
    labs: the health gate counted as lab time, an overestimate); the controller's CPU per learner
    is measured at the largest N (a lab more adds result bytes, not tasks or connections)."""
    out = {}
    for kind in ("grade", "warm"):
        kind_rows = sorted((r for r in rows if r["name"].startswith(f"{kind}-")), key=lambda r: r["n"])
        if not kind_rows:
            continue
        smallest, largest = kind_rows[0], kind_rows[-1]
        if largest["n"] > smallest["n"]:
            marginal = (largest["controller_cpu"] - smallest["controller_cpu"]) / (largest["n"] - smallest["n"])
        else:
            marginal = largest["controller_cpu_per_host"]
        fixed_cpu = max(0.0, smallest["controller_cpu"] - marginal * smallest["n"])
        host_time = alone["host_p50"] * target_labs / len(labs)
        waves = math.ceil(target_n / forks)
        controller_bound = (fixed_cpu + marginal * target_n) / cores
        fan_out = waves * host_time
        start = largest["fixed"] - largest["report_after_last"]
        total = start + max(fan_out, controller_bound) + largest["report_after_last"]
        label = "cold" if kind == "grade" else "warm (ssh masters up)"
        print(f"\nProjection for {target_n} real VMs x {target_labs} labs, {label} ({forks} forks, {cores}-core controller):")
        print(f"  controller CPU per learner (marginal, N={smallest['n']}->{largest['n']}): {marginal:.3f} s; "
              f"fixed per run: {fixed_cpu:.1f} s")
        print(f"  controller-bound: ({fixed_cpu:.1f} + {marginal:.3f} x {target_n}) / {cores} = {controller_bound:.1f} s")
        print(f"  fan-out bound: ceil({target_n}/{forks}) = {waves} waves x {host_time:.2f} s per host "
              f"(one learner alone x {target_labs}/{len(labs)} labs) = {fan_out:.1f} s")
        print(f"  start {start:.1f} s, report after the last host {largest['report_after_last']:.1f} s "
              f"(measured at N={largest['n']})")
        print(f"  projected wall time: {start:.1f} + max({fan_out:.1f}, {controller_bound:.1f}) + "
              f"{largest['report_after_last']:.1f} = {total:.1f} s")
        out[kind] = {"marginal_cpu": marginal, "fixed_cpu": fixed_cpu, "host_time": host_time, "waves": waves,
                     "controller_bound": controller_bound, "fan_out": fan_out, "projected": total}
    return out


def baseline_ratio(ours, base):
    """Per graded check, baseline vs grade.yml: each run's cost over the checks it graded (a host in
    ERROR grades none; counting it would understate grade.yml's cost per check)."""
    def per_check(row, key):
        return row[key] / row["checks_graded"]
    per_check = {
        "wall": (per_check(base, "wall"), per_check(ours, "wall")),
        "controller CPU": (per_check(base, "controller_cpu"), per_check(ours, "controller_cpu")),
        "module CPU": (per_check(base, "module_cpu"), per_check(ours, "module_cpu")),
        "all CPU": ((base["controller_cpu"] + base["module_cpu"]) / base["checks_graded"],
                    (ours["controller_cpu"] + ours["module_cpu"]) / ours["checks_graded"]),
    }
    print(f"\nBaseline (benchmarks/baseline-capa-src.yml: {BASELINE_CHECKS} capa-src checks, one task per check + "
          f"assert) vs grade.yml ({ours['checks_graded']} checks graded over {ours['n']} hosts), per host-check:")
    for what, (b, o) in per_check.items():
        print(f"  {what:<15} baseline {b * 1000:8.1f} ms   grade.yml {o * 1000:7.2f} ms   ratio {b / o:6.1f}x")
    return per_check


def check_faults(row):
    records = {r["host"]: {"state": r["state"], "error": r["error"]} for r in host_records(row)["hosts"]}
    print(f"\nFault run: wall {row['wall']:.1f} s (rc {row['rc']}); the unhealthy VMs:")
    for host in FAULT_HOSTS:
        record = records.get(host, {})
        error = record.get("error") or {}
        message = " ".join(str(error.get("message", "")).split())
        print(f"  {host:<16} {record.get('state', '?'):<7} {error.get('kind', '')}: ...{message[-100:]}")
    return records


def main(argv=None):
    parser = argparse.ArgumentParser(prog="scripts/bench-class", description=__doc__.split("\n")[0])
    parser.add_argument("--n", default="10,50,200", help="class sizes, comma separated (default 10,50,200)")
    parser.add_argument("--quick", action="store_true", help="N = 4,10 (overrides --n)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the one-task-per-check baseline")
    parser.add_argument("--faults", action="store_true",
                        help="also grade a class with a blackholed VM, a VM with a 10 s SSH delay and a stalled API")
    parser.add_argument("--forks", type=int, default=None, help="ANSIBLE_FORKS (default: ansible.cfg)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment setting for every ansible-playbook run (measure a variant, "
                             "e.g. ANSIBLE_SSH_ARGS=...)")
    parser.add_argument("--playbook", default=str(ROOT / "grade.yml"),
                        help="the grading playbook (default grade.yml; a variant to measure against it)")
    parser.add_argument("--warm", action="store_true",
                        help="re-grade each class at once after its first run, its ssh masters still up "
                             "(the instructor's re-grade during class)")
    parser.add_argument("--floor", action="store_true",
                        help="also run Ansible's floor at each N: one ping task per host (benchmarks/floor-ping.yml), "
                             "cold and, with --warm, warm")
    parser.add_argument("--floor-only", action="store_true", help="run only Ansible's floor (see --floor)")
    parser.add_argument("--settle", type=float, default=None,
                        help="grade_settle_timeout for every host (default: as grade.yml is configured, 30 s)")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (printed)")
    args = parser.parse_args(argv)
    sizes = [4, 10] if args.quick else sorted({int(n) for n in args.n.split(",") if n.strip()})
    tools = tools_bin()
    worlds = learner_worlds()
    labs = list(worlds)
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
    left_out = [lab_id for lab_id in LABS if lab_id not in worlds]
    config = configparser.ConfigParser()
    config.read(ROOT / "ansible.cfg")
    forks = args.forks or config.getint("defaults", "forks", fallback=5)
    work = Path(tempfile.mkdtemp(prefix="bench-class-"))
    stack = Stack()
    rows = []
    print(f"bench-class: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load {loadavg()}, forks {forks}, labs {', '.join(f'{lab} ({len(w)} worlds)' for lab, w in worlds.items())}"
          + (f"; left out, no fixture worlds: {', '.join(left_out)}" if left_out else "")
          + f", settle {'as configured' if args.settle is None else args.settle}")
    try:
        sshd_port, ssh, meter = start_sshd(stack, work)
        api, class_dir = start_api(stack, work)
        (work / "worlds").mkdir()
        plan = host_plan(max(sizes), worlds, work / "worlds")
        if args.faults:
            plan += fault_plan(worlds, work / "worlds")
        started = time.monotonic()
        summaries, folders = materialize_hosts(plan, class_dir, api)
        print(f"materialized {len(plan)} hosts ({len(set(folders.values()))} distinct worlds) in "
              f"{time.monotonic() - started:.0f} s")
        ctx = {"work": work, "stack": stack, "sshd_port": sshd_port, "ssh": ssh, "meter": meter, "labs": labs,
               "tools": tools,
               "class_dir": class_dir, "summaries": summaries, "folders": folders, "settle": args.settle,
               "playbook": Path(args.playbook).resolve(),
               "env": {**({"ANSIBLE_FORKS": str(forks)} if args.forks else {}),
                       **(warm_ssh_args(config) if args.warm else {}),
                       **dict(item.split("=", 1) for item in args.env)}}
        learners = [host for host, _ in plan if host.startswith("learner")]
        if args.floor_only:  # Ansible's floor alone, e.g. beside a long run of grade.yml
            for n in sizes:
                rows += floor_rows(n, learners[:n], ctx, args.warm)
            print_table(rows, labs, float("nan"))
            if args.json:
                Path(args.json).write_text(json.dumps({"rows": rows, "load": loadavg()}, default=str, indent=1))
            return 0
        # one learner alone: the time a host takes when it has the CPU to itself, as a real VM has
        # (the quickest of ALONE_RUNS: other work on a shared machine only ever adds time)
        alone = min((grade(f"alone-{i}", learners[:1], ctx) for i in range(ALONE_RUNS)), key=lambda r: r["host_p50"])
        print(f"  one learner alone: {alone['host_p50']:.2f} s in its grading task, module "
              f"{alone['module_cpu']:.2f} CPU-s (quickest of {ALONE_RUNS})", flush=True)
        for n in sizes:
            rows.append(grade(f"grade-{n}", learners[:n], ctx, masters="leave" if args.warm else None))
            print(f"  grade N={n}: {rows[-1]['wall']:.1f} s (rc {rows[-1]['rc']}, load {loadavg()})", flush=True)
            if args.warm:
                cold = rows[-1]
                try:
                    rows.append(grade(f"warm-{n}", learners[:n], ctx, network=cold["network"],
                                      masters=cold["masters"]))
                finally:
                    cold["network"].close()
                    stop_masters(cold["masters"])
                print(f"  warm N={n}: {rows[-1]['wall']:.1f} s (rc {rows[-1]['rc']}, load {loadavg()})", flush=True)
            if args.floor:
                rows += floor_rows(n, learners[:n], ctx, args.warm)
        checks = count_checks(rows[0])
        if not args.no_baseline and "capa-src" in labs:
            n = sizes[0]
            rows.append(run_playbook(f"baseline-{n}", BASELINE_PLAYBOOK, learners[:n], {}, ctx))
            rows[-1]["checks_graded"] = n * BASELINE_CHECKS
            print(f"  baseline N={n}: {rows[-1]['wall']:.1f} s (rc {rows[-1]['rc']}, load {loadavg()})", flush=True)
        if args.faults:
            hosts = learners[:sizes[0]] + list(FAULT_HOSTS)
            rows.append(grade("faults", hosts, ctx, spec=FAULT_HOSTS, extra=["-e", "grade_allow_host_errors=true"]))
        print_table(rows, labs, checks)
        result = {"rows": rows, "labs": labs, "checks_per_host": checks, "load": loadavg()}
        result["projection"] = projection(rows, alone, forks, os.cpu_count(), labs)
        base = next((r for r in rows if r["name"].startswith("baseline")), None)
        if base:
            ours = next(r for r in rows if r["name"] == f"grade-{base['n']}")
            result["baseline"] = baseline_ratio(ours, base)
        if args.faults:
            result["faults"] = check_faults(rows[-1])
        if args.json:
            Path(args.json).write_text(json.dumps(result, default=str, indent=1))
        print(f"\nload average at the end: {loadavg()}")
    finally:
        stack.close()
        if args.keep:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def floor_rows(n, hosts, ctx, warm):
    """Ansible's floor for these hosts: one ping task each, cold, and warm when asked."""
    rows = [run_playbook(f"floor-{n}", FLOOR_PLAYBOOK, hosts, {}, ctx, masters="leave" if warm else None)]
    if warm:
        cold = rows[0]
        try:
            rows.append(run_playbook(f"floor-warm-{n}", FLOOR_PLAYBOOK, hosts, {}, ctx, network=cold["network"],
                                     masters=cold["masters"]))
        finally:
            cold["network"].close()
            stop_masters(cold["masters"])
    for row in rows:
        print(f"  {row['name']}: {row['wall']:.1f} s (rc {row['rc']}, load {row['load']})", flush=True)
    return rows


def warm_ssh_args(config):
    """ansible.cfg's ssh_args with masters that outlive a cold run of the whole class on this
    machine (the modules of 1,000 hosts share its cores: many minutes), so that the warm re-run
    finds every host's master up, as a re-grade within ControlPersist does on real VMs."""
    ssh_args = config.get("ssh_connection", "ssh_args", fallback="")
    return {"ANSIBLE_SSH_ARGS": re.sub(r"ControlPersist=\S+", f"ControlPersist={WARM_PERSIST}", ssh_args)}


def stop_masters(pids_file):
    """Stop the ssh masters a cold run left for its warm re-run, by pid (the bench's own)."""
    if not pids_file.exists():
        return
    for pid in json.loads(pids_file.read_text()):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/comm").read_text().strip() == "ssh":
                os.kill(int(pid), signal.SIGTERM)


def count_checks(row):
    """Checks graded per graded host in this run (from the run's grades.json)."""
    counts = host_records(row)["counts"]
    return counts["total"] / max(1, counts["hosts_graded"])


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
