"""What a lab reads, declared once, and the one function that reads it.

Collection is separate from judging: everything here touches the file system, git or the API;
the checks only look at the LabState it returns.
"""

from __future__ import annotations

import base64
import json
import os
import stat
import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n, site_defaults
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.gitstate import (
    GIT_TIMEOUT,
    OUT_OF_TIME,
    collect_clone,
    collect_repo,
    read_refs,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import (
    ClusterView,
    Declared,
    LabBudget,
    LabState,
    OutOfTime,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import (
    DEADLINE_TIMEOUTS,
    ClusterError,
    ClusterState,
    collect_cluster,
    kubeconfig_error,
    load_kubeconfig,
    where_file,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, read_regular
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import (
    FileRead,
    read_json,
    read_text,
    read_yaml_documents,
)

GITD_PORT = 9418  # the learners' URLs name it; gitd listens there on every VM


class Site:
    """Settings of the VM that checks and messages read: namespaces, repo URLs, paths.

    Built once per module call from its options, so a VM whose Argo CD lives in another
    namespace is judged, and told, with that namespace. `helm_binary` and `kustomize_binary`
    are the tools Argo CD runs, at its versions (checks/repo_server.py); None means the
    module's defaults, read when the Site is built (tests point them at the control plane's).
    """

    def __init__(self, argocd_namespace=site_defaults.ARGOCD_NAMESPACE, gitd_namespace=site_defaults.GITD_NAMESPACE,
                 bare_root=site_defaults.BARE_ROOT, workspace_root=site_defaults.WORKSPACE_ROOT,
                 k3s_kubeconfig=site_defaults.KUBECONFIG, probe_replay=None, helm_binary=None, kustomize_binary=None):
        self.argocd_namespace = argocd_namespace
        self.gitd_namespace = gitd_namespace
        self.bare_root = bare_root
        self.workspace_root = workspace_root
        self.k3s_kubeconfig = k3s_kubeconfig  # the VM's admin kubeconfig: its server and CA, nothing else
        self.probe_replay = probe_replay  # recorded probe results (a fixture world) instead of running probes
        self.helm_binary = helm_binary or repo_server.HELM_BINARY
        self.kustomize_binary = kustomize_binary or repo_server.KUSTOMIZE_BINARY

    def root_problems(self):
        """Why the labs' roots cannot be read, one line each ([] when they can). A lab whose
        workspace is missing is the learner's FAIL (not started); a workspace root that is missing
        or relative is the run's setting, never the learner's work (issue 19). The bare root is
        only required absolute: a VM where no lab has created a repository yet has none."""
        problems = []
        for option, root in (("lab_workspace_root", self.workspace_root), ("lab_bare_root", self.bare_root)):
            if not os.path.isabs(root):
                problems.append(f"{option} {root!r} is not an absolute path")
        if os.path.isabs(self.workspace_root) and not os.path.isdir(self.workspace_root):
            problems.append(f"lab_workspace_root {self.workspace_root} is not a directory on this VM")
        return problems

    def repo_url(self, name):
        return f"git://gitd.{self.gitd_namespace}.svc.cluster.local:{GITD_PORT}/{name}.git"

    def bare_path(self, name):
        return os.path.join(self.bare_root, f"{name}.git")

    def workspace(self, lab):
        """A lab's workspace is <workspace_root>/<lab id> (/root/capa-src on a VM)."""
        return os.path.join(self.workspace_root, lab.id)

    def params(self, lab):
        """Message and hint parameters every check of `lab` may use."""
        workspace = self.workspace(lab)
        params = {"argocd_namespace": self.argocd_namespace, "gitd_namespace": self.gitd_namespace,
                  "bare_root": self.bare_root, "workspace": workspace}
        if lab.reads.repo:
            params["bare_path"] = self.bare_path(lab.reads.repo.name)
        if lab.reads.clone:
            params["clone_path"] = os.path.join(workspace, lab.reads.clone)
        return params


class Repo:
    """The lab's bare repository `<bare_root>/<name>.git`: branch main, the files under
    `prefixes` at its head, `tracked_paths` in every commit, with `changed_paths` the paths each
    commit changes (RepoState.changed), and `files` of the repository itself (hooks) read as git
    finds a hook (collect.read_hook)."""

    def __init__(self, name, prefixes=(), tracked_paths=(), files=(), changed_paths=False):
        self.name = name
        self.prefixes = tuple(prefixes)
        self.tracked_paths = tuple(tracked_paths)
        self.files = tuple(files)
        self.changed_paths = changed_paths


class Reads:
    """Everything a lab may read. Names not declared here raise when a check asks for them.

    - json_files: {evidence file: the keys the lab's checks read from it} (a hint names them);
    - yaml_files, text_files: paths relative to the workspace (text files also
      report whether they are executable, for scripts); kubeconfig_files: kubeconfigs in the
      workspace, loaded as kubectl loads them (file references resolved, bounded);
    - repo: a Repo; clone: the clone's path relative to the workspace; clone_refs: full ref
      names read from the clone (state.clone_refs);
    - api(site): {name: (path, query or None)}, GET requests only, sent after the probes;
    - reviews(site, files): {name: (path, body)}, SubjectAccessReview/TokenReview questions;
    - probes(context): {name: JSON-able result}; active probes of the learner's scripts (and
      reads of the grader's own environment), run once per module call (they do not change
      while Argo CD converges) and only on temp copies; replayed from a recording in fixtures;
    - probe_part: the part of the lab's time share its probes may use (context.remaining()
      counts down to its end); the rest is kept for the reads after them and for settling.
    """

    def __init__(self, json_files=(), yaml_files=(), text_files=(), kubeconfig_files=(), repo=None, clone=None,
                 clone_refs=(), api=None, reviews=None, probes=None, probe_part=0.75):
        if not 0 < probe_part <= 1:
            raise ValueError(f"probe_part must be more than 0 and at most 1, got {probe_part}")
        evidence_keys = json_files if isinstance(json_files, dict) else dict.fromkeys(json_files, ())
        self.json_files = tuple(evidence_keys)
        self.evidence_keys = {name: tuple(keys) for name, keys in evidence_keys.items()}
        self.yaml_files = tuple(yaml_files)
        self.text_files = tuple(text_files)
        self.kubeconfig_files = tuple(kubeconfig_files)
        self.repo = repo
        self.clone = clone
        self.clone_refs = tuple(clone_refs)
        self.api = api or (lambda site: {})
        self.reviews = reviews or (lambda site, files: {})
        self.probes = probes
        self.probe_part = probe_part


class ScriptRead(FileRead):
    """A text file plus whether any execute bit is set (None when the file was not read)."""

    __slots__ = ("executable",)

    def __init__(self, read, executable):
        super().__init__(read.path, read.problem, read.detail, read.data, read.text)
        self.executable = executable


def read_script(root, relpath, max_bytes):
    read = read_text(root, relpath, max_bytes)
    if not read.ok and read.problem != "empty":
        return ScriptRead(read, None)
    try:
        mode = os.stat(os.path.join(root, relpath)).st_mode
    except OSError:
        return ScriptRead(read, None)
    return ScriptRead(read, stat.S_ISREG(mode) and bool(mode & 0o111))


def read_hook(root, relpath, max_bytes):
    """A hook of the bare repository, judged as git runs it (run-command.c find_hook: access(2)
    with X_OK, which follows links): a link to an executable file anywhere, or a compiled program,
    is a hook; its text is None when it is not UTF-8 text. The probes copy what the link names."""
    path = os.path.join(root, relpath)
    try:
        info = os.stat(path)
    except OSError:
        return read_script(root, relpath, max_bytes)  # missing, a dangling link or a loop: say which
    if not stat.S_ISREG(info.st_mode):
        return read_script(root, relpath, max_bytes)
    executable = bool(info.st_mode & 0o111)
    if info.st_size > max_bytes:
        return ScriptRead(FileRead(path, "too_large", f"{info.st_size} > {max_bytes} bytes"), executable)
    read = read_text(os.path.dirname(os.path.realpath(path)), os.path.basename(os.path.realpath(path)), max_bytes)
    if read.problem == "binary":
        read = FileRead(path)
    return ScriptRead(FileRead(path, read.problem, read.detail, read.data, read.text), executable)


def load_kubeconfig_data(path):
    """A kubeconfig as kubectl reads it, its clusters' `certificate-authority` files read into
    `certificate-authority-data` (bounded reads); ClusterError when it is not usable."""
    config = load_kubeconfig(path)
    for entry in config.get("clusters") or []:
        cluster = entry.get("cluster") if isinstance(entry, dict) else None
        if isinstance(cluster, dict) and "certificate-authority" in cluster:
            try:
                data = read_regular(cluster.pop("certificate-authority"), 64 * 1024)
            except Refused as refused:
                raise kubeconfig_error("kc_file_refused", where_file(path),
                                       detail=f"certificate-authority: {refused.problem}") from None
            cluster.setdefault("certificate-authority-data", base64.b64encode(data).decode())
    return config


def read_kubeconfig(root, relpath, max_bytes):
    """A learner's kubeconfig: a FileRead whose data is [config], or whose problem says why not
    (never the file's text: it holds a token)."""
    read = read_text(root, relpath, max_bytes)
    if not read.ok:
        return read
    try:
        config = load_kubeconfig_data(read.path)
    except ClusterError as exc:
        return FileRead(read.path, "invalid_kubeconfig", exc.detail, reason=exc.reason)
    return FileRead(read.path, data=[config])


class ProbeContext:
    """What a lab's probes may use: the site, the paths, the files already read, and the
    deadline (a time.monotonic() value) that every probe must finish before: the end of the
    probes' part of the lab's time share (LabBudget.probe_deadline)."""

    def __init__(self, site, workspace, bare_path, files, kubeconfig, deadline):
        self.site = site
        self.workspace = workspace
        self.bare_path = bare_path
        self.files = files
        self.kubeconfig = kubeconfig
        self.deadline = deadline

    def remaining(self):
        return self.deadline - time.monotonic()


def recorded_probes(site, lab):
    """The recorded probe results of `lab` from a fixture world's probes.json, or None when the
    world recorded none (then the probes run)."""
    if not site.probe_replay or not os.path.isfile(site.probe_replay):
        return None
    with open(site.probe_replay, encoding="utf-8") as handle:
        return json.load(handle).get(lab.id)


def collector(lab, site, kubeconfig, timeout=10.0, max_bytes=1024 * 1024, budget=None):
    """A function that reads `lab`'s declared state once per call (the runner calls it again
    while Argo CD converges); probes run on the first call only, before the API reads, so that
    the reads see what the probes left (nothing, if the learner's scripts behave). Each call's
    API reads get DEADLINE_TIMEOUTS x `timeout` seconds, and nothing runs past the lab's
    `budget` (a grading.LabBudget; default 10 minutes from now); the probes end at its
    probe_deadline. A read the budget cut short is OUT_OF_TIME, which its checks judge ERROR."""
    budget = LabBudget(lab, 600.0, 600.0) if budget is None else budget
    reads = lab.reads
    workspace = site.workspace(lab)
    bare_path = site.bare_path(reads.repo.name) if reads.repo else None
    api_reads = reads.api(site)
    probes = Declared()
    probed = []

    def collect():
        started = time.monotonic()
        files = Declared()
        files.update({name: read_json(workspace, name, max_bytes) for name in reads.json_files})
        files.update({name: read_yaml_documents(workspace, name, max_bytes) for name in reads.yaml_files})
        files.update({name: read_script(workspace, name, max_bytes) for name in reads.text_files})
        files.update({name: read_kubeconfig(workspace, name, max_bytes) for name in reads.kubeconfig_files})
        repo = clone = clone_refs = None
        if reads.repo:
            repo = collect_repo(bare_path, "main", reads.repo.prefixes, reads.repo.tracked_paths, timeout=GIT_TIMEOUT,
                                deadline=budget.deadline, changed_paths=reads.repo.changed_paths)
            files.update({name: read_hook(bare_path, name, max_bytes) for name in reads.repo.files})
        if reads.clone:
            clone = collect_clone(os.path.join(workspace, reads.clone))
            clone_refs = read_refs(os.path.join(workspace, reads.clone, ".git"), reads.clone_refs)
        probe_seconds = 0.0
        if reads.probes and not probed:
            probed.append(True)
            probes_started = time.monotonic()
            context = ProbeContext(site, workspace, bare_path, files, kubeconfig, budget.probe_deadline)
            recorded = recorded_probes(site, lab)
            probes.update(recorded if recorded is not None else reads.probes(context))
            probe_seconds = time.monotonic() - probes_started
        reviews = reads.reviews(site, files)
        snapshot = read_cluster(kubeconfig, api_reads, timeout, budget, reviews)
        cluster = ClusterView(snapshot, list(api_reads) + list(reviews))
        return LabState(site, workspace, bare_path, files, repo, clone, cluster, probes, clone_refs=clone_refs,
                        budget=budget, read_seconds=time.monotonic() - started - probe_seconds,
                        evidence_keys=reads.evidence_keys)

    return collect


def read_cluster(kubeconfig, api_reads, timeout, budget, reviews):
    """collect_cluster within DEADLINE_TIMEOUTS x `timeout` and the lab's budget. A collection
    that the budget ended (not the API server, nor its own DEADLINE_TIMEOUTS) is OUT_OF_TIME,
    its detail the English message that says so."""
    own_deadline = time.monotonic() + DEADLINE_TIMEOUTS * timeout
    if budget.remaining() <= 0:
        return cluster_out_of_time(ClusterState(), budget)
    snapshot = collect_cluster(kubeconfig, api_reads, timeout, deadline=min(own_deadline, budget.deadline),
                               reviews=reviews)
    cut_by_budget = snapshot.problem == "unreachable" and budget.deadline < own_deadline and budget.remaining() <= 0
    return cluster_out_of_time(snapshot, budget) if cut_by_budget else snapshot


def cluster_out_of_time(snapshot, budget):
    verdict = budget.verdict(OutOfTime("phrase_read_cluster"))
    detail = i18n.message(verdict.key, verdict.params, "en")
    return ClusterState(snapshot.reads, OUT_OF_TIME, detail, snapshot.requests, snapshot.seconds)
