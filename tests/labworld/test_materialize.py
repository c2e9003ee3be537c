"""Materializer: repos, helpers, files, cluster.json, kubeconfig."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from pathlib import Path

import yaml

from labworld.materialize import materialize

WORLDS = Path(__file__).resolve().parents[2] / "fixtures" / "worlds" / "capa-src"

# The golden commits are deterministic: fixed author, committer, dates and contents.
GOLDEN_SHAS = {
    "chart": "328a163e81ecee4d5f24f1531b4cf093210953b4",
    "kust": "55fc2531e0dbf3b2e936af5708e5e0f9a90aea00",
    "waves": "e2e56fc3e0dd463423c729fb3b8efccd3a65acaa",
    "hook-fail": "c267229daaec7658591d40da969f5c2b119af81f",
    "hook-fix": "f9420f3d5e82ddd79abd4c427be3746ed6a61f7d",
}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout.strip()


def ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def load_cluster(host_dir):
    return json.loads((host_dir / "cluster.json").read_text())


def find(objects, kind, name, namespace=None):
    hits = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name
            and o["metadata"].get("namespace") == namespace]
    assert len(hits) == 1, (kind, namespace, name, len(hits))
    return hits[0]


def test_golden_bare_repo_and_shas(golden):
    bare = golden["host_dir"] / "srv/bare/src.git"
    assert git("--git-dir", str(bare), "rev-parse", "--is-bare-repository") == "true"
    assert git("--git-dir", str(bare), "rev-parse", "refs/heads/main") == GOLDEN_SHAS["hook-fix"]
    log = git("--git-dir", str(bare), "log", "--format=%H %an <%ae> %cI %s", "main").splitlines()
    assert [line.split()[0] for line in log] == list(reversed(GOLDEN_SHAS.values()))
    assert log[-1] == (f"{GOLDEN_SHAS['chart']} Lab Learner <learner@lab.example> "
                       "2026-11-29T09:00:00+00:00 Add web chart")
    assert golden["summary"]["repos"]["src"]["commits"] == GOLDEN_SHAS
    assert golden["summary"]["repos"]["src"]["head"] == GOLDEN_SHAS["hook-fix"]


def test_clone_origin_is_the_bare_repo(golden):
    clone = golden["host_dir"] / "root/capa-src/repo"
    assert git("-C", str(clone), "config", "--get", "remote.origin.url") == "/srv/bare/src.git"
    assert git("-C", str(clone), "rev-parse", "--is-bare-repository") == "false"
    git("-C", str(clone), "fetch", "-q", "origin")  # insteadOf maps the VM path to this machine
    assert git("-C", str(clone), "rev-parse", "origin/main") == GOLDEN_SHAS["hook-fix"]
    assert git("-C", str(clone), "rev-parse", "HEAD") == GOLDEN_SHAS["hook-fix"]
    assert (clone / "charts/web/templates/configmap.yaml").read_text().startswith("apiVersion: v1\n")
    # repo files are not Jinja-rendered: Helm templates survive
    assert "{{ .Release.Name }}-greeting" in (clone / "charts/web/templates/configmap.yaml").read_text()


def test_sha_helpers_match_the_bare_repo(golden):
    host = golden["host_dir"]
    bare = str(host / "srv/bare/src.git")
    ws = host / "root/capa-src"
    failed = json.loads((ws / "failed-hook.json").read_text())
    sha = failed["commit"]
    assert git("--git-dir", bare, "rev-parse", "--verify", f"{sha}^{{commit}}") == sha
    assert "mode: green" in git("--git-dir", bare, "show", f"{sha}:waves/config.yaml")
    assert "exit 1" in git("--git-dir", bare, "show", f"{sha}:waves/migrate.yaml")
    assert "mode: blue" in git("--git-dir", bare, "show", f"{sha}^:waves/config.yaml")
    assert failed == {"commit": GOLDEN_SHAS["hook-fail"], "phase": "Failed", "live_mode": "blue"}
    waves = json.loads((ws / "waves.json").read_text())
    waves_sha = git("--git-dir", bare, "log", "--format=%H", "-1", "--", "waves/smoke.yaml")
    assert waves["hook_job"] == f"migrate-{waves_sha[:7]}-presync-1795945323"
    assert waves == {"hook_job": "migrate-e2e56fc-presync-1795945323",
                     "hook_created": "2026-11-29T09:42:04Z", "settings_created": "2026-11-29T09:42:14Z"}


def test_golden_files_have_exact_values_and_types(golden):
    ws = golden["host_dir"] / "root/capa-src"
    assert json.loads((ws / "precedence.json").read_text()) == {"replicas": 3, "greeting": "from-parameter"}
    tracking = json.loads((ws / "tracking.json").read_text())
    assert tracking == {"helm_release_secrets": 0,
                        "tracking_annotation": "src-helm:/ConfigMap:src-helm/src-helm-greeting",
                        "instance_label": None}
    ignore = json.loads((ws / "ignore.json").read_text())
    assert ignore == {"scaled_at": 1795946760, "checked_at": 1795946820, "replicas": 4, "sync_status": "Synced"}
    assert type(ignore["scaled_at"]) is int
    report = json.loads((ws / "report.json").read_text())
    assert report == {"helm_winner": "parameters", "replicas_winner": "valuesObject", "helm_installed": False,
                      "image_source": "application", "hook_blocked_sync": True, "replicas_owner": "kubectl"}
    app = yaml.safe_load((ws / "app-src-helm.yaml").read_text())
    assert app["spec"]["source"]["helm"]["valueFiles"] == ["values-prod.yaml"]
    assert app["spec"]["source"]["helm"]["parameters"] == [{"name": "greeting", "value": "from-parameter"}]


def test_golden_is_consistent_with_the_grading_spec(golden):
    """A miniature of capa-src.md: evidence files agree with the cluster and git."""
    host = golden["host_dir"]
    ws = host / "root/capa-src"
    objs = load_cluster(host)["objects"]
    head = GOLDEN_SHAS["hook-fix"]
    # step 2
    web = find(objs, "Deployment", "src-helm-web", "src-helm")
    cm = find(objs, "ConfigMap", "src-helm-greeting", "src-helm")
    prec = json.loads((ws / "precedence.json").read_text())
    assert (web["spec"]["replicas"], cm["data"]["greeting"]) == (prec["replicas"], prec["greeting"])
    # step 3
    tracking = json.loads((ws / "tracking.json").read_text())
    assert cm["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"] == tracking["tracking_annotation"]
    assert "app.kubernetes.io/instance" not in (cm["metadata"].get("labels") or {})
    assert not [o for o in objs if o["kind"] == "Secret" and o.get("type") == "helm.sh/release.v1"]
    assert "data" not in find(objs, "ConfigMap", "argocd-cm", "argocd")
    # step 5
    waves = json.loads((ws / "waves.json").read_text())
    hook = find(objs, "Job", waves["hook_job"], "src-waves")
    settings = find(objs, "ConfigMap", "settings", "src-waves")
    app = find(objs, "Deployment", "app", "src-waves")
    smoke = find(objs, "Job", "smoke", "src-waves")
    assert hook["metadata"]["creationTimestamp"] == waves["hook_created"]
    assert ts(waves["hook_created"]) <= ts(waves["settings_created"])
    assert settings["metadata"]["creationTimestamp"] == waves["settings_created"]
    assert ts(settings["metadata"]["creationTimestamp"]) <= ts(app["metadata"]["creationTimestamp"])
    available = next(c for c in app["status"]["conditions"] if c["type"] == "Available")
    assert ts(smoke["metadata"]["creationTimestamp"]) >= ts(available["lastTransitionTime"])
    assert any(c["type"] == "Complete" and c["status"] == "True" for c in hook["status"]["conditions"])
    # step 6
    waves_app = find(objs, "Application", "src-waves", "argocd")
    st = waves_app["status"]
    assert st["sync"]["revision"] == st["operationState"]["operation"]["sync"]["revision"] == \
        st["operationState"]["syncResult"]["revision"] == head
    assert (st["operationState"]["phase"], st["sync"]["status"], st["health"]["status"]) == \
        ("Succeeded", "Synced", "Healthy")
    assert settings["data"]["mode"] == "green"
    # step 7
    prod = find(objs, "Deployment", "prod-api", "src-kust")
    ignore = json.loads((ws / "ignore.json").read_text())
    assert prod["spec"]["replicas"] == prod["status"]["readyReplicas"] == ignore["replicas"] == 4
    assert ignore["checked_at"] - ignore["scaled_at"] >= 40
    owners = [m for m in prod["metadata"]["managedFields"] if "f:replicas" in m["fieldsV1"].get("f:spec", {})]
    assert [(m["manager"], m.get("subresource")) for m in owners] == [("kubectl", "scale")]
    assert json.loads((ws / "report.json").read_text())["replicas_owner"] == owners[0]["manager"]
    kust = find(objs, "Application", "src-kust", "argocd")
    assert "RespectIgnoreDifferences=true" in kust["spec"]["syncPolicy"]["syncOptions"]
    assert kust["spec"]["source"]["kustomize"]["images"] == ["nginx=nginx:1.28-alpine"]
    assert prod["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28-alpine"


def test_kubeconfig_and_cluster_json(golden):
    host = golden["host_dir"]
    kc = yaml.safe_load((host / "kubeconfig").read_text())
    assert kc["clusters"][0]["cluster"]["server"] == f"{golden['url']}/h/learner01"
    assert kc["contexts"][0]["context"]["namespace"] == "default"
    assert kc["users"][0]["user"]["token"] == "labworld-learner01-token"
    state = load_cluster(host)
    assert state["reachable"] is True
    assert all(o["metadata"].get("uid") and o["metadata"].get("resourceVersion") for o in state["objects"])


def test_materialize_is_deterministic_and_replaces_host_dir(tmp_path):
    a = materialize(WORLDS / "half-done.yaml", "h", tmp_path / "a", "http://x")
    stale = tmp_path / "a" / "h" / "root" / "stale.txt"
    stale.write_text("old")
    b = materialize(WORLDS / "half-done.yaml", "h", tmp_path / "a", "http://x")
    assert not stale.exists()
    assert a["repos"] == b["repos"]
    assert a["repos"]["src"]["commits"] == {"chart": GOLDEN_SHAS["chart"], "kust": GOLDEN_SHAS["kust"]}
    # half-done: no waves dir, no later files, no src-waves app, prod-api still owned by argocd
    host = tmp_path / "a" / "h"
    assert not (host / "root/capa-src/repo/waves").exists()
    assert sorted(p.name for p in (host / "root/capa-src").iterdir()) == [
        "app-src-helm.yaml", "app-src-kust.yaml", "precedence.json", "repo", "tracking.json"]
    objs = load_cluster(host)["objects"]
    assert not [o for o in objs if o["metadata"].get("namespace") == "src-waves"]
    assert not [o for o in objs if o["kind"] == "Application" and o["metadata"]["name"] == "src-waves"]
    prod = find(objs, "Deployment", "prod-api", "src-kust")
    assert prod["spec"]["replicas"] == 2
    assert [m["manager"] for m in prod["metadata"]["managedFields"]] == ["argocd-controller", "k3s"]
    kust = find(objs, "Application", "src-kust", "argocd")
    assert "ignoreDifferences" not in kust["spec"]
    assert kust["status"]["sync"]["revision"] == GOLDEN_SHAS["kust"]  # head('src') follows the commits


def test_empty_world_has_argocd_but_no_lab(tmp_path):
    materialize(WORLDS / "empty.yaml", "e", tmp_path, "http://x")
    host = tmp_path / "e"
    assert not (host / "srv").exists()
    assert not (host / "root/capa-src").exists()
    objs = load_cluster(host)["objects"]
    assert not [o for o in objs if o["kind"] == "Application"]
    assert find(objs, "StatefulSet", "argocd-application-controller", "argocd")["status"]["readyReplicas"] == 1
    assert find(objs, "CustomResourceDefinition", "applications.argoproj.io")
    assert find(objs, "Service", "gitd", "gitsrv")


def test_garbage_world_files(tmp_path):
    materialize(WORLDS / "garbage.yaml", "g", tmp_path, "http://x")
    ws = tmp_path / "g/root/capa-src"
    assert (ws / "tracking.json").stat().st_size == 10 * 1024 * 1024
    assert (ws / "tracking.json").read_bytes()[:25] == b'{"helm_release_secrets": '
    assert (ws / "failed-hook.json").is_symlink()
    assert str((ws / "failed-hook.json").readlink()) == "/etc/passwd"
    assert (ws / "precedence.json").read_bytes()[:8] == bytes.fromhex("89504e470d0a1a0a")
    assert isinstance(json.loads((ws / "report.json").read_text()), list)
    assert (ws / "ignore.json").read_bytes() == b""
    for name in ("waves.json",):
        try:
            json.loads((ws / name).read_text())
        except json.JSONDecodeError:
            pass
        else:
            raise AssertionError(f"{name} should be malformed")
    try:
        yaml.safe_load((ws / "app-src-kust.yaml").read_text())
    except yaml.YAMLError:
        pass
    else:
        raise AssertionError("app-src-kust.yaml should be truncated YAML")


def test_refuses_to_delete_foreign_directory(tmp_path):
    import pytest

    from labworld import WorldError
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "precious").write_text("x")
    with pytest.raises(WorldError, match="refusing to delete"):
        materialize(WORLDS / "empty.yaml", "h", tmp_path, "http://x")
    assert (tmp_path / "h" / "precious").exists()


def test_class_file(tmp_path):
    from labworld.materialize import materialize_class
    result = materialize_class(WORLDS / "class.yaml", tmp_path, "http://127.0.0.1:1")
    assert sorted(result["hosts"]) == [f"learner0{i}" for i in range(1, 8)]
    assert result["hosts"]["learner02"]["lang"] == "ja"
    assert load_cluster(tmp_path / "learner07")["reachable"] is False
    assert json.loads((tmp_path / "class.json").read_text())["hosts"]["learner01"]["heads"] == {
        "src": GOLDEN_SHAS["hook-fix"]}


def test_transitional_and_mistake_worlds(tmp_path):
    """The demo worlds differ from golden exactly where they claim to."""
    def app(objs, name):
        return find(objs, "Application", name, "argocd")

    materialize(WORLDS / "mid-sync.yaml", "m", tmp_path, "http://x")
    objs = load_cluster(tmp_path / "m")["objects"]
    waves = app(objs, "src-waves")
    assert waves["operation"]["sync"]["revision"] == GOLDEN_SHAS["hook-fix"]
    assert (waves["status"]["operationState"]["phase"], waves["status"]["health"]["status"],
            waves["status"]["sync"]["status"]) == ("Running", "Progressing", "OutOfSync")
    assert "finishedAt" not in waves["status"]["operationState"]
    assert find(objs, "ConfigMap", "settings", "src-waves")["data"] == {"mode": "blue"}
    hook = find(objs, "Job", "migrate-f9420f3-presync-1795946320", "src-waves")
    assert hook["status"] == {"startTime": "2026-11-29T09:58:41Z", "active": 1, "ready": 0, "terminating": 0,
                              "uncountedTerminatedPods": {}}

    materialize(WORLDS / "step6-retrying.yaml", "r", tmp_path, "http://x")
    objs = load_cluster(tmp_path / "r")["objects"]
    st = app(objs, "src-waves")["status"]
    assert st["operationState"]["operation"]["sync"]["revision"] == GOLDEN_SHAS["hook-fail"]
    assert st["operationState"]["syncResult"]["revision"] == GOLDEN_SHAS["hook-fail"]
    assert st["sync"]["revision"] == GOLDEN_SHAS["hook-fix"]
    assert (st["operationState"]["phase"], st["operationState"]["retryCount"]) == ("Running", 3)

    materialize(WORLDS / "classic-mistakes.yaml", "c", tmp_path, "http://x")
    host = tmp_path / "c"
    ws = host / "root/capa-src"
    objs = load_cluster(host)["objects"]
    assert yaml.safe_load((ws / "app-src-helm.yaml").read_text())["spec"]["source"]["helm"]["valueFiles"] == [
        "charts/web/values-prod.yaml"]
    helm = app(objs, "src-helm")
    assert helm["spec"]["source"]["helm"]["valueFiles"] == ["charts/web/values-prod.yaml"]
    assert helm["spec"]["source"]["helm"]["parameters"] == [{"name": "greeting", "value": "from-parameter"}]
    assert (helm["status"]["sync"]["status"], helm["status"]["conditions"][0]["type"]) == ("Unknown", "ComparisonError")
    assert json.loads((ws / "precedence.json").read_text()) == {"replicas": 2, "greeting": "from-values-file"}
    assert json.loads((ws / "tracking.json").read_text())["instance_label"] == ""
    assert json.loads((ws / "ignore.json").read_text())["replicas"] == "4"
    assert json.loads((ws / "report.json").read_text())["helm_winner"] == "valuesObject"
    kust = app(objs, "src-kust")
    assert kust["spec"]["syncPolicy"]["syncOptions"] == ["CreateNamespace=true"]
    assert kust["spec"]["ignoreDifferences"] == [{"group": "apps", "kind": "Deployment",
                                                  "jsonPointers": ["/spec/replicas"]}]
    assert "RespectIgnoreDifferences=true" not in yaml.safe_load((ws / "app-src-kust.yaml").read_text())[
        "spec"]["syncPolicy"]["syncOptions"]
    # the golden objects not mentioned by the override are untouched
    assert find(objs, "Deployment", "prod-api", "src-kust")["spec"]["replicas"] == 4
