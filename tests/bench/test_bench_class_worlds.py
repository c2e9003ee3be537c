"""The bench's class is a class of learners the grader can grade (issue 23): every host of
scripts/bench-class's plan, with the tools the bench's inventory gives the VMs (helm and
kustomize from LAB_TOOLS_BIN), passes the health gate and no check of it is an ERROR, so the bench
measures grading, not the reporting of broken VMs or missing tools; a run that has one stops the
bench; and per-check figures count the checks that were graded."""

from __future__ import annotations

import math

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC, grade_host

from benchmarks import bench_class


def test_every_host_of_the_bench_class_is_gradable(fake_api, tmp_path):
    worlds = bench_class.learner_worlds()
    vm = bench_class.inventory([], {}, list(worlds), tmp_path, tmp_path, {}, None, bench_class.tools_bin())["learners"]["vars"]
    # host i takes world i of each lab's list: every combination occurs within lcm(lengths) hosts
    plan = bench_class.host_plan(math.lcm(*map(len, worlds.values())), worlds, tmp_path)
    not_gradable = {}
    for host, world in plan:
        root = fake_api.world(str(world), host)
        params = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}
        params.update(labs=list(worlds), kubeconfig=str(root / "kubeconfig"), k3s_kubeconfig=str(root / "kubeconfig"),
                      bare_root=str(root / "srv" / "bare"), workspace_root=str(root / "root"), settle_timeout=0,
                      probe_replay=str(root / "probes.json") if (root / "probes.json").exists() else None,
                      helm_binary=vm["lab_helm_binary"], kustomize_binary=vm["lab_kustomize_binary"])
        result = grade_host(params)
        errors = [c["check"] for lab in result["labs"].values() for s in lab["steps"] for c in s["checks"]
                  if c["status"] == "ERROR"]
        if result["state"] != "graded" or errors:
            not_gradable[f"{host} {world.name}"] = (result["error"] or {}).get("message") or errors
    assert not_gradable == {}


def test_a_run_with_a_check_or_a_host_in_error_stops_the_bench():
    """The fault hosts (`spec`) are in ERROR on purpose; any other host or check is a broken bench."""
    grades = {"hosts": [{"host": "learner001", "state": "graded"}, {"host": "vm-blackhole", "state": "error",
                                                                    "error": {"message": "timed out"}}],
              "records": [{"host": "learner001", "check": "capa-src.4.renders", "status": "PASS", "message_key": "ok"},
                          {"host": "vm-blackhole", "check": "x", "status": "ERROR", "message_key": "unreachable"}]}
    assert bench_class.unexpected_errors(grades, {"vm-blackhole": "blackhole"}) == []
    grades["records"] += [{"host": "learner001", "check": f"capa-src.{n}.renders", "status": "ERROR",
                           "message_key": "tool_unavailable"} for n in (4, 5)]
    grades["hosts"].append({"host": "learner002", "state": "error", "error": {"message": "api_server: unreachable"}})
    assert bench_class.unexpected_errors(grades, {"vm-blackhole": "blackhole"}) == [
        "learner002: api_server: unreachable", "2 checks ERROR tool_unavailable (capa-src.4.renders, ...)"]


def test_the_vms_get_helm_and_kustomize_or_the_bench_does_not_start(monkeypatch, tmp_path):
    for tool in bench_class.TOOLS:
        (tmp_path / tool).write_text("#!/bin/sh\n")
        (tmp_path / tool).chmod(0o755)
    monkeypatch.setenv("LAB_TOOLS_BIN", str(tmp_path))
    vm = bench_class.inventory(["learner001"], {"learner001": 1}, ["capa-src"], tmp_path, tmp_path,
                               {"learner001": {"api_server": "http://127.0.0.1:1/h/w"}}, None, bench_class.tools_bin())
    assert (vm["learners"]["vars"]["lab_helm_binary"], vm["learners"]["vars"]["lab_kustomize_binary"]) == (
        str(tmp_path / "helm"), str(tmp_path / "kustomize"))
    (tmp_path / "kustomize").unlink()
    with pytest.raises(SystemExit, match="has no executable kustomize"):
        bench_class.tools_bin()


def test_per_check_figures_divide_by_the_checks_graded():
    """A run with an ERROR host: its checks are not in grades.json's total, nor in the divisor."""
    ours = {"n": 10, "wall": 10.0, "controller_cpu": 5.0, "module_cpu": 20.0, "checks_graded": 900}
    base = {"n": 10, "wall": 100.0, "controller_cpu": 50.0, "module_cpu": 50.0, "checks_graded": 10 * 16}
    ratio = bench_class.baseline_ratio(ours, base)
    assert ratio["wall"] == (100.0 / 160, 10.0 / 900)


def test_the_class_takes_its_labs_from_the_registry(monkeypatch):
    """A lab joins the bench's class when it is registered (labs.LABS), not when a package or a
    worlds folder exists: an unregistered lab would be refused by the settings check."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import labs

    assert list(bench_class.learner_worlds()) == [lab_id for lab_id in labs.LABS
                                                   if (bench_class.WORLDS / lab_id).is_dir()]
    monkeypatch.setattr(labs, "LABS", {"cgoa-ci": labs.LABS["cgoa-ci"], "not-a-lab-with-worlds": None})
    assert list(bench_class.learner_worlds()) == ["cgoa-ci"]


def test_hosts_of_one_world_share_one_materialised_folder(tmp_path):
    worlds = {lab: paths[:2] for lab, paths in bench_class.learner_worlds().items()}
    (tmp_path / "worlds").mkdir()
    (tmp_path / "class").mkdir()
    plan = bench_class.host_plan(5, worlds, tmp_path / "worlds")
    summaries, folders = bench_class.materialize_hosts(plan, tmp_path / "class", "http://127.0.0.1:9")
    assert sorted(set(folders.values())) == ["world-1", "world-2"]
    assert [folders[host] for host, _ in plan] == ["world-1", "world-2", "world-1", "world-2", "world-1"]
    for host, folder in folders.items():
        assert (tmp_path / "class" / host / "kubeconfig").read_text() == (tmp_path / "class" / folder / "kubeconfig").read_text()
        assert summaries[host]["api_server"].endswith(f"/h/{folder}")
