"""The grade_report task in the controller's process: the class report is built where the
results already are, instead of templating every host's result into a module's arguments,
sending them through JSON to a new Python process and parsing them again (docs/performance.md)."""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible_collections.gitops_lab.grader.plugins.filter.grading import grade_records
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.run import (
    ONE_ENROLMENT,
    ONE_SOURCE,
    ReportFailed,
    argument_spec,
    class_report,
)
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.grading_run import (
    RUN_DEFAULTS,
    class_records,
    run_hosts,
    run_outcome,
    run_settings,
)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, params = self.validate_argument_spec(argument_spec=argument_spec(),
                                                mutually_exclusive=ONE_SOURCE + ONE_ENROLMENT,
                                                required_one_of=ONE_SOURCE + ONE_ENROLMENT,
                                                required_by={"group": "registered"})
        if params["group"] is not None:
            # grade.yml: the run's hosts, the class and each host's result and enrolled labs from the
            # inventory, each host's variables once (Jinja's select('in') was N^2, docs/performance.md).
            params["hosts"] = run_hosts(params["group"], params["limit"], self._loader, task_vars)
            params["class_hosts"] = run_hosts(params["group"], None, self._loader, task_vars)
            params["records"], params["enrolled"] = class_records(task_vars["hostvars"], params["hosts"],
                                                                  params["registered"])
        elif params["registered"]:
            # Each graded host's registered lab_grade result, read here (hostvars), not passed in.
            params["records"] = grade_records(task_vars["hostvars"], params["hosts"], params["registered"])
        try:
            report, warnings = class_report(params, self._task.check_mode)
        except ReportFailed as failure:
            result.update(failure.result, failed=True, msg=str(failure))
            if failure.exception:
                result["exception"] = failure.exception
            return result
        result.update(report)
        if params["group"] is not None:
            # The run's last word, as grade-push says it (grade.yml's outcome tasks show it).
            run = run_settings(task_vars["hostvars"][params["hosts"][0]]) if params["hosts"] else RUN_DEFAULTS
            where = report["index_html"] if report["written"] else "(check mode: no report written)"
            result["outcome"] = run_outcome(report, len(params["hosts"]), where, run)
        for warning in warnings:
            self._display.warning(warning)
        return result
