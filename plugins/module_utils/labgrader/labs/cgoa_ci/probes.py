"""cgoa-ci's probes, run once per grading in the sandbox: validate.sh on each validate case and
each push of the hook cases through the learner's pre-receive hook (checks/probes.py stages
and runs them)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import probes as shared_probes
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.kubeconfig import (
    WHOAMI_TIMEOUT,
    credentials,
    identity,
    kubeconfig_cluster,
    referenced_files,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import (
    NO_TIME_LEFT,
    OUTPUT_BYTES,
    ProbeOutOfTime,
    ProbeRun,
    ProbeUnavailable,
    commit_files,
    git,
    last_author,
    probe_env,
    probe_timeout,
    run_probe,
    stage_bare_repo,
    tail,
    work_clone,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probe_cases import (
    BOGUS_KUBECONFIG,
    BUMP_CLONE,
    BUMP_TAGS,
    EXISTING_BRANCHES,
    FEATURE_BRANCHES,
    TRAPPED_COMMANDS,
    VALID_IN_WORKSPACE,
    VALID_WITH_KUBECONFIG_ENV,
    VALIDATE_CWD,
    bump_remote_manifest,
    hook_cases,
    trap,
    validate_cases,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import DRYRUN_NS, HOOK, WEB_YAML
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import scrub
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.sandbox import (
    Sandbox,
    SandboxUnavailable,
    TreeRefused,
    mktemp_name,
    reachable,
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
    try:
        results["bump"] = bump_probe(context)
    except SandboxUnavailable as exc:
        results["error"] = str(exc)
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
                results["validate"] = not_run or validate_runs(sandbox, context, script.path, results["k3s"])
            if "hook" not in results:
                results["hook"] = not_run or hook_runs(sandbox, context, *pushes)
    except SandboxUnavailable as exc:
        results["error"] = str(exc)
    except ProbeOutOfTime:  # setting the probes up took the lab's probe time: no run was judged
        for probe, cases in (("validate", list(validate_cases())), ("hook", [c[0] for c in hook_cases("", "")])):
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


def decoy_kubeconfig(cluster):
    """The kubeconfig KUBECONFIG names in every validate.sh run: the VM's cluster (its server and
    CA, as `run_probes` read them from the admin kubeconfig) and a user without credentials, in the
    CI namespace."""
    entry = {"server": cluster.get("server") or "https://127.0.0.1:6443"}
    if cluster.get("ca_data"):
        entry["certificate-authority-data"] = cluster["ca_data"]
    return json.dumps({"apiVersion": "v1", "kind": "Config", "current-context": "ci",
                       "clusters": [{"name": "ci", "cluster": entry}], "users": [{"name": "ci-runner", "user": {}}],
                       "contexts": [{"name": "ci", "context": {"cluster": "ci", "user": "ci-runner",
                                                               "namespace": DRYRUN_NS}}]}, indent=2) + "\n"


def validate_runs(sandbox, context, script, cluster):
    """Each validate case in a fresh sandbox, in /tmp, KUBECONFIG naming a kubeconfig without
    credentials: the script must find the CI kubeconfig by itself. When it refuses the valid case,
    the valid case once with KUBECONFIG at the CI kubeconfig and once in the workspace, so that the
    message can say whether that is all it lacks."""
    sandbox.write_file(BOGUS_KUBECONFIG, decoy_kubeconfig(cluster), mode=0o600)
    env = {**probe_env(context), "KUBECONFIG": BOGUS_KUBECONFIG}
    runs = {case: validate_run(sandbox, context, script, case, files, env) for case, files in validate_cases().items()}
    if not ProbeRun.from_dict(runs["valid"]).succeeded:
        valid = validate_cases()["valid"]
        runs[VALID_WITH_KUBECONFIG_ENV] = validate_run(
            sandbox, context, script, VALID_WITH_KUBECONFIG_ENV, valid,
            {**env, "KUBECONFIG": os.path.join(context.workspace, "ci-kubeconfig")})
        runs[VALID_IN_WORKSPACE] = validate_run(sandbox, context, script, VALID_IN_WORKSPACE, valid, env,
                                                cwd=context.workspace)
    return runs


def validate_run(sandbox, context, script, case, files, env, cwd=VALIDATE_CWD):
    """validate.sh on `files`, written into a mktemp-style deploy/ folder of its own layer."""
    folder = f"/tmp/{mktemp_name()}/deploy"
    for name, text in files.items():
        sandbox.write_file(f"{folder}/{name}", text, layer=case)
    return run_probe(sandbox, [script, folder], cwd, env, probe_timeout(context), layer=case).as_dict()


def stage_pushes(sandbox, context):
    """((clone path, cases), None): one CI-style clone (in /tmp) of the bare repo's copy with the
    local branches of every push, and on the copy a branch besides main (at main) for the pushes
    that update or delete an existing branch; or (None, {"not_run": why}) when main cannot be read."""
    try:
        clone_path = f"/tmp/{mktemp_name()}"
        bare_copy = sandbox.staged(context.bare_path)
        existing = secrets.choice(EXISTING_BRANCHES)
        new = secrets.choice([b for b in FEATURE_BRANCHES if b != existing])
        clone = work_clone(sandbox, context.bare_path, clone_path, context.deadline)
        base = git(["rev-parse", "refs/remotes/origin/main"], cwd=clone, deadline=context.deadline)
        git(["--git-dir", bare_copy, "update-ref", f"refs/heads/{existing}", base], cwd=bare_copy,
            deadline=context.deadline)
        author = last_author(bare_copy, deadline=context.deadline)
        cases = hook_cases(existing, new)
        made = {}  # the same files on main are one commit, with a local branch for each push of it
        for _, commits, _ in cases:
            for branch, files in commits.items():
                key = tuple(sorted(files.items()))
                if key in made:
                    git(["update-ref", f"refs/heads/{branch}", made[key]], cwd=clone, deadline=context.deadline)
                else:
                    made[key] = commit_files(clone, branch, base, files, "web: update deploy/", author,
                                             context.deadline)
        # git itself refuses to delete the branch HEAD names (receive.denyDeleteCurrent); the copy
        # lets it through so that only the learner's hook decides.
        git(["config", "--file", os.path.join(bare_copy, "config"), "receive.denyDeleteCurrent", "ignore"], cwd=clone,
            deadline=context.deadline)
    except ProbeUnavailable as exc:
        return None, {"not_run": str(exc)}
    return (clone_path, cases), None


def hook_runs(sandbox, context, clone_path, cases):
    """Each push from the clone to the copy of the bare repo, in a fresh sandbox (each starts
    from the copy as staged: one push's outcome never reaches the next)."""
    return {case: run_probe(sandbox, ["git", "push", *args], clone_path, probe_env(context),
                            probe_timeout(context)).as_dict()
            for case, _, args in cases}


# ---------------------------------------------------------------- bump.sh

# Runs bump.sh <tag> with stdin closed and its output in a file, then prints what the remote (the
# bare repository's copy) holds afterwards and what the traps recorded, each section after its
# own marker line (a word chosen per run), bump.sh's output last and cut to its end. Our git
# reads the copy with no system or global configuration and no hooks.
BUMP_WRAPPER = r"""script=$1 tag=$2 bare=$3 calls=$4 marker=$5
out=$(dirname "$calls")/out
"$script" "$tag" </dev/null >"$out" 2>&1
rc=$?
look() { GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -c core.hooksPath=/dev/null --git-dir="$bare" "$@"; }
echo "$marker rc"; echo "$rc"
echo "$marker refs"; look for-each-ref --format='%(objectname) %(refname)' refs/heads refs/tags 2>&1 | head -n 50
echo "$marker main"; look log -1 --format='%H %P%n%s' refs/heads/main 2>/dev/null | head -n 2
echo "$marker web"; look cat-file blob refs/heads/main:deploy/web.yaml 2>&1 | head -c 65536; echo
echo "$marker calls"; head -c 8192 "$calls" 2>/dev/null
echo "$marker output"; tail -c 2000 "$out"
"""
BUMP_TREE_BYTES = 16 * 1024 * 1024  # main's files checked out into the clone (a 3 GiB blob is refused)
TRAP_DIRS = (".local/bin", "bin")  # under HOME, first on PATH, as a root login's profile puts them


def bump_probe(context):
    """bump.sh <tag> run once in a sandbox of its own (no network, no hook, no kubeconfig): a
    fresh clone of the bare repository's copy at the workspace's `repo`, the copy's main one
    commit ahead of the clone's, kubectl/argocd/k3s on PATH replaced by traps. The result is
    plain data: the tag, the commits before the run, the run, and what the copy held after it."""
    script = context.files["bump.sh"]
    if not (script.ok and script.executable):
        return not_runnable("bump.sh")
    tag = secrets.choice(BUMP_TAGS)
    hidden = (context.kubeconfig, context.site.k3s_kubeconfig)
    with Sandbox(hidden=hidden, network=False) as sandbox:
        try:
            staged = stage_bump(sandbox, context)
        except (TreeRefused, ProbeUnavailable) as exc:
            return {"not_run": f"the workspace {exc}" if isinstance(exc, TreeRefused) else str(exc)}
        except ProbeOutOfTime:
            return {"tag": tag, "run": NO_TIME_LEFT.as_dict()}
        marker = secrets.token_hex(8)
        env = {**probe_env(context)}
        env["PATH"] = f"{staged['traps']}:{env['PATH']}"
        timeout = probe_timeout(context)
        if timeout <= 0:
            return {"tag": tag, "run": NO_TIME_LEFT.as_dict()}
        started = time.monotonic()
        result = sandbox.run(["/bin/sh", "-c", BUMP_WRAPPER, "bump", context.files["bump.sh"].path, tag,
                              context.bare_path, staged["calls"], marker], context.workspace, env, timeout, OUTPUT_BYTES)
        seconds = round(time.monotonic() - started, 2)
    after = bump_sections(result.stdout.decode("utf-8", "replace"), marker)
    rc = after.pop("rc", None)
    run = ProbeRun(int(rc) if rc and rc.strip().isdigit() else result.returncode, result.timed_out, result.truncated,
                   scrub(tail(after.pop("output", ""))), result.timed_out and timeout < shared_probes.SCRIPT_TIMEOUT)
    return {"tag": tag, **{key: staged[key] for key in ("clone_main", "remote_main", "refs_before")},
            "seconds": seconds, "run": run.as_dict(), **after}


def bump_sections(text, marker):
    """{section: text} of BUMP_WRAPPER's report: what follows each "<marker> <section>" line."""
    sections, name, lines = {}, None, []
    for line in text.split("\n"):
        if line.startswith(marker + " ") and line[len(marker) + 1:] in BUMP_SECTIONS and name != "output":
            if name:
                sections[name] = "\n".join(lines).strip("\n")
            name, lines = line[len(marker) + 1:], []
        elif name:
            lines.append(line)
    if name:
        sections[name] = "\n".join(lines).strip("\n")
    return sections


BUMP_SECTIONS = ("rc", "refs", "main", "web", "calls", "output")


def trap_dir(context):
    """Where the traps go: a PATH directory under HOME that the sandbox will not bind from the host
    (it binds the PATH directories that exist there and others may enter)."""
    home = context.site.workspace_root
    for relpath in TRAP_DIRS:
        path = os.path.join(home, relpath)
        if not (os.path.isdir(path) and reachable(path)):
            return path
    raise SandboxUnavailable(f"no directory under {home} can hold the kubectl trap")


def stage_bump(sandbox, context):
    """The workspace's copy without any kubeconfig or credential and with, at `repo`, a fresh
    clone of the bare repository's copy (main checked out, the learner's own identity); then a
    commit on the copy's main that the clone has not fetched; the traps. Returns
    {clone_main, remote_main, refs_before, traps, calls}."""
    withheld = credentials(context.kubeconfig) + credentials(context.site.k3s_kubeconfig)
    clone_path = os.path.join(context.workspace, BUMP_CLONE)

    def skip(relpath, data):
        return (relpath in ("kubeconfig", "ci-kubeconfig") or relpath.startswith(BUMP_CLONE + "/")
                or any(secret in data for secret in withheld))

    sandbox.stage_tree(context.workspace, skip=skip)
    shutil.rmtree(sandbox.staged(clone_path), ignore_errors=True)
    bare = stage_bare_repo(sandbox, context.bare_path, hook="", deadline=context.deadline)  # no hook runs
    clone = work_clone(sandbox, context.bare_path, clone_path, context.deadline)
    clone_main = git(["rev-parse", "refs/remotes/origin/main"], cwd=clone, deadline=context.deadline)
    author = last_author(bare, deadline=context.deadline)
    size = sum(int(line.split()[3]) for line in git(["ls-tree", "-r", "-l", clone_main], cwd=clone,
                                                    deadline=context.deadline).splitlines()
               if line.split()[3].isdigit())
    if size > BUMP_TREE_BYTES:
        raise ProbeUnavailable(f"main's files are larger than {BUMP_TREE_BYTES // (1024 * 1024)} MiB")
    remote_main = commit_files(clone, "teammate", clone_main, {WEB_YAML: bump_remote_manifest()},
                               "web: 3 replicas, wait container", author, context.deadline)
    git(["push", "--quiet", bare, "refs/heads/teammate:refs/heads/main"], cwd=clone, deadline=context.deadline)
    git(["branch", "--quiet", "-D", "teammate"], cwd=clone, deadline=context.deadline)
    refs = git(["--git-dir", bare, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads", "refs/tags"],
               cwd=clone, deadline=context.deadline)
    git(["reset", "--quiet", "--hard", "refs/heads/main"], cwd=clone, deadline=context.deadline)
    # A root login's ~/.gitconfig names who commits: the author of the learner's last commit.
    gitconfig = sandbox.staged(os.path.join(context.site.workspace_root, ".gitconfig"))
    sandbox.make_dirs(context.site.workspace_root)
    for key, name in (("user.name", "GIT_AUTHOR_NAME"), ("user.email", "GIT_AUTHOR_EMAIL")):
        git(["config", "--file", gitconfig, key, author[name] or "root"], cwd=clone, deadline=context.deadline)
    calls = f"/tmp/{mktemp_name()}/calls"
    traps = trap_dir(context)
    for command in TRAPPED_COMMANDS:
        sandbox.write_file(os.path.join(traps, command), trap(command, calls), mode=0o755)
    sandbox.make_dirs(os.path.dirname(calls))
    return {"clone_main": clone_main, "remote_main": remote_main, "refs_before": refs, "traps": traps, "calls": calls}
