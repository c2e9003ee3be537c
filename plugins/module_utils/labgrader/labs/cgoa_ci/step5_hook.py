"""cgoa-ci step 5: the pre-receive gate, judged from the pushes of probe_cases.py through the
learner's hook in the sandbox."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import blocked
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import ProbeRun
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.scripts import script_verdict
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.step4_gate import probe_check
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import passed


@lab.check(5, "hook-file", hint="ci_hook")
def hook_file(state):
    return script_verdict(state, "hooks/pre-receive", "ci_hook") or passed(
        "script_ok", path=state.files["hooks/pre-receive"].path)


def validate_accepts_typo(state):
    """'blocked by step 4' when validate.sh itself lets replica: through (then a gate built on
    it cannot refuse it), else None."""
    if "error" in state.probes:
        return None  # the hook's own check is the grader's ERROR
    runs = state.probes["validate"]
    if "not_run" in runs or ProbeRun.from_dict(runs["unknown-field"]).returncode == 0:
        return blocked(4, "validate_accepts_typo")
    return None


def validate_blocks(state):
    """'blocked by step 4' when validate.sh itself refuses a valid Deployment (then no gate can
    accept one), else None."""
    if "error" in state.probes:
        return None
    runs = state.probes["validate"]
    if "not_run" in runs or not ProbeRun.from_dict(runs["valid"]).succeeded:
        return blocked(4, "validate_refuses_valid")
    return None


# the pre-receive hook on the pushes of probe_cases.py: (check name, push, should it be accepted,
# what it checks, the earlier step that decides it)
HOOK_CHECKS = (
    ("hook-rejects-typo-on-main", "typo-main", False, "phrase_probe_typo_main", validate_accepts_typo),
    ("hook-accepts-valid-main", "valid-main", True, "phrase_probe_valid_main", validate_blocks),
    ("hook-rejects-delete-main", "delete-main", False, "phrase_probe_delete_main", None),
    ("hook-accepts-other-branch", "typo-branch", True, "phrase_probe_other_branch", None),
)
for _name, _case, _succeeds, _what, _blocked_by in HOOK_CHECKS:
    lab.check(5, _name, hint="ci_hook")(probe_check("hook", _case, _succeeds, _what, _blocked_by))
