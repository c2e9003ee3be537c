"""Read-only snapshot of the learner's git repositories.

Bare repos are read with GitPython: refs from files, objects through one `git cat-file`
process with system and global config ignored. Nothing is written (no index, no refs, no gc).
"""

from __future__ import annotations

import io
import os

try:
    import git
    from gitdb.exc import BadName, BadObject
except ImportError:  # reported by the health gate
    git = None

from ansible.module_utils.labgrader.workspace import read_text

MAX_COMMITS = 500
# git runs only `cat-file` here. Ignore system/global config (a learner's aliases or hooks) and
# trust the repo whoever owns it: safe.directory is honoured from command-line scope, which
# GIT_CONFIG_KEY_* provides (git-config(1) ENVIRONMENT).
HARDENED_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "safe.directory",
    "GIT_CONFIG_VALUE_0": "*",
}
MAX_TREE_FILES = 300
MAX_BLOB_BYTES = 256 * 1024


class RepoState:
    """What the checks may know about one bare repository."""

    def __init__(self, path, problem=None, detail=""):
        self.path = path
        self.problem = problem  # None, missing, not_a_repo, not_bare, no_branch, unreadable
        self.detail = detail
        self.branch = None
        self.head = None
        self.commits = {}  # sha -> {"sha", "parents", "time", "subject"}
        self.order = []  # shas reachable from the branch, newest first (commit time)
        self.tree = {}  # path -> text at head, for the requested prefixes (None: binary or too large)
        self.history = {}  # sha -> {path: text or None} for the tracked paths
        self.truncated = False

    @property
    def ok(self):
        return self.problem is None

    def short_shas(self):
        return {sha[:7] for sha in self.order}

    def is_ancestor(self, older, newer):
        """True when `older` is reachable from `newer` (a commit is its own ancestor)."""
        stack, seen = [newer], set()
        while stack:
            sha = stack.pop()
            if sha == older:
                return True
            if sha in seen or sha not in self.commits:
                continue
            seen.add(sha)
            stack.extend(self.commits[sha]["parents"])
        return False


def _blob_text(blob):
    if blob.size > MAX_BLOB_BYTES:
        return None
    raw = blob.data_stream.read()
    if b"\0" in raw:
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _file_at(commit, path):
    try:
        item = commit.tree / path
    except KeyError:
        return None
    return _blob_text(item) if item.type == "blob" else None


def collect_repo(path, branch="main", prefixes=(), tracked_paths=()):
    """Snapshot `branch` of the bare repo at `path`: commits reachable from it, the text of
    files under `prefixes` at its head, and the text of `tracked_paths` in every commit."""
    state = RepoState(path)
    if git is None:
        state.problem, state.detail = "unreadable", "GitPython is not installed"
        return state
    if not os.path.exists(path):
        state.problem = "missing"
        return state
    try:
        repo = git.Repo(path)
        repo.git.update_environment(**HARDENED_GIT_ENV)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        state.problem = "not_a_repo"
        return state
    except Exception as exc:  # a corrupt repo must not crash the grader  # noqa: BLE001
        state.problem, state.detail = "unreadable", str(exc)[:200]
        return state
    try:
        with repo:
            if not repo.bare:
                state.problem = "not_bare"
                return state
            _read_branch(repo, state, branch, prefixes, tracked_paths)
    except (BadName, BadObject, ValueError, OSError, git.GitCommandError) as exc:
        state.problem, state.detail = "unreadable", str(exc)[:200]
    return state


def _read_branch(repo, state, branch, prefixes, tracked_paths):
    heads = {head.name: head for head in repo.heads}
    state.branches = sorted(heads)
    if branch not in heads:
        state.problem = "no_branch"
        state.detail = ", ".join(sorted(heads)) or "(no branches)"
        return
    head = heads[branch].commit
    state.branch = branch
    state.head = head.hexsha
    stack, seen = [head], set()
    while stack:
        commit = stack.pop()
        if commit.hexsha in seen:
            continue
        if len(seen) >= MAX_COMMITS:
            state.truncated = True
            break
        seen.add(commit.hexsha)
        state.commits[commit.hexsha] = {
            "sha": commit.hexsha,
            "parents": [parent.hexsha for parent in commit.parents],
            "time": commit.committed_date,
            "subject": commit.summary if isinstance(commit.summary, str) else "",
        }
        state.history[commit.hexsha] = {p: _file_at(commit, p) for p in tracked_paths}
        stack.extend(commit.parents)
    state.order = sorted(state.commits, key=lambda sha: state.commits[sha]["time"], reverse=True)
    for prefix in prefixes:
        try:
            tree = head.tree / prefix
        except KeyError:
            continue
        if tree.type != "tree":
            continue
        for item in tree.traverse():
            if item.type != "blob":
                continue
            if len(state.tree) >= MAX_TREE_FILES:
                state.truncated = True
                return
            state.tree[item.path] = _blob_text(item)


class CloneState:
    """A learner's working clone: only its configured remotes are read."""

    def __init__(self, path, problem=None, detail="", remotes=None):
        self.path = path
        self.problem = problem  # None, missing, not_a_clone, unreadable
        self.detail = detail
        self.remotes = remotes or {}

    @property
    def ok(self):
        return self.problem is None


def rewrite_url(url, rewrites):
    """Apply url.<base>.insteadOf like git does: the longest matching prefix wins."""
    matches = [prefix for prefix in rewrites if url.startswith(prefix)]
    if not matches:
        return url
    prefix = max(matches, key=len)
    return rewrites[prefix] + url[len(prefix):]


def collect_clone(path):
    """Read `<path>/.git/config` (bounded, parsed in memory) for the remotes' URLs, with the
    clone's own url.<base>.insteadOf rewrites applied as git would."""
    if not os.path.isdir(path):
        return CloneState(path, "missing")
    config = read_text(path, ".git/config", max_bytes=64 * 1024)
    if not config.ok:
        return CloneState(path, "not_a_clone", config.problem)
    if git is None:
        return CloneState(path, "unreadable", "GitPython is not installed")
    try:
        buffer = io.BytesIO(config.text.encode())
        buffer.name = os.path.join(path, ".git/config")  # GitConfigParser wants a name for errors
        parser = git.GitConfigParser(buffer, read_only=True)
        parser.read()
        remotes, rewrites = {}, {}
        for section in parser.sections():
            if section.startswith('remote "') and section.endswith('"'):
                remotes[section[8:-1]] = parser.get_value(section, "url", "")
            elif section.startswith('url "') and section.endswith('"'):
                for prefix in parser.get_values(section, "insteadOf", []):
                    rewrites[str(prefix)] = section[5:-1]
        remotes = {name: rewrite_url(str(url), rewrites) for name, url in remotes.items()}
    except Exception as exc:  # malformed config is a finding  # noqa: BLE001
        return CloneState(path, "unreadable", str(exc)[:200])
    return CloneState(path, remotes=remotes)
