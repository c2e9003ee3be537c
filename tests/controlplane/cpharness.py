"""Harness for tests against the real local control plane (controlplane/cp): a plane started
for a session (started_plane), the Plane helper (kubectl, git, waits, recording) and bounded
waiting. Imported by conftest.py, the tests and benchmarks/bench_probes.py."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.solutions.machine import Machine, SolveError, wait_for

CP = Path(__file__).resolve().parents[2] / "controlplane" / "cp"
UP_TIMEOUT = int(os.environ.get("LAB_CP_FIXTURE_UP_TIMEOUT", "5400"))


class Timeout(AssertionError):
    pass


class PlaneNotUp(Exception):
    """`cp up` failed; the message has the end of its output."""


def wait_until(desc: str, fn: Callable[[], Any], timeout: float, interval: float = 1.0) -> Any:
    """Call fn until it returns a truthy value; raise Timeout after `timeout` seconds."""
    try:
        return wait_for(desc, fn, timeout, interval)
    except SolveError as exc:
        raise Timeout(str(exc)) from None


@dataclass
class Plane:
    root: Path
    kubeconfig: Path
    kubeconfig_argocd: Path
    bare_root: Path
    bin_dir: Path
    work: Path
    record_dir: Path | None
    env: dict[str, str] = field(default_factory=dict)

    # ---- processes -------------------------------------------------------------------------
    def run(
        self,
        args: list[str],
        *,
        check: bool = True,
        timeout: float = 60,
        input_text: str | None = None,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        full_env = dict(self.env)
        if env:
            full_env.update(env)
        proc = subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input_text,
            env=full_env,
            cwd=cwd,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(args)} exited {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
        return proc

    def kubectl(
        self, *args: str, check: bool = True, timeout: float = 60, input_text: str | None = None, kubeconfig: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin_dir / "kubectl"), "--kubeconfig", str(kubeconfig or self.kubeconfig), "--request-timeout=30s", *args]
        return self.run(cmd, check=check, timeout=timeout, input_text=input_text)

    def get(
        self, kind: str, name: str, namespace: str | None = None, *, missing_ok: bool = False, managed_fields: bool = False
    ) -> dict[str, Any] | None:
        try:
            return self.machine.get(kind, name, namespace, missing_ok=missing_ok, managed_fields=managed_fields)
        except SolveError as exc:
            raise AssertionError(str(exc)) from None

    @property
    def machine(self) -> Machine:
        """The plane as the reference solutions see a learner VM (admin kubeconfig, its binaries)."""
        return Machine([str(self.bin_dir / "kubectl")], str(self.kubeconfig), [str(self.bin_dir / "argocd")],
                       Site(bare_root=str(self.bare_root), workspace_root=str(self.work)))

    def list(self, kind: str, namespace: str, selector: str | None = None) -> list[dict[str, Any]]:
        args = ["get", kind, "-n", namespace, "-o", "json"]
        if selector:
            args += ["-l", selector]
        return json.loads(self.kubectl(*args).stdout)["items"]

    def apply(self, manifest: dict[str, Any] | str, *extra: str) -> None:
        text = manifest if isinstance(manifest, str) else json.dumps(manifest)
        self.kubectl("apply", *extra, "-f", "-", input_text=text)

    def app(self, name: str) -> dict[str, Any]:
        app = self.get("applications.argoproj.io", name, "argocd")
        assert app is not None
        return app

    def hard_refresh(self, name: str) -> None:
        self.kubectl(
            "-n", "argocd", "annotate", "applications.argoproj.io", name, "argocd.argoproj.io/refresh=hard", "--overwrite"
        )

    def argocd(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return self.run(
            [str(self.bin_dir / "argocd"), *args],
            check=False,
            timeout=timeout,
            env={"KUBECONFIG": str(self.kubeconfig_argocd), "HOME": str(self.work)},
        )

    # ---- git -------------------------------------------------------------------------------
    def git(self, repo: Path, *args: str, timeout: float = 60) -> str:
        env = {
            "GIT_AUTHOR_NAME": "lab",
            "GIT_AUTHOR_EMAIL": "lab@example.invalid",
            "GIT_COMMITTER_NAME": "lab",
            "GIT_COMMITTER_EMAIL": "lab@example.invalid",
        }
        return self.run(["git", "-C", str(repo), *args], env=env, timeout=timeout).stdout.strip()

    def new_repo(self, name: str) -> Path:
        """Create bare repo <bare_root>/<name>.git and a clone under the work dir; return the clone."""
        bare = self.bare_root / f"{name}.git"
        shutil.rmtree(bare, ignore_errors=True)
        shutil.rmtree(self.work / name, ignore_errors=True)
        self.run(["git", "init", "--bare", "-q", "-b", "main", str(bare)])
        clone = self.work / name
        self.run(["git", "clone", "-q", str(bare), str(clone)])
        self.git(clone, "checkout", "-q", "-b", "main")
        return clone

    def commit_push(self, clone: Path, files: dict[str, str], message: str) -> str:
        for rel, text in files.items():
            path = clone / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.git(clone, "add", "-A")
        self.git(clone, "commit", "-q", "-m", message)
        self.git(clone, "push", "-q", "origin", "main")
        return self.git(clone, "rev-parse", "HEAD")

    # ---- waiting ---------------------------------------------------------------------------
    def wait_app(self, name: str, pred: Callable[[dict[str, Any]], bool], desc: str, timeout: float = 180) -> dict[str, Any]:
        def check() -> dict[str, Any] | None:
            app = self.app(name)
            return app if pred(app) else None

        try:
            return wait_until(f"app {name}: {desc}", check, timeout, interval=1.0)
        except Timeout as exc:
            app = self.app(name)
            raise Timeout(f"{exc}\nstatus: {json.dumps(app.get('status', {}), indent=1)[:4000]}") from None

    def wait_synced_healthy(self, name: str, revision: str | None = None, timeout: float = 180) -> dict[str, Any]:
        def ok(app: dict[str, Any]) -> bool:
            st = app.get("status", {})
            op = st.get("operationState", {})
            return (
                st.get("sync", {}).get("status") == "Synced"
                and st.get("health", {}).get("status") == "Healthy"
                and op.get("phase") == "Succeeded"
                and (
                    revision is None
                    or (st["sync"].get("revision") == revision and op.get("syncResult", {}).get("revision") == revision)
                )
            )

        return self.wait_app(name, ok, f"Synced/Healthy/Succeeded at {revision}", timeout)

    # ---- recording -------------------------------------------------------------------------
    def record(self, name: str, obj: Any) -> None:
        if self.record_dir is None:
            return
        self.record_dir.mkdir(parents=True, exist_ok=True)
        path = self.record_dir / f"{name}.json"
        path.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def parse_kv(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Z_]+)=(.*)$", line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


@contextlib.contextmanager
def started_plane(reuse: bool = False, record_dir: Path | None = None) -> Iterator[Plane]:
    """`controlplane/cp up` under a temporary state root, `cp down` at the end; with `reuse`, the
    plane already up under LAB_CP_ROOT (left running)."""
    tmp = Path(tempfile.mkdtemp(prefix="lab-cp-tests-"))
    env = dict(os.environ)
    if reuse:
        root = Path(env.get("LAB_CP_ROOT", "/tmp/lab-controlplane"))
    else:
        root = tmp / "plane"
        env["LAB_CP_ROOT"] = str(root)
    env.setdefault("LAB_CP_BARE", str(root / "bare"))
    if not reuse:
        try:
            proc = subprocess.run([str(CP), "up"], capture_output=True, text=True, env=env, timeout=UP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc = subprocess.CompletedProcess([str(CP), "up"], "timeout", "", f"no answer in {UP_TIMEOUT} s")
        info = parse_kv(proc.stdout)
        if proc.returncode != 0 or not {"KUBECONFIG", "KUBECONFIG_ARGOCD", "BARE_ROOT", "BIN"} <= set(info):
            subprocess.run([str(CP), "down"], capture_output=True, text=True, env=env, timeout=180)
            shutil.rmtree(tmp, ignore_errors=True)
            raise PlaneNotUp(f"cp up failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    else:
        info = {
            "KUBECONFIG": str(root / "kubeconfig"),
            "KUBECONFIG_ARGOCD": str(root / "kubeconfig-argocd"),
            "BARE_ROOT": env["LAB_CP_BARE"],
            "BIN": (root / "bin").read_text().strip(),
        }
    work = tmp / "work"
    work.mkdir()
    plane = Plane(
        root=root,
        kubeconfig=Path(info["KUBECONFIG"]),
        kubeconfig_argocd=Path(info["KUBECONFIG_ARGOCD"]),
        bare_root=Path(info["BARE_ROOT"]),
        bin_dir=Path(info["BIN"]),
        work=work,
        record_dir=record_dir,
        env={**env, "PATH": f"{info['BIN']}:{env.get('PATH', '')}", "GIT_TERMINAL_PROMPT": "0"},
    )
    try:
        yield plane
    finally:
        if not reuse:
            subprocess.run([str(CP), "down"], capture_output=True, text=True, env=env, timeout=180)
        shutil.rmtree(tmp, ignore_errors=True)
