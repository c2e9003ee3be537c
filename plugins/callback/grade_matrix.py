"""Print the class matrix returned by the grade_report module, and end a grading run with the
exit code of its outcome."""

from __future__ import annotations

DOCUMENTATION = r"""
name: grade_matrix
type: aggregate
short_description: Print the class matrix of the grade_report task
description:
  - When a task whose action is C(grade_report) finishes OK, print the C(matrix) string of its
    result as plain text (not JSON-escaped), so the instructor sees the class matrix at the end
    of a grading run, next to the path of the HTML report.
  - Every other task is ignored. The callback never raises into the run.
  - Control characters, bidi overrides and other invisible characters in the matrix (other than
    newlines and tabs) are printed as visible escapes such as C(\x1b) or C(\u202e), so no
    escape sequence from a learner's text reaches the terminal.
  - Symbols are coloured (PASS green, FAIL red, PENDING yellow, ERROR magenta) when Ansible
    writes in colour; set O(colorize=false) to print the matrix as returned, without colours.
  - A task that fails (not ignored) with a task variable C(grade_exit_code) (an integer) makes the
    run end with that exit code after the recap; the first such failure decides. C(grade.yml)
    sets 5 on the settings check, 2 on hosts that could not be graded, 3 on strict mode's learner
    failures (README.md, "Exit codes"). Ansible itself can only say 2 for every failed task.
    Callbacks enabled after this one do not receive the recap of a run it ends.
requirements:
  - enable in configuration (C(callbacks_enabled = gitops_lab.grader.grade_matrix) in ansible.cfg)
options:
  colorize:
    description: Colour the status symbols when Ansible's output is in colour.
    type: bool
    default: true
    env:
      - name: GRADE_MATRIX_COLORIZE
    ini:
      - section: grade_matrix
        key: colorize
"""

import sys  # noqa: E402

from ansible.plugins.callback import CallbackBase  # noqa: E402 (after DOCUMENTATION, as Ansible does)
from ansible.utils.color import stringc  # noqa: E402
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import vocabulary  # noqa: E402
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.printable import printable  # noqa: E402

ACTION = "grade_report"
# The task variable by which a playbook says which exit code its failure means (grade.yml).
EXIT_CODE_VARIABLE = "grade_exit_code"
# symbol -> colour; the ASCII symbols of grade_report's `ascii` option are left uncoloured
COLORS = {vocabulary.SYMBOLS[status]: color for status, color in vocabulary.COLORS.items()}


def task_action(result):
    """The short action name of a callback result ('grade_report' for ansible.legacy.grade_report)."""
    task = getattr(result, "task", None)
    if task is None:
        task = getattr(result, "_task", None)
    for attr in ("resolved_action", "action"):
        name = getattr(task, attr, None)
        if isinstance(name, str) and name.rsplit(".", 1)[-1] == ACTION:
            return ACTION
    name = getattr(task, "action", None)
    return name.rsplit(".", 1)[-1] if isinstance(name, str) else None


def declared_exit_code(result):
    """The grade_exit_code task variable of a callback result's task, or None."""
    task = getattr(result, "task", None)
    if task is None:
        task = getattr(result, "_task", None)
    code = (getattr(task, "vars", None) or {}).get(EXIT_CODE_VARIABLE)
    return int(code) if isinstance(code, int) and not isinstance(code, bool) else None


def result_dict(result):
    """The module's result: `result.result` on ansible-core >= 2.19, `result._result` before."""
    data = getattr(result, "result", None)
    if data is None:
        data = getattr(result, "_result", None)
    return data if hasattr(data, "get") else {}


def matrices(data):
    """The matrix strings in a result (one, or one per item of a looped task)."""
    matrix = data.get("matrix")
    if isinstance(matrix, str) and matrix:
        return [matrix]
    out = []
    items = data.get("results")
    if isinstance(items, list):
        for item in items:
            if hasattr(item, "get") and isinstance(item.get("matrix"), str) and item.get("matrix"):
                out.append(item["matrix"])
    return out


def colorize_matrix(matrix):
    lines = []
    for line in matrix.split("\n"):
        # only the cells of host rows carry symbols worth colouring; text lines are left alone
        if line.startswith(("legend:", "report:", "hosts:", "  ", "partial run:", "since ")):
            lines.append(line)
            continue
        lines.append("".join(stringc(ch, COLORS[ch]) if ch in COLORS else ch for ch in line))
    return "\n".join(lines)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "grade_matrix"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._exit_code = None  # the outcome's exit code, once a task that declares one failed

    def _colorize_enabled(self):
        try:
            return bool(self.get_option("colorize"))
        except Exception:  # options not loaded (e.g. constructed by hand)  # noqa: BLE001
            return False

    def v2_runner_on_ok(self, result, **kwargs):
        try:
            if task_action(result) != ACTION:
                return
            found = matrices(result_dict(result))
        except Exception:  # never break a grading run over a report line  # noqa: BLE001
            return
        for matrix in found:
            # the matrix is built of printable text; this holds whatever module produced the result
            # (an escape sequence in it would reach the instructor's terminal)
            matrix = printable(matrix)
            text = colorize_matrix(matrix) if self._colorize_enabled() else matrix
            self._display.display("\n" + text)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        if ignore_errors or self._exit_code is not None:
            return
        try:
            self._exit_code = declared_exit_code(result)
        except Exception:  # never break a grading run over its exit code  # noqa: BLE001
            return

    def v2_playbook_on_stats(self, stats):
        # The recap is printed (the stdout callback comes first); SystemExit is not an Exception,
        # so it passes Ansible's callback guard and the executor's cleanup to leave with the code.
        if self._exit_code is not None:
            sys.exit(self._exit_code)
