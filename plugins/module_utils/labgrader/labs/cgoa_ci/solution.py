"""Reference solution of cgoa-ci (shared/labs/cgoa-ci.md, shared/seeds/cgoa-ci.ja.txt), performed as
a learner follows the lab text: git in /root/cgoa-ci/repo pushed to /srv/bare/ci.git, kubectl
apply, bounded waits on Argo CD, evidence written from what was observed, terminate-op only
when the broken commit is still being retried."""

from __future__ import annotations

import base64
import os

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.machine import SolveError

APP = "ci-web"
TOKEN_DURATION = "8h"


def web_yaml(replicas="2", image="nginx:1.27-alpine", replicas_key="replicas"):
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\n"
            f"spec:\n  {replicas_key}: {replicas}\n  selector:\n    matchLabels:\n      app: web\n"
            f"  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n"
            f"        - name: web\n          image: {image}\n")


def app_yaml(ws):
    return yaml.safe_dump({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": APP, "namespace": ws.machine.site.argocd_namespace},
        "spec": {"project": "default",
                 "source": {"repoURL": ws.repo_url, "targetRevision": "main", "path": "deploy"},
                 "destination": {"server": "https://kubernetes.default.svc", "namespace": "ci-web"},
                 "syncPolicy": {"automated": {"prune": True, "selfHeal": True},
                                "syncOptions": ["CreateNamespace=true"]}}}, sort_keys=False)


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


def validate_sh(ws):
    return f"""#!/usr/bin/env bash
# validate.sh <dir>: server-side dry-run of every manifest in <dir> as ci:validator.
set -euo pipefail
dir=${{1:?usage: validate.sh <dir>}}
kubectl --kubeconfig {ws.file("ci-kubeconfig")} -n ci-dryrun apply --dry-run=server -f "$dir"
"""


def pre_receive(ws):
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
  if ! {ws.file("validate.sh")} "$tmp/deploy"; then
    echo "pre-receive: deploy/ of $new does not validate"
    status=1
  fi
  rm -rf "$tmp"
done
exit $status
"""


def bump_sh(ws):
    return f"""#!/usr/bin/env bash
# bump.sh <tag>: CI changes git only; Argo CD deploys it.
set -euo pipefail
tag=${{1:?usage: bump.sh <tag>}}
cd {ws.clone}
git fetch -q origin
git reset -q --hard origin/main
sed -i "s#image: nginx:.*#image: nginx:$tag#" deploy/web.yaml
git commit -q -am "ci: web nginx:$tag"
git push -q origin main
"""


def status(app):
    return app.get("status", {})


def operation(app):
    return status(app).get("operationState", {})


def step1(m, ws):
    ws.init_repo()
    head = ws.commit_push({"deploy/web.yaml": web_yaml()}, "deploy web nginx:1.27-alpine")
    ws.write("app.yaml", app_yaml(ws))
    m.apply(ws.file("app.yaml"))
    m.wait_synced_healthy(APP, head)


def step2(m, ws):
    broken = ws.commit_push({"deploy/web.yaml": web_yaml(replicas="two")}, "web: replicas two")
    m.hard_refresh(APP)
    m.wait_app(APP, lambda app: operation(app).get("operation", {}).get("sync", {}).get("revision") == broken
               and "failed to apply" in (operation(app).get("message") or ""), "the broken commit's apply fails")
    app = m.app(APP)
    ws.write_json("broken.json", {"commit": broken, "sync_status": status(app)["sync"]["status"],
                                  "operation_message": operation(app)["message"],
                                  "live_replicas": m.get("deployment", "web", "ci-web")["spec"]["replicas"]})
    ws.git("revert", "--no-edit", broken)
    ws.git("push", "-q", "origin", "main")
    reverted = ws.head()
    m.write_argocd_kubeconfig(ws.file("kubeconfig"))
    current = operation(m.app(APP))
    if current.get("phase") == "Running" and current.get("operation", {}).get("sync", {}).get("revision") == broken:
        m.terminate_operation(APP)
    m.hard_refresh(APP)
    # The revert restores what is live, so there is nothing to apply: Argo CD only moves
    # status.sync.revision; the last operation stays the broken commit's (Failed, terminated).
    m.wait_app(APP, lambda app: status(app).get("sync", {}).get("status") == "Synced"
               and status(app)["sync"].get("revision") == reverted
               and status(app).get("health", {}).get("status") == "Healthy"
               and operation(app).get("phase") not in ("Running", "Terminating"),
               "Synced/Healthy at the revert, no operation running")


def cluster_ca(m):
    """The admin kubeconfig's server and CA (PEM bytes), as `kubectl config view --flatten` gives them."""
    config = yaml.safe_load(m.kubectl("config", "view", "--raw", "--flatten", "--minify").stdout)
    cluster = config["clusters"][0]["cluster"]
    if "certificate-authority-data" not in cluster:
        raise SolveError("the admin kubeconfig names no certificate authority")
    return cluster["server"], base64.b64decode(cluster["certificate-authority-data"])


def step3(m, ws):
    m.kubectl("apply", "-f", "-", input_text=RBAC_YAML)
    token = m.kubectl("create", "token", "validator", "-n", "ci", f"--duration={TOKEN_DURATION}").stdout.strip()
    server, ca = cluster_ca(m)
    ca_file = ws.file("ca.crt")
    with open(ca_file, "wb") as handle:
        handle.write(ca)
    target = ws.file("ci-kubeconfig")
    try:
        for args in (["set-cluster", "lab", f"--server={server}", f"--certificate-authority={ca_file}", "--embed-certs"],
                     ["set-credentials", "validator", f"--token={token}"],
                     ["set-context", "ci", "--cluster=lab", "--user=validator", "--namespace=ci-dryrun"],
                     ["use-context", "ci"]):
            m.run([*m.kubectl_argv, "config", "--kubeconfig", target, *args])
    finally:
        os.remove(ca_file)
    os.chmod(target, 0o600)


def step4(m, ws):
    ws.write("validate.sh", validate_sh(ws), 0o755)


def step5(m, ws):
    hook = os.path.join(ws.bare, "hooks", "pre-receive")
    with open(hook, "w", encoding="utf-8") as handle:
        handle.write(pre_receive(ws))
    os.chmod(hook, 0o755)


def step6(m, ws):
    with open(os.path.join(ws.clone, "deploy", "web.yaml"), "w", encoding="utf-8") as handle:
        handle.write(web_yaml(replicas_key="replica"))
    ws.git("commit", "-q", "-am", "web: typo")
    pushed = ws.git("push", "origin", "main", check=False)
    if pushed.returncode == 0:
        raise SolveError("the pre-receive hook let a replica: typo reach main")
    ws.write("blocked.txt", pushed.stdout + pushed.stderr)
    ws.git("reset", "-q", "--hard", "origin/main")


def step7(m, ws):
    ws.write("bump.sh", bump_sh(ws), 0o755)
    m.run([ws.file("bump.sh"), "1.28-alpine"], timeout=180)
    head = ws.head()
    m.hard_refresh(APP)
    m.wait_synced_healthy(APP, head)
    m.wait("web runs nginx:1.28-alpine", lambda: m.get("deployment", "web", "ci-web")["spec"]["template"]
           ["spec"]["containers"][0]["image"] == "nginx:1.28-alpine")


def step8(m, ws):
    broken = ws.read_json("broken.json")["commit"]
    can = m.kubectl("auth", "can-i", "patch", "deployments.apps", "-n", "ci-web", "--as",
                    "system:serviceaccount:ci:validator", check=False).stdout.strip()
    reached = m.run(["git", "-C", ws.bare, "merge-base", "--is-ancestor", broken, "main"],
                    check=False).returncode == 0
    ws.write_json("report.json", {"ci_writes": "git", "cd_writes": "cluster", "ci_can_write_prod": can == "yes",
                                  "gate": "pre-receive", "deployed_revision": status(m.app(APP))["sync"]["revision"],
                                  "broken_reached_git": reached})


STEPS = (step1, step2, step3, step4, step5, step6, step7, step8)
