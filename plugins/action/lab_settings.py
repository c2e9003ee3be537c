"""The lab_settings task in the controller's process: the run's hosts and each host's settings are
read from the inventory in Python, each host's variables once, instead of templating every
host's variables into the task's arguments (169 s at N = 1,000, docs/performance.md)."""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import (
    argument_spec,
    settings_problems,
)
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.grading_run import class_settings, run_hosts


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, params = self.validate_argument_spec(argument_spec=argument_spec())
        if params["hosts"] is None:  # grade.yml: the run's hosts and their settings from the inventory
            hosts = run_hosts(params["group"], params["limit"], self._loader, task_vars)
            params.update(class_settings(task_vars["hostvars"], hosts))
        problems = settings_problems(params["hosts"], params["report_lang"], params["group"], params["sites"],
                                     params["run"], params["addresses"])
        if problems:
            result.update(failed=True, msg="Grading settings: " + " | ".join(problems))
        result.update(changed=False, problems=problems)
        return result
