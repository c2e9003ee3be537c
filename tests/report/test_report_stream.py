"""The class report built host by host (report/build.py ClassReport: the push collector renders a
host's part of every format as it accepts its push, and assembles them after the last one) is,
byte for byte, the report built from every record at once (build_report: the pull path's
grade_report), for a class of the fixture worlds' real results: every file, the terminal matrix
and the task's summaries, with a previous run (changes, first passes, last grades kept) and a
partial run (hosts carried over). And the documents the assembly joins from parts are the ones
serialised whole (json.dumps, ElementTree, csv), as the report wrote them before it had parts."""

from __future__ import annotations

import csv
import datetime
import io
import json
import math
import random
import re
import xml.etree.ElementTree as ET

import pytest
from ansible_collections.gitops_lab.grader.plugins.filter.grading import grade_record
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import push
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.document import Document, as_text
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.files import write_report
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.grades_csv import csv_lines
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.page_data import script_json
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import read_previous
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.normalize import normalize_records
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC, grade_host
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import Collector, issue_tokens, token_digest
from report_sample import NOW

from benchmarks import bench_class

LATER = NOW + datetime.timedelta(minutes=7)
HOSTS = [f"learner{i}" for i in range(1, 10)]  # learner10 sorts after learner9: rows are the natural order
LANGS = ["en", "ja", "ko"]
HEALTH_ERROR = {"state": "error", "error": {"kind": "health", "message": "api_server: unreachable"}, "labs": {}}
NEVER_PUSHES = "learner7"
SUMMARIES = ("generated_at", "counts", "hosts_in_error", "host_errors", "learner_failures", "failing_learners",
             "changes", "run")


@pytest.fixture(scope="module")
def world_results(fake_api, tmp_path_factory):
    """lab_grade results of six of the bench class's world combinations (every registered lab),
    combination k graded in LANGS[k % 3] (a result's titles are its learner's language's)."""
    worlds = bench_class.learner_worlds()
    plan = bench_class.host_plan(min(6, math.lcm(*map(len, worlds.values()))), worlds, tmp_path_factory.mktemp("w"))
    results = []
    for k, (host, world) in enumerate(plan):
        root = fake_api.world(str(world), f"stream-{host}")
        params = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}
        params.update(labs=list(worlds), kubeconfig=str(root / "kubeconfig"), k3s_kubeconfig=str(root / "kubeconfig"),
                      bare_root=str(root / "srv" / "bare"), workspace_root=str(root / "root"), settle_timeout=0,
                      probe_replay=str(root / "probes.json") if (root / "probes.json").exists() else None,
                      helm_binary=repo_server.HELM_BINARY, kustomize_binary=repo_server.KUSTOMIZE_BINARY,
                      lang=LANGS[k % 3])
        results.append(grade_host(params))
    return list(worlds), results


def class_results(labs, results, shift):
    """{host: its lab_grade result} of the class, in its language (`shift` turns the worlds, so a
    later run has progress and losses); learner5 is unhealthy, learner3 sends a lab it is not
    enrolled in."""
    out = {host: results[(i + 3 * shift) % len(results)] for i, host in enumerate(HOSTS)}
    out["learner5"] = HEALTH_ERROR
    out["learner3"] = {**out["learner3"], "labs": {**out["learner3"]["labs"], "capa-x": out["learner3"]["labs"][labs[0]]}}
    return out


def settings(labs):
    return {host: {"labs": labs, "lang": LANGS[i % 3]} for i, host in enumerate(HOSTS)}


def all_at_once(labs, results, now, out, hosts=HOSTS):
    """The pull path: every host's record at once (a host without one is not in `results`)."""
    records = [grade_record(results[h], h, LANGS[HOSTS.index(h) % 3]) for h in hosts if h in results]
    previous, _ = read_previous(str(out))
    return build.build_report(records, hosts=hosts, now=now, report_dir=str(out / "run"), class_hosts=HOSTS,
                              previous=previous, enrolled=dict.fromkeys(hosts, labs))


def dumped_whole(report):
    """The documents whose parts are joined by the report's assembly, serialised whole as they
    were before it (json.dumps, ElementTree, the page's JSON, csv), from their own data."""
    contents = report["contents"]
    junit = ET.fromstring(contents["junit.xml"])
    ET.indent(junit)
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>', contents["index.html"], re.S)[1]
    return {
        "grades.json": json.dumps(report["grades"], ensure_ascii=False, indent=2) + "\n",
        "junit.xml": '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(junit, encoding="unicode") + "\n",
        "data": script_json(json.loads(data)),
        **{name: "\ufeff" + csv_lines(list(csv.reader(io.StringIO(contents[name][1:], newline="")))).decode("utf-8")
           for name in ("grades.csv", "checks.csv")},
    }, {"data": data, **contents}


def assert_same_report(streamed, whole):
    # The largest files stay chunks until they are written (report/document.py); build_report's are text.
    assert all(isinstance(streamed["contents"][name], Document) for name in ("grades.json", "junit.xml", "checks.csv"))
    streamed = {**streamed, "contents": {name: as_text(content) for name, content in streamed["contents"].items()}}
    expected, found = dumped_whole(streamed)
    for name, text in expected.items():
        assert found[name] == text, name
    assert list(streamed["contents"]) == list(whole["contents"])
    for name, text in whole["contents"].items():
        assert streamed["contents"][name] == text, name
    assert streamed["matrix"] == whole["matrix"]
    assert {key: streamed[key] for key in SUMMARIES} == {key: whole[key] for key in SUMMARIES}


@pytest.mark.parametrize("workers", [0, 2], ids=["in-process", "worker-processes"])
def test_pushes_rendered_as_they_arrive_make_the_report_of_every_record_at_once(world_results, tmp_path, monkeypatch,
                                                                                 workers):
    labs, results = world_results
    first = all_at_once(labs, class_results(labs, results, 0), NOW, tmp_path)
    write_report(str(tmp_path / "first"), first["contents"])  # and latest -> first
    now = class_results(labs, results, 1)
    now["learner6"] = HEALTH_ERROR  # graded before: keeps those grades
    previous, _ = read_previous(str(tmp_path))

    tokens = issue_tokens(HOSTS)
    collector = Collector(settings(labs), {h: token_digest(t) for h, t in tokens.items()}, "run-1", now=LATER,
                          previous=previous, report_dir=str(tmp_path / "run"), workers=workers)
    pushes = [(h, now[h]) for h in HOSTS if h != NEVER_PUSHES] + [("learner2", results[4])]  # learner2 pushes twice:
    random.Random(23).shuffle(pushes)
    pushes.append(("learner2", now["learner2"]))  # its last result counts
    try:
        for host, result in pushes:
            assert collector.accept(host, f"Bearer {tokens[host]}", push.envelope(host, "run-1", result))[0] in (202, 422)
    finally:
        collector.shutdown()
    rendered = []
    monkeypatch.setattr(build, "render_parts", lambda host, ctx, render=build.render_parts: (
        rendered.append(host["host"]), render(host, ctx))[1])
    streamed = collector.finish()

    assert rendered == [NEVER_PUSHES]  # every pushed host's parts were rendered for the finished class
    whole = all_at_once(labs, {h: r for h, r in now.items() if h != NEVER_PUSHES}, LATER, tmp_path)
    assert_same_report(streamed, whole)
    assert [a["host"] for a in streamed["run"]["failed_attempts"]] == ["learner6", NEVER_PUSHES]
    assert streamed["changes"]["learner1"]["change"] != "new"
    assert streamed["host_errors"][0]["message"].startswith("result rejected: ")


def test_a_partial_run_host_by_host_is_the_partial_run_at_once(world_results, tmp_path):
    """Hosts carried over from the previous view, and parts rendered for columns and rows that the
    finished class does not have (no columns expected): rendered again when it is finished."""
    labs, results = world_results
    first = all_at_once(labs, class_results(labs, results, 2), NOW, tmp_path)
    write_report(str(tmp_path / "first"), first["contents"])  # and latest -> first
    graded = ["learner2", "learner4", "learner8"]
    now = class_results(labs, results, 3)
    previous, _ = read_previous(str(tmp_path))
    report = build.ClassReport(graded, now=LATER, report_dir=str(tmp_path / "run"), class_hosts=HOSTS,
                               previous=previous)
    for host in reversed(graded):
        lang = LANGS[HOSTS.index(host) % 3]
        report.add(build.shown(normalize_records([grade_record(now[host], host, lang)], [host],
                                                       {host: labs}))[0])
    streamed = report.finish()
    assert_same_report(streamed, all_at_once(labs, now, LATER, tmp_path, hosts=graded))
    assert streamed["run"]["scope"] == "partial" and len(streamed["run"]["carried"]) == len(HOSTS) - len(graded)

