"""Print the class matrix returned by the grade_report module."""

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

from ansible.plugins.callback import CallbackBase  # noqa: E402 (after DOCUMENTATION, as Ansible does)
from ansible.utils.color import stringc  # noqa: E402
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import vocabulary  # noqa: E402
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.printable import printable  # noqa: E402

ACTION = "grade_report"
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
