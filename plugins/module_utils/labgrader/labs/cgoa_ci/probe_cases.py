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
