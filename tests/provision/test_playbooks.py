"""The playbooks parse, and everything that needs a real VM is tagged for molecule to skip."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from provision_helpers import REPO, VENV_BIN, run

PLAYBOOKS = [
    "provision.yml",
    "playbooks/smoke.yml",
    "playbooks/smoke-controlplane.yml",
    "playbooks/provision-mirror.yml",
]


@pytest.mark.playbook
@pytest.mark.parametrize("playbook", PLAYBOOKS)
def test_syntax_check(playbook: str) -> None:
    result = run([str(VENV_BIN / "ansible-playbook"), "--syntax-check", playbook])
    assert result.returncode == 0, result.stdout + result.stderr


def tasks_with_tags(path: Path, inherited: frozenset[str] = frozenset()):
    """Yield (task, effective tags) for a task file, through blocks."""
    for task in yaml.safe_load(path.read_text()) or []:
        tags = inherited | set(task.get("tags", []))
        for section in ("block", "rescue", "always"):
            if section in task:
                for sub in task[section]:
                    yield from _walk(sub, frozenset(tags))
        yield task, tags


def _walk(task: dict, inherited: frozenset[str]):
    tags = inherited | set(task.get("tags", []))
    for section in ("block", "rescue", "always"):
        for sub in task.get(section, []):
            yield from _walk(sub, frozenset(tags))
    yield task, tags


CLUSTER_MARKERS = ("kubectl", "k3s ctr", "argocd_cli_path", "systemd_service", "modprobe", "sysctl --load")


def test_cluster_and_host_tasks_are_skipped_by_molecule() -> None:
    """A task that talks to k3s, systemd or the kernel must carry molecule-notest (itself or
    through its block, import or include): the sandbox has none of them."""
    offenders = []
    for path in sorted(REPO.glob("roles/*/tasks/*.yml")):
        for task, tags in tasks_with_tags(path):
            if any(k in task for k in ("block", "import_tasks", "include_tasks")):
                continue
            text = yaml.safe_dump(task)
            # Chosen by the service manager instead: never reached where there is no systemd.
            if "gitd_service_manager == 'systemd'" in str(task.get("when", "")):
                continue
            if any(m in text for m in CLUSTER_MARKERS) and "molecule-notest" not in tags:
                offenders.append(f"{path.relative_to(REPO)}: {task.get('name')}")
    # Files reached only through a tagged import/include: their tasks inherit the tag.
    inherited_ok = {
        "roles/k3s_server/tasks/wait_rollouts.yml",
        "roles/k3s_server/tasks/root_kubeconfig.yml",
        "roles/argocd/tasks/airgap_images.yml",
        "roles/argocd/tasks/airgap_image.yml",
        "roles/argocd/tasks/admin_password.yml",
        "roles/grader_runtime/tasks/cluster.yml",
        "roles/vm_smoke_test/tasks/application.yml",
    }
    offenders = [o for o in offenders if o.split(":")[0] not in inherited_ok]
    assert not offenders, "untagged cluster/host tasks:\n" + "\n".join(offenders)


def test_secrets_are_never_logged() -> None:
    """Tasks that read kubeconfigs, tokens or the admin secret carry no_log."""
    secret_markers = ("k3s.yaml", "argocd-initial-admin-secret", "-token -o jsonpath", "token:")
    missing = []
    for path in sorted(REPO.glob("roles/*/tasks/*.yml")):
        for task, _ in tasks_with_tags(path):
            if "block" in task:
                continue
            text = yaml.safe_dump(task)
            if any(m in text for m in secret_markers) and task.get("no_log") is not True:
                missing.append(f"{path.relative_to(REPO)}: {task.get('name')}")
    assert not missing, "secret-handling tasks without no_log:\n" + "\n".join(missing)
