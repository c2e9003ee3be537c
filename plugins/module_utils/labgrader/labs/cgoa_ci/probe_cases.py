"""The inputs cgoa-ci's probes give the learner's programs: what a learner's CI would see.
Manifests of the lab's own Deployment in a deploy/ folder that a hook extracted into a mktemp
directory, commits by the learner's own identity, ordinary branch names. Nothing names the
grader (docs/sandbox.md)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import BASE_IMAGE, WEB_YAML


def manifest(name, replicas_key="replicas", replicas=1):
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  labels:\n    app: {name}\n"
            f"spec:\n  {replicas_key}: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n"
            f"  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n"
            f"        - name: {name}\n          image: {BASE_IMAGE}\n")


# The Deployments the probes' manifests name: validate-created-nothing looks for them.
PROBE_OBJECTS = ("web", "api")


def validate_cases():
    """{case: {file: manifest}}: what validate.sh must accept (valid) and reject (the rest)."""
    return {
        "valid": {"web.yaml": manifest("web")},
        "string-replicas": {"web.yaml": manifest("web", replicas="two")},
        "unknown-field": {"web.yaml": manifest("web", replicas_key="replica")},
        # The bad manifest first: a loop that keeps only the last file's status lets it through.
        "mixed": {"api.yaml": manifest("api", replicas="two"), "web.yaml": manifest("web")},
    }


FEATURE_BRANCHES = ("feature/web-replicas", "wip/scale-web", "fix/web-rollout", "test/replicas-field",
                    "dev/web-tuning")


def hook_cases(branch):
    """(case, local branch, {file: text} committed on main or None, push arguments): pushes the
    gate must reject or let through."""
    typo = {WEB_YAML: manifest("web", replicas_key="replica")}
    return (
        ("typo-main", "main", typo, ["origin", "main"]),
        ("valid-main", "scale-web", {WEB_YAML: manifest("web", replicas=3)}, ["origin", "scale-web:main"]),
        ("delete-main", None, None, ["origin", "--delete", "main"]),
        ("typo-branch", branch, typo, ["origin", branch]),
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
