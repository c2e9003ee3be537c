"""cgoa-ci step 4: validate.sh rejects what the API server rejects (judged from the probes' runs)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import ProbeRun
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import OutOfTime
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probe_cases import (
    BOGUS_KUBECONFIG,
    MIXED_CASES,
    PROBE_OBJECTS,
    VALID_IN_WORKSPACE,
    VALID_WITH_KUBECONFIG_ENV,
    VALIDATE_CWD,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.scripts import script_verdict
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import DRYRUN_NS, HOOK
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import errored, failed, passed


@lab.check(4, "validate-script", hint="ci_validate")
def validate_script(state):
    return script_verdict(state, "validate.sh", "ci_validate") or passed(
        "script_ok", path=state.files["validate.sh"].path)


def probe_runs(state, probe, expected, script):
    """The runs of `probe`, or the check ends with the verdict that stands for every run of it:
    ERROR when the grader could not build a sandbox, FAIL when the learner's program was not run."""
    if "error" in state.probes:
        stop_if(errored("sandbox_unavailable", detail=state.probes["error"]))
    runs = state.probes[probe]
    if "not_run" in runs:
        reason = ({"reason_key": runs["not_run_key"], "file": runs["file"]} if "not_run_key" in runs
                  else {"reason": runs["not_run"]})
        stop_if(failed("probe_not_run", expected=expected, found=None, script=script, **reason))
    return runs


def probe_verdict(state, probe, case, should_succeed, what_key, script, blocked_by=None, **phrase_params):
    """The outcome of one probe run: a script that hangs or floods its output fails whatever it
    was asked, and so does one that could not start; a run the lab's probe time cut short is
    the grader's ERROR (OutOfTime). `what_key` names the phrase (in MESSAGES) saying what the
    run checks, filled from `phrase_params`. The expected value is the exit code (0, or "≠ 0":
    any other), which reads the same in every language; the phrase says it in words."""
    expected = 0 if should_succeed else "≠ 0"
    runs = probe_runs(state, probe, expected, script)
    run = ProbeRun.from_dict(runs[case])
    if run.out_of_time:
        raise OutOfTime("phrase_run_script", probes=True, script=script)
    if run.timed_out or run.truncated:
        return failed("probe_cut_short", expected=expected, found=None, script=script, what_key=what_key,
                      reason_key="phrase_timed_out" if run.timed_out else "phrase_flooded", **phrase_params)
    if run.returncode is None:
        return failed("probe_not_run", expected=expected, found=None, script=script, reason=run.output)
    params = {"script": script, "what_key": what_key, "returncode": run.returncode, **phrase_params,
              **({"output": run.output} if run.output else {"output_key": "phrase_no_output"})}
    if (run.returncode == 0) is should_succeed:
        return passed("probe_ok", expected=expected, found=run.returncode, **params)
    return blocked_by or failed("probe_wrong", expected=expected, found=run.returncode, **params)


VALIDATE = "validate.sh"


def probe_check(probe, case, should_succeed, what_key, blocked_by=None):
    """A check of one probe run: `case` of `probe` must succeed (or fail); `blocked_by(state)` names
    an earlier step that decides it, or None."""
    script = VALIDATE if probe == "validate" else HOOK

    def check(state):
        return probe_verdict(state, probe, case, should_succeed, what_key, script,
                             blocked_by=blocked_by(state) if blocked_by else None)
    return check


@lab.check(4, "validate-names-kubeconfig", hint="ci_validate")
def validate_names_kubeconfig(state):
    """validate.sh finds the CI kubeconfig by itself: it accepted the valid case run in /tmp with
    KUBECONFIG naming a kubeconfig without credentials and no ~/.kube (however the script names the file: an
    absolute path, one relative to its own directory). When it refused it, the diagnostic runs
    say whether KUBECONFIG at the CI kubeconfig, or the workspace as the working directory, is
    all it lacks."""
    valid = probe_verdict(state, "validate", "valid", True, "phrase_probe_own_kubeconfig", VALIDATE,
                          bogus=BOGUS_KUBECONFIG)
    if valid.key != "probe_wrong":
        return valid
    params = {"kubeconfig": f"{state.workspace}/ci-kubeconfig", "workspace": state.workspace,
              "bogus": BOGUS_KUBECONFIG, "cwd": VALIDATE_CWD, "returncode": valid.found}
    for case, key in ((VALID_WITH_KUBECONFIG_ENV, "validate_needs_kubeconfig_env"),
                      (VALID_IN_WORKSPACE, "validate_needs_workspace_cwd")):
        if case in state.probes["validate"] and probe_verdict(
                state, "validate", case, True, "phrase_probe_valid", VALIDATE).status == "PASS":
            return failed(key, expected=0, found=valid.found, **params)
    return valid


# validate.sh on the inputs of probe_cases.py: (check name, input, should it succeed, what it checks)
VALIDATE_CHECKS = (
    ("validate-server-dry-run", "server-only", False, "phrase_probe_server_only"),
    ("validate-accepts-valid", "valid", True, "phrase_probe_valid"),
    ("validate-rejects-string-replicas", "string-replicas", False, "phrase_probe_string_replicas"),
    ("validate-rejects-unknown-field", "unknown-field", False, "phrase_probe_unknown_field"),
)
for _name, _case, _succeeds, _what in VALIDATE_CHECKS:
    lab.check(4, _name, hint="ci_validate")(probe_check("validate", _case, _succeeds, _what))


@lab.check(4, "validate-rejects-mixed", hint="ci_validate")
def validate_rejects_mixed(state):
    """Every folder of one good and one bad manifest is refused, whichever file sorts first and
    whether the bad one is a .yaml, .yml or .json file: the first that is not decides."""
    verdicts = [probe_verdict(state, "validate", case, False, "phrase_probe_mixed_files", VALIDATE, bad=bad, good=good)
                for case, bad, good in MIXED_CASES]
    wrong = [verdict for verdict in verdicts if verdict.status != "PASS"]
    if wrong:
        return wrong[0]
    codes = [verdict.found for verdict in verdicts]
    return passed("probe_mixed_ok", expected="≠ 0", found=codes, script=VALIDATE, codes=", ".join(map(str, codes)),
                  cases=", ".join(f"{bad} + {good}" for _, bad, good in MIXED_CASES))


def written_since(obj, started):
    """Whether the API server created or changed `obj` at or after `started` (RFC 3339, UTC,
    as the API server writes creationTimestamp and managedFields times: they sort as text)."""
    times = [dig(obj, "metadata", "creationTimestamp")]
    times += [entry.get("time") for entry in dig(obj, "metadata", "managedFields") or [] if isinstance(entry, dict)]
    return any(isinstance(value, str) and value >= started for value in times)


@lab.check(4, "validate-created-nothing", hint="ci_validate")
def validate_created_nothing(state):
    probe_runs(state, "validate", [], VALIDATE)
    started = state.probes["started"]
    created = sorted({dig(d, "metadata", "name") for d in state.cluster.items("dryrun_deployments")
                      if dig(d, "metadata", "name") in PROBE_OBJECTS and written_since(d, started)})
    if created:
        return failed("probe_objects_created", expected=[], found=created, namespace=DRYRUN_NS)
    return passed("probe_objects_none", expected=[], found=[], namespace=DRYRUN_NS)
