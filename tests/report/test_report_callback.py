"""The grade_matrix callback, called with fake task results."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import load_plugin

MATRIX = "host       capa-src  score\nlearner01  ✓✗⋯       1/3\nreport: /r/index.html"


grade_matrix = load_plugin("plugins/callback/grade_matrix.py", "grade_matrix_under_test")


class FakeTask:
    def __init__(self, action, resolved_action=None):
        self.action = action
        self.resolved_action = resolved_action


class NewResult:
    """ansible-core >= 2.19: CallbackTaskResult with .task and .result."""

    def __init__(self, action, result, resolved_action=None):
        self.task = FakeTask(action, resolved_action)
        self.result = result


class OldResult:
    """ansible-core < 2.19: TaskResult with ._task and ._result."""

    def __init__(self, action, result):
        self._task = FakeTask(action)
        self._result = result


class FakeDisplay:
    def __init__(self):
        self.lines = []

    def display(self, msg, *args, **kwargs):
        self.lines.append(msg)


@pytest.fixture
def callback(monkeypatch):
    plugin = grade_matrix.CallbackModule()
    plugin._display = FakeDisplay()
    monkeypatch.setattr(plugin, "get_option", lambda name: False)  # print exactly as returned
    return plugin


@pytest.mark.parametrize("result", [
    NewResult("grade_report", {"matrix": MATRIX, "changed": True}),
    NewResult("grade_report", {"matrix": MATRIX}, resolved_action="ansible.legacy.grade_report"),
    NewResult("labs.grader.grade_report", {"matrix": MATRIX}),
    OldResult("grade_report", {"matrix": MATRIX}),
    NewResult("grade_report", {"results": [{"matrix": MATRIX}, {"skipped": True}]}),
])
def test_prints_the_matrix_raw(callback, result):
    callback.v2_runner_on_ok(result)
    assert callback._display.lines == ["\n" + MATRIX]


@pytest.mark.parametrize("result", [
    NewResult("ansible.builtin.debug", {"msg": "hi", "matrix": "not ours"}),
    NewResult("capa_src", {"steps": []}),
    NewResult("grade_report", {"changed": False}),
    NewResult("grade_report", {"matrix": 42}),
    NewResult("grade_report", None),
    NewResult(None, {"matrix": MATRIX}),
    object(),
    None,
])
def test_ignores_everything_else_without_crashing(callback, result):
    callback.v2_runner_on_ok(result)
    assert callback._display.lines == []


def test_colorize_only_touches_row_symbols(monkeypatch):
    monkeypatch.setattr(grade_matrix, "stringc", lambda text, color: f"<{color}>{text}</>")
    colored = grade_matrix.colorize_matrix(MATRIX + "\nlegend: ✓ pass")
    assert colored.split("\n") == [
        "host       capa-src  score",
        "learner01  <green>✓</><red>✗</><yellow>⋯</>       1/3",
        "report: /r/index.html",
        "legend: ✓ pass",
    ]


def test_colorize_option_is_used(monkeypatch):
    plugin = grade_matrix.CallbackModule()
    plugin._display = FakeDisplay()
    monkeypatch.setattr(plugin, "get_option", lambda name: True)
    monkeypatch.setattr(grade_matrix, "stringc", lambda text, color: f"<{color}>{text}</>")
    plugin.v2_runner_on_ok(NewResult("grade_report", {"matrix": MATRIX}))
    assert "<green>✓</>" in plugin._display.lines[0]


def test_documentation_and_class_attributes():
    doc = yaml.safe_load(grade_matrix.DOCUMENTATION)
    assert doc["name"] == "grade_matrix" and doc["type"] == "aggregate"
    cls = grade_matrix.CallbackModule
    assert (cls.CALLBACK_NAME, cls.CALLBACK_TYPE, cls.CALLBACK_NEEDS_ENABLED) == ("grade_matrix", "aggregate", True)


def test_symbols_and_colours_come_from_the_one_vocabulary():
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import vocabulary
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import matrix, page_data
    assert matrix.SYMBOLS is vocabulary.SYMBOLS and page_data.SEVERITY is vocabulary.SEVERITY
    assert grade_matrix.vocabulary.SYMBOLS == vocabulary.SYMBOLS
    assert grade_matrix.COLORS == {"\u2713": "green", "\u2717": "red", "\u22ef": "yellow", "!": "magenta"}
    assert list(vocabulary.SEVERITY) == ["ERROR", "FAIL", "PENDING", "PASS"]  # worst first
    assert vocabulary.worst(["PASS", "PENDING", "FAIL"]) == "FAIL" and vocabulary.worst([]) == "PASS"


def failed(exit_code=None):
    result = NewResult("ansible.builtin.fail", {"failed": True})
    result.task.vars = {} if exit_code is None else {"grade_exit_code": exit_code}
    return result


def test_the_first_failed_task_that_declares_an_exit_code_ends_the_run_with_it():
    """Ansible says 2 for any failed task: settings refused, hosts in error and strict failures
    were one exit code (issue 19)."""
    plugin = grade_matrix.CallbackModule()
    plugin.v2_runner_on_failed(failed(), ignore_errors=False)  # a task without a code: Ansible's own
    plugin.v2_runner_on_failed(failed(5), ignore_errors=True)  # an ignored failure is no outcome
    plugin.v2_runner_on_failed(failed(2))
    plugin.v2_runner_on_failed(failed(3))
    with pytest.raises(SystemExit) as exc:
        plugin.v2_playbook_on_stats(None)
    assert exc.value.code == 2


def test_without_a_declared_outcome_the_exit_code_stays_ansibles():
    plugin = grade_matrix.CallbackModule()
    plugin.v2_runner_on_failed(failed())
    plugin.v2_runner_on_failed(failed(True))  # a boolean is not an exit code
    assert plugin.v2_playbook_on_stats(None) is None
