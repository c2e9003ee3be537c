"""cgoa-ci step 4 judged by what validate.sh does: wrong scripts a learner plausibly writes, each
run by the real probe code in the sandbox, fail the step-4 checks docs/probes-cgoa-ci.md says
(and no other step-4 check); the solution's validate.sh and equivalent forms of it pass every one.

The fixture world's API server is read-only, so `kubectl` here is FAKE_KUBECTL, put first on the
PATH the sandbox binds: it answers the probes' manifests as kubectl v1.32 and kube-apiserver
v1.36.1 answered them (outputs in fixtures/worlds/cgoa-ci/golden.yaml) and finds its kubeconfig
as client-go does (--kubeconfig, else the first KUBECONFIG file that exists, else ~/.kube/config).
What only the real API server can show (a server-side-only rejection, a real creation) is proven
on the plane: tests/controlplane/mutations_cgoa_ci.py."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.solution import validate_sh

from tests.grader.test_cgoa_probes import grade_with

FAKE_KUBECTL = r'''#!/usr/bin/python3
import os, re, sys

TOKEN = %(token)r
args, options, files = sys.argv[1:], {}, []
while args:
    arg = args.pop(0)
    name, _, value = arg.partition("=")
    if name in ("--kubeconfig", "-n", "--namespace", "--dry-run", "--validate", "-f", "--filename"):
        value = value if _ else args.pop(0)
        (files.append(value) if name in ("-f", "--filename") else options.__setitem__(name, value))
explicit = options.get("--kubeconfig")
if explicit is not None and not os.path.isfile(explicit):
    sys.exit(f"error: stat {explicit}: no such file or directory")
found = [explicit] if explicit else [p for p in os.environ.get("KUBECONFIG", "").split(":") if os.path.isfile(p)]
if not os.environ.get("KUBECONFIG") and os.path.isfile(os.path.expanduser("~/.kube/config")):
    found = found or [os.path.expanduser("~/.kube/config")]
paths = []
for given in files:
    if os.path.isdir(given):
        paths += [os.path.join(given, n) for n in sorted(os.listdir(given)) if n.endswith((".json", ".yaml", ".yml"))]
    else:
        paths.append(given)
if not found:
    sys.exit(f'error: error validating "{paths[0] if paths else ""}": error validating data: failed to download '
             'openapi: Get "http://localhost:8080/openapi/v2?timeout=32s": dial tcp 127.0.0.1:8080: connect: '
             'connection refused; if you choose to ignore these errors, turn validation off with --validate=false')
if TOKEN not in open(found[0]).read():
    sys.exit("error: You must be logged in to the server (Unauthorized)")
if not paths:
    sys.exit("error: no objects passed to apply")
dry_run = options.get("--dry-run", "none")
strict = options.get("--validate", "strict") in ("true", "strict")
done, errors = [], []
for path in paths:
    text = open(path).read()
    name = re.search(r'name"?: "?([a-z-]+)', text).group(1)
    why = None
    if dry_run != "client":
        if re.search(r'replicas"?: "?two', text):
            why = ('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string '
                   'into Go struct field DeploymentSpec.spec.replicas of type int32')
        elif strict and re.search(r"^\s+replica:", text, re.M):
            why = ('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown '
                   'field "spec.replica"')
        elif "web-pods" in text:
            errors.append(f'The Deployment "{name}" is invalid: spec.template.metadata.labels: Invalid value: '
                          '{"app":"web-pods"}: `selector` does not match template `labels`')
            continue
    if why:
        errors.append(f'Error from server (BadRequest): error when creating "{path}": {why}')
    else:
        done.append(f"deployment.apps/{name} created" + {"client": " (dry run)", "server": " (server dry run)"}
                    .get(dry_run, ""))
print("\n".join(done))
print("\n".join(errors), file=sys.stderr)
sys.exit(1 if errors else 0)
'''

K = "kubectl --kubeconfig {ws}/ci-kubeconfig -n ci-dryrun"
HEAD = "#!/usr/bin/env bash\nset -euo pipefail\n"
STEP4 = ("validate-names-kubeconfig", "validate-server-dry-run", "validate-accepts-valid",
         "validate-rejects-string-replicas", "validate-rejects-unknown-field", "validate-rejects-mixed",
         "validate-created-nothing")
REJECTS = ("validate-server-dry-run", "validate-rejects-string-replicas", "validate-rejects-unknown-field",
           "validate-rejects-mixed")
NEEDS_ENV = "validate.sh accepts a valid Deployment only when KUBECONFIG names {ws}/ci-kubeconfig"
OWN_KUBECONFIG = ("validate.sh accepts a valid Deployment with KUBECONFIG=/tmp/ci-runner/kubeconfig and no ~/.kube, "
                  "so with the kubeconfig it names itself, but exited with code 1")
ACCEPTS_VALID = "validate.sh accepts a valid Deployment, but exited with code 1"


def mixed(bad, good):
    return f"validate.sh rejects a folder with a bad {bad} beside a good {good}, but exited with code 0"


# wrong script (or equivalent form) -> (validate.sh, {step-4 check that fails: the start of its message})
SCRIPTS = {
    "the solution's validate.sh": (None, {}),
    "kubeconfig found relative to the script": (
        HEAD + 'kubectl --kubeconfig "$(dirname "$0")/ci-kubeconfig" -n ci-dryrun apply --dry-run=server -f "$1"\n',
        {}),
    "a comment naming the client dry-run it does not use": (
        HEAD + "# not --dry-run=client: that never asks the API server\n" + K + ' apply --dry-run=server -f "$1"\n', {}),
    "kubectl create instead of apply": (HEAD + K + ' create --dry-run=server -f "$1"\n', {}),
    "relies on $KUBECONFIG": (
        HEAD + 'kubectl -n ci-dryrun apply --dry-run=server -f "$1"\n',
        {"validate-names-kubeconfig": NEEDS_ENV, "validate-accepts-valid": ACCEPTS_VALID}),
    "a comment naming the kubeconfig it does not use": (
        HEAD + "# kubectl --kubeconfig {ws}/ci-kubeconfig\n" + 'kubectl -n ci-dryrun apply --dry-run=server -f "$1"\n',
        {"validate-names-kubeconfig": NEEDS_ENV, "validate-accepts-valid": ACCEPTS_VALID}),
    "the CI kubeconfig only when KUBECONFIG is unset": (
        HEAD + 'kubectl --kubeconfig "${{KUBECONFIG:-{ws}/ci-kubeconfig}}" -n ci-dryrun apply --dry-run=server '
        '-f "$1"\n',
        {"validate-names-kubeconfig": NEEDS_ENV, "validate-accepts-valid": ACCEPTS_VALID}),
    "kubeconfig relative to the working directory": (
        HEAD + 'kubectl --kubeconfig ci-kubeconfig -n ci-dryrun apply --dry-run=server -f "$1"\n',
        {"validate-names-kubeconfig": "validate.sh accepts a valid Deployment only when it runs in {ws}",
         "validate-accepts-valid": ACCEPTS_VALID}),
    "copied to ~/.kube/config": (
        HEAD + 'kubectl --kubeconfig ~/.kube/config -n ci-dryrun apply --dry-run=server -f "$1"\n',
        {"validate-names-kubeconfig": OWN_KUBECONFIG, "validate-accepts-valid": ACCEPTS_VALID}),
    "client-side dry-run, a comment naming the server's": (
        HEAD + "# --dry-run=server\n" + K + ' apply --dry-run=client -f "$1"\n',
        {"validate-server-dry-run": "validate.sh rejects a Deployment whose selector does not match its template's "
         "labels (only the API server rejects it: validate on the server, --dry-run=server), but exited with code 0",
         "validate-rejects-string-replicas": "validate.sh rejects replicas: two, but exited with code 0",
         "validate-rejects-unknown-field": "validate.sh rejects the misspelled field replica:, but exited with code 0",
         "validate-rejects-mixed": mixed("api.yaml", "web.yaml")}),
    "server dry-run with --validate=false": (
        HEAD + K + ' apply --dry-run=server --validate=false -f "$1"\n',
        {"validate-rejects-unknown-field": "validate.sh rejects the misspelled field replica:, but exited with code 0"}),
    "a pipe without pipefail": (
        "#!/usr/bin/env bash\nset -eu\n" + K + ' apply --dry-run=server -f "$1" | tee /dev/null\n',
        dict.fromkeys(REJECTS, "")),
    "the last file's status only": (
        '#!/usr/bin/env bash\nfor f in "$1"/*; do ' + K + ' apply --dry-run=server -f "$f"; done\n',
        {"validate-rejects-mixed": mixed("api.yaml", "web.yaml")}),
    "the first file only": (
        HEAD + K + ' apply --dry-run=server -f "$(ls -d "$1"/* | head -n 1)"\n',
        {"validate-rejects-mixed": mixed("web.yaml", "api.yaml")}),
    "one fixed file name": (
        HEAD + K + ' apply --dry-run=server -f "$1/web.yaml"\n', {"validate-rejects-mixed": mixed("api.yaml", "web.yaml")}),
    "*.yaml only": (
        '#!/usr/bin/env bash\nrc=0\nfor f in "$1"/*.yaml; do ' + K + ' apply --dry-run=server -f "$f" || rc=1; done\n'
        "exit $rc\n", {"validate-rejects-mixed": mixed("api.yml", "web.yaml")}),
    "*.yaml and *.yml only": (
        '#!/usr/bin/env bash\nshopt -s nullglob\nrc=0\nfor f in "$1"/*.yaml "$1"/*.yml; do '
        + K + ' apply --dry-run=server -f "$f" || rc=1; done\nexit $rc\n',
        {"validate-rejects-mixed": mixed("api.json", "web.yaml")}),
    "ignores its argument, validates the clone's deploy/": (
        HEAD + K + " apply --dry-run=server -f {ws}/repo/deploy\n", dict.fromkeys(REJECTS, "")),
}


@pytest.fixture(scope="module")
def fake_kubectl_path(fake_api):
    """A world-readable directory holding FAKE_KUBECTL (the sandbox binds PATH directories that
    others may enter), first on PATH; removed afterwards."""
    ci_kubeconfig = (fake_api.world("cgoa-ci/golden.yaml") / "root" / "cgoa-ci" / "ci-kubeconfig").read_text()
    token = re.search(r"token: (\S+)", ci_kubeconfig).group(1)
    directory = tempfile.mkdtemp()
    os.chmod(directory, 0o755)
    path = os.path.join(directory, "kubectl")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(FAKE_KUBECTL % {"token": token})
    os.chmod(path, 0o755)
    yield f"{directory}:{os.environ.get('PATH', '')}"
    shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_each_validate_sh_fails_exactly_its_step4_checks(fake_api, fake_kubectl_path, monkeypatch, name):
    monkeypatch.setenv("PATH", fake_kubectl_path)
    host = fake_api.world("cgoa-ci/golden.yaml")
    (host / "probes.json").unlink()  # run the probes for real
    workspace = host / "root" / "cgoa-ci"
    text, expected = SCRIPTS[name]
    if text is not None:
        (workspace / "validate.sh").write_text(text.format(ws=workspace))
    else:
        assert (workspace / "validate.sh").read_text() == validate_sh_of(workspace)
    started = time.monotonic()
    checks = grade_with(host, 120)
    print(f"{name}: graded in {time.monotonic() - started:.1f} s")
    found = {check: checks[f"cgoa-ci.4.{check}"] for check in STEP4}
    assert {c: v["status"] for c, v in found.items() if v["status"] != "PASS"} == dict.fromkeys(expected, "FAIL"), {
        c: v["message"] for c, v in found.items()}
    for check, message in expected.items():
        assert found[check]["message"].startswith(message.format(ws=workspace)), found[check]["message"]


def validate_sh_of(workspace):
    """The solution's validate.sh for a workspace at `workspace` (what the golden world holds)."""

    class Workspace:
        @staticmethod
        def file(name):
            return f"{workspace}/{name}"

    return validate_sh(Workspace)
