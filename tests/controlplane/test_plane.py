"""The plane itself: versions, kwok stages, TokenRequest/TokenReview/SAR, and test 8
(`kubectl apply --dry-run=server` with a namespaced Role and a ServiceAccount token)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cpharness import Plane, wait_until

pytestmark = pytest.mark.controlplane


def test_versions(plane: Plane):
    version = json.loads(plane.kubectl("version", "-o", "json").stdout)
    assert version["serverVersion"]["gitVersion"] == "v1.36.1"
    assert version["clientVersion"]["gitVersion"] == "v1.36.1"
    proc = plane.run([str(plane.bin_dir / "argocd"), "version", "--client", "--short"])
    assert proc.stdout.strip().startswith("argocd: v3.5.2"), proc.stdout
    helm = plane.run([str(plane.bin_dir / "helm"), "version", "--short"]).stdout.strip()
    assert helm.startswith("v4.2.1"), helm
    kustomize = plane.run([str(plane.bin_dir / "kustomize"), "version"]).stdout.strip()
    assert kustomize == "v5.8.1", kustomize
    svc = plane.get("service", "gitd", "gitsrv")
    assert svc["spec"]["ports"][0]["port"] == 9418
    proj = plane.get("appproject", "default", "argocd")
    assert proj["spec"]["sourceRepos"] == ["*"]


def job(name: str, command: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "kwok-check"},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", command]}],
                }
            },
        },
    }


def job_state(plane: Plane, name: str) -> str | None:
    j = plane.get("job", name, "kwok-check")
    for c in j["status"].get("conditions", []):
        if c["type"] in ("Complete", "Failed") and c["status"] == "True":
            return c["type"]
    return None


def test_kwok_stages_jobs_and_deployments(plane: Plane):
    plane.kubectl("create", "namespace", "kwok-check")
    plane.apply(job("ok", "echo fine"))
    plane.apply(job("bad", "echo broken; exit 1"))
    plane.apply(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "kwok-check"},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "d"}},
                "template": {
                    "metadata": {"labels": {"app": "d"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx:1.27-alpine"}]},
                },
            },
        }
    )
    assert wait_until("job ok", lambda: job_state(plane, "ok"), 60) == "Complete"
    assert wait_until("job bad", lambda: job_state(plane, "bad"), 60) == "Failed"
    wait_until("deployment ready", lambda: plane.get("deployment", "d", "kwok-check")["status"].get("readyReplicas") == 2, 60)
    pods = plane.list("pods", "kwok-check", "batch.kubernetes.io/job-name=bad")
    assert [p["status"]["phase"] for p in pods] == ["Failed"]
    term = pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (1, "Error")
    plane.kubectl("delete", "namespace", "kwok-check", "--wait=false")


ROLE_NS = "dryrun"
CHECKER = f"system:serviceaccount:{ROLE_NS}:checker"


def checker_rbac() -> str:
    """A namespace, the ServiceAccount `checker` and a Role bound to it that may write Deployments
    and ConfigMaps there (not Secrets)."""
    return "\n---\n".join(
        json.dumps(o)
        for o in [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ROLE_NS}},
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "checker", "namespace": ROLE_NS}},
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "Role",
                "metadata": {"name": "deployer", "namespace": ROLE_NS},
                "rules": [
                    {
                        "apiGroups": ["apps"],
                        "resources": ["deployments"],
                        "verbs": ["get", "list", "create", "patch", "update"],
                    },
                    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "create", "patch"]},
                ],
            },
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": "deployer", "namespace": ROLE_NS},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deployer"},
                "subjects": [{"kind": "ServiceAccount", "name": "checker", "namespace": ROLE_NS}],
            },
        ]
    )


def created(plane: Plane, body: dict[str, Any]) -> dict[str, Any]:
    """A review (TokenReview, SubjectAccessReview) created as admin, with the server's answer."""
    return json.loads(plane.kubectl("create", "-o", "json", "-f", "-", input_text=json.dumps(body)).stdout)


def reviewed(plane: Plane, token: str) -> dict[str, Any]:
    """TokenReview (as admin) authenticates the token; a SubjectAccessReview allows the service
    account to create Deployments in its namespace. Returns the TokenReview."""
    review = created(plane, {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}})
    assert review["status"]["authenticated"] is True
    assert review["status"]["user"]["username"] == CHECKER
    sar = created(plane, {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": CHECKER,
            "resourceAttributes": {
                "namespace": ROLE_NS,
                "verb": "create",
                "group": "apps",
                "resource": "deployments",
            },
        },
    })
    assert sar["status"]["allowed"] is True
    return review


def dry_run_as(plane: Plane, token: str):
    """`kubectl apply --dry-run=server -f -` of an object as the token's service account, with no
    kubeconfig."""
    server = next(line.split("server:", 1)[1].strip() for line in plane.kubeconfig.read_text().splitlines()
                  if line.strip().startswith("server:"))

    def apply(obj: dict[str, Any]):
        return plane.run(
            [
                str(plane.bin_dir / "kubectl"),
                "--server",
                server,
                "--certificate-authority",
                str(plane.root / "pki" / "ca.crt"),
                "--token",
                token,
                "--request-timeout=30s",
                "apply", "--dry-run=server", "-f", "-",
            ],
            check=False,
            input_text=json.dumps(obj),
            env={"KUBECONFIG": "/dev/null"},
        )
    return apply


GOOD_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": ROLE_NS},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27-alpine"}]},
        },
    },
}


def test_8_dry_run_server_with_namespaced_token(plane: Plane):
    plane.apply(checker_rbac())
    token = plane.kubectl("-n", ROLE_NS, "create", "token", "checker", "--duration=10m").stdout.strip()
    assert token.count(".") == 2
    review = reviewed(plane, token)
    as_sa = dry_run_as(plane, token)

    good = GOOD_DEPLOYMENT
    ok = as_sa(good)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "deployment.apps/web created (server dry run)"
    assert plane.get("deployment", "web", ROLE_NS, missing_ok=True) is None  # nothing created

    bad = json.loads(json.dumps(good))
    bad["spec"]["replicas"] = "two"
    rej = as_sa(bad)
    assert rej.returncode != 0
    assert "replicas" in rej.stderr

    bad_sel = json.loads(json.dumps(good))
    bad_sel["spec"]["selector"]["matchLabels"] = {"app": "other"}
    rej2 = as_sa(bad_sel)
    assert rej2.returncode != 0
    assert "Invalid value" in rej2.stderr and "selector" in rej2.stderr

    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": ROLE_NS}}
    forb = as_sa(secret)
    assert forb.returncode != 0
    assert "forbidden" in forb.stderr
    other_ns = json.loads(json.dumps(good))
    other_ns["metadata"]["namespace"] = "default"
    forb2 = as_sa(other_ns)
    assert forb2.returncode != 0 and "forbidden" in forb2.stderr
    assert plane.list("deployments", ROLE_NS) == []
    assert [s for s in plane.list("secrets", ROLE_NS) if s["metadata"]["name"] == "s"] == []
    plane.record(
        "t8-dry-run-results",
        {
            "valid": {"rc": ok.returncode, "stdout": ok.stdout.strip()},
            "replicas_two": {"rc": rej.returncode, "stderr": rej.stderr.strip()},
            "bad_selector": {"rc": rej2.returncode, "stderr": rej2.stderr.strip()},
            "secret_not_in_role": {"rc": forb.returncode, "stderr": forb.stderr.strip()},
            "other_namespace": {"rc": forb2.returncode, "stderr": forb2.stderr.strip()},
            "tokenreview_user": review["status"]["user"],
        },
    )
