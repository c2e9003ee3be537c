"""Grading a hostile cgoa-ci learner on the real plane changes nothing (issue 16).

A solved learner's programs are replaced by ones that try to write everywhere they can reach:
validate.sh and the pre-receive hook apply without dry-run and create ConfigMaps with every
kubeconfig of the plane they find (the CI identity's, the workspace's admin `kubeconfig`, the k3s
path, $KUBECONFIG, the plane's admin kubeconfig, ~/.kube/config) and append to a file of the real
workspace and of another bare repo; the pre-receive hook also adds a branch to the real bare repo
by its absolute path; a post-receive hook annotates the live Application; an update hook pushes the
pushed branch to the other bare repo; bump.sh does what validate.sh does and moves a branch of the
real bare repo. The lab_grade module grades the learner with the plane's
admin kubeconfig as the grader's. Then every file of the workspace, the bare repo and the other repo,
the lab's live objects and the Application are as before, and the API server's audit log of the
grading holds no write it carried out but the plane's own components', the grader's own reviews
and dry runs (refused attempts, 4xx, changed nothing: listed, not counted).

Controls: a deliberate write by the admin kubeconfig is seen (the log and its reading work), and
grading the solved learner passes the same assertion (the grader's own traffic is excused).

Runs in ci-test's second group, beside the capa-src group: writes to that group's namespaces and
Applications are its own, not this learner's. Afterwards the solved learner is back as it was
(its files, its bare repo, what its programs created), for the test modules after this one.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci import (
    APP,
    DRYRUN_NS,
    PROBE_OBJECTS,
    PROD_NS,
    VALIDATOR,
)
from audit import AuditLog, by_plane, carried_out, describe, is_dry_run, is_write
from labflow import PLAYBOOK_TIMEOUT, REPO_ROOT, Learner, inventory, plane_env, reset, solve, state_digest, tree_digest
from test_argocd_behaviour import BAD_APP, RETRY_APP

pytestmark = pytest.mark.controlplane
LAB = "cgoa-ci"
OTHER_REPO = "ci-notes"  # the learner's other bare repo; no other test module names it
ANNOTATION = "hostile.example/post-receive"
# What ci-test's capa-src group (run at the same time) creates and changes: namespaces and
# Applications of the same names.
CONCURRENT = frozenset({*LABS["capa-src"].owns.namespaces, *LABS["capa-src"].owns.applications, RETRY_APP, BAD_APP})
# The first `argocd ... --core` on a plane (the concurrent group's, if it comes first) writes Argo
# CD's settings: server.secretkey into argocd-secret and the initial admin password.
ARGOCD_SETTINGS = frozenset({"argocd-secret", "argocd-initial-admin-secret"})
REVIEWS = frozenset({"subjectaccessreviews", "tokenreviews"})
LIVE_KINDS = "deployments,replicasets,pods,services,configmaps,secrets,serviceaccounts,roles,rolebindings,jobs"


@pytest.fixture(scope="module")
def solved(plane, tmp_path_factory):
    learner = Learner(plane, LAB, tmp_path_factory.mktemp(LAB))
    cleaned = reset(learner, "-e", f"reset_confirm={LAB}")  # what other tests on this plane left
    assert cleaned.returncode == 0, cleaned.stdout[-3000:]
    solve(learner)
    return learner


# ---------------------------------------------------------------- the hostile programs


def prelude(learner: Learner, other: Path, program: str) -> str:
    """Shell functions of every hostile program: the kubeconfigs it looks for and what it writes."""
    plane, ws = learner.plane, learner.workspace
    server = plane.kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}").stdout.strip()
    q = shlex.quote
    return f"""#!/usr/bin/env bash
# A hostile {program}: writes with every kubeconfig of the plane it finds, into the real workspace
# and another bare repo; it always exits 0, so that every hook after it runs.
KUBECONFIGS=({q(str(ws / "ci-kubeconfig"))} {q(str(ws / "kubeconfig"))} /etc/rancher/k3s/k3s.yaml "${{KUBECONFIG:-}}"
  {q(str(plane.kubeconfig))} "$HOME/.kube/config" /root/.kube/config)
# this plane's API server only: a kubeconfig of another cluster on the machine is left alone
ours() {{
  [ -n "$1" ] && [ -r "$1" ] && [ "$(kubectl --kubeconfig "$1" config view --minify \\
    -o 'jsonpath={{.clusters[0].cluster.server}}' 2>/dev/null)" = {q(server)} ]
}}
k() {{ local kc=$1; shift; kubectl --kubeconfig "$kc" --request-timeout=10s "$@" </dev/null 2>&1 | tail -n 2; }}
write_everywhere() {{ # write_everywhere [manifest dir]
  local kc n=0
  for kc in "${{KUBECONFIGS[@]}}"; do
    n=$((n + 1))
    ours "$kc" || continue
    [ -z "${{1:-}}" ] || k "$kc" -n {DRYRUN_NS} apply -f "$1"
    k "$kc" -n {PROD_NS} create configmap "hostile-{program}-$n" --from-literal=kubeconfig="$kc"
  done
  date +%s%N >>{q(str(ws / f"hostile-{program}"))}
  date +%s%N >>{q(str(other / f"hostile-{program}"))}
}}
"""


def validate_sh(learner, other):
    return prelude(learner, other, "validate") + 'write_everywhere "${1:-}"\nexit 0\n'


def pre_receive(learner, other):
    real = shlex.quote(str(learner.bare))
    return prelude(learner, other, "pre-receive") + f"""zero=0000000000000000000000000000000000000000
while read -r old new ref; do
  if [ "$new" = "$zero" ]; then write_everywhere; continue; fi
  tmp=$(mktemp -d)
  git archive "$new" deploy | tar -x -C "$tmp"
  write_everywhere "$tmp/deploy"
  rm -rf "$tmp"
done
# the real bare repo, by its absolute path, outside the quarantine of this push
real() {{
  env -u GIT_DIR -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES \\
    git --git-dir={real} "$@"
}}
real update-ref refs/heads/hostile-pre-receive "$(real rev-parse refs/heads/main)" 2>&1
exit 0
"""


def post_receive(learner, other):
    return prelude(learner, other, "post-receive") + f"""cat >/dev/null
for kc in "${{KUBECONFIGS[@]}}"; do
  ours "$kc" && k "$kc" -n argocd annotate applications.argoproj.io {APP} "{ANNOTATION}=$(date +%s%N)" --overwrite
done
exit 0
"""


def bump_sh(learner, other):
    """bump.sh as the bump probe runs it (no network, a clone of a copy): it writes everywhere it
    can and moves a branch of the real bare repo by its absolute path."""
    real = shlex.quote(str(learner.bare))
    return prelude(learner, other, "bump") + f"""write_everywhere
git --git-dir={real} update-ref refs/heads/hostile-bump "$(git --git-dir={real} rev-parse refs/heads/main)" 2>&1
exit 0
"""


def update_hook(learner, other):
    return f"""#!/usr/bin/env bash
# A hostile update hook: the pushed branch goes to another bare repo too.
[ "$3" = 0000000000000000000000000000000000000000 ] ||
  git push -q {shlex.quote(str(other))} "$3:refs/heads/from-update-${{1##*/}}" 2>&1
exit 0
"""


def other_repo(plane) -> Path:
    """The learner's other bare repo, with one commit on main."""
    path = plane.bare_root / f"{OTHER_REPO}.git"
    shutil.rmtree(path, ignore_errors=True)
    plane.run(["git", "init", "--bare", "-q", "-b", "main", str(path)])
    tree = plane.git(path, "hash-object", "-w", "-t", "tree", "/dev/null")
    plane.git(path, "update-ref", "refs/heads/main", plane.git(path, "commit-tree", tree, "-m", "notes"))
    return path


# ---------------------------------------------------------------- what grading must not change


def live(learner: Learner) -> dict[str, object]:
    """uid, resourceVersion and generation of the lab's namespaces and of what is in them, and the
    Application's identity, metadata and spec. Not its resourceVersion nor its generation: both move
    with Argo CD's own status writes (the Application CRD has `subresources: {}`, so the API server
    counts a status change as a generation; seen on the plane: 26 -> 27 during a grading with no
    write but the controller's)."""
    plane, found = learner.plane, {}
    for namespace in LABS[LAB].owns.namespaces:
        meta = plane.get("namespace", namespace)["metadata"]
        found[f"Namespace/{namespace}"] = (meta["uid"], meta["resourceVersion"])
        for item in json.loads(plane.kubectl("get", LIVE_KINDS, "-n", namespace, "-o", "json").stdout)["items"]:
            meta = item["metadata"]
            found[f"{item['kind']}/{namespace}/{meta['name']}"] = (meta["uid"], meta["resourceVersion"],
                                                                  meta.get("generation"))
    app = plane.app(APP)
    meta = app["metadata"]
    found[f"Application/{APP}"] = {"uid": meta["uid"],
                                   "labels": meta.get("labels") or {}, "annotations": meta.get("annotations") or {},
                                   "spec": app["spec"]}
    return found


def lab_state(learner: Learner) -> dict:
    """The workspace's and bare repo's files and modes (labflow.state_digest; its objects are in
    `live`, with their resourceVersions) and the live objects."""
    files = state_digest(learner)
    return {"workspace": files["workspace"], "bare": files["bare"], "live": live(learner)}


def tally(lines) -> list[str]:
    """Each distinct line once, with how often it came when more than once."""
    return [line if count == 1 else f"{line} (x{count})" for line, count in Counter(lines).items()]


def differences(before, after, where=()) -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        return [line for key in sorted(before.keys() | after.keys())
                for line in differences(before.get(key, "(absent)"), after.get(key, "(absent)"), (*where, key))]
    return [] if before == after else [f"{'/'.join(where)}: {before} -> {after}"]


# ---------------------------------------------------------------- the audit log's verdict


def own_namespace_write(ev) -> bool:
    """A write of the CI identity where its Role lets it write (Deployments in ci-dryrun): the
    sandbox gives learner code that credential and no other, by design (docs/sandbox.md), so a
    script that applies without --dry-run does write there. It is the learner's own doing with the
    learner's own grant, and validate-created-nothing FAILs it; nothing else may be written."""
    return ev["user"] == VALIDATOR and ev["namespace"] == DRYRUN_NS and ev["resource"] == "deployments"


def offending(events, grader: str) -> list[dict]:
    """Writes the API server carried out that are not the plane's own, the grader's reviews, dry
    runs, the CI identity's in its own namespace, the concurrent capa-src group's or Argo CD's
    settings."""
    def excused(ev):
        return (by_plane(ev) or is_dry_run(ev) or own_namespace_write(ev)
                or (ev["verb"] == "create" and ev["resource"] in REVIEWS and ev["user"] == grader
                    and ev["userAgent"].startswith("labgrader"))
                # step 3's `kubectl auth whoami` with ci-kubeconfig, as whoever that file is: a
                # SelfSubjectReview is answered and never stored (its REST storage only implements
                # Create: pkg/registry/authentication/selfsubjectreview/rest.go)
                or (ev["verb"] == "create" and ev["resource"] == "selfsubjectreviews")
                or (ev["resource"] == "namespaces" and ev["name"] in CONCURRENT)
                or ev["namespace"] in CONCURRENT
                or (ev["resource"] == "applications" and ev["name"] in CONCURRENT)
                or (ev["namespace"] == "argocd" and ev["resource"] == "secrets" and ev["name"] in ARGOCD_SETTINGS
                    and ev["userAgent"].startswith("argocd/")))
    return [ev for ev in events if is_write(ev) and carried_out(ev) and not excused(ev)]


def test_the_audit_log_shows_a_write_by_the_admin_kubeconfig(plane):
    """The positive control: what the hostile test asserts on sees a deliberate write."""
    audit = AuditLog(plane)
    name = f"lab-audit-control-{secrets.token_hex(4)}"
    start = audit.mark()
    plane.kubectl("-n", "default", "create", "configmap", name)
    plane.kubectl("-n", "default", "delete", "configmap", name)
    end = audit.mark()
    seen = [(ev["verb"], ev["resource"], ev["namespace"], ev["name"], ev["code"], ev["user"])
            for ev in offending(audit.between(start, end), start.user) if ev["name"] == name]
    assert seen == [("create", "configmaps", "default", name, 201, start.user),
                    ("delete", "configmaps", "default", name, 200, start.user)]


def test_the_audit_window_reads_across_a_rotation(tmp_path):
    """Between two markers: what was received after the first and before the second, also when the
    log was rotated in between; a watch logged twice counts once."""
    logs = tmp_path / "logs"
    logs.mkdir()
    clock = iter(range(10, 99))

    def line(uri, audit_id, stage="ResponseComplete", verb="create"):
        with (logs / "audit.log").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"auditID": audit_id, "stage": stage, "verb": verb, "requestURI": uri,
                                     "user": {"username": "lab-admin"}, "userAgent": "kubectl/v1.36.1",
                                     "requestReceivedTimestamp": f"2026-12-02T01:00:{next(clock)}.000000Z"}) + "\n")

    class Logged:  # the API server of this test: a GET is logged as it is answered
        root = tmp_path

        def kubectl(self, verb, raw, uri, check):
            line(f"{uri}?timeout=30s", uri, verb=verb)

    line("/before", "a")
    audit = AuditLog(Logged())
    start = audit.mark()
    line("/inside-1", "b")
    (logs / "audit.log").rename(logs / "audit-2026-12-02T01-00-30.000.log")
    line("/watch", "c", stage="ResponseStarted", verb="watch")
    line("/watch", "c", verb="watch")
    end = audit.mark()
    line("/after", "d")
    assert [(ev["requestURI"], ev["verb"]) for ev in audit.between(start, end)] == [("/inside-1", "create"),
                                                                                   ("/watch", "watch")]


# ---------------------------------------------------------------- the hostile learner


@contextlib.contextmanager
def hostile(learner: Learner, keep: Path):
    """The solved learner with hostile programs and another bare repo, for the duration; then the
    workspace and bare repo come back from a copy, and what the programs created goes."""
    plane = learner.plane
    shutil.copytree(learner.workspace, keep / "workspace", symlinks=True)
    shutil.copytree(learner.bare, keep / "bare", symlinks=True)
    objects = live(learner)
    other = other_repo(plane)
    programs = {learner.workspace / "validate.sh": validate_sh, learner.bare / "hooks" / "pre-receive": pre_receive,
                learner.bare / "hooks" / "update": update_hook, learner.bare / "hooks" / "post-receive": post_receive,
                learner.workspace / "bump.sh": bump_sh}
    try:
        for path, text in programs.items():
            path.write_text(text(learner, other), encoding="utf-8")
            path.chmod(0o755)
        yield other
    finally:
        for saved, target in ((keep / "workspace", learner.workspace), (keep / "bare", learner.bare)):
            shutil.rmtree(target)
            shutil.copytree(saved, target, symlinks=True)
        shutil.rmtree(other)
        plane.kubectl("-n", "argocd", "annotate", "applications.argoproj.io", APP, f"{ANNOTATION}-", check=False)
        created = {}
        for key in live(learner).keys() - objects.keys():
            kind, namespace, name = key.split("/", 2)  # namespaces and Applications do not come and go
            created.setdefault(namespace, []).append(f"{kind.lower()}/{name}")
        for namespace, names in created.items():
            plane.kubectl("-n", namespace, "delete", *names, "--ignore-not-found", "--cascade=foreground",
                          "--timeout=90s", timeout=120)


def grade_module(learner: Learner) -> dict:
    """The lab_grade module, run by ansible as grade.yml runs it (its process, its environment),
    with the plane's admin kubeconfig as the grader's and grade.yml's settle defaults. The health
    gate is off: it looks for Argo CD's StatefulSet and Deployments, and the plane runs Argo CD as
    host processes (docs/control-plane.md)."""
    plane = learner.plane
    args = {"labs": [LAB], "health": False, "kubeconfig": str(plane.kubeconfig), "k3s_kubeconfig": str(plane.kubeconfig),
            "bare_root": str(plane.bare_root), "workspace_root": str(learner.root / "root"),
            "settle_timeout": 30, "poll_interval": 5}
    done = subprocess.run([str(Path(sys.executable).with_name("ansible")), "-i", str(inventory(learner)), "learner",
                           "--one-line", "-m", "lab_grade", "-a", json.dumps(args)], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=PLAYBOOK_TIMEOUT, env=plane_env(plane))
    host, _, result = done.stdout.partition(" => ")
    assert done.returncode == 0 and "SUCCESS" in host, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(result)


def grading_effects(learner: Learner, state) -> tuple[list[str], list[str]]:
    """Grade the learner once; (what grading changed in `state()` and wrote in the cluster, the
    same with the refused write attempts added: an assertion message). What the CI identity
    wrote in its own namespace is left out of both (own_namespace_write) when the grade names it:
    validate-created-nothing FAILs with those objects."""
    audit = AuditLog(learner.plane)
    before = state()
    start = audit.mark()
    graded = grade_module(learner)
    end = audit.mark()
    changed = differences(before, state())
    events = audit.between(start, end)
    writes = offending(events, start.user)
    own = sorted({ev["name"] for ev in events if own_namespace_write(ev) and carried_out(ev) and not is_dry_run(ev)})
    if own:
        created = next(c for lab in graded["labs"].values() for step in lab["steps"] for c in step["checks"]
                       if c["check"] == "cgoa-ci.4.validate-created-nothing")
        assert created["status"] == "FAIL" and set(own) <= set(PROBE_OBJECTS), (own, created)
        changed = [line for line in changed if not any(
            line.startswith(f"live/{kind}/{DRYRUN_NS}/{name}") for kind in ("Deployment", "ReplicaSet", "Pod")
            for name in own)]
    refused = [ev for ev in events if is_write(ev) and not carried_out(ev) and not by_plane(ev)]
    print(f"\ngrading: {len(events)} API requests, {len(writes)} offending writes, {len(refused)} refused; "
          f"grades: {json.dumps([lab['summary'] for lab in graded['labs'].values()])}")
    for check in (c for lab in graded["labs"].values() for step in lab["steps"] for c in step["checks"]):
        if check["status"] != "PASS":
            print(f"  {check['check']}: {check['status']} {check['message'][:300]!r}")
    found = [*changed, *tally(map(describe, writes))]
    return found, ["changed by grading:", *changed,
                   "writes the API server carried out during grading:", *tally(map(describe, writes)),
                   "refused write attempts (changed nothing):", *tally(map(describe, refused))]


def test_grading_the_solved_learner_changes_nothing(solved):
    """The negative control: the grader's own requests and the plane's background pass the
    hostile test's assertion, so what fails it is the learner's programs."""
    found, report = grading_effects(solved, lambda: lab_state(solved))
    assert not found, "\n".join(report)


def test_grading_a_hostile_learner_changes_nothing(solved, tmp_path):
    learner = solved
    solved_state = lab_state(learner)
    with hostile(learner, tmp_path) as other:
        found, report = grading_effects(learner, lambda: {**lab_state(learner), "other repo": tree_digest(other)})
    restored = differences(solved_state, lab_state(learner)) + ([f"{other} is still there"] if other.exists() else [])
    assert not (found or restored), "\n".join([*report, "not restored afterwards:", *restored])
