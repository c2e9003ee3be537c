"""Job slicing (AWX job_slice_count, or ansible-runner runs with -l): K runs, each grading every
K-th host as a partial run, merge into the class view that one run of the whole class shows
(docs/performance.md, "Past one controller")."""

from __future__ import annotations

import datetime
import json

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.run import argument_spec, class_report

from tests.conftest import load_plugin
from tests.report.report_sample import NOW, registry_result

grading_filter = load_plugin("plugins/filter/grading.py", "grading_filter_slices")

HOSTS = [f"learner{i:02d}" for i in range(1, 8)]
# what each host's grading shows: a status per check, or an unreachable VM
OUTCOMES = {"learner03": {LABS["capa-src"].checks[1].id: "FAIL"}, "learner05": "unreachable",
            "learner06": {LABS["cgoa-ci"].checks[0].id: "PENDING"}}
# What slicing may change: the time-stamps of the run that graded a host, and each host's change
# since the run before, which for a slice is the slice before it (docs/performance.md says so).
WHEN = {"graded_at", "generated_at", "report", "first_passed", "change"}


def registered(host):
    outcome = OUTCOMES.get(host, {})
    if outcome == "unreachable":
        return {"unreachable": True, "msg": "ssh: connect to host port 22: Connection refused"}
    labs = {lab_id: registry_result(LABS[lab_id], "en", outcome) for lab_id in ("capa-src", "cgoa-ci")}
    return json.loads(json.dumps({"changed": False, "state": "graded", "error": None,
                                  "labs_json": json.dumps(labs)}))


def grade(hosts, output_dir, now):
    """One grade.yml run of `hosts` (the whole class or one slice), as its report task runs."""
    params = {name: spec.get("default") for name, spec in argument_spec().items()}
    hostvars = {host: {"grade_result": registered(host)} for host in hosts}
    params.update(records=grading_filter.grade_records(hostvars, hosts), hosts=hosts, class_hosts=HOSTS,
                  enrolled={host: ["capa-src", "cgoa-ci"] for host in HOSTS}, output_dir=str(output_dir))
    result, warnings = class_report(params, check_mode=False, now=now)
    assert warnings == []
    return result


def class_view(output_dir):
    """latest/grades.json without the time-stamps of the runs, and without the run's own block."""
    grades = json.loads((output_dir / "latest" / "grades.json").read_text(encoding="utf-8"))

    def timeless(value):
        if isinstance(value, dict):
            return {k: timeless(v) for k, v in value.items() if k not in WHEN}
        if isinstance(value, list):
            return [timeless(v) for v in value]
        return value
    return {key: timeless(value) for key, value in grades.items() if key not in ("run", "history", *WHEN)}


@pytest.mark.parametrize("slices", [2, 3])
def test_sliced_runs_merge_into_the_view_of_one_run(tmp_path, slices):
    whole = grade(HOSTS, tmp_path / "whole", NOW)
    assert whole["scope"] == "class"
    for k in range(slices):  # AWX gives slice k every host whose index is k modulo the count
        part = grade(HOSTS[k::slices], tmp_path / "sliced", NOW + datetime.timedelta(seconds=k + 1))
        assert part["scope"] == "partial"
    assert class_view(tmp_path / "sliced") == class_view(tmp_path / "whole")
    assert part["counts"]["hosts"] == len(HOSTS) and part["counts"]["hosts_in_error"] == 1
