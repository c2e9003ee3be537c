"""What a lab reads, declared once, and the one function that reads it.

Collection is separate from judging: everything here touches the file system, git or the API;
the checks only look at the LabState it returns.
"""

from __future__ import annotations

import os
import stat

from ansible.module_utils.labgrader.gitstate import collect_clone, collect_repo
from ansible.module_utils.labgrader.grading import ClusterView, Declared, LabState
from ansible.module_utils.labgrader.kubestate import collect_cluster
from ansible.module_utils.labgrader.workspace import FileRead, read_json, read_text, read_yaml_documents

GITD_PORT = 9418  # the learners' URLs name it; gitd listens there on every VM


class Site:
    """Settings of the VM that checks and messages read: namespaces, repo URLs, paths.

    Built once per module call from its options, so a VM whose Argo CD lives in another
    namespace is judged, and told, with that namespace.
    """

    def __init__(self, argocd_namespace="argocd", gitd_namespace="gitsrv", bare_root="/srv/bare", workspace_root="/root"):
        self.argocd_namespace = argocd_namespace
        self.gitd_namespace = gitd_namespace
        self.bare_root = bare_root
        self.workspace_root = workspace_root

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
    `prefixes` at its head, `tracked_paths` in every commit."""

    def __init__(self, name, prefixes=(), tracked_paths=()):
        self.name = name
        self.prefixes = tuple(prefixes)
        self.tracked_paths = tuple(tracked_paths)


class Reads:
    """Everything a lab may read. Names not declared here raise when a check asks for them.

    - json_files, yaml_files, text_files: paths relative to the workspace (text files also
      report whether they are executable, for scripts);
    - repo: a Repo; clone: the clone's path relative to the workspace;
    - api(site): {name: (path, query or None)}, GET requests only;
    - probes(context): {name: result}; active probes of the learner's scripts, run once per
      module call (they do not change while Argo CD converges) and only on temp copies.
    """

    def __init__(self, json_files=(), yaml_files=(), text_files=(), repo=None, clone=None, api=None, probes=None):
        self.json_files = tuple(json_files)
        self.yaml_files = tuple(yaml_files)
        self.text_files = tuple(text_files)
        self.repo = repo
        self.clone = clone
        self.api = api or (lambda site: {})
        self.probes = probes


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


class ProbeContext:
    """What a lab's probes may use: the site, the paths, the files already read."""

    def __init__(self, site, workspace, bare_path, files, kubeconfig, timeout):
        self.site = site
        self.workspace = workspace
        self.bare_path = bare_path
        self.files = files
        self.kubeconfig = kubeconfig
        self.timeout = timeout


def collector(lab, site, kubeconfig, timeout=10.0, max_bytes=1024 * 1024):
    """A function that reads `lab`'s declared state once per call (the runner calls it again
    while Argo CD converges); probes run on the first call only."""
    reads = lab.reads
    workspace = site.workspace(lab)
    bare_path = site.bare_path(reads.repo.name) if reads.repo else None
    api_reads = reads.api(site)
    probes = {}
    probed = []

    def collect():
        files = Declared()
        files.update({name: read_json(workspace, name, max_bytes) for name in reads.json_files})
        files.update({name: read_yaml_documents(workspace, name, max_bytes) for name in reads.yaml_files})
        files.update({name: read_script(workspace, name, max_bytes) for name in reads.text_files})
        repo = collect_repo(bare_path, "main", reads.repo.prefixes, reads.repo.tracked_paths) if reads.repo else None
        clone = collect_clone(os.path.join(workspace, reads.clone)) if reads.clone else None
        cluster = ClusterView(collect_cluster(kubeconfig, api_reads, timeout), api_reads)
        if reads.probes and not probed:
            probed.append(True)
            probes.update(reads.probes(ProbeContext(site, workspace, bare_path, files, kubeconfig, timeout)))
        return LabState(site, workspace, bare_path, files, repo, clone, cluster, Declared(probes))

    return collect
