"""Air-gapped VMs run the labs' own workloads too: the mirror and its import carry every image a
lab's manifests use (issue 22). The images are derived from every registered lab's recorded world
(what record.yml saw on the plane after the lab's reference solution ran: the workloads' pod
templates, Argo CD's own list of each Application's images, and every manifest of every commit the
solution pushed), so a new lab is compared by itself once it is in LABS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from provision_helpers import REPO, VENV_BIN, run
from role_runner import RoleRunner
from test_defects import write_mirror

WORLDS = REPO / "fixtures" / "worlds"
# Kinds whose pod template Kubernetes runs: where the kubelet pulls an image.
POD_TEMPLATE_PATHS = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


def defaults(role: str) -> dict:
    return yaml.safe_load((REPO / "roles" / role / "defaults" / "main.yml").read_text())


def pod_images(obj) -> set[str]:
    """Images of one Kubernetes object's pod spec (containers, init and ephemeral containers)."""
    if not isinstance(obj, dict) or obj.get("kind") not in POD_TEMPLATE_PATHS:
        return set()
    spec = obj
    for key in POD_TEMPLATE_PATHS[obj["kind"]]:
        spec = spec.get(key) if isinstance(spec, dict) else None
    if not isinstance(spec, dict):
        return set()
    return {
        c["image"]
        for field in ("containers", "initContainers", "ephemeralContainers")
        for c in spec.get(field) or []
        if isinstance(c, dict) and isinstance(c.get("image"), str)
    }


def manifest_images(text: str) -> set[str]:
    """Images of every document of a manifest file; a file that is not plain YAML (a Helm
    template) names none here: Argo CD's Application summary lists what it rendered."""
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return set()
    return set().union(*(pod_images(doc) for doc in documents)) if documents else set()


def world_images(world: dict) -> set[str]:
    """Every image a world's cluster runs or ran: workloads, Application summaries, pushed manifests."""
    found: set[str] = set()
    for obj in (world.get("cluster") or {}).get("objects") or []:
        found |= pod_images(obj)
        if isinstance(obj, dict) and obj.get("kind") == "Application":
            found |= set(((obj.get("status") or {}).get("summary") or {}).get("images") or [])
    for repo in (world.get("repos") or {}).values():
        for commit in repo.get("commits") or []:
            for path, content in (commit.get("files") or {}).items():
                if path.endswith((".yaml", ".yml")) and isinstance(content, str):
                    found |= manifest_images(content)
    return found


def lab_world(lab_id: str) -> Path:
    """The world of a lab's reference solution: recorded on the plane, else the written golden one."""
    for name in ("recorded.yaml", "golden.yaml"):
        if (WORLDS / lab_id / name).is_file():
            return WORLDS / lab_id / name
    pytest.fail(f"lab {lab_id} has no fixtures/worlds/{lab_id}/recorded.yaml or golden.yaml to list its images from")


def images_by_lab() -> dict[str, set[str]]:
    return {lab: world_images(yaml.safe_load(lab_world(lab).read_text())) for lab in LABS}


def mirror_problems(used: dict[str, set[str]], carried: set[str]) -> list[str]:
    """What the mirror's image list lacks (with the labs using each) or carries for no lab."""
    wanted = {image: sorted(lab for lab, images in used.items() if image in images) for image in set().union(*used.values())}
    problems = [f"{image} (used by {', '.join(labs)}) is not in argocd_lab_images: air-gapped VMs cannot pull it"
                for image, labs in sorted(wanted.items()) if image not in carried]
    problems += [f"{image} is in argocd_lab_images but no lab uses it" for image in sorted(carried - set(wanted))]
    return problems


def test_the_mirror_carries_exactly_the_images_of_every_labs_solution() -> None:
    assert mirror_problems(images_by_lab(), set(defaults("argocd")["argocd_lab_images"])) == []


def test_busybox_of_the_capa_src_jobs_is_found() -> None:
    assert "busybox:1.36" in world_images(yaml.safe_load(lab_world("capa-src").read_text()))


WORLD = {
    "repos": {"src": {"commits": [
        {"files": {
            "a/job.yaml": "apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n"
                          "      initContainers: [{name: i, image: 'init:1'}]\n      containers: [{name: c, image: 'job:1'}]\n",
            "chart/templates/d.yaml": "name: {{ .Release.Name }}\nimage: helm:1\n",
            "b/cm.yaml": "kind: ConfigMap\ndata: {image: not-an-image}\n",
        }},
        {"files": {"c/cron.yaml": "kind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n"
                                  "        spec:\n          containers: [{image: 'cron:1'}]\n---\nkind: Pod\nspec:\n"
                                  "  containers: [{image: 'pod:1'}]\n"}},
    ]}},
    "cluster": {"objects": [
        {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"image": "deploy:1"}]}}}},
        {"kind": "Application", "status": {"summary": {"images": ["rendered:1"]}}},
    ]},
}


def test_world_images_reads_pod_templates_summaries_and_every_commit() -> None:
    assert world_images(WORLD) == {"init:1", "job:1", "cron:1", "pod:1", "deploy:1", "rendered:1"}


def test_a_lab_image_the_mirror_lacks_and_one_it_carries_for_nothing_are_named() -> None:
    used = images_by_lab() | {"new-lab": {"redis:7", "busybox:1.36"}}
    carried = set(defaults("argocd")["argocd_lab_images"]) | {"nginx:0-old"}
    assert mirror_problems(used, carried) == [
        "redis:7 (used by new-lab) is not in argocd_lab_images: air-gapped VMs cannot pull it",
        "nginx:0-old is in argocd_lab_images but no lab uses it",
    ]


# The import: lab images go to k3s's images folder with Argo CD's, and one containerd already has
# under its full name (docker.io/library/busybox:1.36, as `ctr images list` shows it) is not
# imported again.
def test_lab_images_are_copied_and_the_missing_ones_imported(tmp_path: Path) -> None:
    role = RoleRunner(tmp_path)
    argocd_refs = ["quay.io/argoproj/argocd:v3.5.2"]
    lab_refs = ["busybox:1.36", "nginx:1.28-alpine", "ghcr.io/example/app:1"]
    archives = {f"argocd/v3.5.2/images-amd64/{r.replace('/', '_').replace(':', '_')}.tar": r.encode() for r in argocd_refs}
    archives |= {f"lab-images/images-amd64/{r.replace('/', '_').replace(':', '_')}.tar": r.encode() for r in lab_refs}
    write_mirror(tmp_path / "mirror", archives)
    images_dir = tmp_path / "root" / "var/lib/rancher/k3s/agent/images"
    images_dir.mkdir(parents=True)
    variables = {
        "lab_artifact_source": "mirror",
        "lab_mirror_dir": str(tmp_path / "mirror"),
        "argocd_arch": "amd64",
        "argocd_image_refs": argocd_refs,
        "argocd_lab_images": lab_refs,
        "argocd_ctr": [role.fake("ctr")],
    }
    have = "quay.io/argoproj/argocd:v3.5.2\ndocker.io/library/busybox:1.36\nghcr.io/example/app:1\n"
    result = role("argocd", "airgap_images.yml", variables, [{"name": "ctr", "args": ["list"], "stdout": have}])
    assert result.rc == 0, result.output
    assert sorted(p.name for p in images_dir.iterdir()) == sorted(Path(a).name for a in archives)
    imports = [a for a in result.argvs("ctr") if "import" in a]
    assert imports == [["--namespace", "k8s.io", "images", "import", str(images_dir / "nginx_1.28-alpine.tar")]]


# The mirror playbook saves the labs' images beside Argo CD's, per architecture (skopeo faked:
# it records its arguments and writes the archive it was asked for).
def test_the_mirror_playbook_saves_every_lab_image_per_architecture(tmp_path: Path) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    calls = tmp_path / "skopeo.log"
    skopeo = fake_bin / "skopeo"
    skopeo.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {calls}\n'
        'for a; do case $a in docker-archive:*) p=${a#docker-archive:}; : > "${p%%:*}";; esac; done\n'
    )
    skopeo.chmod(0o755)
    mirror = tmp_path / "mirror"
    (mirror / "argocd/v3.5.2").mkdir(parents=True)
    (mirror / "argocd/v3.5.2/install.yaml").write_text("      containers:\n        - image: quay.io/argoproj/argocd:v3.5.2\n")
    extra = tmp_path / "vars.json"
    extra.write_text(json.dumps({"mirror_dir": str(mirror), "mirror_release_files": False, "mirror_images": True,
                                 "mirror_python_targets": [], "argocd_lab_images": ["busybox:1.36", "nginx:1.27-alpine"]}))
    result = run([str(VENV_BIN / "ansible-playbook"), "playbooks/provision-mirror.yml", "-e", f"@{extra}"],
                 extra_env={"PATH": f"{fake_bin}:{VENV_BIN}:/usr/bin:/bin"})
    assert result.returncode == 0, result.stdout + result.stderr
    saved = sorted(str(p.relative_to(mirror)) for p in mirror.rglob("*.tar") if "python" not in p.parts)
    assert saved == [
        "argocd/v3.5.2/images-amd64/quay.io_argoproj_argocd_v3.5.2.tar",
        "argocd/v3.5.2/images-arm64/quay.io_argoproj_argocd_v3.5.2.tar",
        "lab-images/images-amd64/busybox_1.36.tar",
        "lab-images/images-amd64/nginx_1.27-alpine.tar",
        "lab-images/images-arm64/busybox_1.36.tar",
        "lab-images/images-arm64/nginx_1.27-alpine.tar",
    ]
    assert "copy --override-os=linux --override-arch=arm64 docker://busybox:1.36 docker-archive:" in calls.read_text()
    assert "lab-images/images-amd64/busybox_1.36.tar" in (mirror / "SHA256SUMS").read_text()


# Found filling the VM's mirror (scripts/real-vm): with mirror_images false and no release files,
# the images loop still read install.yaml (a loop is templated before the block's `when`) and the
# playbook failed, unless molecule-notest was skipped as well.
def test_the_mirror_playbook_without_images_needs_no_install_yaml(tmp_path: Path) -> None:
    extra = tmp_path / "vars.json"
    extra.write_text(json.dumps({"mirror_dir": str(tmp_path / "mirror"), "mirror_release_files": False,
                                 "mirror_images": False, "mirror_python_targets": []}))
    result = run([str(VENV_BIN / "ansible-playbook"), "playbooks/provision-mirror.yml", "-e", f"@{extra}"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "mirror" / "SHA256SUMS").is_file()
