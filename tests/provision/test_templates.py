"""Templates rendered through Ansible are compared with reviewed golden files, and the
security-relevant ones are also checked for meaning (a golden file can be regenerated
carelessly; these assertions cannot).

Regenerate the golden files after an intended change: UPDATE_GOLDEN=1 pytest tests/provision
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

# Every test here uses the `rendered` fixture, which runs ansible-playbook.
pytestmark = pytest.mark.playbook

GOLDEN = Path(__file__).parent / "golden"
TEMPLATES = sorted(p.name.removesuffix(".j2") for p in Path(__file__).parents[2].glob("roles/*/templates/*.j2"))


def load_all(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_every_template_is_rendered(rendered: Path) -> None:
    assert sorted(p.name for p in rendered.iterdir()) == TEMPLATES


@pytest.mark.parametrize("name", TEMPLATES)
def test_matches_golden(rendered: Path, name: str) -> None:
    got = (rendered / name).read_text()
    golden = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.write_text(got)
    assert golden.exists(), f"no golden file for {name}; run with UPDATE_GOLDEN=1 and review it"
    assert got == golden.read_text()


@pytest.mark.parametrize("name", [t for t in TEMPLATES if t.endswith((".yaml", ".yml"))])
def test_yaml_templates_parse(rendered: Path, name: str) -> None:
    assert load_all(rendered / name)


def test_grader_role_cannot_write(rendered: Path) -> None:
    docs = {d["kind"]: d for d in load_all(rendered / "grader-rbac.yaml")}
    rules = docs["ClusterRole"]["rules"]
    review_apis = {
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
        ("authentication.k8s.io", "tokenreviews"),
    }
    granted = {}
    for rule in rules:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                granted[(group, resource)] = set(rule["verbs"])
    for key, verbs in granted.items():
        allowed = {"create"} if key in review_apis else {"get", "list", "watch"}
        assert verbs == allowed, f"{key}: {verbs}"
        assert "*" not in key[1] and "/" not in key[1], f"wildcard or subresource {key}"
    expected_reads = {
        ("argoproj.io", "applications"),
        ("argoproj.io", "appprojects"),
        ("", "configmaps"),
        ("", "secrets"),
        ("", "services"),
        ("", "namespaces"),
        ("", "pods"),
        ("", "serviceaccounts"),
        ("", "events"),
        ("", "nodes"),  # capa-drift: a bad commit's nodeSelector matches no node
        ("autoscaling", "horizontalpodautoscalers"),  # capa-drift step 5
        ("apps", "deployments"),
        ("apps", "statefulsets"),
        ("apps", "replicasets"),
        ("batch", "jobs"),
        ("apiextensions.k8s.io", "customresourcedefinitions"),
        ("rbac.authorization.k8s.io", "roles"),
        ("rbac.authorization.k8s.io", "rolebindings"),
        ("rbac.authorization.k8s.io", "clusterroles"),
        ("rbac.authorization.k8s.io", "clusterrolebindings"),
    }
    assert set(granted) == expected_reads | review_apis
    binding = docs["ClusterRoleBinding"]
    assert binding["roleRef"]["name"] == docs["ClusterRole"]["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "lab-grader", "namespace": "lab-grader"}]
    token = docs["Secret"]
    assert token["type"] == "kubernetes.io/service-account-token"
    assert token["metadata"]["annotations"]["kubernetes.io/service-account.name"] == "lab-grader"


def test_grader_kubeconfig_uses_the_service_account(rendered: Path) -> None:
    (kc,) = load_all(rendered / "grader-kubeconfig.yaml")
    (user,) = kc["users"]
    assert set(user["user"]) == {"token"}, "no client certificate: the grader is not admin"
    assert kc["current-context"] == "lab-grader"


def test_gitd_is_read_only_and_exports_all(rendered: Path) -> None:
    unit = (rendered / "lab-gitd.service").read_text()
    (exec_start,) = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    args = exec_start.removeprefix("ExecStart=").split()
    assert args[0] == "/usr/bin/git"
    assert "--export-all" in args
    assert "--forbid-override=receive-pack" in args
    assert not any(a.startswith("--enable") for a in args), "nothing may be enabled"
    assert "--base-path=/srv/bare" in args and args[-1] == "/srv/bare"
    assert "--port=9418" in args
    assert "--user=nobody" in args
    assert "WantedBy=multi-user.target" in unit, "must come back after a reboot"


def test_gitd_service_points_at_the_node(rendered: Path) -> None:
    docs = {d["kind"]: d for d in load_all(rendered / "gitd-k8s.yaml")}
    svc, eps = docs["Service"], docs["EndpointSlice"]
    assert (svc["metadata"]["name"], svc["metadata"]["namespace"]) == ("gitd", "gitsrv")
    assert "selector" not in svc["spec"], "a selector would make Kubernetes replace the endpoints"
    assert eps["metadata"]["labels"]["kubernetes.io/service-name"] == "gitd"
    assert eps["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"] != ("endpointslice-controller.k8s.io")
    assert eps["endpoints"][0]["addresses"] == ["10.0.0.7"]
    assert svc["spec"]["ports"][0]["port"] == eps["ports"][0]["port"] == 9418


def test_root_kubeconfig_only_adds_the_namespace(rendered: Path) -> None:
    source = yaml.safe_load((Path(__file__).parent / "fixtures/render-vars.yml").read_text())
    (kc,) = load_all(rendered / "root-kubeconfig.yaml")
    expected = source["k3s_server_kc"]
    expected["contexts"][0]["context"]["namespace"] = "argocd"
    assert kc == expected


def test_instructor_kubeconfig_points_at_the_vm(rendered: Path) -> None:
    (kc,) = load_all(rendered / "instructor-kubeconfig.yaml")
    (cluster,) = kc["clusters"]
    assert cluster["cluster"]["server"] == "https://203.0.113.7:6443"
    assert cluster["name"] == kc["current-context"] == "learner07"
    assert kc["users"][0]["user"]["client-key-data"] == "RkFLRS1LRVk="


def test_k3s_certificate_covers_the_instructor_address(rendered: Path) -> None:
    (cfg,) = load_all(rendered / "config.yaml")
    assert "203.0.113.7" in cfg["tls-san"] and "learner07" in cfg["tls-san"]
    assert cfg["write-kubeconfig-mode"] == "0600"
    assert cfg["node-ip"] == "10.0.0.7"


def test_smoke_application_goes_through_gitd(rendered: Path) -> None:
    app = load_all(rendered / "application.yaml")[-1]
    assert app["spec"]["source"]["repoURL"] == ("git://gitd.gitsrv.svc.cluster.local:9418/lab-smoke-test.git")
    assert "resources-finalizer.argocd.argoproj.io" in app["metadata"]["finalizers"]


def test_smoke_test_has_its_own_project(rendered: Path) -> None:
    """Issue 8 defect 7: a lab that fences the default AppProject must not break later runs."""
    (project, app) = load_all(rendered / "application.yaml")
    assert project["kind"] == "AppProject" and app["kind"] == "Application"
    assert app["spec"]["project"] == project["metadata"]["name"] == "lab-smoke-test"
    assert project["spec"]["sourceRepos"] == [app["spec"]["source"]["repoURL"]]
    assert project["spec"]["destinations"] == [
        {"server": app["spec"]["destination"]["server"], "namespace": app["spec"]["destination"]["namespace"]}
    ]
    cleanup = yaml.safe_load((Path(__file__).parents[2] / "roles/vm_smoke_test/tasks/cleanup.yml").read_text())
    deletes = [item[item.index("delete") + 1] for item in cleanup[0]["loop"]]
    assert deletes == ["application", "appproject", "namespace"], "the project goes after the app, then its namespace"


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
def test_the_push_units_are_units_systemd_accepts(rendered: Path, tmp_path: Path) -> None:
    """lab-grade-push.service and .timer as systemd reads them; ExecStart points at a stand-in, as
    the command is not installed on this machine."""
    command = tmp_path / "lab-grade-push"
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    service = (rendered / "lab-grade-push.service").read_text()
    assert "\nExecStart=/usr/local/bin/lab-grade-push\n" in service
    (tmp_path / "lab-grade-push.service").write_text(service.replace("/usr/local/bin/lab-grade-push", str(command)))
    (tmp_path / "lab-grade-push.timer").write_text((rendered / "lab-grade-push.timer").read_text())
    verified = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "lab-grade-push.service"),
                               str(tmp_path / "lab-grade-push.timer")], capture_output=True, text=True, timeout=60)
    assert (verified.returncode, verified.stderr) == (0, "")
