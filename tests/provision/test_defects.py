"""Each defect of issue 8 section 1, proven by running the role's task file for real with fake
commands (role_runner.py), or, where a real VM is needed, by reading the role's YAML."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
import yaml
from provision_helpers import REPO
from role_runner import RoleRunner

pytestmark = pytest.mark.playbook

READY_JSONPATH = 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}'


@pytest.fixture
def role(tmp_path: Path) -> RoleRunner:
    return RoleRunner(tmp_path)


def kubectl(role: RoleRunner) -> list[str]:
    return [role.fake("kubectl"), "--kubeconfig", "admin.yaml"]


# 1. The node Ready wait reaches kubectl with its quotes.
def test_1_ready_wait_passes_the_jsonpath_unchanged(role: RoleRunner) -> None:
    rules = [
        {"name": "kubectl", "args": [READY_JSONPATH], "stdout": "True"},
        {"name": "kubectl", "args": ["nodes"], "rc": 1, "stderr": "error: unrecognized identifier Ready"},
    ]
    variables = {
        "lab_kubectl": kubectl(role),
        "k3s_server_ready_retries": 1,
        "k3s_server_ready_delay": 0,
        "k3s_server_system_workloads": [],
    }
    result = role("k3s_server", "wait.yml", variables, rules)
    assert result.rc == 0, result.output
    assert [*kubectl(role)[1:], "get", "nodes", "-o", READY_JSONPATH] in result.argvs("kubectl")


# 2. Air-gapped VMs: pull policy and the image import.
INSTALL_YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: argocd-server}
spec:
  template:
    spec:
      containers:
      - name: argocd-server
        image: quay.io/argoproj/argocd:v3.5.2
        imagePullPolicy: Always
      - image: "ghcr.io/dexidp/dex:v2.45.1"
        imagePullPolicy: Always
"""


def write_mirror(mirror: Path, files: dict[str, bytes]) -> None:
    lines = []
    for rel, data in sorted(files.items()):
        (mirror / rel).parent.mkdir(parents=True, exist_ok=True)
        (mirror / rel).write_bytes(data)
        lines.append(f"{hashlib.sha256(data).hexdigest()}  {rel}")
    (mirror / "SHA256SUMS").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("source", ["mirror", "online"])
def test_2_mirror_mode_applies_images_if_not_present(role: RoleRunner, source: str) -> None:
    files_dir = role.tmp / "root" / "argocd"
    files_dir.mkdir(parents=True)
    (files_dir / "install-v3.5.2.yaml").write_text(INSTALL_YAML)
    result = role("argocd", "manifest.yml", {"lab_artifact_source": source, "argocd_files_dir": str(files_dir)})
    assert result.rc == 0, result.output
    applied = (files_dir / "install-applied.yaml").read_text()
    if source == "mirror":
        assert "Always" not in applied
        assert applied.count("        imagePullPolicy: IfNotPresent\n") == 2
        assert applied.replace("IfNotPresent", "Always") == INSTALL_YAML
    else:
        assert applied == INSTALL_YAML


def test_2_images_go_to_k3s_images_folder_and_missing_ones_are_imported(role: RoleRunner) -> None:
    refs = ["ghcr.io/dexidp/dex:v2.45.1", "quay.io/argoproj/argocd:v3.5.2"]
    archives = {f"argocd/v3.5.2/images-amd64/{r.replace('/', '_').replace(':', '_')}.tar": r.encode() for r in refs}
    write_mirror(role.tmp / "mirror", archives)
    images_dir = role.tmp / "root" / "var/lib/rancher/k3s/agent/images"
    images_dir.mkdir(parents=True)
    variables = {
        "lab_artifact_source": "mirror",
        "lab_mirror_dir": str(role.tmp / "mirror"),
        "argocd_arch": "amd64",
        "argocd_image_refs": refs,
        "argocd_lab_images": [],  # the labs' images: tests/provision/test_lab_images.py
        "argocd_ctr": [role.fake("ctr")],
    }
    # containerd already has dex (e.g. imported by k3s from its images folder at start)
    rules = [{"name": "ctr", "args": ["list"], "stdout": "ghcr.io/dexidp/dex:v2.45.1\n"}]
    result = role("argocd", "airgap_images.yml", variables, rules)
    assert result.rc == 0, result.output
    assert sorted(p.name for p in images_dir.iterdir()) == sorted(Path(a).name for a in archives)
    imports = [a for a in result.argvs("ctr") if "import" in a]
    assert imports == [["--namespace", "k8s.io", "images", "import", str(images_dir / "quay.io_argoproj_argocd_v3.5.2.tar")]]


# 3. Re-runs do not need argocd-initial-admin-secret.
def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def admin_run(role: RoleRunner, stdout: str) -> tuple:
    variables = {"lab_kubectl": kubectl(role), "argocd_admin_secret_retries": 1, "argocd_admin_secret_delay": 0}
    (role.tmp / "root" / "root").mkdir(parents=True, exist_ok=True)
    result = role("argocd", "admin_password.yml", variables, [{"name": "kubectl", "stdout": stdout}])
    return result, role.tmp / "root" / "root" / "argocd-initial-admin-password"


def test_3_first_run_stores_the_initial_password(role: RoleRunner) -> None:
    result, stored = admin_run(role, f"argocd-initial-admin-secret={b64('s3cret')}\nargocd-secret={b64('$2a$hash')}\n")
    assert result.rc == 0, result.output
    assert stored.read_text() == "s3cret\n" and stored.stat().st_mode & 0o777 == 0o600


def test_3_deleted_secret_does_not_fail_a_rerun(role: RoleRunner) -> None:
    result, stored = admin_run(role, f"argocd-secret={b64('$2a$hash')}\n")
    assert result.rc == 0, result.output
    assert not stored.exists()
    assert "The initial admin password secret is gone and admin.password is set" in result.output


def test_3_a_stored_copy_needs_no_secret_at_all(role: RoleRunner) -> None:
    (role.tmp / "root" / "root").mkdir(parents=True)
    (role.tmp / "root" / "root" / "argocd-initial-admin-password").write_text("kept\n")
    result, stored = admin_run(role, "")
    assert result.rc == 0, result.output
    assert result.argvs("kubectl") == [] and stored.read_text() == "kept\n"


def test_3_first_run_still_waits_for_argocd_server(role: RoleRunner) -> None:
    result, _ = admin_run(role, "")
    assert result.rc != 0 and "argocd-initial-admin-secret, or the hash that outlives it" in result.output


def role_yaml(role_name: str, path: str):
    return yaml.safe_load((REPO / "roles" / role_name / path).read_text())


# 4. ansible.builtin.pip needs `packaging` on the VM.
def test_4_packaging_is_installed_before_pip_runs() -> None:
    assert "python3-packaging" in role_yaml("learner_base", "defaults/main.yml")["learner_base_packages"]


# 5. Only the upstream components are waited for.
def test_5_rollout_wait_names_its_workloads(role: RoleRunner) -> None:
    variables = {
        "k3s_server_kubectl": kubectl(role),
        "k3s_server_rollout_namespace": "argocd",
        "k3s_server_rollout_workloads": ["deployment/argocd-server", "statefulset/argocd-application-controller"],
    }
    result = role("k3s_server", "wait_rollouts.yml", variables)
    assert result.rc == 0, result.output
    assert [a[3:6] for a in result.argvs("kubectl")] == [["argocd", "rollout", "status"], ["argocd", "rollout", "status"]]
    assert [a[6] for a in result.argvs("kubectl")] == ["deployment/argocd-server", "statefulset/argocd-application-controller"]


def test_5_argocd_workloads_are_exactly_install_yaml_s() -> None:
    """The list waited for equals the Deployments and StatefulSets of the pinned install.yaml
    (the copy in the control plane's Argo CD source, sha256-checked against the pin)."""
    defaults = role_yaml("argocd", "defaults/main.yml")
    manifest = Path(f"/var/cache/lab-controlplane/src/argo-cd-{defaults['argocd_version']}/manifests/install.yaml")
    if not manifest.exists():
        pytest.skip(f"{manifest} not built here (controlplane/build argocd)")
    assert hashlib.sha256(manifest.read_bytes()).hexdigest() == defaults["argocd_install_manifest_sha256"]
    found = sorted(
        f"{d['kind'].lower()}/{d['metadata']['name']}"
        for d in yaml.safe_load_all(manifest.read_text())
        if d and d["kind"] in ("Deployment", "StatefulSet")
    )
    assert sorted(defaults["argocd_workloads"]) == found


def test_5_system_workloads_are_named() -> None:
    tasks = role_yaml("k3s_server", "tasks/wait.yml")
    (wait,) = [t for t in tasks if "ansible.builtin.include_tasks" in t]
    assert wait["vars"]["k3s_server_rollout_workloads"] == "{{ k3s_server_system_workloads }}"


# 6. First boot: cloud-init, then apt with a long lock timeout.
def test_6_cloud_init_is_awaited_and_apt_waits_for_its_lock() -> None:
    tasks = role_yaml("learner_base", "tasks/packages.yml")
    names = [t["name"] for t in tasks]
    # cloud_init.yml (imported first) waits; test_cloud_init_wait.py runs its outcomes.
    awaited = names.index("Packages | cloud-init has finished (first boot)")
    assert tasks[awaited]["ansible.builtin.import_tasks"] == "cloud_init.yml"
    waits = {t["name"]: t for t in role_yaml("learner_base", "tasks/cloud_init.yml")}
    wait = waits["Packages | wait for cloud-init to finish (first boot)"]
    assert wait["ansible.builtin.command"]["argv"][2:5] == ["{{ learner_base_cloud_init }}", "status", "--wait"]
    apts = [i for i, t in enumerate(tasks) if "ansible.builtin.apt" in t]
    assert apts and min(apts) > awaited
    assert all(tasks[i]["ansible.builtin.apt"]["lock_timeout"] == "{{ learner_base_apt_lock_timeout }}" for i in apts)
    assert role_yaml("learner_base", "defaults/main.yml")["learner_base_apt_lock_timeout"] >= 600


# 8. root's kubeconfig: KUBECONFIG for root, never overwritten once written.
ADMIN_KC = {
    "apiVersion": "v1",
    "kind": "Config",
    "current-context": "default",
    "clusters": [{"name": "default", "cluster": {"server": "https://127.0.0.1:6443"}}],
    "contexts": [{"name": "default", "context": {"cluster": "default", "user": "default"}}],
    "users": [{"name": "default", "user": {"token": "t"}}],
}


def test_8_root_kubeconfig_is_kept_and_root_uses_it(role: RoleRunner) -> None:
    admin = role.tmp / "k3s.yaml"
    admin.write_text(yaml.safe_dump(ADMIN_KC))
    variables = {"k3s_server_admin_kubeconfig": str(admin)}
    assert role("k3s_server", "root_kubeconfig.yml", variables).rc == 0
    root_kc = role.tmp / "root/root/.kube/config"
    assert yaml.safe_load(root_kc.read_text())["contexts"][0]["context"]["namespace"] == "argocd"
    root_kc.write_text("# the learner's own\n")
    result = role("k3s_server", "root_kubeconfig.yml", variables)
    assert result.rc == 0, result.output
    assert root_kc.read_text() == "# the learner's own\n"
    profile = (role.tmp / "root/etc/profile.d/lab-kubeconfig.sh").read_text()
    assert "export KUBECONFIG=/root/.kube/config" in profile and '"$(id -u)" = 0' in profile


# 9. Kernel settings follow the live kernel, not whether the files changed.
def test_9_live_values_decide(role: RoleRunner) -> None:
    proc, mods = role.tmp / "proc_sys", role.tmp / "sys_module"
    sysctl = {"net.ipv4.ip_forward": 1, "fs.inotify.max_user_watches": 524288}
    for key, value in sysctl.items():
        (proc / key.replace(".", "/")).parent.mkdir(parents=True, exist_ok=True)
        (proc / key.replace(".", "/")).write_text(f"{value}\n")
    (mods / "overlay").mkdir(parents=True)
    variables = {
        "learner_base_sysctl": sysctl,
        "learner_base_kernel_modules": ["overlay", "br_netfilter"],
        "learner_base_proc_sys": str(proc),
        "learner_base_sys_module": str(mods),
        "learner_base_modprobe": [role.fake("modprobe")],
        "learner_base_sysctl_cmd": [role.fake("sysctl")],
    }
    first = role("learner_base", "kernel.yml", variables)
    assert first.rc == 0, first.output
    assert first.argvs("modprobe") == [["br_netfilter"]] and first.argvs("sysctl") == []
    # The files are written now; a value changed under us (or a failed run never applied it).
    (proc / "net/ipv4/ip_forward").write_text("0\n")
    (mods / "br_netfilter").mkdir()
    second = role("learner_base", "kernel.yml", variables)
    assert second.rc == 0, second.output
    assert second.argvs("modprobe") == []
    assert second.argvs("sysctl") == [["--load", f"{role.tmp}/root/etc/sysctl.d/90-lab-k3s.conf"]]


# 10. k3s started once, firewalls, no default route, hashed wheels, check mode.
def test_10_first_install_starts_k3s_once() -> None:
    tasks = role_yaml("k3s_server", "tasks/install.yml")
    (installer,) = [t for t in tasks if t["name"] == "K3s | run the installer"]
    assert installer["environment"]["INSTALL_K3S_SKIP_START"] == "true"
    assert not (REPO / "roles/k3s_server/handlers").exists()
    assert not any("notify" in t for t in tasks + role_yaml("k3s_server", "tasks/main.yml"))
    (service,) = [t for t in tasks if "ansible.builtin.systemd_service" in t]
    assert "k3s_server_unit.stat.exists" in service["ansible.builtin.systemd_service"]["state"]


@pytest.mark.parametrize("firewall", ["ufw", "firewalld"])
def test_10_active_firewall_lets_pods_and_instructor_in(role: RoleRunner, firewall: str) -> None:
    variables = {
        "k3s_server_ufw": role.fake("ufw") if firewall == "ufw" else "/nonexistent/ufw",
        "k3s_server_firewall_cmd": role.fake("firewall-cmd") if firewall == "firewalld" else "/nonexistent/fw",
    }
    rules = [
        {"name": "ufw", "args": ["status"], "stdout": "Status: active\n"},
        {"name": "firewall-cmd", "args": ["--state"], "stdout": "running"},
    ]
    result = role("k3s_server", "firewall.yml", variables, rules)
    assert result.rc == 0, result.output
    if firewall == "ufw":
        assert result.argvs("ufw")[1:] == [
            ["allow", "from", "10.42.0.0/16", "to", "any"],
            ["allow", "from", "10.43.0.0/16", "to", "any"],
            ["allow", "6443/tcp"],
        ]
    else:
        rules_set = [a for a in result.argvs("firewall-cmd") if a != ["--state"]]
        assert ["--permanent", "--zone=trusted", "--add-source=10.42.0.0/16"] in rules_set
        assert ["--zone=trusted", "--add-source=10.42.0.0/16"] in rules_set
        assert ["--permanent", "--add-port=6443/tcp"] in rules_set and ["--add-port=6443/tcp"] in rules_set


def test_10_inactive_firewall_is_left_alone(role: RoleRunner) -> None:
    variables = {"k3s_server_ufw": role.fake("ufw"), "k3s_server_firewall_cmd": role.fake("firewall-cmd")}
    rules = [{"name": "ufw", "stdout": "Status: inactive\n"}, {"name": "firewall-cmd", "rc": 252, "stdout": "not running"}]
    result = role("k3s_server", "firewall.yml", variables, rules)
    assert result.rc == 0, result.output
    assert result.argvs("ufw") == [["status"]] and result.argvs("firewall-cmd") == [["--state"]]


def test_10_no_default_route_says_so(role: RoleRunner) -> None:
    result = role("learner_base", "preflight.yml", {"lab_node_ip": ""})
    assert result.rc != 0
    assert "localhost has no default IPv4 route, so its node address (lab_node_ip:" in " ".join(result.output.split())
    class_vars = (REPO / "inventory/class/group_vars/learners/provision.yml").read_text()
    assert "lab_node_ip: \"{{ ansible_facts.default_ipv4.address | default('') }}\"" in class_vars


def test_10_grader_wheels_are_installed_with_hashes() -> None:
    tasks = role_yaml("grader_runtime", "tasks/venv.yml")
    (pip,) = [t for t in tasks if "ansible.builtin.pip" in t]
    assert "--require-hashes" in pip["ansible.builtin.pip"]["extra_args"]
    lock = (REPO / "roles/grader_runtime/files/grader-runtime-hashes.txt").read_text().replace("\\\n", " ")
    reqs = [line.split() for line in lock.splitlines() if line and not line.startswith("#")]
    pins = {r[0].split("==")[0].lower(): r[0].split("==")[1] for r in reqs}
    assert all(any(p.startswith("--hash=sha256:") for p in r[1:]) for r in reqs)
    constraints = {}
    for line in (REPO / "requirements/constraints.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            constraints[name.lower()] = version.strip()
    top = (REPO / "requirements/grader-runtime.txt").read_text().splitlines()
    for line in top:
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            assert pins[name.lower()] == version.strip(), name
    assert all(constraints[name] == version for name, version in pins.items())


# 11. Pins: the arm64 CLI value, and a disagreement names its source.
def test_11_argocd_cli_pins() -> None:
    pins = role_yaml("argocd", "defaults/main.yml")["argocd_cli_checksums"]
    assert pins == {
        "amd64": "d87058531d2aed735100636dd7664bdd49b862588993b571385c49494f9832c1",
        "arm64": "a8c326658c54b3a287ea25de91a8517fc4768f65ad810d918cb7444e049cea33",
    }


def artifact_vars(role: RoleRunner, source: str, pin: str, listed: str) -> dict:
    upstream = role.tmp / "upstream"
    upstream.mkdir()
    (upstream / "argocd-linux-arm64").write_bytes(b"cli")
    (upstream / "cli_checksums.txt").write_text(f"{listed}  argocd-linux-arm64\n")
    write_mirror(role.tmp / "mirror", {"argocd/v3.5.2/argocd-linux-arm64": b"cli"})
    return {
        "lab_artifact_source": source,
        "lab_mirror_dir": str(role.tmp / "mirror"),
        "lab_artifact_name": "argocd CLI v3.5.2 arm64",
        "lab_artifact_sha256": pin,
        "lab_artifact_url": f"file://{upstream}/argocd-linux-arm64",
        "lab_artifact_checksum_url": f"file://{upstream}/cli_checksums.txt",
        "lab_artifact_relpath": "argocd/v3.5.2/argocd-linux-arm64",
        "lab_artifact_dest": str(role.tmp / "argocd"),
    }


TRUE_SHA = hashlib.sha256(b"cli").hexdigest()


def test_11_online_pin_against_the_upstream_file(role: RoleRunner) -> None:
    other = "1" * 64
    result = role("lab_artifact", "main.yml", artifact_vars(role, "online", TRUE_SHA, other))
    assert result.rc != 0
    assert (
        f"argocd CLI v3.5.2 arm64: the pinned sha256 {TRUE_SHA} (role defaults) disagrees with the upstream "
        f"checksum file file://{role.tmp}/upstream/cli_checksums.txt, which lists {other} for argocd-linux-arm64."
    ) in " ".join(result.output.split())
    assert not (role.tmp / "argocd").exists()


def test_11_online_pin_and_upstream_agree(role: RoleRunner) -> None:
    result = role("lab_artifact", "main.yml", artifact_vars(role, "online", TRUE_SHA, TRUE_SHA))
    assert result.rc == 0, result.output
    assert (role.tmp / "argocd").read_bytes() == b"cli"


def test_11_mirror_disagreement_names_the_mirror(role: RoleRunner) -> None:
    pin = "2" * 64
    result = role("lab_artifact", "main.yml", artifact_vars(role, "mirror", pin, TRUE_SHA))
    assert result.rc != 0
    assert (
        f"the pinned sha256 {pin} (role defaults) disagrees with the mirror's {role.tmp}/mirror/SHA256SUMS, "
        f"which lists {TRUE_SHA} for argocd/v3.5.2/argocd-linux-arm64."
    ) in " ".join(result.output.split())


# 12. The offline scenario has no fixed path or port.
def test_12_molecule_provision_has_per_run_paths_and_ports() -> None:
    for path in sorted((REPO / "molecule/provision").glob("*.yml")):
        text = path.read_text()
        assert "/tmp/" not in text, f"{path.name}: a fixed /tmp path"
        assert "1941" not in text, f"{path.name}: a fixed port"
    inventory = (REPO / "molecule/provision/inventory.yml").read_text()
    assert "MOLECULE_EPHEMERAL_DIRECTORY" in inventory
    assert "gitd_port" in inventory and "run.json" in inventory


def test_fake_cmd_answers_by_rule(tmp_path: Path) -> None:
    """The fake itself: logs argv, first matching rule wins."""
    import subprocess

    log = tmp_path / "log"
    env = {"FAKE_LOG": str(log), "FAKE_RULES": json.dumps([{"name": "k", "args": ["a"], "stdout": "x", "rc": 3}])}
    out = subprocess.run(
        ["/usr/bin/python3", str(REPO / "tests/provision/fakes/fake_cmd.py"), "k", "a", "b"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (out.returncode, out.stdout) == (3, "x")
    assert json.loads(log.read_text()) == {"name": "k", "argv": ["a", "b"]}
