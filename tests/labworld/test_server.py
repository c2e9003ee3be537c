"""Fake API server, exercised with the real kubernetes client (37.0.2) through the kubeconfig."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from kubernetes import client, config

REPO = Path(__file__).resolve().parents[2]
HEAD = "f9420f3d5e82ddd79abd4c427be3746ed6a61f7d"


def log_lines(host_dir: Path) -> list[dict]:
    path = host_dir / "requests.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def raw(url: str, token: str | None = "labworld-learner01-token", method: str = "GET", body: bytes | None = None):
    req = urllib.request.Request(url, method=method, data=body)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_client_keeps_host_prefix(golden, api):
    assert api.configuration.host == f"{golden['url']}/h/learner01"
    before = len(log_lines(golden["host_dir"]))
    ns = client.CoreV1Api(api).read_namespace("src-helm")
    assert ns.metadata.name == "src-helm"
    new = log_lines(golden["host_dir"])[before:]
    assert [(e["method"], e["path"], e["status"]) for e in new] == [("GET", "/api/v1/namespaces/src-helm", 200)]


def test_applications_real_shapes(api):
    co = client.CustomObjectsApi(api)
    apps = co.list_namespaced_custom_object("argoproj.io", "v1alpha1", "argocd", "applications")
    assert apps["kind"] == "ApplicationList"
    assert [a["metadata"]["name"] for a in apps["items"]] == ["src-helm", "src-kust", "src-waves"]
    assert all(a["kind"] == "Application" and a["apiVersion"] == "argoproj.io/v1alpha1" for a in apps["items"])
    assert apps["metadata"]["continue"] == ""
    waves = co.get_namespaced_custom_object("argoproj.io", "v1alpha1", "argocd", "applications", "src-waves")
    op = waves["status"]["operationState"]
    assert op["phase"] == "Succeeded"
    assert op["operation"]["sync"]["revision"] == op["syncResult"]["revision"] == HEAD
    assert waves["status"]["sync"] == {
        "status": "Synced", "revision": HEAD,
        "comparedTo": {"source": {"repoURL": "git://gitd.gitsrv.svc.cluster.local:9418/src.git",
                                  "targetRevision": "main", "path": "waves"},
                       "destination": {"server": "https://kubernetes.default.svc", "namespace": "src-waves"}}}
    hook = op["syncResult"]["resources"][0]
    assert (hook["hookType"], hook["hookPhase"], hook["name"]) == \
        ("PreSync", "Succeeded", "migrate-f9420f3-presync-1795946320")
    assert "operation" not in waves
    helm = co.get_namespaced_custom_object("argoproj.io", "v1alpha1", "argocd", "applications", "src-helm")
    assert helm["spec"]["source"]["helm"]["valuesObject"] == {"replicaCount": 3, "greeting": "from-values-object"}


def test_deployment_managed_fields_and_scale(api):
    apps = client.AppsV1Api(api)
    dep = apps.read_namespaced_deployment("prod-api", "src-kust")
    assert dep.kind == "Deployment" and dep.api_version == "apps/v1"
    assert (dep.spec.replicas, dep.status.ready_replicas) == (4, 4)
    assert dep.spec.template.spec.containers[0].image == "nginx:1.28-alpine"
    entries = [(m.manager, m.operation, m.subresource) for m in dep.metadata.managed_fields]
    assert entries == [("argocd-controller", "Update", None), ("kubectl", "Update", "scale"),
                       ("k3s", "Update", "status")]
    assert dep.metadata.managed_fields[1].fields_v1 == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in dep.metadata.managed_fields[0].fields_v1["f:spec"]
    scale = apps.read_namespaced_deployment_scale("prod-api", "src-kust")
    assert (scale.spec.replicas, scale.status.selector) == (4, "app=api")
    sts = apps.read_namespaced_stateful_set("argocd-application-controller", "argocd")
    assert sts.status.ready_replicas == 1


def test_configmaps_and_secrets_by_type(api):
    core = client.CoreV1Api(api)
    cm = core.read_namespaced_config_map("src-helm-greeting", "src-helm")
    assert cm.data == {"greeting": "from-parameter"}
    assert cm.metadata.annotations["argocd.argoproj.io/tracking-id"] == "src-helm:/ConfigMap:src-helm/src-helm-greeting"
    assert cm.metadata.labels is None
    assert cm.metadata.creation_timestamp.isoformat() == "2026-11-29T09:02:06+00:00"
    helm = core.list_namespaced_secret("src-helm", field_selector="type=helm.sh/release.v1")
    assert helm.items == []
    opaque = core.list_namespaced_secret("argocd", field_selector="type=Opaque")
    assert [s.metadata.name for s in opaque.items] == ["argocd-initial-admin-secret", "argocd-secret"]
    not_opaque = core.list_secret_for_all_namespaces(field_selector="type!=Opaque")
    assert not_opaque.items == []
    named = core.list_config_map_for_all_namespaces(field_selector="metadata.name=settings")
    assert [(c.metadata.namespace, c.data) for c in named.items] == [("src-waves", {"mode": "green"})]
    assert core.list_namespaced_config_map("no-such-namespace").items == []


def test_list_shape_matches_real_api_server(golden):
    status, body = raw(f"{golden['url']}/h/learner01/api/v1/namespaces/src-waves/configmaps")
    assert status == 200
    assert list(body) == ["kind", "apiVersion", "metadata", "items"]
    assert body["kind"] == "ConfigMapList" and body["apiVersion"] == "v1"
    assert set(body["metadata"]) == {"resourceVersion"}
    # built-in types: list items carry no kind/apiVersion (custom resources keep them)
    assert "kind" not in body["items"][0] and "apiVersion" not in body["items"][0]
    status, one = raw(f"{golden['url']}/h/learner01/api/v1/namespaces/src-waves/configmaps/settings")
    assert (status, one["kind"], one["apiVersion"]) == (200, "ConfigMap", "v1")


def test_label_selectors(api):
    apps = client.AppsV1Api(api)

    def names(sel):
        return sorted(d.metadata.name for d in apps.list_deployment_for_all_namespaces(label_selector=sel).items)

    assert names("app=api") == ["prod-api"]
    assert names("app==gitd") == ["gitd"]
    assert names("app") == ["gitd", "prod-api"]
    assert names("!app") == ["app", "argocd-redis", "argocd-repo-server", "argocd-server", "src-helm-web"]
    assert names("app!=api") == ["app", "argocd-redis", "argocd-repo-server", "argocd-server", "gitd",
                                 "src-helm-web"]
    assert names("app in (api, gitd)") == ["gitd", "prod-api"]
    assert names("app notin (api),app") == ["gitd"]
    assert names("app.kubernetes.io/part-of=argocd,app.kubernetes.io/component=server") == ["argocd-server"]
    with pytest.raises(client.ApiException) as err:
        names("a b c")
    assert err.value.status == 400
    assert json.loads(err.value.body)["reason"] == "BadRequest"


def test_unknown_field_selector_is_rejected(api):
    with pytest.raises(client.ApiException) as err:
        client.CoreV1Api(api).list_config_map_for_all_namespaces(field_selector="data.mode=green")
    assert err.value.status == 400
    assert json.loads(err.value.body)["message"] == "field label not supported: data.mode"


def test_missing_object_is_a_real_404_status(api):
    with pytest.raises(client.ApiException) as err:
        client.AppsV1Api(api).read_namespaced_deployment("nope", "src-kust")
    assert err.value.status == 404
    assert json.loads(err.value.body) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'deployments.apps "nope" not found', "reason": "NotFound",
        "details": {"name": "nope", "group": "apps", "kind": "deployments"}, "code": 404}
    with pytest.raises(client.ApiException) as err:
        client.CoreV1Api(api).read_namespaced_config_map("nope", "src-helm")
    assert json.loads(err.value.body)["details"] == {"name": "nope", "kind": "configmaps"}


def test_writes_are_refused_and_logged(golden, api):
    before = len(log_lines(golden["host_dir"]))
    core = client.CoreV1Api(api)
    calls = [
        lambda: core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="x"))),
        lambda: client.AppsV1Api(api).patch_namespaced_deployment_scale("prod-api", "src-kust", {"spec": {"replicas": 1}}),
        lambda: core.delete_namespaced_config_map("settings", "src-waves"),
        lambda: client.CustomObjectsApi(api).replace_namespaced_custom_object(
            "argoproj.io", "v1alpha1", "argocd", "applications", "src-helm", {"metadata": {"name": "src-helm"}}),
    ]
    for call in calls:
        with pytest.raises(client.ApiException) as err:
            call()
        assert err.value.status == 405
        assert json.loads(err.value.body)["reason"] == "MethodNotAllowed"
    new = log_lines(golden["host_dir"])[before:]
    assert [(e["method"], e["path"], e["status"]) for e in new] == [
        ("POST", "/api/v1/namespaces/default/configmaps", 405),
        ("PATCH", "/apis/apps/v1/namespaces/src-kust/deployments/prod-api/scale", 405),
        ("DELETE", "/api/v1/namespaces/src-waves/configmaps/settings", 405),
        ("PUT", "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/src-helm", 405),
    ]
    assert '"replicas": 1' in new[1]["body"]
    # nothing changed
    assert client.AppsV1Api(api).read_namespaced_deployment("prod-api", "src-kust").spec.replicas == 4


def test_access_reviews_never_store(tmp_path, class_root):
    from labworld.materialize import materialize
    root, url = class_root
    world = tmp_path / "rbac.yaml"
    world.write_text("""
cluster:
  token: ci-token
  access:
    user: {username: "system:serviceaccount:ci:deployer", groups: [system:serviceaccounts]}
    default: false
    rules:
      - {verbs: [get, list, watch], allowed: true}
      - {verbs: [create, patch], apiGroups: [apps], resources: [deployments], namespaces: [staging], allowed: true}
      - {verbs: [create, patch], namespaces: [prod], allowed: false, reason: "prod is read-only for CI"}
    tokens:
      other-token: {username: alice, groups: [devs]}
""")
    materialize(world, "rbac01", root, url)
    api = config.new_client_from_config(config_file=str(root / "rbac01" / "kubeconfig"))
    authz = client.AuthorizationV1Api(api)

    def ssar(verb, ns, resource="deployments", group="apps"):
        body = client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
            resource_attributes=client.V1ResourceAttributes(verb=verb, namespace=ns, group=group, resource=resource)))
        return authz.create_self_subject_access_review(body).status

    assert ssar("get", "prod").allowed is True
    assert ssar("patch", "staging").allowed is True
    denied = ssar("patch", "prod")
    assert (denied.allowed, denied.denied, denied.reason) == (False, True, "prod is read-only for CI")
    assert ssar("delete", "staging").allowed is False
    sar = authz.create_subject_access_review(client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
        user="alice", resource_attributes=client.V1ResourceAttributes(verb="list", resource="pods"))))
    assert sar.status.allowed is True
    tr = client.AuthenticationV1Api(api).create_token_review(
        client.V1TokenReview(spec=client.V1TokenReviewSpec(token="other-token")))
    assert (tr.status.authenticated, tr.status.user.username) == (True, "alice")
    tr = client.AuthenticationV1Api(api).create_token_review(
        client.V1TokenReview(spec=client.V1TokenReviewSpec(token="forged")))
    assert tr.status.authenticated is None and tr.status.error == "invalid bearer token"
    entries = log_lines(root / "rbac01")
    assert {(e["method"], e["status"]) for e in entries} == {("POST", 201)}
    assert json.loads((root / "rbac01" / "cluster.json").read_text())["objects"] == []
    api.close()


def test_bearer_token_is_checked(golden):
    base = f"{golden['url']}/h/learner01"
    status, body = raw(f"{base}/api/v1/namespaces", token="wrong")
    assert (status, body["reason"]) == (401, "Unauthorized")
    status, body = raw(f"{base}/api/v1/namespaces", token=None)
    assert status == 401
    status, body = raw(f"{base}/version", token=None)  # anonymous may read /version, like k3s
    assert (status, body["gitVersion"]) == (200, "v1.34.2+k3s1")


def test_discovery_and_health(api, golden):
    assert client.CoreApi(api).get_api_versions().versions == ["v1"]
    groups = {g.name for g in client.ApisApi(api).get_api_versions().groups}
    assert {"apps", "batch", "argoproj.io", "apiextensions.k8s.io", "rbac.authorization.k8s.io",
            "authorization.k8s.io", "authentication.k8s.io"} <= groups
    res = client.AppsV1Api(api).get_api_resources()
    assert {r.name for r in res.resources} >= {"deployments", "deployments/scale", "statefulsets", "replicasets"}
    status, body = raw(f"{golden['url']}/h/learner01/apis/argoproj.io/v1alpha1")
    assert status == 200
    assert [r["name"] for r in body["resources"]] == ["applications", "appprojects", "applicationsets"]
    with urllib.request.urlopen(f"{golden['url']}/h/learner01/readyz", timeout=5) as resp:
        assert resp.read() == b"ok"
    assert client.VersionApi(api).get_code().minor == "34"


def test_unreachable_host_drops_connections(broken, class_root):
    import urllib3
    api = config.new_client_from_config(config_file=str(broken / "kubeconfig"))
    api.configuration.retries = 0
    api.rest_client.pool_manager.connection_pool_kw["retries"] = 0
    with pytest.raises(urllib3.exceptions.HTTPError):
        client.CoreV1Api(api).list_namespace(_request_timeout=5)
    entries = log_lines(broken)
    assert entries and all(e["dropped"] is True and e["status"] is None for e in entries)
    assert entries[-1]["path"] == "/api/v1/namespaces"
    api.close()


def test_reload_on_change(tmp_path, class_root):
    from labworld.materialize import materialize
    root, url = class_root
    world = tmp_path / "w.yaml"
    world.write_text("cluster:\n  objects:\n    - {apiVersion: v1, kind: Namespace, metadata: {name: one}}\n")
    materialize(world, "reload01", root, url)
    api = config.new_client_from_config(config_file=str(root / "reload01" / "kubeconfig"))
    core = client.CoreV1Api(api)
    assert [n.metadata.name for n in core.list_namespace().items] == ["one"]
    state = json.loads((root / "reload01" / "cluster.json").read_text())
    state["objects"].append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "two"}})
    (root / "reload01" / "cluster.json").write_text(json.dumps(state))
    assert [n.metadata.name for n in core.list_namespace().items] == ["one", "two"]
    api.close()


def test_cli_serve_port_file_and_sigterm(tmp_path):
    port_file = tmp_path / "port"
    proc = subprocess.Popen([sys.executable, "-m", "labworld", "serve", "--root", str(tmp_path), "--port", "0",
                             "--port-file", str(port_file)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 10
        while not port_file.exists() and time.time() < deadline:
            time.sleep(0.05)
        port = int(port_file.read_text())
        status, body = raw(f"http://127.0.0.1:{port}/h/nobody/version", token=None)
        assert (status, body["reason"]) == (404, "NotFound")
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert (out, err) == (b"", b"")


def test_host_name_cannot_escape_the_root(golden):
    status, body = raw(f"{golden['url']}/h/..%2F..%2Fetc/version", token=None)
    assert (status, body["reason"]) == (404, "NotFound")
    assert "invalid host name" in body["message"]


def test_limit_and_continue_paging(api):
    core = client.CoreV1Api(api)
    first = core.list_namespace(limit=3)
    assert [n.metadata.name for n in first.items] == ["argocd", "default", "gitsrv"]
    assert first.metadata.remaining_item_count == 4
    rest = core.list_namespace(limit=10, _continue=first.metadata._continue)
    assert [n.metadata.name for n in rest.items] == ["kube-system", "src-helm", "src-kust", "src-waves"]
    assert rest.metadata._continue is None
