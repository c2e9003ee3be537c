"""The inputs cgoa-ci's probes give the learner's programs: what a learner's CI would see.
Manifests of the lab's own Deployment in a deploy/ folder that a hook extracted into a mktemp
directory, commits by the learner's own identity, ordinary branch names. Nothing names the
grader (docs/sandbox.md)."""

from __future__ import annotations

import json

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import BASE_IMAGE, WEB_YAML


def manifest(name, replicas_key="replicas", replicas=1, template_app=None):
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  labels:\n    app: {name}\n"
            f"spec:\n  {replicas_key}: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n"
            f"  template:\n    metadata:\n      labels:\n        app: {template_app or name}\n    spec:\n"
            f"      containers:\n        - name: {name}\n          image: {BASE_IMAGE}\n")


def json_manifest(name, replicas=1):
    """The same Deployment as JSON: Argo CD applies a directory's *.json files as it does *.yaml."""
    return json.dumps(yaml.safe_load(manifest(name, replicas=replicas)), indent=2) + "\n"


# The Deployments the probes' manifests name: validate-created-nothing looks for them.
PROBE_OBJECTS = ("web", "api")

# Where the CI identity's kubeconfig is not: every validate.sh run has KUBECONFIG naming this file,
# a kubeconfig of the VM's cluster without credentials, as a CI runner may leave one behind
# (probes.py decoy_kubeconfig), and the sandbox has no ~/.kube; so only a script that names the CI
# kubeconfig itself reaches the API server as the CI identity (one that trusts KUBECONFIG is
# refused as no one). The file exists: a KUBECONFIG naming a missing file would tell a probe
# from a real run (tests/hostile detect-kubeconfig-env).
BOGUS_KUBECONFIG = "/tmp/ci-runner/kubeconfig"
# validate.sh runs in /tmp, not in the workspace: the pre-receive hook runs it from the bare
# repository, so a kubeconfig found relative to the working directory is not found there.
VALIDATE_CWD = "/tmp"
# The diagnostic runs of the valid case (only when it failed): KUBECONFIG at the CI kubeconfig;
# the workspace as the working directory.
VALID_WITH_KUBECONFIG_ENV = "valid-kubeconfig-env"
VALID_IN_WORKSPACE = "valid-workspace-cwd"


# Folders with one good and one bad manifest, (case, bad file, good file): the bad one sorts first (a
# loop keeping only the last file's status lets it through), last (a script that validates the
# first file only), or is a .yml or a .json file (Argo CD applies both from a directory source).
MIXED_CASES = (("mixed", "api.yaml", "web.yaml"), ("mixed-last", "web.yaml", "api.yaml"),
               ("mixed-yml", "api.yml", "web.yaml"), ("mixed-json", "api.json", "web.yaml"))


def validate_cases():
    """{case: {file: manifest}}: what validate.sh must accept (valid) and reject (the rest); each
    rejected case is there for the wrong scripts docs/probes-cgoa-ci.md names."""
    return {
        "valid": {"web.yaml": manifest("web")},
        "string-replicas": {"web.yaml": manifest("web", replicas="two")},
        "unknown-field": {"web.yaml": manifest("web", replicas_key="replica")},
        # Only the API server rejects it (apps validation: `selector` does not match template
        # `labels`); kubectl's client-side dry-run and offline schema validators accept it.
        "server-only": {"web.yaml": manifest("web", template_app="web-pods")},
        **{case: {bad: bad_text(bad), good: manifest(stem(good))} for case, bad, good in MIXED_CASES},
    }


def stem(name):
    return name.rsplit(".", 1)[0]


def bad_text(name):
    """The Deployment `name` names, with replicas: two, as YAML or (*.json) as JSON."""
    return (json_manifest if name.endswith(".json") else manifest)(stem(name), replicas="two")


# Branches a learner's CI might push; each probe run picks its own. The hook's stdin lists the
# refs of one push in the order git sends them: first the refs the remote already has, in the
# order it advertised them (sorted), then the new ones in the order of the refspecs
# (remote.c match_push_refs; observed with git 2.39 and on the plane's git). So a branch that
# already exists on the copy and sorts before "main" comes before main, a new one after it.
FEATURE_BRANCHES = ("feature/web-replicas", "wip/scale-web", "fix/web-rollout", "test/replicas-field",
                    "dev/web-tuning")
EXISTING_BRANCHES = tuple(b for b in FEATURE_BRANCHES if b < "main")
# Branches whose names contain main without being main: a hook that matches the ref with
# `grep main`, `*main*`, `main*`, `*/main` or by its last path part blocks at least one of them.
MAIN_LOOKALIKES = ("mainline", "maint", "feature/main-fix", "hotfix/main")


def hook_cases(existing, new):
    """(case, {local branch: {file: text}} committed on main, push arguments): pushes the gate
    must reject or let through (step5_hook.HOOK_CHECKS says which). A local branch holds the same
    files in every case that names it (the clone has one such branch). `existing` is a branch the
    copy of the bare repository already has (at main), sorting before main; `new` one it has not.
    Every run starts from the same copy (sandbox.py), so no push depends on another's outcome."""
    typo = {WEB_YAML: manifest("web", replicas_key="replica")}
    valid = {WEB_YAML: manifest("web", replicas=3)}
    # A bad manifest beside web.yaml, as .yml and as .json: Argo CD's directory source applies
    # both (argo-cd v3.5.2 reposerver/repository/repository.go findManifests: *.yaml, *.yml,
    # *.json and *.jsonnet, top level only unless directory.recurse; the lab's Application does
    # not recurse), and so does kubectl apply -f <dir>.
    typo_yml = {"deploy/api.yml": manifest("api", replicas_key="replica")}
    typo_json = {"deploy/api.json": json.dumps(yaml.safe_load(manifest("api", replicas_key="replica")), indent=2)}
    return (
        ("typo-main", {"main": typo}, ["origin", "main"]),
        ("valid-main", {"scale-web": valid}, ["origin", "scale-web:main"]),
        ("delete-main", {}, ["origin", "--delete", "main"]),
        ("typo-branch", {new: typo}, ["origin", new]),
        ("delete-branch", {}, ["origin", "--delete", existing]),
        ("typo-main-yml", {"api-yml": typo_yml}, ["origin", "api-yml:main"]),
        ("typo-main-json", {"api-json": typo_json}, ["origin", "api-json:main"]),
        # One push, two refs: main second (a hook that reads only the first line lets it through),
        # then main first (one that keeps only the last line's values does).
        ("typo-main-second", {existing: valid, "web-typo": typo}, ["origin", existing, "web-typo:main"]),
        ("typo-main-first", {"web-typo": typo, "scale-web": valid}, ["origin", "web-typo:main", f"scale-web:{new}"]),
        ("typo-main-lookalikes", dict.fromkeys(MAIN_LOOKALIKES, typo), ["origin", *MAIN_LOOKALIKES]),
    )


# bump.sh is run with one of these tags, chosen per grading: real nginx tags, none of them the
# lab's 1.28-alpine, so a script that ignores $1 writes another image than the one asked for.
BUMP_TAGS = ("1.27.3-alpine", "1.29.1-alpine", "1.26.2-alpine", "1.29-alpine", "1.27.4", "stable-alpine")
BUMP_CLONE = "repo"  # the workspace's clone (reads.py), where bump.sh works
# Replaced on PATH by traps that record their calls: bump.sh changes git only.
TRAPPED_COMMANDS = ("kubectl", "argocd", "k3s")
INIT_IMAGE = "busybox:1.36"


def bump_remote_manifest():
    """deploy/web.yaml of the commit the remote's main gets after the clone was made (a teammate's
    change the clone has not fetched): replicas 3 and an init container with an image of its own,
    so that a script that rewrites every `image:` line, or rewrites the file from a template,
    changes more than the web container's image."""
    return manifest("web", replicas=3).replace(
        "    spec:\n      containers:\n",
        f"    spec:\n      initContainers:\n        - name: wait\n          image: {INIT_IMAGE}\n"
        "          command: [\"sh\", \"-c\", \"true\"]\n      containers:\n")


def trap(name, log):
    """The stand-in for `name` on bump.sh's PATH: records its arguments in `log`, succeeds."""
    return f"#!/bin/sh\nprintf '%s\\n' \"{name} $*\" >> {log}\nexit 0\n"
