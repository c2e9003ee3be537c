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

# Where the CI identity's kubeconfig is not: every validate.sh run has KUBECONFIG pointing at this
# missing file (and the sandbox has no ~/.kube), so only a script that names the CI kubeconfig
# itself reaches the API server with it. A KUBECONFIG that names missing files makes client-go
# fall back to no configuration at all (clientcmd ClientConfigLoadingRules.Load skips them).
BOGUS_KUBECONFIG = "/root/.kube/ci-runner.conf"
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
