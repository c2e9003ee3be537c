"""Lab cgoa-ci performed on the real control plane the way a learner follows the lab text
(shared/labs/cgoa-ci.md, shared/seeds/cgoa-ci.ja.txt): git in the workspace, pushes to the bare
repo served by gitd, kubectl apply, bounded waits on Argo CD, evidence written from what was
observed (never constants), terminate-op only when the broken commit is still being retried.

`solve(plane, root)` lays the learner's /root/cgoa-ci under `root` (the scripts name their real
paths there) and returns what the grader needs to find it (Site arguments).
"""

from __future__ import annotations

import base64
import json
import shutil
import time
from pathlib import Path

import yaml
from cpharness import Plane, wait_until

APP = "ci-web"
GIT_URL = "git://gitd.gitsrv.svc.cluster.local:9418/ci.git"


def web_yaml(replicas="2", image="nginx:1.27-alpine", replicas_key="replicas"):
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\n"
            f"spec:\n  {replicas_key}: {replicas}\n  selector:\n    matchLabels:\n      app: web\n"
            f"  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n"
            f"        - name: web\n          image: {image}\n")


APP_YAML = f"""apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {APP}
  namespace: argocd
spec:
  project: default
  source:
    repoURL: {GIT_URL}
    targetRevision: main
    path: deploy
  destination:
    server: https://kubernetes.default.svc
    namespace: ci-web
  syncPolicy:
    automated:
      prune: true
      selfHeal: true
    syncOptions:
      - CreateNamespace=true
"""

RBAC_YAML = """apiVersion: v1
kind: Namespace
metadata: {name: ci}
---
apiVersion: v1
kind: Namespace
metadata: {name: ci-dryrun}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: validator, namespace: ci}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: dryrun-deployments, namespace: ci-dryrun}
rules:
  - apiGroups: [apps]
    resources: [deployments]
    verbs: [get, create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: validator-dryrun, namespace: ci-dryrun}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: dryrun-deployments}
subjects:
  - {kind: ServiceAccount, name: validator, namespace: ci}
"""


def validate_sh(workspace):
    return f"""#!/usr/bin/env bash
# validate.sh <dir>: server-side dry-run of every manifest in <dir> as ci:validator.
set -euo pipefail
dir=${{1:?usage: validate.sh <dir>}}
kubectl --kubeconfig {workspace}/ci-kubeconfig -n ci-dryrun apply --dry-run=server -f "$dir"
"""


def pre_receive(workspace):
    return f"""#!/usr/bin/env bash
# Validate the new commit's deploy/ before main moves; never let main be deleted.
set -uo pipefail
zero=0000000000000000000000000000000000000000
status=0
while read -r old new ref; do
  [ "$ref" = refs/heads/main ] || continue
  if [ "$new" = "$zero" ]; then
    echo "pre-receive: deleting main is not allowed"
    status=1
    continue
  fi
  tmp=$(mktemp -d)
  git archive "$new" deploy | tar -x -C "$tmp"
  if ! {workspace}/validate.sh "$tmp/deploy"; then
    echo "pre-receive: deploy/ of $new does not validate"
    status=1
  fi
  rm -rf "$tmp"
done
exit $status
"""


def bump_sh(workspace):
    return f"""#!/usr/bin/env bash
# bump.sh <tag>: CI changes git only; Argo CD deploys it.
set -euo pipefail
tag=${{1:?usage: bump.sh <tag>}}
cd {workspace}/repo
git fetch -q origin
git reset -q --hard origin/main
sed -i "s#image: nginx:.*#image: nginx:$tag#" deploy/web.yaml
git commit -q -am "ci: web nginx:$tag"
git push -q origin main
"""


class Learner:
    """One learner's VM layout on the plane: the workspace under `root`, the bare repo ci.git."""

    def __init__(self, plane: Plane, root: Path):
        self.plane = plane
        self.root = root
        self.workspace = root / "root" / "cgoa-ci"
        self.clone = self.workspace / "repo"
        self.bare = plane.bare_root / "ci.git"

    def write(self, name: str, text: str, mode: int = 0o644) -> None:
        path = self.workspace / name
        path.write_text(text, encoding="utf-8")
        path.chmod(mode)

    def git(self, *args: str, check: bool = True):
        env = {"GIT_AUTHOR_NAME": "learner", "GIT_AUTHOR_EMAIL": "learner@lab.invalid",
               "GIT_COMMITTER_NAME": "learner", "GIT_COMMITTER_EMAIL": "learner@lab.invalid"}
        return self.plane.run(["git", "-C", str(self.clone), *args], env=env, check=check, timeout=120)

    def commit_push(self, text: str, message: str) -> str:
        (self.clone / "deploy").mkdir(parents=True, exist_ok=True)
        (self.clone / "deploy" / "web.yaml").write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        self.git("push", "-q", "origin", "main")
        return self.git("rev-parse", "HEAD").stdout.strip()

    def wait_app(self, desc, pred, timeout=240):
        return self.plane.wait_app(APP, pred, desc, timeout)


def status(app):
    return app.get("status", {})


def start_over(plane: Plane) -> None:
    """What an earlier run left: the Application, the lab's namespaces."""
    plane.kubectl("delete", "applications.argoproj.io", APP, "-n", "argocd", "--ignore-not-found", "--wait=true",
                  timeout=120)
    plane.kubectl("delete", "namespace", "ci-web", "ci", "ci-dryrun", "--ignore-not-found", "--wait=true",
                  timeout=180)


def step1(learner: Learner) -> str:
    plane = learner.plane
    start_over(plane)
    shutil.rmtree(learner.bare, ignore_errors=True)
    shutil.rmtree(learner.workspace, ignore_errors=True)
    learner.workspace.mkdir(parents=True)
    plane.run(["git", "init", "--bare", "-q", "-b", "main", str(learner.bare)])
    plane.run(["git", "clone", "-q", str(learner.bare), str(learner.clone)])
    learner.git("checkout", "-q", "-B", "main")
    head = learner.commit_push(web_yaml(), "deploy web nginx:1.27-alpine")
    learner.write("app.yaml", APP_YAML)
    plane.kubectl("apply", "-f", str(learner.workspace / "app.yaml"))
    plane.wait_synced_healthy(APP, head, timeout=240)
    return head


def step2(learner: Learner) -> dict:
    plane = learner.plane
    broken = learner.commit_push(web_yaml(replicas="two"), "web: replicas two")
    plane.hard_refresh(APP)
    app = learner.wait_app("the broken commit's apply fails", lambda a: (
        status(a).get("operationState", {}).get("operation", {}).get("sync", {}).get("revision") == broken
        and "failed to apply" in (status(a).get("operationState", {}).get("message") or "")))
    time.sleep(2)  # the lab text reads the state about 20 s after the refresh; the failure is already visible
    app = plane.app(APP)
    live = plane.get("deployment", "web", "ci-web")
    evidence = {"commit": broken, "sync_status": status(app)["sync"]["status"],
                "operation_message": status(app)["operationState"]["message"],
                "live_replicas": live["spec"]["replicas"]}
    learner.write("broken.json", json.dumps(evidence, indent=2) + "\n")
    learner.git("revert", "--no-edit", broken)
    learner.git("push", "-q", "origin", "main")
    reverted = learner.git("rev-parse", "HEAD").stdout.strip()
    learner.write("kubeconfig", plane.kubeconfig_argocd.read_text(encoding="utf-8"), 0o600)
    op = status(plane.app(APP)).get("operationState", {})
    if op.get("phase") == "Running" and op.get("operation", {}).get("sync", {}).get("revision") == broken:
        proc = plane.run([str(plane.bin_dir / "argocd"), "app", "terminate-op", APP, "--core"], check=False,
                         timeout=120, env={"KUBECONFIG": str(learner.workspace / "kubeconfig"),
                                           "HOME": str(plane.work)})
        assert proc.returncode == 0, proc.stderr
    plane.hard_refresh(APP)
    # The revert restores what is live, so there is nothing to apply: Argo CD only moves
    # status.sync.revision; the last operation stays the broken commit's (Failed, terminated).
    learner.wait_app("Synced/Healthy at the revert, no operation running", lambda a: (
        status(a).get("sync", {}).get("status") == "Synced" and status(a)["sync"].get("revision") == reverted
        and status(a).get("health", {}).get("status") == "Healthy"
        and status(a).get("operationState", {}).get("phase") not in ("Running", "Terminating")), timeout=300)
    return evidence


def admin_ca_pem(plane: Plane) -> bytes:
    config = yaml.safe_load(plane.kubeconfig.read_text(encoding="utf-8"))
    cluster = config["clusters"][0]["cluster"]
    if "certificate-authority-data" in cluster:
        return base64.b64decode(cluster["certificate-authority-data"])
    return Path(cluster["certificate-authority"]).read_bytes()


def step3(learner: Learner, duration="8h") -> None:
    plane = learner.plane
    plane.kubectl("apply", "-f", "-", input_text=RBAC_YAML)
    token = plane.kubectl("create", "token", "validator", "-n", "ci", f"--duration={duration}").stdout.strip()
    server = yaml.safe_load(plane.kubeconfig.read_text(encoding="utf-8"))["clusters"][0]["cluster"]["server"]
    ca = learner.root / "ca.crt"
    ca.write_bytes(admin_ca_pem(plane))
    target = str(learner.workspace / "ci-kubeconfig")
    for args in (["set-cluster", "lab", f"--server={server}", f"--certificate-authority={ca}", "--embed-certs"],
                 ["set-credentials", "validator", f"--token={token}"],
                 ["set-context", "ci", "--cluster=lab", "--user=validator", "--namespace=ci-dryrun"],
                 ["use-context", "ci"]):
        plane.run([str(plane.bin_dir / "kubectl"), "config", "--kubeconfig", target, *args])
    (learner.workspace / "ci-kubeconfig").chmod(0o600)


def step4_5(learner: Learner) -> None:
    learner.write("validate.sh", validate_sh(learner.workspace), 0o755)
    hook = learner.bare / "hooks" / "pre-receive"
    hook.write_text(pre_receive(learner.workspace), encoding="utf-8")
    hook.chmod(0o755)


def step6(learner: Learner) -> None:
    (learner.clone / "deploy" / "web.yaml").write_text(web_yaml(replicas_key="replica"), encoding="utf-8")
    learner.git("commit", "-q", "-am", "web: typo")
    pushed = learner.git("push", "origin", "main", check=False)
    assert pushed.returncode != 0, pushed.stderr
    learner.write("blocked.txt", pushed.stdout + pushed.stderr)
    learner.git("reset", "-q", "--hard", "origin/main")


def step7(learner: Learner) -> str:
    learner.write("bump.sh", bump_sh(learner.workspace), 0o755)
    learner.plane.run([str(learner.workspace / "bump.sh"), "1.28-alpine"], timeout=180,
                      env={"GIT_AUTHOR_NAME": "learner", "GIT_AUTHOR_EMAIL": "learner@lab.invalid",
                           "GIT_COMMITTER_NAME": "learner", "GIT_COMMITTER_EMAIL": "learner@lab.invalid"})
    head = learner.git("rev-parse", "HEAD").stdout.strip()
    learner.plane.hard_refresh(APP)
    learner.plane.wait_synced_healthy(APP, head, timeout=300)
    wait_until("web runs nginx:1.28-alpine", lambda: learner.plane.get("deployment", "web", "ci-web")["spec"]["template"]
               ["spec"]["containers"][0]["image"] == "nginx:1.28-alpine", 120)
    return head


def step8(learner: Learner, evidence: dict) -> None:
    plane = learner.plane
    can = plane.kubectl("auth", "can-i", "patch", "deployments.apps", "-n", "ci-web", "--as",
                        "system:serviceaccount:ci:validator", check=False).stdout.strip()
    reached = plane.run(["git", "-C", str(learner.bare), "merge-base", "--is-ancestor", evidence["commit"], "main"],
                        check=False).returncode == 0
    report = {"ci_writes": "git", "cd_writes": "cluster", "ci_can_write_prod": can == "yes", "gate": "pre-receive",
              "deployed_revision": status(plane.app(APP))["sync"]["revision"], "broken_reached_git": reached}
    learner.write("report.json", json.dumps(report, indent=2) + "\n")


def solve(plane: Plane, root: Path) -> Learner:
    learner = Learner(plane, root)
    step1(learner)
    evidence = step2(learner)
    step3(learner)
    step4_5(learner)
    step6(learner)
    step7(learner)
    step8(learner, evidence)
    return learner
