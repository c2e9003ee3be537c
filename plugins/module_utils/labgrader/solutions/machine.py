"""What a reference solution does on a learner VM, and nothing else: run kubectl, git and the
argocd CLI the way a learner types them, write the learner's files, and wait - always bounded -
for what Argo CD reports. Used by the lab_solve module (playbooks/solve.yml) and by the tests on
the real control plane.

Every failure is a SolveError with one sentence that names the command or the wait."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time

LEARNER = {"GIT_AUTHOR_NAME": "learner", "GIT_AUTHOR_EMAIL": "learner@lab.invalid",
           "GIT_COMMITTER_NAME": "learner", "GIT_COMMITTER_EMAIL": "learner@lab.invalid"}
OUTPUT_TAIL = 2000  # characters of a failed command's output kept in the error


class SolveError(Exception):
    """A step of a reference solution could not be performed; the message says where."""


def wait_for(desc, probe, timeout, interval=1.0):
    """Call probe() until it returns something truthy and return that; SolveError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() >= deadline:
            raise SolveError(f"timed out after {timeout:.0f} s waiting for {desc}")
        time.sleep(interval)


class Machine:
    """One learner VM (or the control plane standing in for one).

    kubectl and argocd are argv prefixes (`[k3s, kubectl]` works); `kubeconfig` is the VM's admin
    kubeconfig; `wait_timeout` bounds every single wait on the cluster."""

    def __init__(self, kubectl, kubeconfig, argocd, site, wait_timeout=300.0):
        self.kubectl_argv = list(kubectl)
        self.kubeconfig = kubeconfig
        self.argocd_argv = list(argocd)
        self.site = site  # collect.Site: namespaces, repo URLs, workspace and bare-repo paths
        self.wait_timeout = wait_timeout

    # ---- commands ----------------------------------------------------------------------------
    def run(self, argv, check=True, timeout=120, input_text=None, env=None, cwd=None):
        full_env = dict(os.environ, **LEARNER, GIT_TERMINAL_PROMPT="0")
        full_env.update(env or {})
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, input=input_text,
                                  env=full_env, cwd=cwd, check=False)
        except subprocess.TimeoutExpired:
            raise SolveError(f"{' '.join(argv[:6])} did not finish within {timeout} s") from None
        except OSError as exc:
            raise SolveError(f"{argv[0]} cannot run: {exc.strerror}") from None
        if check and proc.returncode != 0:
            output = (proc.stderr.strip() or proc.stdout.strip())[-OUTPUT_TAIL:]
            raise SolveError(f"{' '.join(argv[:8])} exited {proc.returncode}: {output}")
        return proc

    def kubectl(self, *args, check=True, timeout=120, input_text=None):
        return self.run([*self.kubectl_argv, "--kubeconfig", self.kubeconfig, "--request-timeout=30s", *args],
                        check=check, timeout=timeout, input_text=input_text)

    def get(self, kind, name, namespace=None, missing_ok=False, managed_fields=False):
        args = ["get", kind, name, "-o", "json", *(["-n", namespace] if namespace else [])]
        if managed_fields:
            args.append("--show-managed-fields")
        proc = self.kubectl(*args, check=False)
        if proc.returncode != 0:
            if missing_ok and "NotFound" in proc.stderr:
                return None
            raise SolveError(f"kubectl get {kind} {name}: {proc.stderr.strip()[-OUTPUT_TAIL:]}")
        return json.loads(proc.stdout)

    def items(self, kind, namespace, field_selector=None):
        args = ["get", kind, "-n", namespace, "-o", "json"]
        if field_selector:
            args.append(f"--field-selector={field_selector}")
        return json.loads(self.kubectl(*args).stdout)["items"]

    def apply(self, path):
        self.kubectl("apply", "-f", path)

    def app(self, name):
        return self.get("applications.argoproj.io", name, self.site.argocd_namespace)

    def hard_refresh(self, name):
        """The lab texts' way to make Argo CD read git now instead of at its next poll."""
        self.kubectl("-n", self.site.argocd_namespace, "annotate", "applications.argoproj.io", name,
                     "argocd.argoproj.io/refresh=hard", "--overwrite")

    def write_argocd_kubeconfig(self, path):
        """A copy of the admin kubeconfig whose current namespace is Argo CD's: what `argocd ...
        --core` needs (the lab texts)."""
        flat = self.kubectl("config", "view", "--raw", "--flatten", "--minify").stdout
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(flat)
        os.chmod(path, 0o600)
        self.run([*self.kubectl_argv, "config", "--kubeconfig", path, "set-context", "--current",
                  f"--namespace={self.site.argocd_namespace}"])

    def terminate_operation(self, app):
        """`argocd app terminate-op <app> --core`, with a throw-away kubeconfig and HOME."""
        home = tempfile.mkdtemp(prefix="lab-solve-")
        try:
            kubeconfig = os.path.join(home, "kubeconfig")
            self.write_argocd_kubeconfig(kubeconfig)
            self.run([*self.argocd_argv, "app", "terminate-op", app, "--core"],
                     env={"KUBECONFIG": kubeconfig, "HOME": home})
        finally:
            shutil.rmtree(home, ignore_errors=True)

    # ---- waiting -----------------------------------------------------------------------------
    def wait(self, desc, probe, timeout=None, interval=1.0):
        return wait_for(desc, probe, self.wait_timeout if timeout is None else timeout, interval)

    def wait_app(self, name, predicate, desc, timeout=None):
        def probe():
            app = self.app(name)
            return app if predicate(app) else None
        try:
            return self.wait(f"Application {name}: {desc}", probe, timeout)
        except SolveError as exc:
            status = self.app(name).get("status", {})
            seen = {key: status.get(key) for key in ("sync", "health", "conditions", "operationState")}
            raise SolveError(f"{exc}; its status: {json.dumps(seen)[:OUTPUT_TAIL]}") from None

    def wait_synced_healthy(self, name, revision, timeout=None):
        """Synced, Healthy and the last operation Succeeded at `revision` of git."""
        def done(app):
            status = app.get("status", {})
            operation = status.get("operationState", {})
            return (status.get("sync", {}).get("status") == "Synced" and status["sync"].get("revision") == revision
                    and status.get("health", {}).get("status") == "Healthy" and operation.get("phase") == "Succeeded"
                    and operation.get("syncResult", {}).get("revision") == revision)
        return self.wait_app(name, done, f"Synced, Healthy, Succeeded at {revision[:7]}", timeout)


class Workspace:
    """The learner's files of one lab, where its grader reads them: the workspace, the clone and
    the bare repo."""

    def __init__(self, machine, lab):
        site = machine.site
        self.machine = machine
        self.path = site.workspace(lab)
        self.clone = os.path.join(self.path, lab.reads.clone)
        self.bare = site.bare_path(lab.reads.repo.name)
        self.repo_url = site.repo_url(lab.reads.repo.name)

    def file(self, name):
        return os.path.join(self.path, name)

    def write(self, name, text, mode=0o644):
        os.makedirs(self.path, exist_ok=True)
        with open(self.file(name), "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(self.file(name), mode)

    def write_json(self, name, data):
        self.write(name, json.dumps(data, indent=2) + "\n")

    def read_json(self, name):
        try:
            with open(self.file(name), encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError) as exc:
            raise SolveError(f"{self.file(name)} of an earlier step cannot be read: {exc}") from None

    def git(self, *args, check=True, cwd=None):
        return self.machine.run(["git", "-C", cwd or self.clone, *args], check=check)

    def head(self):
        return self.git("rev-parse", "HEAD").stdout.strip()

    def bare_head(self):
        return self.machine.run(["git", "-C", self.bare, "rev-parse", "refs/heads/main"]).stdout.strip()

    def init_repo(self):
        """The bare repo with branch main and the learner's clone of it (kept when they exist)."""
        if not os.path.isdir(self.bare):
            os.makedirs(self.machine.site.bare_root, exist_ok=True)
            self.machine.run(["git", "init", "--bare", "-q", "-b", "main", self.bare])
        if not os.path.isdir(os.path.join(self.clone, ".git")):
            os.makedirs(self.path, exist_ok=True)
            self.machine.run(["git", "clone", "-q", self.bare, self.clone])
            self.git("checkout", "-q", "-B", "main")

    def commit_push(self, files, message):
        """Write `files` (path -> text) into the clone, commit them when they change something,
        push main; returns bare main's head."""
        for relpath, text in files.items():
            target = os.path.join(self.clone, relpath)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
        self.git("add", "-A")
        if self.git("diff", "--cached", "--quiet", check=False).returncode != 0:
            self.git("commit", "-q", "-m", message)
        self.git("push", "-q", "origin", "main")
        return self.bare_head()
