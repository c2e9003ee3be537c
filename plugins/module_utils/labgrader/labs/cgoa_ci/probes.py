"""cgoa-ci's probes, run once per grading in the sandbox: validate.sh on each validate case and
each push of the hook cases through the learner's pre-receive hook (checks/probes.py stages
and runs them)."""

from __future__ import annotations

import os
import secrets
import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.kubeconfig import (
    WHOAMI_TIMEOUT,
    credentials,
    identity,
    kubeconfig_cluster,
    referenced_files,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import (
    NO_TIME_LEFT,
    ProbeOutOfTime,
    ProbeUnavailable,
    commit_files,
    git,
    last_author,
    probe_env,
    probe_timeout,
    run_probe,
    stage_bare_repo,
    work_clone,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probe_cases import (
    FEATURE_BRANCHES,
    hook_cases,
    validate_cases,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import HOOK
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.sandbox import (
    Sandbox,
    SandboxUnavailable,
    TreeRefused,
    mktemp_name,
)


def not_runnable(file):
    """Why a script was not run when it is not there to run: the English text for the record
    (probes.json), the phrase (in MESSAGES) for the learner's language."""
    return {"not_run": f"{file} is missing or not executable", "not_run_key": "phrase_not_runnable", "file": file}


def run_probes(context):
    """The grader-environment read (the VM's admin kubeconfig: server and CA) and the runs of
    validate.sh and the pre-receive hook, each in a fresh sandbox. Every result is plain data;
    "error" is the grader's: it cannot build a sandbox here."""
    results = {"k3s": kubeconfig_cluster(context.site.k3s_kubeconfig), "whoami": ci_identity(context),
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    script, hook = context.files["validate.sh"], context.files["hooks/pre-receive"]
    if not (script.ok and script.executable):
        results["validate"] = not_runnable("validate.sh")
    if not (hook.ok and hook.executable):
        results["hook"] = not_runnable("hooks/pre-receive")
    if "validate" in results and "hook" in results:
        return results
    try:
        with Sandbox(hidden=(context.kubeconfig, context.site.k3s_kubeconfig)) as sandbox:
            not_run = stage_learner(sandbox, context)
            pushes = None
            if "hook" not in results and not not_run:
                # Staged before any run: the stage is the sandbox's once a run has started.
                pushes, not_run_hook = stage_pushes(sandbox, context)
                if not_run_hook:
                    results["hook"] = not_run_hook
            if "validate" not in results:
                results["validate"] = not_run or validate_runs(sandbox, context, script.path)
            if "hook" not in results:
                results["hook"] = not_run or hook_runs(sandbox, context, *pushes)
    except SandboxUnavailable as exc:
        results["error"] = str(exc)
    except ProbeOutOfTime:  # setting the probes up took the lab's probe time: no run was judged
        for probe, cases in (("validate", list(validate_cases())), ("hook", [c[0] for c in hook_cases("")])):
            if "not_run" not in results.get(probe, {}):
                results[probe] = {**{case: NO_TIME_LEFT.as_dict() for case in cases}, **results.get(probe, {})}
    return results


def ci_identity(context):
    """Who the API server says ci-kubeconfig is, as kubectl uses it (step 3); not asked when the
    file cannot be read (its check says why)."""
    if not context.files["ci-kubeconfig"].ok:
        return {"not_run": "ci-kubeconfig cannot be read"}
    return identity(context, os.path.join(context.workspace, "ci-kubeconfig"), workspace_skip(withheld(context)),
                    min(WHOAMI_TIMEOUT, context.remaining()))


def withheld(context):
    """skip(relpath, data) for a learner file holding a token, client key or password of the
    grader's or the admin's kubeconfig: no copy of it enters a sandbox."""
    secrets = credentials(context.kubeconfig) + credentials(context.site.k3s_kubeconfig)
    return lambda relpath, data: any(secret in data for secret in secrets)


def workspace_skip(holds_secret):
    """What a copy of the workspace leaves out: `kubeconfig` (the lab's copy of the admin
    kubeconfig) and every file holding a secret."""
    return lambda relpath, data: relpath == "kubeconfig" or holds_secret(relpath, data)


def stage_learner(sandbox, context):
    """Copies of the workspace (without the VM's admin kubeconfig or any file holding the
    grader's or the admin's credentials) and of the bare repository, at their real paths, plus
    the files the CI kubeconfig names. None, or {"not_run": why} when the learner's trees cannot
    be copied."""
    holds_secret = withheld(context)
    try:
        sandbox.stage_tree(context.workspace, skip=workspace_skip(holds_secret))
        for path in referenced_files(os.path.join(context.workspace, "ci-kubeconfig")):
            sandbox.stage_tree(path, skip=holds_secret)
        stage_bare_repo(sandbox, context.bare_path, HOOK, context.deadline)
    except (TreeRefused, ProbeUnavailable) as exc:
        return {"not_run": f"the workspace {exc}" if isinstance(exc, TreeRefused) else str(exc)}
    return None


def validate_runs(sandbox, context, script):
    runs = {}
    for case, files in validate_cases().items():
        folder = f"/tmp/{mktemp_name()}/deploy"
        for name, text in files.items():
            sandbox.write_file(f"{folder}/{name}", text, layer=case)
        runs[case] = run_probe(sandbox, [script, folder], context.workspace, probe_env(context),
                               probe_timeout(context), layer=case).as_dict()
    return runs


def stage_pushes(sandbox, context):
    """((clone path, cases), None): one CI-style clone (in /tmp) of the bare repo's copy with a
    local branch per push; or (None, {"not_run": why}) when main cannot be read."""
    try:
        clone_path = f"/tmp/{mktemp_name()}"
        clone = work_clone(sandbox, context.bare_path, clone_path, context.deadline)
        base = git(["rev-parse", "refs/remotes/origin/main"], cwd=clone, deadline=context.deadline)
        author = last_author(sandbox.staged(context.bare_path), deadline=context.deadline)
        cases = hook_cases(secrets.choice(FEATURE_BRANCHES))
        for _, branch, files, _ in cases:
            if files is not None:
                commit_files(clone, branch, base, files, "web: update deploy/web.yaml", author, context.deadline)
        # git itself refuses to delete the branch HEAD names (receive.denyDeleteCurrent); the copy
        # lets it through so that only the learner's hook decides.
        git(["config", "--file", os.path.join(sandbox.staged(context.bare_path), "config"),
             "receive.denyDeleteCurrent", "ignore"], cwd=clone, deadline=context.deadline)
    except ProbeUnavailable as exc:
        return None, {"not_run": str(exc)}
    return (clone_path, cases), None


def hook_runs(sandbox, context, clone_path, cases):
    """Each push from the clone to the copy of the bare repo, in a fresh sandbox."""
    return {case: run_probe(sandbox, ["git", "push", *args], clone_path, probe_env(context),
                            probe_timeout(context)).as_dict()
            for case, _, _, args in cases}
