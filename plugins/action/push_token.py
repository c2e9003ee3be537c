"""The push_token task in the controller's process: the class's token digests and certificate are
the controller's files (plugins/plugin_utils/grade_push.py keeps their layout), and a new token
leaves this process only as this task's result, marked no_log, for the task that writes it to the
VM."""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.push import TOKEN_OPTIONS
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.grade_push import (
    PROJECT_DIR,
    TOKENS_FILE,
    SettingsRefused,
    collector_certificate,
    collector_dir,
    record_token,
)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, params = self.validate_argument_spec(argument_spec=TOKEN_OPTIONS)
        output_dir = params["report_dir"] or str(PROJECT_DIR / "reports")  # grade-push's default
        try:
            certificate = collector_certificate(params["collector_url"], output_dir)
            issued, token = record_token(output_dir, task_vars["inventory_hostname"], params["current_digest"],
                                         dry_run=self._task.check_mode)
        except (SettingsRefused, OSError) as exc:
            result.update(failed=True, changed=False, msg=str(exc))
            return result
        result.update(changed=issued, token=token, certificate=certificate,
                      tokens_file=str(collector_dir(output_dir) / TOKENS_FILE))
        if token is not None:
            # no callback shows it (-v, a failure further on, the task's own no_log forgotten);
            # `register` still hands it to the next task
            result["_ansible_no_log"] = True
        return result
