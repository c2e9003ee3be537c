"""Record a VM's lab state into a world file: ``python -m labworld record --lab ID --out world.yaml``.

What is recorded is what the grader reads, taken from the grader itself: the lab's collector
(labgrader/collect.py) reads the declared workspace files, the bare repo (its history of the
tracked paths, the files under the prefixes at its head, the hooks), the clone's config and refs,
the declared GETs and reviews, and runs (or replays) the probes, all bounded and read-only. This
module turns that LabState into a world that `materialize` builds again, so that grading the
replay gives the same verdicts and messages:

- a workspace file is copied with its mode (a symlink the grader follows is copied as the file it
  names; a file over the grader's size limit is recorded by size only);
- the repo's commits are rebuilt with the grader's view of them (subject, commit time, the tracked
  paths in every commit, the prefixes at the head); every commit id found elsewhere in the world
  becomes `{{ sha(...) }}` / `{{ sha7(...) }}`, since rebuilt commits get new ids;
- the clone's `.git/config` and the refs the lab reads are files over a fresh clone;
- list answers become objects (the fake API server filters them again); review answers are
  recorded as they came (`cluster.reviews`); health-gate objects are kept to what it judges;
- the VM's paths, API server URL and CA data become `{{ host_root }}`, `{{ server }}` and
  `{{ ca_data }}`; tokens in kubeconfig files are never copied: a JWT keeps its header and claims
  (the grader reads iat and exp) with its signature replaced, any other token, key or password
  becomes a numbered placeholder; the grader's own token becomes the replay's (`labworld-{{ host }}-token`).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import socket
import stat
import sys
import time
from pathlib import Path
from typing import Any

from . import WorldError
from .server import ApiError, parse_resource_path, resolve

# The collection's Python root: collections/ansible_collections/gitops_lab/grader links to the
# checkout; record.yml's archive lays the grader's module_utils out under the same path on the VM.
COLLECTIONS = Path(__file__).resolve().parents[1] / "collections"
MAX_SIZE_MB = 64  # a too-large file is replayed at its size up to this; the grader only reports its size
REDACTED_SIGNATURE = "labworld-redacted-signature"
HEALTH_META = ("name", "namespace", "uid", "creationTimestamp", "generation")


def grader():
    """Make the grader's module_utils importable by their collection name, with or without
    Ansible (on a VM the recorder runs with the grader's Python)."""
    if str(COLLECTIONS) not in sys.path:
        sys.path.insert(0, str(COLLECTIONS))


# -- secrets and templates ---------------------------------------------------------------------
def kubeconfig_secrets(text: str) -> list[str]:
    """The users' tokens, passwords and client keys of a kubeconfig's text."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, load_yaml
    try:
        documents = load_yaml(text)
    except Refused:
        documents = []
    found = []
    for config in documents:
        for entry in (config.get("users") if isinstance(config, dict) else None) or []:
            user = entry.get("user") if isinstance(entry, dict) else None
            found += [user[key] for key in ("token", "password", "client-key-data")
                      if isinstance(user, dict) and isinstance(user.get(key), str) and user[key]]
    if not documents:  # not YAML the loader takes: by key, line by line
        found += [m.group(2) for m in re.finditer(
            r"(?m)^\s*-?\s*(token|password|client-key-data)\s*:\s*['\"]?([^'\"\s#]+)", text)]
    return found


_JINJA_OPEN = re.compile(r"\{(?=[{%#])")
_JWT = re.compile(r"(?<![\w-])(eyJ[\w-]*\.eyJ[\w-]*\.)[\w-]+")


def escape(text: str) -> str:
    """Literal text that Jinja renders to itself."""
    return _JINJA_OPEN.sub("{{ '{' }}", text)


class Templater:
    """Rewrites recorded strings for the world: secrets replaced, site values and commit ids as
    templates, everything else escaped so that rendering gives it back verbatim."""

    def __init__(self):
        self.secrets: dict[str, str] = {}  # literal -> literal
        self.site: dict[str, str] = {}  # literal -> template text (server, CA, token)
        self.paths: dict[str, str] = {}  # literal -> template text (workspace and bare roots)
        self.commits: dict[str, str] = {}  # sha -> sha() arguments
        self._by_prefix: dict[str, list[str]] = {}  # sha7 -> shas, for the commits indexed so far
        self._indexed = 0
        self.placeholders = 0

    def add_secret(self, value: str) -> None:
        """Replace `value` everywhere: a JWT keeps header and claims (the grader reads iat and
        exp) and loses its signature; anything else becomes a placeholder that tells nothing."""
        parts = value.split(".")
        if value in self.secrets or value in self.site:
            return
        if len(parts) == 3 and all(parts[:2]):
            self.secrets[value] = f"{parts[0]}.{parts[1]}.{REDACTED_SIGNATURE}"
        else:
            self.placeholders += 1
            self.secrets[value] = f"labworld-redacted-{self.placeholders}"

    def _pattern(self, table: dict[str, str]):
        if not table:
            return None
        alternatives = "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
        return re.compile(rf"(?<![\w.-])(?:{alternatives})(?![\w.-])")

    def _sha(self, match) -> str | None:
        text = match.group(0)
        if self._indexed != len(self.commits):
            self._by_prefix, self._indexed = {}, len(self.commits)
            for sha in self.commits:
                self._by_prefix.setdefault(sha[:7], []).append(sha)
        found = [sha for sha in self._by_prefix.get(text[:7], ()) if sha.startswith(text)]
        if len(found) != 1:
            return None
        args = self.commits[found[0]]
        if len(text) == 40:
            return f"{{{{ sha({args}) }}}}"
        if len(text) == 7:
            return f"{{{{ sha7({args}) }}}}"
        return f"{{{{ sha({args})[:{len(text)}] }}}}"

    def __call__(self, text: str, paths: bool = False) -> str:
        for secret, replacement in self.secrets.items():
            text = text.replace(secret, replacement)
        # a JWT anywhere else (a script's --token) loses its signature too
        text = _JWT.sub(lambda m: m.group(0) if m.group(0) in self.site else m.group(1) + REDACTED_SIGNATURE, text)
        table = {**self.site, **(self.paths if paths else {})}
        patterns = [(p, lambda m, t=table: t[m.group(0)]) for p in [self._pattern(table)] if p]
        if self.commits:
            patterns.append((re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])"), self._sha))
        spans = []
        for pattern, replace in patterns:
            for match in pattern.finditer(text):
                if any(match.start() < end and start < match.end() for start, end, _ in spans):
                    continue
                replacement = replace(match)
                if replacement is not None:
                    spans.append((match.start(), match.end(), replacement))
        out, at = [], 0
        for start, end, replacement in sorted(spans):
            out.append(escape(text[at:start]))
            out.append(replacement)
            at = end
        out.append(escape(text[at:]))
        return "".join(out)

    def value(self, value: Any, paths: bool = False) -> Any:
        """Every string (keys too) of a JSON-like value; a mapping with a `$` key (a merge marker
        of the world format) is kept as `$literal`."""
        if isinstance(value, dict):
            out = {self(k, paths) if isinstance(k, str) else k: self.value(v, paths) for k, v in value.items()}
            return {"$literal": out} if any(isinstance(k, str) and k.startswith("$") for k in value) else out
        if isinstance(value, list):
            return [self.value(v, paths) for v in value]
        if isinstance(value, str):
            return self(value, paths)
        return value


# -- files -------------------------------------------------------------------------------------
class Recording:
    """One world being recorded: files, repos, cluster, probes, and what could not be recorded."""

    def __init__(self, templater: Templater, max_bytes: int):
        self.template = templater
        self.max_bytes = max_bytes
        self.files: dict[str, Any] = {}  # world path -> spec, templated when written
        self.warnings: list[str] = []

    def capture(self, root: str, relpath: str, dest: str, kubeconfig: bool = False) -> None:
        """Record root/relpath at world path `dest` as the grader will find it (workspace.read_text:
        a link resolving inside `root` is followed, anything else is kept as it is)."""
        path = os.path.join(root, relpath)
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as exc:
            self.warnings.append(f"{path}: not recorded ({exc.strerror or exc})")
            return
        if stat.S_ISLNK(st.st_mode):
            real, real_root = os.path.realpath(path), os.path.realpath(root)
            if os.path.commonpath([real_root, real]) == real_root and os.path.exists(real):
                self.capture(real_root, os.path.relpath(real, real_root), dest, kubeconfig)
            else:
                self.files[dest] = {"symlink": os.readlink(path)}
            return
        if stat.S_ISDIR(st.st_mode):
            self.files[dest] = {"dir": True}
            return
        mode = f"0{st.st_mode & 0o7777:o}"
        if stat.S_ISFIFO(st.st_mode):  # never opened: a reader would block
            self.files[dest] = {"fifo": True, "mode": mode}
            return
        if not stat.S_ISREG(st.st_mode):
            self.warnings.append(f"{path}: a special file (mode {stat.filemode(st.st_mode)}) cannot be "
                                 "recorded; the replay has no file there")
            return
        if st.st_size > self.max_bytes:
            size = min(st.st_size, MAX_SIZE_MB * 1024 * 1024)
            if size < st.st_size:
                self.warnings.append(f"{path}: {st.st_size} bytes, replayed as {size}")
            self.files[dest] = {"size_mb": size / (1024 * 1024), "mode": mode}
            return
        from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, read_regular
        try:
            raw = read_regular(path, self.max_bytes)
        except Refused as refused:
            self.warnings.append(f"{path}: not recorded ({refused.problem} {refused.detail})")
            return
        try:
            text = raw.decode("utf-8") if b"\0" not in raw else None
        except UnicodeDecodeError:
            text = None
        if text is None:
            self.files[dest] = {"bytes_hex": raw.hex(), "mode": mode}
            return
        if kubeconfig:
            for secret in kubeconfig_secrets(text):
                self.template.add_secret(secret)
        self.files[dest] = {"text": text, "mode": mode}

    def world_files(self) -> dict[str, Any]:
        """The files with their text templated (secrets, site values, paths, commit ids)."""
        out = {}
        for dest, spec in self.files.items():
            out[dest] = {k: self.template(v, paths=True) if k in ("text", "symlink") else v for k, v in spec.items()}
        return out


# -- git ---------------------------------------------------------------------------------------
def oldest_first(repo) -> list[str]:
    """The commits in an order where parents come first (first parents followed first)."""
    order, done = [], set()
    stack = [(repo.head, False)]
    while stack:
        sha, expanded = stack.pop()
        if sha in done or sha not in repo.commits:
            continue
        if expanded:
            done.add(sha)
            order.append(sha)
            continue
        stack.append((sha, True))
        stack.extend((parent, False) for parent in reversed(repo.commits[sha]["parents"]))
    return order


def commit_ids(shas) -> dict[str, str]:
    """Each commit's id in the world: its original short id (the replay's commits get new ones)."""
    for length in range(7, 41):
        ids = {sha: sha[:length] for sha in shas}
        if len(set(ids.values())) == len(ids):
            return ids
    return {sha: sha for sha in shas}


def blob_spec(text: str | None) -> Any:
    """A file's world spec from its text at the head: a blob the grader cannot read (binary, too
    large: text None) stays unreadable."""
    return text if text is not None else {"bytes_hex": "00"}


def untracked_changes(repo, order: list[str], prefixes) -> dict[str, dict[str, Any]]:
    """{sha: {path: text or None}} for the paths a commit changes (RepoState.changed, when the lab
    reads them) whose text the grader did not read at that commit, so that each replayed commit
    changes the same paths: a path's last change takes its text at the head (under the prefixes:
    absent there means deleted), an earlier change a text naming the commit."""
    last = {path: sha for sha in order for path in repo.changed.get(sha, ())}
    under = tuple(prefix.rstrip("/") for prefix in prefixes)

    def at_head(path):
        if path in repo.tree:
            return blob_spec(repo.tree[path])
        if any(path == prefix or path.startswith(prefix + "/") for prefix in under):
            return None
        return f"# {path}: not read by the grader\n"
    return {sha: {path: at_head(path) if last[path] == sha else f"# {path} as of {sha[:7]}: not read by the grader\n"
                  for path in repo.changed.get(sha, ()) if path not in repo.history.get(sha, {})}
            for sha in order}


def repo_spec(repo, recording: Recording, prefixes=()) -> dict | None:
    """The world's `repos.<name>` for a RepoState (None when the grader found no repo there)."""
    name = os.path.basename(repo.path)[:-len(".git")]
    where = f"srv/bare/{name}.git"
    if repo.problem == "missing":
        return None
    if repo.problem in ("not_a_repo", "not_bare"):
        if os.path.isdir(repo.path):
            recording.files[where + ("/.git" if repo.problem == "not_bare" else "")] = {"dir": True}
        else:
            recording.files[where] = {"text": ""}
        return None
    if repo.problem == "no_branch":  # the grader names the branches there are
        if len(repo.branches) > 1:
            recording.warnings.append(f"{repo.path}: no main; only its branch {repo.branches[0]} is replayed")
        return {"branch": repo.branches[0], "commits": [{"id": "c1", "message": "not read by the grader"}]} \
            if repo.branches else {"commits": []}
    if repo.problem:
        recording.warnings.append(f"{repo.path}: the grader found it {repo.problem} ({repo.detail}); "
                                  "the replay has no repo there")
        return None
    if repo.truncated:
        recording.warnings.append(f"{repo.path}: more files under the prefixes than the grader reads")
    ids = commit_ids(repo.commits)
    order = oldest_first(repo)
    changes = untracked_changes(repo, order, prefixes)
    commits, trees, untracked, previous = [], {}, {}, None
    for sha in order:
        parents = repo.commits[sha]["parents"]
        if not parents and previous:
            recording.warnings.append(f"{repo.path}: root commit {sha[:7]} replayed as a child of {previous[:7]}")
        linear = not parents or parents == [previous]
        untracked[sha] = {**untracked.get(previous if linear else parents[0], {}), **changes[sha]}
        trees[sha] = {path: text for path, text in untracked[sha].items() if text is not None}
        trees[sha].update({path: text for path, text in repo.history.get(sha, {}).items() if text is not None})
        if sha == repo.head:  # the files under the prefixes
            trees[sha].update({path: blob_spec(text) for path, text in repo.tree.items()})
        base = trees.get(previous, {}) if linear else trees[parents[0]]
        files = {path: None for path in base if path not in trees[sha]}
        files.update({path: spec for path, spec in trees[sha].items() if base.get(path) != spec})
        when = datetime.datetime.fromtimestamp(repo.commits[sha]["time"], datetime.UTC)
        commits.append({"id": ids[sha], "date": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                        "message": repo.commits[sha]["subject"] or ids[sha], "files": files,
                        **({} if linear else {"parents": [ids[p] for p in parents]})})
        recording.template.commits[sha] = f"'{name}', '{ids[sha]}'"
        previous = sha
    return {"branch": "main", "commits": commits}


# -- cluster -----------------------------------------------------------------------------------
def answer_objects(path: str, answer: Any) -> list[dict]:
    """The objects of a GET answer (an object or a list's items, which lack kind/apiVersion)."""
    parts = [p for p in path.split("/") if p]
    resource = parse_resource_path(parts)
    try:
        kind, _, _, sub = resolve(*resource) if resource and resource[2] else (None,) * 4
    except ApiError:
        kind = None
    if kind is None or sub is not None:
        raise WorldError(f"GET {path}: not a resource the fake API server serves (labworld/kinds.py)")
    items = answer if isinstance(answer, list) else [answer] if isinstance(answer, dict) else []
    return [{"apiVersion": kind.api_version, "kind": kind.kind, **item} for item in items if isinstance(item, dict)]


def add_objects(objects: dict, found: list[dict]) -> None:
    for obj in found:
        meta = obj.get("metadata") or {}
        objects.setdefault((obj["apiVersion"], obj["kind"], meta.get("namespace") or "", meta.get("name")), obj)


def health_reads(kubeconfig: str, site, timeout: float, objects: dict, cluster: dict, warnings: list) -> None:
    """What the health gate of lab_grade reads, so that the replay is graded and not refused:
    /version and each object's existence and status (nothing else of them is judged)."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.health import cluster_probes
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import ClusterError, KubeReader
    try:
        reader = KubeReader(kubeconfig, timeout)
        for _, path, _ in cluster_probes(site.argocd_namespace, site.gitd_namespace):
            answer = reader.get(path)
            if path == "/version":
                cluster["version"] = answer
                continue
            add_objects(objects, [{"apiVersion": obj["apiVersion"], "kind": obj["kind"],
                                   "metadata": {k: v for k, v in (obj.get("metadata") or {}).items() if k in HEALTH_META},
                                   **({"status": obj["status"]} if "status" in obj else {})}
                                  for obj in answer_objects(path, answer)])
    except ClusterError as exc:
        warnings.append(f"the health gate's reads failed ({exc.kind}: {exc.detail})")


def admin_values(templater: Templater, kubeconfig: str, k3s_kubeconfig: str) -> None:
    """The VM's API server URL, CA data and the grader's token, to be replaced by the replay's."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.kubeconfig import current_context
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import load_kubeconfig_data
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import ClusterError
    for path, own in ((k3s_kubeconfig, False), (kubeconfig, True)):
        try:
            config = load_kubeconfig_data(path)
        except ClusterError:
            continue
        context = current_context(config)
        if own:
            if context["token"]:
                templater.site[context["token"]] = "labworld-{{ host }}-token"
            continue
        if context["server"]:
            templater.site[context["server"]] = "{{ server }}"
        for entry in config.get("clusters") or []:
            data = (entry.get("cluster") or {}).get("certificate-authority-data") if isinstance(entry, dict) else None
            if isinstance(data, str) and data:
                templater.site[data.strip()] = "{{ ca_data }}"


# -- the recording -----------------------------------------------------------------------------
def record(lab_ids: list[str], kubeconfig: str, site_options: dict, api_timeout: float = 10.0,
           max_bytes: int = 1024 * 1024, time_budget: float = 240.0) -> dict:
    """A world (a mapping ready for YAML) of what grading `lab_ids` on this machine reads."""
    grader()
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import OutOfTime, lab_budgets
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import unknown_lab_message
    unknown = [lab_id for lab_id in lab_ids if lab_id not in LABS]
    if unknown:
        raise WorldError(unknown_lab_message(unknown))
    site = Site(**site_options)
    deadline = time.monotonic() + time_budget
    templater = Templater()
    templater.paths = {site.workspace_root.rstrip("/") or "/": "{{ host_root }}/root",
                       site.bare_root.rstrip("/") or "/": "{{ host_root }}/srv/bare"}
    admin_values(templater, kubeconfig, site.k3s_kubeconfig)
    recording = Recording(templater, max_bytes)
    repos, objects, reviews, probes, cluster = {}, {}, [], {}, {}
    for lab, budget in lab_budgets([LABS[lab_id] for lab_id in dict.fromkeys(lab_ids)], time_budget, deadline):
        lab_id, reads = lab.id, lab.reads
        state = collector(lab, site, kubeconfig, api_timeout, max_bytes, budget)()
        if state.cluster.problem == "kubeconfig":
            raise WorldError(f"kubeconfig: {state.cluster.detail}")
        workspace = f"root/{lab.id}"
        for name in (*reads.json_files, *reads.yaml_files, *reads.text_files, *reads.kubeconfig_files):
            recording.capture(state.workspace, name, f"{workspace}/{name}", kubeconfig=name in reads.kubeconfig_files)
        if reads.repo:
            name = reads.repo.name
            if name in repos:
                raise WorldError(f"labs {' and '.join(lab_ids)} both read the bare repo {name}")
            try:
                spec = repo_spec(state.repo, recording, reads.repo.prefixes)
            except OutOfTime:
                raise WorldError(f"{lab_id}: the time budget ran out before {state.bare_path} was read") from None
            if spec is not None:
                repos[name] = spec
                for relpath in reads.repo.files:
                    recording.capture(state.bare_path, relpath, f"srv/bare/{name}.git/{relpath}")
        if reads.clone:
            record_clone(state, reads, f"{workspace}/{reads.clone}", repos, recording)
        for name, (path, _) in reads.api(site).items():
            add_objects(objects, answer_objects(path, state.cluster.snapshot.reads.get(name)))
        for name, (_, body) in reads.reviews(site, state.files).items():
            answer = state.cluster.snapshot.reads.get(name)
            if isinstance(answer, dict):
                reviews.append({"kind": body["kind"], "spec": body["spec"], "status": answer})
        if state.cluster.problem == "unreachable":
            cluster["reachable"] = False
        elif state.cluster.problem:
            recording.warnings.append(f"{lab_id}: the API server answered {state.cluster.problem} "
                                      f"({state.cluster.detail}); the replay answers what was read before")
        if reads.probes:
            probes[lab_id] = dict(state.probes)
    if cluster.get("reachable") is not False:
        health_reads(kubeconfig, site, api_timeout, objects, cluster, recording.warnings)
    cluster.update(objects=templater.value(list(objects.values())))
    if reviews:
        cluster["reviews"] = templater.value(reviews)
    description = (f"recorded by python -m labworld record (labs {', '.join(dict.fromkeys(lab_ids))}) on "
                   f"{socket.gethostname()} at {datetime.datetime.now(datetime.UTC):%Y-%m-%dT%H:%M:%SZ}")
    if recording.warnings:
        description += "; not replayed exactly: " + "; ".join(recording.warnings)
    world = {"description": description, "repos": repos, "files": recording.world_files(), "cluster": cluster}
    if probes:
        world["probes"] = templater.value(probes, paths=True)
    return world


def record_clone(state, reads, where: str, repos: dict, recording: Recording) -> None:
    """The clone as the grader reads it: a directory, its .git/config, the refs it names."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, read_regular
    if not os.path.isdir(state.clone.path):
        return
    config = os.path.join(state.clone.path, ".git", "config")
    try:
        read_regular(config, 64 * 1024)
        regular = True
    except Refused:
        regular = False
    if regular and reads.repo and reads.repo.name in repos and repos[reads.repo.name]["commits"]:
        repos[reads.repo.name]["clones"] = [where]  # a working clone; its config and refs as recorded
    else:
        recording.files[where] = {"dir": True}
    recording.capture(state.clone.path, ".git/config", f"{where}/.git/config")
    refs = state.clone_refs or {}
    if "error" in refs:
        recording.warnings.append(f"{state.clone.path}: its refs could not be read ({refs['error']})")
        return
    for ref, sha in refs.items():
        # An empty loose ref reads as no ref (gitstate.read_refs), whatever packed-refs holds.
        recording.files[f"{where}/.git/{ref}"] = {"text": f"{sha}\n" if sha else ""}


def dump(world: dict, out: str) -> int:
    """Write the world as YAML (multi-line strings as blocks), atomically; returns its size."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def string(dumper, value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)

    Dumper.add_representer(str, string)
    text = "# " + world["description"].replace("\n", " ")[:300] + "\n" + yaml.dump(
        world, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=120)
    tmp = f"{out}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, out)
    return len(text.encode())


# lab_grade's options that say where and how to read (names and defaults from its ARGUMENT_SPEC)
RECORD_OPTIONS = {
    "kubeconfig": (str, "the grader's kubeconfig"),
    "k3s_kubeconfig": (str, "the VM's admin kubeconfig (its server and CA become the replay's)"),
    "workspace_root": (str, "the learners' workspaces are <workspace-root>/<lab id>"),
    "bare_root": (str, "the bare repos are <bare-root>/<name>.git"),
    "argocd_namespace": (str, None),
    "gitd_namespace": (str, None),
    "probe_replay": (str, "probes.json of a world: its recorded probe results instead of running the probes"),
    "api_timeout": (float, "seconds per API request"),
    "max_file_bytes": (int, "the grader's size limit of a workspace file"),
    "time_budget": (float, "seconds for the whole recording"),
}
SITE_KEYS = ("argocd_namespace", "gitd_namespace", "bare_root", "workspace_root", "k3s_kubeconfig", "probe_replay")


def grader_defaults() -> dict:
    grader()
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC
    return {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}


def site_options(args) -> dict:
    """Site() arguments from the parsed options; WorldError for a value out of range."""
    grader()
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import MAX_TIME_BUDGET
    # as lab_grade bounds them (runner.option_problem)
    for name, highest in (("api_timeout", 600), ("time_budget", MAX_TIME_BUDGET)):
        if not 0 < getattr(args, name) <= highest:
            raise WorldError(f"--{name.replace('_', '-')} must be more than 0 and at most {highest} seconds")
    if not 0 < args.max_file_bytes <= 64 * 1024 * 1024:
        raise WorldError("--max-file-bytes must be more than 0 and at most 64 MiB")
    for name in ("workspace_root", "bare_root"):
        if not os.path.isabs(getattr(args, name)):
            raise WorldError(f"--{name.replace('_', '-')} must be an absolute path")
    if args.probe_replay:
        try:
            with open(args.probe_replay, encoding="utf-8") as handle:
                replay = json.load(handle)
        except (OSError, ValueError) as exc:
            raise WorldError(f"--probe-replay {args.probe_replay}: {getattr(exc, 'strerror', None) or exc}") from None
        if not isinstance(replay, dict):
            raise WorldError(f"--probe-replay {args.probe_replay}: not a mapping of lab id to probe results")
    return {name: getattr(args, name) for name in SITE_KEYS}
