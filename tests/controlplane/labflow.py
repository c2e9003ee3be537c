"""A learner VM on the real control plane: its layout under a temporary root, the playbooks
(solve.yml, reset.yml) run against it with a local inventory, the real grader, and digests of
everything grading must not change, and the edits a mutation makes and undoes (`replaced`,
`evidence`, `Rewrite`). Used by test_labs_plane.py and the mutation tables."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.machine import LEARNER
from cpharness import Plane

REPO_ROOT = Path(__file__).resolve().parents[2]
PLAYBOOK_TIMEOUT = 1200


@dataclass
class Learner:
    plane: Plane
    lab: str
    root: Path  # stands for the VM's /: the workspace is <root>/root/<lab id>

    @property
    def workspace(self) -> Path:
        return self.root / "root" / self.lab

    @property
    def clone(self) -> Path:
        return self.workspace / LABS[self.lab].reads.clone

    @property
    def bare(self) -> Path:
        return self.plane.bare_root / f"{LABS[self.lab].reads.repo.name}.git"

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.plane.run(["git", "-C", str(self.clone), *args], env=LEARNER, check=check, timeout=120)


def plane_labs(config) -> list[str]:
    """The labs of the registry that `--plane-labs` picks (conftest.py): `a,b` those, `!a` all but
    a, unset all of them; in the registry's order."""
    picked = config.getoption("plane_labs")
    if not picked:
        return list(LABS)
    names = picked.lstrip("!").split(",")
    unknown = sorted(set(names) - set(LABS))
    if unknown:
        raise ValueError(f"--plane-labs: no lab {', '.join(unknown)} (labs: {', '.join(LABS)})")
    return [lab for lab in LABS if (lab in names) != picked.startswith("!")]


def plane_env(plane: Plane) -> dict[str, str]:
    """The learner's scripts (cgoa-ci's probes) and the solution call kubectl and argocd by name."""
    return {**os.environ, "PATH": f"{plane.bin_dir}:{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
            "ANSIBLE_NOCOLOR": "1"}


def inventory(learner: Learner) -> Path:
    """The learner as host `learner` of group `learners`, reached with the local connection."""
    plane = learner.plane
    path = learner.root / "inventory.json"
    path.write_text(json.dumps({"learners": {"hosts": {"learner": {
        "ansible_connection": "local", "ansible_python_interpreter": sys.executable, "lab_grader_python": sys.executable,
        "lab_kubectl": [str(plane.bin_dir / "kubectl")], "lab_argocd": [str(plane.bin_dir / "argocd")],
        "lab_admin_kubeconfig": str(plane.kubeconfig), "lab_workspace_root": str(learner.root / "root"),
        "lab_bare_root": str(plane.bare_root), "lab_helm_binary": str(plane.bin_dir / "helm"),
        "lab_kustomize_binary": str(plane.bin_dir / "kustomize")}}}}), encoding="utf-8")
    return path


def playbook(learner: Learner, name: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).with_name("ansible-playbook")), "-i", str(inventory(learner)),
                           f"playbooks/{name}", *extra], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=PLAYBOOK_TIMEOUT, env=plane_env(learner.plane))


def solve(learner: Learner, *extra: str) -> subprocess.CompletedProcess[str]:
    result = playbook(learner, "solve.yml", "-e", f"solve_lab={learner.lab}", *extra)
    assert result.returncode == 0, result.stdout[-4000:]
    return result


def reset(learner: Learner, *extra: str) -> subprocess.CompletedProcess[str]:
    return playbook(learner, "reset.yml", "-e", f"reset_lab={learner.lab}", *extra)


@contextlib.contextmanager
def plane_path(plane: Plane):
    """In-process probes (cgoa-ci's) run the learner's scripts with this process's PATH."""
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = plane_env(plane)["PATH"]
    try:
        yield
    finally:
        os.environ["PATH"] = saved


def plane_tools(plane: Plane) -> dict[str, str]:
    """Site's helm and kustomize: the plane's builds, which its repo-server runs."""
    return {"helm_binary": str(plane.bin_dir / "helm"), "kustomize_binary": str(plane.bin_dir / "kustomize")}


def grade_learner(learner: Learner, settle_seconds: float = 90) -> tuple[dict, dict[str, dict]]:
    plane = learner.plane
    site = Site(bare_root=str(plane.bare_root), workspace_root=str(learner.root / "root"),
                k3s_kubeconfig=str(plane.kubeconfig), **plane_tools(plane))
    lab = LABS[learner.lab]
    with plane_path(plane):
        result = grade(lab, collector(lab, site, str(plane.kubeconfig), timeout=15), "en",
                       settle_seconds=settle_seconds, poll_seconds=3)
    return result, {c["check"]: c for s in result["steps"] for c in s["checks"]}


def verdicts(checks: dict[str, dict], learner: Learner) -> dict[str, tuple[str, str]]:
    """check id -> (status, message) with the learner's root written <root> and the plane's bare
    repo root <bare>."""
    return {cid: (c["status"], c["message"].replace(str(learner.root), "<root>")
                  .replace(str(learner.plane.bare_root), "<bare>")) for cid, c in checks.items()}


def tree_digest(path: Path) -> dict[str, str]:
    """Every file under `path` with its content hash and mode (a bare repo: refs, objects, hooks)."""
    entries = {}
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            full = os.path.join(dirpath, name)
            with open(full, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            entries[os.path.relpath(full, path)] = f"{digest} {oct(os.stat(full).st_mode)}"
    return entries


def state_digest(learner: Learner) -> dict:
    """What grading must leave as it found: the workspace, the bare repo, and every object in the
    lab's namespaces and its Applications' specs (uid and generation; status is Argo CD's)."""
    plane = learner.plane
    lab = LABS[learner.lab]
    objects = {}
    for namespace in lab.owns.namespaces:
        listed = plane.kubectl("get", "deployments,configmaps,jobs,secrets,serviceaccounts,roles,rolebindings",
                               "-n", namespace, "-o", "json", check=False)
        for item in json.loads(listed.stdout or '{"items": []}')["items"]:
            meta = item["metadata"]
            objects[f"{item['kind']}/{namespace}/{meta['name']}"] = (meta["uid"], meta.get("generation"))
    for name in lab.owns.applications:
        app = plane.get("applications.argoproj.io", name, "argocd", missing_ok=True)
        objects[f"Application/{name}"] = json.dumps(app and app["spec"], sort_keys=True)
    return {"workspace": tree_digest(learner.workspace), "bare": tree_digest(learner.bare), "objects": objects}


@contextlib.contextmanager
def replaced(path: Path, text: str):
    """`path` holds `text` for the duration; its content and mode come back afterwards."""
    original, mode = path.read_text(encoding="utf-8"), path.stat().st_mode
    path.write_text(text, encoding="utf-8")
    try:
        yield
    finally:
        path.write_text(original, encoding="utf-8")
        path.chmod(mode)


def edited(path: Path, old: str, new: str):
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    return replaced(path, text.replace(old, new))


MISSING = object()  # evidence(..., key=MISSING) drops the key


def read_evidence(learner, name):
    return json.loads((learner.workspace / name).read_text(encoding="utf-8"))


def evidence(learner, name, **changes):
    """The evidence file `name` with `changes` (a callable gets the old value), written as the
    solution writes JSON."""
    data = read_evidence(learner, name)
    for key, value in changes.items():
        if value is MISSING:
            data.pop(key)
        else:
            data[key] = value(data[key]) if callable(value) else value
    return replaced(learner.workspace / name, json.dumps(data, indent=2) + "\n")


def git(path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """`git -C path ...`'s stdout; a failure asserts with git's own output (a push prints the hook's)."""
    done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout.strip()


class Rewrite:
    """A scratch clone of bare main (<root>/rewrite) for history a learner would have made instead:
    git runs as the learner, with the plane's kubectl on PATH for the pre-receive hook."""

    def __init__(self, learner: Learner):
        self.bare = learner.bare
        self.env = {**plane_env(learner.plane), **LEARNER}
        self.work = learner.root / "rewrite"
        shutil.rmtree(self.work, ignore_errors=True)
        git(learner.root, "clone", "-q", str(self.bare), str(self.work), env=self.env)

    def git(self, *args: str) -> str:
        return git(self.work, *args, env=self.env)

    def commit(self, files: dict[str, str], message: str) -> str:
        for path, text in files.items():
            (self.work / path).parent.mkdir(parents=True, exist_ok=True)
            (self.work / path).write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def push(self, ref: str = "HEAD", options: tuple[str, ...] = ()) -> None:
        """Force `ref` onto bare main (`options` for git push, e.g. another receive-pack)."""
        self.git("push", "-q", "-f", *options, "origin", f"{ref}:refs/heads/main")

    def close(self) -> None:
        """The scratch clone goes, and the rewritten history's objects leave the bare repo too
        (nothing else is unreachable there)."""
        shutil.rmtree(self.work, ignore_errors=True)
        git(self.bare, "prune", "--expire=now")
