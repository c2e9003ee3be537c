"""cgoa-ci judged on the world recorded from the real control plane (fixtures/worlds/cgoa-ci/
golden.yaml): every check passes; each mistake, applied to a copy of that state, fails exactly
its checks with the message asserted. The probes themselves run for real in
tests/controlplane/test_labs_plane.py; here their recorded results are replayed."""

from __future__ import annotations

import base64
import copy
import json
from collections import Counter

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probe_cases import MIXED_CASES
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.reads import (
    ACCESS,
    cluster_reads,
)

from tests.grader.conftest import collect_host, judge

LAB = LABS["cgoa-ci"]


@pytest.fixture(scope="module")
def golden_cgoa(fake_api):
    return collect_host(fake_api.world("cgoa-ci/golden.yaml"), "cgoa-ci")


@pytest.fixture
def state(golden_cgoa):
    return copy.deepcopy(golden_cgoa)


def grade(state):
    return judge(state, "en", "cgoa-ci")


def failing(state):
    return {cid: c["message"] for cid, c in grade(state).items() if c["status"] != "PASS"}


def test_golden_passes_every_check_with_one_request_per_read(golden_cgoa):
    results = grade(copy.deepcopy(golden_cgoa))
    assert {c["status"] for c in results.values()} == {"PASS"}
    assert len(results) == len(LAB.checks)
    # the GETs, a SubjectAccessReview per question, one TokenReview
    assert golden_cgoa.cluster.requests == len(cluster_reads(golden_cgoa.site)) + len(ACCESS) + 1


def test_nothing_done_fails_every_check_and_errors_none(fake_api):
    results = grade(collect_host(fake_api.world("cgoa-ci/empty.yaml"), "cgoa-ci"))
    assert Counter(c["status"] for c in results.values()) == {"FAIL": len(LAB.checks)}
    assert results["cgoa-ci.1.bare-repo"]["message"].endswith("/srv/bare/ci.git does not exist")
    assert results["cgoa-ci.4.validate-accepts-valid"]["message"] == (
        "validate.sh was not run: validate.sh is missing or not executable")
    assert results["cgoa-ci.5.hook-rejects-typo-on-main"]["message"] == (
        "pre-receive was not run: hooks/pre-receive is missing or not executable")


def test_the_validate_probes_pass_with_what_they_ran(golden_cgoa):
    results = grade(copy.deepcopy(golden_cgoa))
    assert {check: results[f"cgoa-ci.4.{check}"]["message"] for check in (
        "validate-names-kubeconfig", "validate-server-dry-run", "validate-rejects-mixed")} == {
        "validate-names-kubeconfig": "validate.sh accepts a valid Deployment with KUBECONFIG=/tmp/ci-runner/kubeconfig "
                                     "and no ~/.kube, so with the kubeconfig it names itself: exit code 0",
        "validate-server-dry-run": "validate.sh rejects a Deployment whose selector does not match its template's labels "
                                   "(only the API server rejects it: validate on the server, --dry-run=server): exit "
                                   "code 1",
        "validate-rejects-mixed": "validate.sh rejects every folder with one good and one bad manifest (api.yaml + "
                                  "web.yaml, web.yaml + api.yaml, api.yml + web.yaml, api.json + web.yaml): exit codes "
                                  "1, 1, 1, 1"}


# ---------------------------------------------------------------- mutations of the recorded state


def commits(state):
    """The recorded commits oldest first: baseline, broken, revert, bump."""
    return list(reversed(state.repo.order))


def set_web(state, index, text):
    state.repo.history[commits(state)[index]]["deploy/web.yaml"] = text


def web(state, index):
    return state.repo.history[commits(state)[index]]["deploy/web.yaml"]


def evidence(state, name):
    return state.files[name].data


def app(state):
    return state.cluster.snapshot.reads["app"]


def probe(state, group, case, returncode):
    state.probes[group][case]["returncode"] = returncode


def valid_refused(state, with_kubeconfig_env=1, in_workspace=1):
    """validate.sh exited 1 on the valid case; with KUBECONFIG at the CI kubeconfig, `with_kubeconfig_env`;
    run in the workspace, `in_workspace`."""
    probe(state, "validate", "valid", 1)
    runs = state.probes["validate"]
    runs["valid-kubeconfig-env"] = {**runs["valid"], "returncode": with_kubeconfig_env}
    runs["valid-workspace-cwd"] = {**runs["valid"], "returncode": in_workspace}


def kubeconfig_namespace(state, name, namespace):
    state.files[name].data[0]["contexts"][0]["context"]["namespace"] = namespace


def token_with_lifetime(seconds):
    def part(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    return f"{part({'alg': 'RS256'})}.{part({'iat': 1000, 'exp': 1000 + seconds, 'sub': 'x'})}.sig"


SA = "system:serviceaccount"


def whoami(state, username, groups=None):
    """What kubectl auth whoami (in the sandbox) answered for ci-kubeconfig: `username` or refused."""
    if username is None:
        state.probes["whoami"] = {"failed": "error: You must be logged in to the server (Unauthorized)",
                                  "returncode": 1}
    else:
        state.probes["whoami"] = {"username": username, "groups": groups or ["system:serviceaccounts",
                                                                             "system:authenticated"]}


def allow(state, *questions):
    for name in questions:
        state.cluster.snapshot.reads[f"sar_{name}"]["allowed"] = True


def cluster_entry(state):
    return state.files["ci-kubeconfig"].data[0]["clusters"][0]["cluster"]


def mutate_text(state, name, old, new):
    read = state.files[name]
    assert old in read.text
    read.text = read.text.replace(old, new)


MUTATIONS = {
    "baseline image 1.26 (revert restores it too)": (
        lambda s: [set_web(s, i, web(s, i).replace("nginx:1.27-alpine", "nginx:1.26-alpine")) for i in (0, 2)],
        {"cgoa-ci.1.baseline-commit": 'the first commit adding deploy/web.yaml ({sha0}) differs: expected '
         '{{"namespace": null, "replicas": 2, "label app": "web", "containers": ["web"], "image": "nginx:1.27-alpine"}}, '
         'found {{"namespace": null, "replicas": 2, "label app": "web", "containers": ["web"], "image": "nginx:1.26-alpine"}}'}),
    "app.yaml without prune": (
        lambda s: s.files["app.yaml"].data[0]["spec"]["syncPolicy"]["automated"].update(prune=False),
        {"cgoa-ci.1.app-file": "app.yaml: fields differ (field: expected / found): "
         "spec.syncPolicy.automated.prune: true / false"}),
    "live Application in another project": (
        lambda s: app(s)["spec"].update(project="ci"),
        {"cgoa-ci.1.live-app": 'Application ci-web: fields differ (field: expected / found): spec.project: "default" / "ci"'}),
    "broken.json names the baseline commit": (
        lambda s: evidence(s, "broken.json").update(commit=commits(s)[0]),
        {"cgoa-ci.2.broken-commit": 'commit {sha0}: deploy/web.yaml spec.replicas is 2, expected the string "two"'}),
    "broken.json sync_status Synced": (
        lambda s: evidence(s, "broken.json").update(sync_status="Synced"),
        {"cgoa-ci.2.broken-sync-status": 'broken.json sync_status: expected "OutOfSync", found "Synced"'}),
    # Unknown is a server-side diff's answer (issue 18 §5): not possible for an Application that
    # diffs as Argo CD does by default; accepted where the Application asks for a server-side diff.
    "broken.json sync_status Unknown under the default diff": (
        lambda s: evidence(s, "broken.json").update(sync_status="Unknown"),
        {"cgoa-ci.2.broken-sync-status": 'broken.json sync_status: "Unknown" is what a server-side diff reports, and '
         "Application ci-web does not diff on the server (no ServerSideDiff=true in its "
         "argocd.argoproj.io/compare-options): with the default diff Argo CD reports OutOfSync"}),
    "broken.json sync_status Unknown under a server-side diff": (
        lambda s: (evidence(s, "broken.json").update(sync_status="Unknown"),
                   app(s)["metadata"].setdefault("annotations", {}).update(
                       {"argocd.argoproj.io/compare-options": "IgnoreExtraneous, ServerSideDiff=true"})),
        {}),
    "broken.json operation_message made up": (
        lambda s: evidence(s, "broken.json").update(operation_message="sync failed"),
        {"cgoa-ci.2.broken-operation-message": 'broken.json operation_message "sync failed" is not the message of a '
         "failed apply of replicas (status.operationState.message)"}),
    "broken.json live_replicas as a string": (
        lambda s: evidence(s, "broken.json").update(live_replicas="2"),
        {"cgoa-ci.2.broken-live-replicas": 'broken.json live_replicas: the JSON type must be integer, found string ("2")'}),
    "the revert does not restore the parent": (
        lambda s: set_web(s, 2, web(s, 0).replace("replicas: 2", "replicas: 3")),
        {"cgoa-ci.2.revert-commit": "no commit after {sha1} on bare main restores deploy/web.yaml of its parent "
         "(use git revert; do not rewrite history)"}),
    "still retrying the broken commit": (
        lambda s: app(s)["status"]["operationState"].update(
            phase="Running", operation={**app(s)["status"]["operationState"]["operation"],
                                        "sync": {"revision": commits(s)[1]}}),
        {"cgoa-ci.2.no-broken-retry": "the operation of ci-web still retries the broken commit {sha1} (phase "
         "Running); new commits wait until it ends"}),
    "ServiceAccount missing": (
        lambda s: s.cluster.snapshot.reads.update(validator_sa=None),
        {"cgoa-ci.3.service-account": "ServiceAccount ci/validator does not exist",
         "cgoa-ci.3.no-access-prod": "ServiceAccount ci/validator does not exist"}),
    "Role missing": (
        lambda s: s.cluster.snapshot.reads.update(role=None),
        {"cgoa-ci.3.role": "Role ci-dryrun/dryrun-deployments does not exist"}),
    "RoleBinding to another ServiceAccount": (
        lambda s: s.cluster.snapshot.reads["binding"]["subjects"][0].update(namespace="default"),
        {"cgoa-ci.3.role-binding": 'RoleBinding ci-dryrun/validator-dryrun: expected {{"roleRef": {{"kind": "Role", '
         '"name": "dry'}),
    "cannot create in ci-dryrun": (
        lambda s: s.cluster.snapshot.reads["sar_create-dryrun"].update(allowed=False),
        {"cgoa-ci.3.access-dryrun": "the API server's answers for ci:validator differ (question: expected / answer): "
         "create deployments in ci-dryrun: True / False"}),
    "can patch prod": (
        lambda s: s.cluster.snapshot.reads["sar_patch-prod"].update(allowed=True),
        {"cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
         "patch deployments in ci-web: False / True",
         "cgoa-ci.8.ci-can-write-prod": "report.json ci_can_write_prod: expected true, found false"}),
    "ci-kubeconfig namespace default": (
        lambda s: kubeconfig_namespace(s, "ci-kubeconfig", "default"),
        {"cgoa-ci.3.ci-kubeconfig": 'ci-kubeconfig (cluster of k3s / namespace / token): expected {{"server": '
         'true, "CA data": true, "namespace": "ci-dryrun", "token": true}}, found {{"server": true, "CA data": '
         'true, "namespace": "default", "token": true}}'}),
    # The TokenReview status of a token whose ServiceAccount was deleted (observed on the plane):
    # not authenticated, so the message must not say who it is authenticated as; and the reason
    # survives the scrubber, which redacts the word after "bearer". kubectl auth whoami is refused.
    "token of a deleted ServiceAccount": (
        lambda s: [s.cluster.snapshot.reads.update(token_review={
            "user": {}, "error": '[invalid bearer token, serviceaccounts "validator" not found]'}), whoami(s, None)],
        {"cgoa-ci.3.ci-token-identity": 'the API server does not authenticate the token: [invalid token, '
         'serviceaccounts "validator" not found]'}),
    "token refused without a reason": (
        lambda s: [s.cluster.snapshot.reads.update(token_review={"user": {}}), whoami(s, None)],
        {"cgoa-ci.3.ci-token-identity": "the API server does not authenticate the token: no reason given"}),
    "token of another ServiceAccount": (
        lambda s: [s.cluster.snapshot.reads["token_review"]["user"].update(username=f"{SA}:ci:default"),
                   whoami(s, f"{SA}:ci:default")],
        {"cgoa-ci.3.ci-token-identity": 'the API server authenticates the token as "system:serviceaccount:ci:default", '
         'expected "system:serviceaccount:ci:validator"'}),
    # The validator's token with k3s's admin client certificate and key left beside it: kubectl
    # sends both and the API server authenticates the certificate (observed on the plane).
    "admin client certificate beside the token": (
        lambda s: [s.files["ci-kubeconfig"].data[0]["users"][0]["user"].update(
            {"client-certificate-data": "LS0tLS1CRUdJTi", "client-key-data": "LS0tLS1CRUdJTiBFQyBQUklWQVRF"}),
            whoami(s, "system:admin", ["system:masters", "system:authenticated"])],
        {"cgoa-ci.3.ci-token-identity": 'the API server authenticates ci-kubeconfig as a whole as "system:admin" '
         '(groups ["system:masters", "system:authenticated"]), expected "system:serviceaccount:ci:validator": its '
         'user holds ["client-certificate-data", "client-key-data"] beside the token, kubectl sends them all'}),
    "kubectl auth whoami fails with the validator's token": (
        lambda s: s.probes.update(whoami={"failed": "error: exec plugin: invalid apiVersion", "returncode": 1}),
        {"cgoa-ci.3.ci-token-identity": "`kubectl auth whoami --kubeconfig ci-kubeconfig` failed: error: exec "
         "plugin: invalid apiVersion"}),
    "ci-kubeconfig server on another port": (
        lambda s: cluster_entry(s).update(server=cluster_entry(s)["server"].replace("127.0.0.1:", "127.0.0.1:1")),
        {"cgoa-ci.3.ci-kubeconfig": 'ci-kubeconfig (cluster of k3s / namespace / token): expected {{"server": '
         'true, "CA data": true, "namespace": "ci-dryrun", "token": true}}, found {{"server": false'}),
    # RBAC judged by what it grants, not by its shape: none of these flips a check.
    "Role rules split and reordered": (
        lambda s: s.cluster.snapshot.reads["role"].update(rules=[
            {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["patch"]},
            {"apiGroups": ["", "apps"], "resources": ["deployments", "replicasets"], "verbs": ["create", "get"]}]),
        {}),
    "RoleBinding subject as the User the ServiceAccount authenticates as": (
        lambda s: s.cluster.snapshot.reads["binding"].update(subjects=[
            {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": f"{SA}:ci:validator"}]),
        {}),
    "RoleBinding subject as the group of ServiceAccounts of ci": (
        lambda s: s.cluster.snapshot.reads["binding"].update(subjects=[
            {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:serviceaccounts:ci"}]),
        {}),
    "Role rule limited to resourceNames": (
        lambda s: s.cluster.snapshot.reads["role"]["rules"][0].update(resourceNames=["web"]),
        {"cgoa-ci.3.role": 'Role ci-dryrun/dryrun-deployments (what its rules allow on deployments.apps): expected '
         '{{"create": true, "get": true, "patch": true}}, found {{"create": false, "get": false, "patch": false}}'}),
    "Role with verbs *": (
        lambda s: [s.cluster.snapshot.reads["role"]["rules"][0].update(verbs=["*"]), allow(s, "delete-dryrun")],
        {"cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
         "delete deployments in ci-dryrun: False / True"}),
    "Role with resources *": (
        lambda s: [s.cluster.snapshot.reads["role"]["rules"][0].update(resources=["*"]),
                   allow(s, "create-dryrun-pods", "create-dryrun-secrets", "patch-dryrun-configmaps")],
        {"cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
         "create pods in ci-dryrun: False / True; create secrets in ci-dryrun: False / True; patch configmaps in "
         "ci-dryrun: False / True"}),
    "ClusterRoleBinding to cluster-admin": (
        lambda s: allow(s, *(name for name, *_, allowed in ACCESS if not allowed)),
        {"cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
         "delete deployments in ci-dryrun: False / True; create pods in ci-dryrun: False / True",
         "cgoa-ci.8.ci-can-write-prod": "report.json ci_can_write_prod: expected true, found false"}),
    "may impersonate and create ClusterRoleBindings": (
        lambda s: allow(s, "impersonate-users", "create-clusterrolebindings"),
        {"cgoa-ci.3.no-access-prod": "the API server's answers for ci:validator differ (question: expected / answer): "
         "create clusterrolebindings (cluster-scoped): False / True; impersonate users (cluster-scoped): False / True"}),
    "ci-kubeconfig without a token": (
        lambda s: s.files["ci-kubeconfig"].data[0]["users"][0]["user"].pop("token"),
        {"cgoa-ci.3.ci-kubeconfig": 'ci-kubeconfig (cluster of k3s / namespace / token): expected {{"server": true, '
         '"CA data": true, "namespace": "ci-dryrun", "token": true}}, found {{"server": true, "CA data": true, '
         '"namespace": "ci-dryrun", "token": false}}',
         "cgoa-ci.3.ci-token-identity": "{ws}/ci-kubeconfig has no user token in its current context",
         "cgoa-ci.3.ci-token-lifetime": "{ws}/ci-kubeconfig has no user token in its current context"}),
    "token lives one hour": (
        lambda s: s.files["ci-kubeconfig"].data[0]["users"][0]["user"].update(token=token_with_lifetime(3600)),
        {"cgoa-ci.3.ci-token-lifetime": "the token lives 3600 s (exp - iat), expected 28800 s (8 hours)"}),
    "kubeconfig copy in namespace default": (
        lambda s: kubeconfig_namespace(s, "kubeconfig", "default"),
        {"cgoa-ci.3.argocd-kubeconfig": 'kubeconfig (a copy of k3s\'s / namespace): expected {{"server": true, '
         '"CA data": true, "namespace": "argocd"}}, found {{"server": true, "CA data": true, "namespace": '
         '"default"}}'}),
    "validate.sh not executable": (
        lambda s: setattr(s.files["validate.sh"], "executable", False),
        {"cgoa-ci.4.validate-script": "{ws}/validate.sh is not executable (chmod +x)"}),
    "validate.sh works only with KUBECONFIG at the CI kubeconfig": (
        lambda s: valid_refused(s, with_kubeconfig_env=0),
        {"cgoa-ci.4.validate-names-kubeconfig": "validate.sh accepts a valid Deployment only when KUBECONFIG names "
         "{ws}/ci-kubeconfig: with KUBECONFIG=/tmp/ci-runner/kubeconfig it exited with code 1; name the CI "
         "kubeconfig in the script itself (kubectl --kubeconfig {ws}/ci-kubeconfig)",
         "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: "}),
    "validate.sh works only in the workspace": (
        lambda s: valid_refused(s, in_workspace=0),
        {"cgoa-ci.4.validate-names-kubeconfig": "validate.sh accepts a valid Deployment only when it runs in {ws}: run "
         "in /tmp it exited with code 1; name the CI kubeconfig by its absolute path or relative to the script "
         '(`$(dirname "$0")`), not to the working directory (the pre-receive hook runs it in the bare repository)',
         "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: "}),
    "validate.sh refuses a valid Deployment, wherever and whatever KUBECONFIG says": (
        valid_refused,
        {"cgoa-ci.4.validate-names-kubeconfig": "validate.sh accepts a valid Deployment with "
         "KUBECONFIG=/tmp/ci-runner/kubeconfig and no ~/.kube, so with the kubeconfig it names itself, but exited "
         "with code 1: deployment.apps/web created (server dry run)",
         "cgoa-ci.4.validate-accepts-valid": "validate.sh accepts a valid Deployment, but exited with code 1: "
         "deployment.apps/web created (server dry run)"}),
    "validate.sh validates on the client only": (
        lambda s: probe(s, "validate", "server-only", 0),
        {"cgoa-ci.4.validate-server-dry-run": "validate.sh rejects a Deployment whose selector does not match its "
         "template's labels (only the API server rejects it: validate on the server, --dry-run=server), but exited "
         "with code 0: "}),
    "validate.sh accepts replicas: two": (
        lambda s: probe(s, "validate", "string-replicas", 0),
        {"cgoa-ci.4.validate-rejects-string-replicas": "validate.sh rejects replicas: two, but exited with code 0: "}),
    "validate.sh accepts replica:": (
        lambda s: probe(s, "validate", "unknown-field", 0),
        {"cgoa-ci.4.validate-rejects-unknown-field": "validate.sh rejects the misspelled field replica:, but exited "
         "with code 0: "}),
    **{f"validate.sh accepts a bad {bad} beside a good {good}": (
        lambda s, case=case: probe(s, "validate", case, 0),
        {"cgoa-ci.4.validate-rejects-mixed": f"validate.sh rejects a folder with a bad {bad} beside a good {good}, but "
         "exited with code 0: "}) for case, bad, good in MIXED_CASES},
    "validate.sh created a probe object": (
        lambda s: s.cluster.snapshot.reads["dryrun_deployments"].append(
            {"metadata": {"name": "web", "namespace": "ci-dryrun", "creationTimestamp": s.probes["started"]}}),
        {"cgoa-ci.4.validate-created-nothing": 'validate.sh really created or changed ["web"] in ci-dryrun while it '
         'was run (not a dry run)'}),
    "validate.sh patched an object it was given": (
        lambda s: s.cluster.snapshot.reads["dryrun_deployments"].append(
            {"metadata": {"name": "api", "namespace": "ci-dryrun", "creationTimestamp": "2026-01-01T00:00:00Z",
                          "managedFields": [{"manager": "kubectl", "time": s.probes["started"]}]}}),
        {"cgoa-ci.4.validate-created-nothing": 'validate.sh really created or changed ["api"] in ci-dryrun while it '
         'was run (not a dry run)'}),
    "hook not executable": (
        lambda s: setattr(s.files["hooks/pre-receive"], "executable", False),
        {"cgoa-ci.5.hook-file": "{bare}/hooks/pre-receive is not executable (chmod +x)"}),
    "hook lets replica: into main": (
        lambda s: probe(s, "hook", "typo-main", 0),
        {"cgoa-ci.5.hook-rejects-typo-on-main": "pre-receive rejects a push to main with replica:, but exited with "
         "code 0: "}),
    "hook refuses a valid push": (
        lambda s: probe(s, "hook", "valid-main", 1),
        {"cgoa-ci.5.hook-accepts-valid-main": "pre-receive accepts a valid push to main, but exited with code 1: "}),
    "hook lets main be deleted": (
        lambda s: probe(s, "hook", "delete-main", 0),
        {"cgoa-ci.5.hook-rejects-delete-main": "pre-receive rejects deleting main, but exited with code 0: "}),
    "hook blocks other branches": (
        lambda s: probe(s, "hook", "typo-branch", 1),
        {"cgoa-ci.5.hook-accepts-other-branch": "pre-receive accepts a push to another branch, but exited with "
         "code 1: "}),
    "hook blocks deleting another branch": (
        lambda s: probe(s, "hook", "delete-branch", 1),
        {"cgoa-ci.5.hook-accepts-branch-deletion": "pre-receive accepts deleting another branch, but exited with "
         "code 1: "}),
    "hook blocks branch names containing main": (
        lambda s: probe(s, "hook", "typo-main-lookalikes", 1),
        {"cgoa-ci.5.hook-accepts-main-lookalikes": "pre-receive accepts a push with replica: to branches whose names "
         "contain main (mainline, maint, feature/main-fix, hotfix/main), but exited with code 1: "}),
    "hook validates web.yaml only": (
        lambda s: [probe(s, "hook", case, 0) for case in ("typo-main-yml", "typo-main-json")],
        {"cgoa-ci.5.hook-rejects-typo-in-any-manifest": "pre-receive rejects a push to main with replica: in "
         "deploy/api.yml, but exited with code 0: "}),
    "hook validates *.yaml and *.yml only": (
        lambda s: probe(s, "hook", "typo-main-json", 0),
        {"cgoa-ci.5.hook-rejects-typo-in-any-manifest": "pre-receive rejects a push to main with replica: in "
         "deploy/api.json, but exited with code 0: "}),
    "hook reads only the first line of stdin": (
        lambda s: probe(s, "hook", "typo-main-second", 0),
        {"cgoa-ci.5.hook-reads-every-ref": "pre-receive rejects a push of another branch and of main with replica: "
         "at once (main on the second line of stdin), but exited with code 0: "}),
    "hook keeps only the last line of stdin": (
        lambda s: probe(s, "hook", "typo-main-first", 0),
        {"cgoa-ci.5.hook-reads-every-ref": "pre-receive rejects a push of main with replica: and of another branch "
         "at once (main on the first line of stdin), but exited with code 0: "}),
    "blocked.txt without git's lines": (
        lambda s: setattr(s.files["blocked.txt"], "text", "remote: pre-receive: rejected\n"),
        {"cgoa-ci.6.blocked-transcript": "blocked.txt lacks `! [remote rejected] … -> main (pre-receive hook "
         "declined)`: save the whole output of the rejected git push"}),
    "blocked.txt of a rejected deletion of main": (
        lambda s: setattr(s.files["blocked.txt"], "text", "remote: pre-receive: deleting main is not allowed\n"
                          "To /srv/bare/ci.git\n ! [remote rejected] main (pre-receive hook declined)\n"),
        {"cgoa-ci.6.blocked-transcript": "blocked.txt lacks `! [remote rejected] … -> main (pre-receive hook "
         "declined)`: save the whole output of the rejected git push"}),
    "blocked.txt of another branch": (
        lambda s: mutate_text(s, "blocked.txt", "main -> main", "feature -> feature"),
        {"cgoa-ci.6.blocked-transcript": "blocked.txt lacks `! [remote rejected] … -> main (pre-receive hook "
         "declined)`: save the whole output of the rejected git push"}),
    "blocked.txt without the hook's output": (
        lambda s: setattr(s.files["blocked.txt"], "text", "To /srv/bare/ci.git\n ! [remote rejected] main -> main "
                          "(pre-receive hook declined)\n"),
        {"cgoa-ci.6.blocked-transcript": "blocked.txt lacks `remote: …`: save the whole output of the rejected git "
         "push"}),
    "a hook that prints nothing, blocked.txt without remote: lines": (
        lambda s: [s.probes["hook"]["typo-main"].update(output="To /srv/bare/ci.git\n!\tHEAD:refs/heads/main\t"
                                                           "[remote rejected] (pre-receive hook declined)\nDone"),
                   setattr(s.files["blocked.txt"], "text", "To /srv/bare/ci.git\n ! [remote rejected] HEAD -> main "
                           "(pre-receive hook declined)\nerror: failed to push some refs to '/srv/bare/ci.git'\n")],
        {}),
    "replica: reached main": (
        lambda s: set_web(s, 3, web(s, 3).replace("  replicas: 2\n", "  replicas: 2\n  replica: 2\n")),
        {"cgoa-ci.6.no-typo-on-main": 'commits on bare main have a replica: key in deploy/web.yaml: ["{sha3_7}"]'}),
    "clone's main not reset": (
        lambda s: s.clone_refs.update({"refs/heads/main": "0" * 40}),
        {"cgoa-ci.6.clone-reset": "the clone's main differs from origin/main: {{\"main\": \"" + "0" * 40 + "\", "
         "\"origin/main\": \"{sha3}\"}} (git reset --hard origin/main)"}),
    "ci-web Degraded": (
        lambda s: app(s)["status"]["health"].update(status="Degraded"),
        {"cgoa-ci.2.live-at-head": 'Application ci-web is at {{"sync": "Synced", "health": "Degraded", "revision": '
         '"{sha3}", "operation": "Succee...',
         "cgoa-ci.6.live-still-synced": "Application ci-web is Synced / Degraded, expected Synced / Healthy",
         "cgoa-ci.7.live-revision": 'Application ci-web is at {{"sync": "Synced", "health": "Degraded", "revision": '
         '"{sha3}", "operation": "Succee...'}),
    "bump.sh calls kubectl": (
        lambda s: s.probes["bump"].update(calls="kubectl -n ci-web get deploy\n"),
        {"cgoa-ci.7.bump-script": "bump.sh 1.29.1-alpine called kubectl -n ci-web get deploy: CI writes git only, "
         "Argo CD deploys"}),
    "bump.sh pushes another branch": (
        lambda s: s.probes["bump"].update(main=s.probes["bump"]["refs_before"].split()[0],
                                          refs=s.probes["bump"]["refs_before"] + "\n" + "1" * 40 + " refs/heads/bump"),
        {"cgoa-ci.7.bump-script": "bump.sh 1.29.1-alpine left the remote's main where it was and updated "
         "refs/heads/bump: push to main"}),
    "bump commit with another message": (
        lambda s: s.repo.commits[commits(s)[3]].update(subject="bump"),
        {"cgoa-ci.7.bump-commit": 'no commit on bare main has the message "ci: web nginx:1.28-alpine" and image '
         'nginx:1.28-alpine (found: ["bump", "Revert \\"web: replicas two\\"", "web: replicas two", '
         '"deploy web nginx:1.27-alpine"])',
         "cgoa-ci.7.live-revision": 'no commit "ci: web nginx:1.28-alpine" on bare main'}),
    "web still runs 1.27": (
        lambda s: s.cluster.snapshot.reads["web"]["spec"]["template"]["spec"]["containers"][0].update(
            image="nginx:1.27-alpine"),
        {"cgoa-ci.7.live-image": 'Deployment ci-web/web image: expected "nginx:1.28-alpine", found "nginx:1.27-alpine"'}),
    "report: every answer wrong": (
        lambda s: evidence(s, "report.json").update(ci_writes="cluster", cd_writes="git", gate="hook",
                                                    deployed_revision="main", broken_reached_git=False),
        {"cgoa-ci.8.ci-writes": 'report.json ci_writes: expected "git", found "cluster"',
         "cgoa-ci.8.cd-writes": 'report.json cd_writes: expected "cluster", found "git"',
         "cgoa-ci.8.gate": 'report.json gate: expected "pre-receive", found "hook"',
         "cgoa-ci.8.deployed-revision": 'report.json deployed_revision: expected "{sha3}", found "main"',
         "cgoa-ci.8.broken-reached-git": "report.json broken_reached_git: expected true, found false"}),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_each_mistake_fails_exactly_its_checks(state, name):
    mutate, expected = MUTATIONS[name]
    shas = commits(state)
    names = {f"sha{i}": sha[:7] for i, sha in enumerate(shas)}
    names.update({f"sha{i}_7": sha[:7] for i, sha in enumerate(shas)})
    names.update(sha3=shas[3], ws=state.workspace, bare=state.bare_path)
    mutate(state)
    found = failing(state)
    assert sorted(found) == sorted(expected)
    for check_id, message in expected.items():
        assert found[check_id].startswith(message.format(**names)), (check_id, found[check_id])


def test_every_check_is_failed_by_some_mistake():
    failed = {check for _, expected in MUTATIONS.values() for check in expected}
    untested = {c.id for c in LAB.checks} - failed - {"cgoa-ci.1.bare-repo", "cgoa-ci.1.clone-origin"}
    assert untested == set()  # bare-repo and clone-origin: the empty world above


def test_whoami_cut_short_by_the_probe_time_is_the_graders(state):
    state.probes["whoami"] = {"failed": "", "returncode": None, "timed_out": True, "out_of_time": True}
    result = grade(state)["cgoa-ci.3.ci-token-identity"]
    assert result["status"] == "ERROR"
    assert result["message"].startswith("the grader ran out of time for the probes of lab cgoa-ci (")
    assert result["message"].endswith("before it could run kubectl auth whoami to the end")


def test_no_sandbox_for_whoami_is_the_graders(state):
    state.probes["whoami"] = {"error": "the grader does not run as root"}
    result = grade(state)["cgoa-ci.3.ci-token-identity"]
    assert (result["status"], result["message"]) == (
        "ERROR", "the grader cannot run learner programs on this VM: the grader does not run as root")


def drifted(state, self_heal):
    """`kubectl set image` on prod after the bump synced: Argo CD compared (OutOfSync at the same
    revision, the last operation Succeeded there) and, with selfHeal, waits out its backoff."""
    app(state)["spec"]["syncPolicy"]["automated"]["selfHeal"] = self_heal
    app(state)["status"]["sync"]["status"] = "OutOfSync"
    state.cluster.snapshot.reads["web"]["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.29-alpine"


LIVE_DRIFT_CHECKS = ("cgoa-ci.2.live-at-head", "cgoa-ci.6.live-still-synced", "cgoa-ci.7.live-revision",
                     "cgoa-ci.7.live-image")


def test_drift_that_self_heal_will_sync_back_is_pending(state):
    """Observed on the plane (mutations_cgoa_ci.py): after `kubectl set image` Argo CD shows
    OutOfSync / Healthy with the last operation Succeeded for as long as its self-heal backoff
    (17 s, 54 s, 162 s after repeated edits), then syncs the drift back by itself."""
    assert app(state)["status"]["operationState"]["syncResult"]["revision"] == app(state)["status"]["sync"]["revision"]
    drifted(state, self_heal=True)
    results = grade(state)
    assert {cid: c["status"] for cid, c in results.items() if c["status"] != "PASS"} == dict.fromkeys(
        LIVE_DRIFT_CHECKS, "PENDING")
    message = ("Application ci-web is OutOfSync with a live change that selfHeal will sync back after its backoff "
               "(by default at most 5 minutes); not final yet")
    assert {results[cid]["message"] for cid in LIVE_DRIFT_CHECKS} == {message}


def test_drift_without_self_heal_fails(state):
    drifted(state, self_heal=False)
    results = grade(state)
    assert {cid: c["status"] for cid, c in results.items() if c["status"] != "PASS"} == {
        "cgoa-ci.1.live-app": "FAIL", **dict.fromkeys(LIVE_DRIFT_CHECKS, "FAIL")}
    assert results["cgoa-ci.7.live-image"]["message"] == (
        'Deployment ci-web/web image: expected "nginx:1.28-alpine", found "nginx:1.29-alpine"')


def test_drift_after_a_failed_sync_of_that_revision_fails(state):
    """Auto-sync never retries a revision whose last sync failed, selfHeal or not (a SyncError)."""
    drifted(state, self_heal=True)
    app(state)["status"]["operationState"]["phase"] = "Failed"
    assert {c["status"] for cid, c in grade(state).items() if cid in LIVE_DRIFT_CHECKS} == {"FAIL"}


def test_a_wrong_argocd_kubeconfig_is_not_told_to_terminate_an_operation(state):
    """Issue 12: no terminate-op advice unless the app really retries a failed revision. The hint
    says what the file is for (the seed: `argocd --core` reads Argo CD's namespace from it)."""
    kubeconfig_namespace(state, "kubeconfig", "default")
    result = grade(state)["cgoa-ci.3.argocd-kubeconfig"]
    assert result["status"] == "FAIL"
    assert result["hint"] == (
        f"`argocd ... --core` reads Argo CD's namespace from the kubeconfig's current context: copy the k3s "
        f"kubeconfig to {state.workspace}/kubeconfig and run `kubectl config --kubeconfig {state.workspace}/kubeconfig "
        f"set-context --current --namespace=argocd`.")
    assert "terminate-op" not in result["hint"]


def test_live_revision_without_the_bump_commit_hints_at_the_bump(state):
    """The check cannot name a revision to wait for: the advice is the bump, not Argo CD's status."""
    state.repo.commits[commits(state)[3]].update(subject="bump")
    result = grade(state)["cgoa-ci.7.live-revision"]
    assert (result["status"], result["message"]) == ("FAIL", 'no commit "ci: web nginx:1.28-alpine" on bare main')
    assert result["hint"].startswith("bump.sh <tag>: sync the clone with origin/main")


def bump_not_read_yet(state, seconds_after_the_bump):
    """bump.sh pushed the bump commit; Argo CD last compared before it: Synced / Healthy at the
    revert, the last operation Succeeded there, prod still runs nginx:1.27-alpine; graded
    `seconds_after_the_bump` after the bump commit was made."""
    revert, bump = commits(state)[2], commits(state)[3]
    status = app(state)["status"]
    status["sync"]["revision"] = revert
    status["operationState"]["operation"]["sync"]["revision"] = revert
    status["operationState"]["syncResult"]["revision"] = revert
    state.cluster.snapshot.reads["web"]["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27-alpine"
    state.now = state.repo.commits[bump]["time"] + seconds_after_the_bump
    return revert, bump


UNREAD_CHECKS = ("cgoa-ci.2.live-at-head", "cgoa-ci.7.live-revision", "cgoa-ci.7.live-image")


def test_a_bump_argo_cd_has_not_read_yet_is_pending(state):
    """Issue 18 class 6: a commit on bare main that the automated Application has not fetched yet
    is converging, not a FAIL with a hard-refresh hint (before: FAIL revision_behind / app_not_at_head
    / live_values_mismatch). The window is Argo CD's own (checks/argocd.py UNREAD_SECONDS)."""
    revert, bump = bump_not_read_yet(state, 30)
    results = grade(state)
    assert {cid: c["status"] for cid, c in results.items() if c["status"] != "PASS"} == {
        **dict.fromkeys(UNREAD_CHECKS, "PENDING"), "cgoa-ci.8.deployed-revision": "FAIL"}
    message = (f"Application ci-web still compares commit {revert[:7]} of main: {bump[:7]} is 30 s old and Argo CD "
               f"reads a pushed commit within 480 s without a refresh (last compared: "
               f"{app(state)['status']['reconciledAt']}); still syncing")
    assert {results[cid]["message"] for cid in UNREAD_CHECKS} == {message}


@pytest.mark.parametrize("seconds", [500, -120])
def test_a_bump_argo_cd_should_have_read_fails(state, seconds):
    """Past Argo CD's window (or a commit dated in the future: not a fresh push) the Application
    being behind is the learner's to fix."""
    bump_not_read_yet(state, seconds)
    results = grade(state)
    assert {results[cid]["status"] for cid in UNREAD_CHECKS} == {"FAIL"}
    assert results["cgoa-ci.7.live-revision"]["message"].startswith("Application ci-web is at ")


# The checks decided by live truth (the Application, the Deployment, git), whatever the
# learner's evidence files say.
LIVE_CHECKS = ("cgoa-ci.2.live-at-head", "cgoa-ci.2.no-broken-retry", "cgoa-ci.6.live-still-synced",
               "cgoa-ci.7.live-revision", "cgoa-ci.7.live-image", "cgoa-ci.8.broken-reached-git")
SPELLINGS = {"short": lambda sha: sha[:7], "upper case": str.upper, "padded": lambda sha: f" {sha}\n"}


def retrying_the_broken_commit(state):
    app(state)["status"]["operationState"].update(
        phase="Running", operation={**app(state)["status"]["operationState"]["operation"],
                                    "sync": {"revision": commits(state)[1]}})


@pytest.mark.parametrize("world", ["settled", "retrying", "bump not read yet"])
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_live_verdicts_do_not_change_with_how_the_evidence_spells_a_commit(state, world, spelling):
    """Issue 18 class 5: a live verdict never depends on the learner's spelling of a commit in
    broken.json or report.json (before: broken.json's short SHA made broken-reached-git "blocked by
    step 2" although git holds the broken commit on main)."""
    if world == "retrying":
        retrying_the_broken_commit(state)
    elif world == "bump not read yet":
        bump_not_read_yet(state, 30)
    results = grade(state)
    before = {cid: (results[cid]["status"], results[cid]["message"]) for cid in LIVE_CHECKS}
    broken, deployed = evidence(state, "broken.json")["commit"], evidence(state, "report.json")["deployed_revision"]
    evidence(state, "broken.json")["commit"] = SPELLINGS[spelling](broken)
    evidence(state, "report.json")["deployed_revision"] = SPELLINGS[spelling](deployed)
    results = grade(state)
    assert {cid: (results[cid]["status"], results[cid]["message"]) for cid in LIVE_CHECKS} == before
    if world == "retrying":
        assert before["cgoa-ci.2.no-broken-retry"][0] == "FAIL"
