"""cgoa-ci step 5: the pre-receive gate, judged from the pushes of probe_cases.py through the
learner's hook in the sandbox."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import blocked
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import ProbeRun
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.scripts import script_verdict
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import HOOK
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.step4_gate import probe_verdict
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import PASS, passed


@lab.check(5, "hook-file", hint="ci_hook")
def hook_file(state):
    return script_verdict(state, "hooks/pre-receive", "ci_hook") or passed(
        "script_ok", path=state.files["hooks/pre-receive"].path
    )


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


# The pre-receive hook on the pushes of probe_cases.hook_cases: (check name, should the pushes be
# accepted, what the check asks, {push: what that push asks}, the earlier step that decides it).
# A check of several pushes fails with the first push that ends otherwise. docs/probes-cgoa-ci.md
# ("pre-receive") lists the wrong hooks each push catches.
HOOK_CHECKS = (
    (
        "hook-rejects-typo-on-main",
        False,
        "phrase_probe_typo_main",
        {"typo-main": "phrase_probe_typo_main"},
        validate_accepts_typo,
    ),
    ("hook-accepts-valid-main", True, "phrase_probe_valid_main", {"valid-main": "phrase_probe_valid_main"}, validate_blocks),
    ("hook-rejects-delete-main", False, "phrase_probe_delete_main", {"delete-main": "phrase_probe_delete_main"}, None),
    ("hook-accepts-other-branch", True, "phrase_probe_other_branch", {"typo-branch": "phrase_probe_other_branch"}, None),
    ("hook-accepts-branch-deletion", True, "phrase_probe_delete_branch", {"delete-branch": "phrase_probe_delete_branch"}, None),
    (
        "hook-accepts-main-lookalikes",
        True,
        "phrase_probe_main_lookalikes",
        {"typo-main-lookalikes": "phrase_probe_main_lookalikes"},
        None,
    ),
    (
        "hook-rejects-typo-in-any-manifest",
        False,
        "phrase_probe_typo_any_manifest",
        {"typo-main-yml": "phrase_probe_typo_yml", "typo-main-json": "phrase_probe_typo_json"},
        validate_accepts_typo,
    ),
    (
        "hook-reads-every-ref",
        False,
        "phrase_probe_every_ref",
        {"typo-main-second": "phrase_probe_typo_main_second", "typo-main-first": "phrase_probe_typo_main_first"},
        validate_accepts_typo,
    ),
)


def push_check(should_succeed, what_key, pushes, blocked_by):
    """A check of the hook's runs on `pushes`: each must be accepted (or rejected)."""

    def check(state):
        blocker = blocked_by(state) if blocked_by else None
        for case, case_what in pushes.items():
            verdict = probe_verdict(state, "hook", case, should_succeed, case_what, HOOK, blocked_by=blocker)
            if verdict.status != PASS:
                return verdict
        return probe_verdict(state, "hook", next(iter(pushes)), should_succeed, what_key, HOOK)

    return check


for _name, _succeeds, _what, _pushes, _blocked_by in HOOK_CHECKS:
    lab.check(5, _name, hint="ci_hook")(push_check(_succeeds, _what, _pushes, _blocked_by))
