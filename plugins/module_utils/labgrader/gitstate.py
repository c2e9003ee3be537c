"""Read-only snapshot of the learner's git repositories, bounded against a hostile repo.

The learner is root and may put a FIFO, a device, a symlink or a sparse 1 GB file at any path
git would read (HEAD, config, packed-refs, refs, commondir, objects/info/alternates), and an
`[include]` in a config. So nothing in the learner's repo is read by git except objects:

- refs are read here with limits.read_regular (regular files only, no-follow, size-checked);
- git runs against a private temp GIT_DIR of ours (our HEAD and config, no refs) whose
  objects/ holds symlinks to the learner's loose-object directories and pack/ only: the learner's
  objects/info (alternates, http-alternates, commit-graph) and config are never seen;
- every git process runs under bounded_run.run_bounded: a wall-clock timeout, RLIMIT_AS, output caps
  and a process-group kill, so a FIFO or a giant object among the objects is a timeout or a
  refusal, not a hang.

Anything hostile makes the repo `unreadable` with a detail naming the reason
("packed-refs is a FIFO"); the lab FAILs the checks that need the repo. A read that the grader's
own deadline (the lab's share of the module's time budget) cut short is `out_of_time` instead:
whatever the repo holds, the grader did not give git its GIT_TIMEOUT, so the checks are ERROR.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import tempfile
import time

try:
    import git
except ImportError:  # reported by the health gate
    git = None

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.bounded_run import run_bounded
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, file_kind, read_regular
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import read_text

# Item 8 of issue 10: a history is read completely or the repo is refused; never silently cut.
# rev-list and batch-check of 5000 commits take well under a second.
MAX_COMMITS = 5000
MAX_TREE_FILES = 300
MAX_BLOB_BYTES = 256 * 1024
MAX_BLOBS_TOTAL = 32 * 1024 * 1024  # all distinct blob texts read from one repo
MAX_REF_BYTES = 4096
MAX_PACKED_REFS_BYTES = 4 * 1024 * 1024
MAX_BRANCHES = 1000
GIT_TIMEOUT = 20.0  # wall clock for all git processes reading one repo
OUT_OF_TIME = "out_of_time"  # the problem of a read cut short by the grader's deadline, not by the repo
GIT_MEMORY_BYTES = 1024 * 1024 * 1024
SHA = re.compile(r"^[0-9a-f]{40}$")
# The environment of every git process: no system or global config (a learner's aliases,
# hooks or includes), no replace refs, no prompts, no optional locks (read-only).
HARDENED_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_ATTR_NOSYSTEM": "1",
    "LC_ALL": "C",
}


class RepoState:
    """What the checks may know about one bare repository."""

    def __init__(self, path, problem=None, detail=""):
        self.path = path
        self.problem = problem  # None, missing, not_a_repo, not_bare, no_branch, unreadable, OUT_OF_TIME
        self.detail = detail
        self.branch = None
        self.branches = []
        self.head = None
        self.commits = {}  # sha -> {"sha", "parents", "time", "subject"}
        self.order = []  # shas reachable from the branch, newest first (commit time)
        self.tree = {}  # path -> text at head, for the requested prefixes (None: binary or too large)
        self.history = {}  # sha -> {path: text or None} for the tracked paths
        self.changed = {}  # sha -> paths the commit changes against its first parent (when asked for)
        self.truncated = False  # more than MAX_TREE_FILES files under the prefixes

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


class Unreadable(Exception):
    """The repo cannot be read; the text names why."""


class DeadlinePassed(Exception):
    """The grader's deadline ended the read before git's own GIT_TIMEOUT: not the repo's doing.
    The text names the git command that was cut short."""


def _read_ref_file(path, name, max_bytes=MAX_REF_BYTES):
    """Text of a ref-like file, None when absent; Unreadable when hostile."""
    try:
        raw = read_regular(path, max_bytes)
    except Refused as refused:
        if refused.problem == "missing":
            return None
        raise Unreadable(refused.describe(name)) from None
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise Unreadable(f"{name} is not a ref file") from None


def _packed_refs(path):
    refs = {}
    text = _read_ref_file(os.path.join(path, "packed-refs"), "packed-refs", MAX_PACKED_REFS_BYTES) or ""
    for line in text.splitlines():
        if line.startswith(("#", "^")) or " " not in line:
            continue
        sha, ref = line.split(" ", 1)
        refs[ref.strip()] = sha
    return refs


def _loose_branches(path):
    """Branch names under refs/heads (directories walked without following symlinks)."""
    names, stack = [], [""]
    while stack:
        prefix = stack.pop()
        directory = os.path.join(path, "refs", "heads", prefix)
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if len(names) >= MAX_BRANCHES:
                return names
            name = f"{prefix}{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                stack.append(name + "/")
            else:
                names.append(name)
    return names


def _resolve_branch(path, branch, packed):
    """The sha `refs/heads/<branch>` points at (following up to 5 symbolic refs), or None."""
    ref = f"refs/heads/{branch}"
    for _ in range(5):
        text = _read_ref_file(os.path.join(path, ref), ref)
        value = text.strip() if text is not None else packed.get(ref)
        if value is None:
            return None
        if value.startswith("ref: "):
            ref = value[5:].strip()
            if not ref.startswith("refs/") or ".." in ref:
                raise Unreadable(f"refs/heads/{branch} points at {ref[:80]!r}")
            continue
        if not SHA.match(value):
            raise Unreadable(f"{ref} does not hold a commit id")
        return value
    raise Unreadable(f"refs/heads/{branch}: symbolic refs nest too deep")


def _private_git_dir(path):
    """A temp GIT_DIR of ours that sees only the learner's objects (no alternates, no config)."""
    objects = os.path.join(path, "objects")
    st = os.lstat(objects)
    if not stat.S_ISDIR(st.st_mode):
        raise Unreadable(f"objects is {file_kind(st.st_mode)}")
    private = tempfile.mkdtemp(prefix="labgrader-git-")
    try:
        os.makedirs(os.path.join(private, "refs"))
        os.makedirs(os.path.join(private, "objects"))
        with open(os.path.join(private, "HEAD"), "w") as handle:
            handle.write("ref: refs/heads/main\n")
        with open(os.path.join(private, "config"), "w") as handle:
            handle.write("[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
        for entry in os.scandir(objects):
            if entry.name == "pack" or (len(entry.name) == 2 and all(c in "0123456789abcdef" for c in entry.name)):
                if not entry.is_dir(follow_symlinks=False):
                    raise Unreadable(f"objects/{entry.name} is {file_kind(entry.stat(follow_symlinks=False).st_mode)}")
                os.symlink(entry.path, os.path.join(private, "objects", entry.name))
    except BaseException:
        shutil.rmtree(private, ignore_errors=True)
        raise
    return private


class _Git:
    """git against the private GIT_DIR, all processes sharing one deadline: `timeout` seconds
    from now (git's own limit, which a hostile repo may exhaust) or the grader's `deadline` (a
    time.monotonic() value), whichever comes first."""

    def __init__(self, git_dir, timeout, deadline=None):
        self.env = dict(HARDENED_GIT_ENV, GIT_DIR=git_dir, HOME=git_dir, PATH=os.environ.get("PATH", "/usr/bin:/bin"))
        self.timeout = timeout
        own_deadline = time.monotonic() + timeout
        self.graders_deadline_first = deadline is not None and deadline < own_deadline
        self.deadline = deadline if self.graders_deadline_first else own_deadline

    def run(self, args, stdin=b"", max_output=8 * 1024 * 1024):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            if self.graders_deadline_first:
                raise DeadlinePassed(f"git {args[0]}")
            raise Unreadable(f"reading it took more than {self.timeout:g} s")
        result = run_bounded(["git", *args], cwd=self.env["GIT_DIR"], env=self.env, timeout=remaining,
                             max_output=max_output, stdin=stdin, memory_bytes=GIT_MEMORY_BYTES)
        if result.timed_out:
            if self.graders_deadline_first:
                raise DeadlinePassed(f"git {args[0]}")
            raise Unreadable(f"git {args[0]} did not finish within {self.timeout:g} s "
                             "(a FIFO or a huge object among its objects?)")
        if result.truncated:
            raise Unreadable(f"git {args[0]} printed more than {max_output} bytes")
        if result.returncode != 0:
            message = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise Unreadable(f"git {args[0]}: {(message or ['failed'])[-1][:200]}")
        return result.stdout


def collect_repo(path, branch="main", prefixes=(), tracked_paths=(), timeout=GIT_TIMEOUT, deadline=None,
                 changed_paths=False):
    """Snapshot `branch` of the bare repo at `path`: commits reachable from it (all of them, at
    most MAX_COMMITS), the text of files under `prefixes` at its head, the text of
    `tracked_paths` in every commit and, with `changed_paths`, the paths each commit changes.
    Bounded by `timeout` seconds of git in total and by the
    grader's `deadline` (a time.monotonic() value); a read the deadline cuts is OUT_OF_TIME."""
    state = RepoState(path)
    try:
        st = os.stat(path)  # the repo path itself may be a symlink (a learner's choice of disk)
    except FileNotFoundError:
        state.problem = "missing"
        return state
    except OSError as exc:
        state.problem, state.detail = "unreadable", exc.strerror or str(exc)
        return state
    if not stat.S_ISDIR(st.st_mode):
        state.problem = "not_a_repo"
        return state
    if os.path.lexists(os.path.join(path, ".git")):
        state.problem = "not_bare"
        return state
    if not all(os.path.lexists(os.path.join(path, name)) for name in ("HEAD", "objects", "refs")):
        state.problem = "not_a_repo"
        return state
    private = None
    try:
        _read_ref_file(os.path.join(path, "HEAD"), "HEAD")
        packed = _packed_refs(path)
        state.branches = sorted(set(_loose_branches(path)) | {r[11:] for r in packed if r.startswith("refs/heads/")})
        head = _resolve_branch(path, branch, packed)
        if head is None:
            state.problem = "no_branch"
            state.detail = ", ".join(state.branches[:20]) or "(no branches)"
            return state
        private = _private_git_dir(path)
        repo = _Git(private, timeout, deadline)
        _read_branch(repo, state, branch, head, prefixes, tracked_paths)
        if changed_paths:
            state.changed = _changed_paths(repo, head, state.order)
    except DeadlinePassed as exc:
        state.problem, state.detail = OUT_OF_TIME, str(exc)
    except Unreadable as exc:
        state.problem, state.detail = "unreadable", str(exc)
    except OSError as exc:
        state.problem, state.detail = "unreadable", exc.strerror or str(exc)
    except (ValueError, IndexError) as exc:  # git answered something we cannot parse
        state.problem, state.detail = "unreadable", f"unexpected git output ({type(exc).__name__})"
    finally:
        if private:
            shutil.rmtree(private, ignore_errors=True)
    if state.problem:
        state.commits, state.order, state.tree, state.history, state.changed = {}, [], {}, {}, {}
    return state


def _changed_paths(repo, head, order):
    """{sha: (paths it changes against its first parent)} for every commit of `order`: a merge is
    diffed against its first parent (--diff-merges=first-parent, git >= 2.31), a rename is a
    deletion and an addition; a path git would quote (a control character, a quote) stays quoted,
    so it never equals a path a lab names."""
    log = repo.run(["log", "--diff-merges=first-parent", "--no-renames", "--name-only", "--format=%x01%H", head, "--"],
                   max_output=32 * 1024 * 1024)
    changed = dict.fromkeys(order, ())
    for record in log.decode("utf-8", "replace").split("\x01")[1:]:
        sha, _, names = record.partition("\n")
        changed[sha.strip()] = tuple(name for name in names.split("\n") if name)
    return changed


def _read_branch(repo, state, branch, head, prefixes, tracked_paths):
    state.branch, state.head = branch, head
    log = repo.run(["rev-list", f"--max-count={MAX_COMMITS + 1}", "--no-commit-header",
                    "--format=%H %ct %P%x00%s", head, "--"], max_output=16 * 1024 * 1024)
    lines = log.decode("utf-8", "replace").split("\n")
    records = [line.split("\0", 1) for line in lines if "\0" in line]
    if len(records) > MAX_COMMITS:
        raise Unreadable(f"its history has more than {MAX_COMMITS} commits; the grader reads at most {MAX_COMMITS}")
    for fields, subject in records:
        sha, when, *parents = fields.split()
        state.commits[sha] = {"sha": sha, "parents": parents, "time": int(when), "subject": subject}
    state.order = sorted(state.commits, key=lambda sha: state.commits[sha]["time"], reverse=True)

    files = {}  # (sha, path) -> blob id for the tracked paths in every commit
    wanted = [(sha, path) for sha in state.order for path in tracked_paths]
    if wanted:
        answer = repo.run(["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"],
                          stdin="".join(f"{sha}:{path}\n" for sha, path in wanted).encode())
        for key, line in zip(wanted, answer.decode("utf-8", "replace").splitlines(), strict=True):
            parts = line.split()
            if len(parts) == 3 and parts[1] == "blob":
                files[key] = (parts[0], int(parts[2]))
    tree = {}
    if prefixes:
        listing = repo.run(["ls-tree", "-r", "-z", "--long", head, "--", *prefixes])
        for record in listing.split(b"\0"):
            if b"\t" not in record:
                continue
            meta, name = record.split(b"\t", 1)
            _, kind, oid, size = meta.decode().split()
            name = name.decode("utf-8", "replace")
            if kind != "blob" or not any(name.startswith(p + "/") for p in prefixes):
                continue
            if len(tree) >= MAX_TREE_FILES:
                state.truncated = True
                break
            tree[name] = (oid, int(size))
    texts = _blob_texts(repo, {*files.values(), *tree.values()})
    state.history = {sha: {p: texts.get(files.get((sha, p))) for p in tracked_paths} for sha in state.order}
    state.tree = {name: texts.get(blob) for name, blob in tree.items()}


def _blob_texts(repo, blobs):
    """{(oid, size): text or None}: None for a blob over MAX_BLOB_BYTES, binary or not UTF-8."""
    small = sorted(blob for blob in blobs if blob[1] <= MAX_BLOB_BYTES)
    total = sum(size for _, size in small)
    if total > MAX_BLOBS_TOTAL:
        raise Unreadable(f"its tracked files add up to {total} bytes, more than {MAX_BLOBS_TOTAL}")
    texts = dict.fromkeys(blobs)
    if not small:
        return texts
    out = repo.run(["cat-file", "--batch"], stdin="".join(f"{oid}\n" for oid, _ in small).encode(),
                   max_output=total + 100 * len(small) + 1)
    offset = 0
    for blob in small:
        header_end = out.index(b"\n", offset)
        size = int(out[offset:header_end].split()[2])
        raw = out[header_end + 1:header_end + 1 + size]
        offset = header_end + 1 + size + 1
        if b"\0" in raw:
            continue
        try:
            texts[blob] = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            continue
    return texts


class CloneState:
    """A learner's working clone: only its configured remotes are read.

    `remotes` maps a remote name to its fetch URL, `push_urls` to the URLs `git push` would use
    (both after the clone's url.<base>.insteadOf / pushInsteadOf rewrites, as git applies them).
    """

    def __init__(self, path, problem=None, detail="", remotes=None, push_urls=None):
        self.path = path
        self.problem = problem  # None, missing, not_a_clone, unreadable
        self.detail = detail
        self.remotes = remotes or {}
        self.push_urls = push_urls or {}

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


def push_urls(urls, pushurls, rewrites, push_rewrites):
    """The URLs `git push <remote>` uses, as git's remote.c alias_all_urls() computes them:
    explicit pushurls rewritten by insteadOf; without any, each url rewritten by pushInsteadOf
    when one matches, else the (insteadOf-rewritten) url."""
    if pushurls:
        return [rewrite_url(url, rewrites) for url in pushurls]
    pushed = [rewrite_url(url, push_rewrites) for url in urls if any(url.startswith(p) for p in push_rewrites)]
    return pushed or [rewrite_url(url, rewrites) for url in urls]


def collect_clone(path):
    """Read `<path>/.git/config` (bounded, parsed in memory) for the remotes' URLs, with the
    clone's own url.<base>.insteadOf rewrites applied as git would. `[include]` and
    `[includeIf]` are not followed: an include may name a FIFO, /dev/zero or /etc/shadow."""
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
        parser = git.GitConfigParser(buffer, read_only=True, merge_includes=False)
        parser.read()
        def values(section, option):
            return [str(v) for v in parser.get_values(section, option)] if parser.has_option(section, option) else []

        urls, pushurls, rewrites, push_rewrites = {}, {}, {}, {}
        for section in parser.sections():
            if section.startswith('remote "') and section.endswith('"'):
                urls[section[8:-1]] = values(section, "url")
                pushurls[section[8:-1]] = values(section, "pushurl")
            elif section.startswith('url "') and section.endswith('"'):
                for prefix in values(section, "insteadOf"):
                    rewrites[prefix] = section[5:-1]
                for prefix in values(section, "pushInsteadOf"):
                    push_rewrites[prefix] = section[5:-1]
        remotes = {name: rewrite_url(values[0], rewrites) if values else "" for name, values in urls.items()}
        pushes = {name: push_urls(values, pushurls[name], rewrites, push_rewrites) for name, values in urls.items()}
    except Exception as exc:  # malformed config is a finding  # noqa: BLE001
        return CloneState(path, "unreadable", str(exc)[:200])
    return CloneState(path, remotes=remotes, push_urls=pushes)


def read_refs(git_dir, refs):
    """{ref: sha or None} for full ref names (refs/heads/main, refs/remotes/origin/main) of a
    repository's git dir, loose or packed, read like the branch of a bare repo (bounded, no
    symlink games); {"error": reason} when the refs cannot be read."""
    try:
        packed = _packed_refs(git_dir)
        found = {}
        for ref in refs:
            text = _read_ref_file(os.path.join(git_dir, ref), ref)
            value = text.strip() if text is not None else packed.get(ref)
            found[ref] = value if value is not None and SHA.match(value) else None
        return found
    except Unreadable as exc:
        return {"error": str(exc)}
