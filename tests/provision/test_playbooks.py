"""The playbooks parse, and everything that needs a real VM is tagged for molecule to skip."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from provision_helpers import REPO, VENV_BIN, run

PLAYBOOKS = [
    "provision.yml",
    "playbooks/smoke.yml",
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


KUBE_MARKERS = ("_kubectl", "--core", "instructor_kubeconfig_raw")
HOST_MARKERS = ("systemd_service", "learner_base_modprobe", "learner_base_sysctl_cmd", "argocd_ctr", "k3s-install.sh")


def role_tasks():
    for path in sorted(REPO.glob("roles/*/tasks/*.yml")):
        for task, tags in tasks_with_tags(path):
            if any(k in task for k in ("block", "ansible.builtin.import_tasks", "ansible.builtin.include_tasks")):
                continue
            yield path.relative_to(REPO), task, tags


def included_files(path: Path, task: dict) -> list[str]:
    """Task files a task imports or includes (include_role tasks_from too), repo-relative."""
    for key in ("ansible.builtin.import_tasks", "ansible.builtin.include_tasks"):
        if key in task:
            return [str(path.parent.relative_to(REPO) / task[key])]
    role = task.get("ansible.builtin.include_role", {})
    if "tasks_from" in role:
        return [f"roles/{role['name']}/tasks/{role['tasks_from']}"]
    return []


def included_with(tag: str) -> set[str]:
    """Task files reached only through includes carrying `tag`, directly or through a file that
    is itself reached that way: their tasks inherit the tag."""
    files: set[str] = set()
    while True:
        found = set(files)
        for path in sorted(REPO.glob("roles/*/tasks/*.yml")):
            inherited = str(path.relative_to(REPO)) in files
            for task, tags in tasks_with_tags(path):
                if tag in tags or inherited:
                    found.update(included_files(path, task))
        if found == files:
            return files
        files = found


def test_cluster_and_host_tasks_are_tagged() -> None:
    """A task that talks to the cluster carries lab-cluster (the offline molecule scenario skips
    it, provision-plane runs it); one that needs a real VM's k3s, systemd or kernel carries
    molecule-notest - directly, through its block, or through the include that reaches it."""
    cluster_files = included_with("lab-cluster") | included_with("molecule-notest")
    host_files = included_with("molecule-notest")
    offenders = []
    for path, task, tags in role_tasks():
        text = yaml.safe_dump(task)
        # Chosen by the service manager instead: never reached where there is no systemd.
        if re.search(r"_service_manager == 'systemd'", str(task.get("when", ""))):
            continue
        needs_cluster = any(m in text for m in KUBE_MARKERS) and not tags & {"lab-cluster", "molecule-notest"}
        if needs_cluster and str(path) not in cluster_files:
            offenders.append(f"{path}: {task.get('name')} (needs lab-cluster)")
        if any(m in text for m in HOST_MARKERS) and "molecule-notest" not in tags and str(path) not in host_files:
            offenders.append(f"{path}: {task.get('name')} (needs molecule-notest)")
    assert not offenders, "untagged cluster/host tasks:\n" + "\n".join(offenders)


def command_tasks():
    """(where, module args) of every command/shell task in roles/ and the provisioning playbooks."""
    files = [*REPO.glob("roles/*/tasks/*.yml"), *(REPO / p for p in PLAYBOOKS[1:])]
    for path in sorted(files):
        docs = yaml.safe_load(path.read_text()) or []
        plays = docs if path.parts[-2] == "playbooks" else [{"tasks": docs}]
        for play in plays:
            for top in play.get("tasks", []) if isinstance(play, dict) else []:
                for task in [top, *(t for t, _ in _walk_all(top))]:
                    for module in ("ansible.builtin.command", "ansible.builtin.shell"):
                        if module in task:
                            yield f"{path.relative_to(REPO)}: {task.get('name')}", module, task


def _walk_all(task: dict):
    for section in ("block", "rescue", "always"):
        for sub in task.get(section, []):
            yield sub, None
            yield from _walk_all(sub)


def quoted_string_commands(tasks) -> list[str]:
    """Where a command task is given as a string that contains a quote."""
    offenders = []
    for where, module, task in tasks:
        args = task[module]
        text = args if isinstance(args, str) else str(args.get("cmd", ""))
        if module == "ansible.builtin.command" and ('"' in text or "'" in text):
            offenders.append(where)
    return offenders


def test_commands_with_quotes_use_argv() -> None:
    """The command module splits a string like a shell, so quotes in it never reach the program
    (issue 8, defect 1: `?(@.type=="Ready")` arrived as `?(@.type==Ready)`). Any command whose
    text has a quote must be an argv list."""
    offenders = quoted_string_commands(command_tasks())
    assert not offenders, "commands with quotes not in argv form:\n" + "\n".join(offenders)


def test_the_lint_flags_the_pre_fix_ready_wait() -> None:
    """The check above would have caught defect 1 (the task as it was before the fix)."""
    (task,) = yaml.safe_load(
        """
- name: K3s | wait until the node is Ready
  ansible.builtin.command: >-
    {{ k3s_server_kubectl }} get nodes
    -o jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}
"""
    )
    assert quoted_string_commands([("old", "ansible.builtin.command", task)]) == ["old"]


def test_read_only_commands_run_in_check_mode() -> None:
    """--check must run without errors: a command that only reads (changed_when: false) and whose
    result a later task uses must run in check mode too, or that task sees no stdout."""
    offenders = [
        where
        for where, module, task in command_tasks()
        if where.startswith("roles/")
        and task.get("changed_when") is False
        and "register" in task
        and task.get("check_mode") is not False
        # the smoke test does not run in check mode at all (vm_smoke_test/tasks/main.yml)
        and "vm_smoke_test" not in where
    ]
    assert not offenders, "read-only commands skipped in check mode:\n" + "\n".join(offenders)


def test_secrets_are_never_logged() -> None:
    """Tasks that read kubeconfigs, tokens or the admin secret carry no_log, except push_token,
    whose action plugin marks a result carrying a token no_log itself (so that its refusals stay
    readable; tests/provision/test_push_token.py shows the token censored)."""
    secret_markers = ("k3s.yaml", "_admin_kubeconfig_raw", "_admin_raw", "argocd-initial-admin-secret", "-token'", "token:")
    missing = []
    for path in sorted(REPO.glob("roles/*/tasks/*.yml")):
        for task, _ in tasks_with_tags(path):
            if "block" in task or "gitops_lab.grader.push_token" in task:
                continue
            text = yaml.safe_dump(task)
            if any(m in text for m in secret_markers) and task.get("no_log") is not True:
                missing.append(f"{path.relative_to(REPO)}: {task.get('name')}")
    assert not missing, "secret-handling tasks without no_log:\n" + "\n".join(missing)
