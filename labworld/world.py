"""Loading world files: YAML parsing, `extends` merging and validation.

Merge rules (documented in docs/fixture-format.md):
- mappings merge key by key, recursively; a key whose new value is `null` is removed;
- `{$literal: X}` sets X verbatim (X may be null: the way to write a JSON null over a value);
- a mapping with `$replace: true` replaces instead of merging;
- lists replace, except `cluster.objects` (matched by apiVersion/kind/namespace/name) and
  `repos.<name>.commits` (matched by `id`): a matching entry is merge-patched, `$delete: true`
  removes it, a new entry is appended;
- a file spec (`files.<path>`, `commits[].files.<path>`) merges only with a spec of the same
  form (`json` with `json`, `yaml` with `yaml`); otherwise the new spec replaces the old one.
"""

from __future__ import annotations

import copy
import datetime
from pathlib import Path
from typing import Any

import yaml

from . import WorldError
from .kinds import BY_GVK, REVIEWS

TOP_KEYS = {"extends", "description", "vars", "repos", "files", "cluster", "probes", "expect"}
EXPECT_KEYS = {"status", "messages"}
STATUSES = ("PASS", "FAIL", "PENDING", "ERROR")
REPO_KEYS = {"branch", "commits", "clones"}
COMMIT_KEYS = {"id", "date", "message", "files", "author", "parents"}
CLUSTER_KEYS = {"reachable", "token", "access", "objects", "version", "fault", "reviews"}
FAULT_MODES = {"trickle", "stall", "cut", "flood"}
FILE_FORMS = ("text", "json", "yaml", "bytes_hex", "size_mb", "symlink", "dir", "fifo")
FILE_OPTS = {"mode", "fill", "prefix", "suffix"}
REVIEW_KINDS = {k.kind for k in REVIEWS}
RESERVED = {"cluster.json", "kubeconfig", "requests.log", "labworld.json"}

_LITERAL = "$literal"
_REPLACE = "$replace"
_DELETE = "$delete"


def _load_yaml(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WorldError(f"{path}: world file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WorldError(f"{path}: cannot read world file: {exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise WorldError(f"{path}: invalid YAML{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise WorldError(f"{path}: a world file must be a YAML mapping, found {type(data).__name__}")
    return data


def object_key(obj: Any, where: str) -> tuple[str, str, str, str]:
    if not isinstance(obj, dict):
        raise WorldError(f"{where}: a cluster object must be a mapping, found {type(obj).__name__}")
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta.get("name"):
        raise WorldError(f"{where}: metadata.name is required (a non-empty string)")
    for f in ("apiVersion", "kind"):
        if not isinstance(obj.get(f), str) or not obj.get(f):
            raise WorldError(f"{where}: {f} is required (a non-empty string)")
    return (obj["apiVersion"], obj["kind"], str(meta.get("namespace") or ""), meta["name"])


def _strip_markers(value: Any) -> Any:
    """Resolve merge markers in a value that is inserted without a base."""
    if isinstance(value, dict):
        if _LITERAL in value:
            return copy.deepcopy(value[_LITERAL])
        return {k: _strip_markers(v) for k, v in value.items() if k not in (_REPLACE, _DELETE)}
    if isinstance(value, list):
        return [_strip_markers(v) for v in value]
    return value


def _form(spec: Any) -> str | None:
    if isinstance(spec, dict):
        forms = [f for f in FILE_FORMS if f in spec]
        return forms[0] if len(forms) == 1 else None
    return "text" if isinstance(spec, str) else None


def merge(base: Any, over: Any, path: tuple = ()) -> Any:
    if isinstance(over, dict) and _LITERAL in over:
        return copy.deepcopy(over[_LITERAL])
    same_structured_form = (isinstance(base, dict) and isinstance(over, dict)
                            and _form(base) == _form(over) and _form(over) in ("json", "yaml"))
    if _is_file_spec_path(path) and not same_structured_form:
        return _strip_markers(over)
    if isinstance(base, dict) and isinstance(over, dict):
        if over.get(_REPLACE):
            return _strip_markers(over)
        out = dict(base)
        for k, v in over.items():
            if k in (_REPLACE, _DELETE):
                continue
            if v is None:
                out.pop(k, None)
            elif k in out:
                out[k] = merge(out[k], v, (*path, k))
            else:
                out[k] = _strip_markers(v)
        return out
    if isinstance(base, list) and isinstance(over, list):
        keyfn = _list_key(path)
        if keyfn is not None:
            return _merge_keyed(base, over, keyfn, path)
    return _strip_markers(over)


def _is_file_spec_path(path: tuple) -> bool:
    if len(path) == 2 and path[0] == "files":
        return True
    return len(path) == 6 and path[0] == "repos" and path[2] == "commits" and path[4] == "files"


def _list_key(path: tuple):
    if path == ("cluster", "objects"):
        return lambda item, where: object_key(item, where)
    if len(path) == 3 and path[0] == "repos" and path[2] == "commits":
        def commit_id(item, where):
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise WorldError(f"{where}: every commit needs an `id` (a string)")
            return item["id"]
        return commit_id
    return None


def _merge_keyed(base: list, over: list, keyfn, path: tuple) -> list:
    where = ".".join(str(p) for p in path)
    out = list(base)
    index = {keyfn(item, f"{where}[{i}]"): i for i, item in enumerate(out)}
    removed: set[int] = set()
    for j, item in enumerate(over):
        key = keyfn(item, f"{where}[{j}] (in the extending file)")
        if item.get(_DELETE):
            if key not in index:
                raise WorldError(f"{where}[{j}]: $delete of {_fmt_key(key)}, which the base world does not have")
            removed.add(index[key])
            continue
        if key in index:
            i = index[key]
            out[i] = merge(out[i], item, (*path, i))
        else:
            index[key] = len(out)
            out.append(_strip_markers(item))
    return [item for i, item in enumerate(out) if i not in removed]


def _fmt_key(key) -> str:
    if isinstance(key, tuple):
        api, kind, ns, name = key
        return f"{kind} {ns + '/' if ns else ''}{name} ({api})"
    return repr(key)


def load(path: str | Path, _seen: tuple = ()) -> dict:
    """Load a world file, resolving `extends` (recursively). Returns the merged mapping."""
    path = Path(path).resolve()
    if path in _seen:
        chain = " -> ".join(str(p) for p in (*_seen, path))
        raise WorldError(f"{path}: `extends` cycle: {chain}")
    data = _load_yaml(path)
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise WorldError(f"{path}: unknown top-level key(s) {sorted(unknown)}; allowed: {sorted(TOP_KEYS)}")
    parents = data.pop("extends", None)
    if parents is None:
        return _strip_markers(data)
    # A list extends several worlds in order (a learner enrolled in two labs: one world per lab).
    parents = [parents] if isinstance(parents, str) else parents
    if not isinstance(parents, list) or not parents or not all(isinstance(p, str) and p for p in parents):
        raise WorldError(f"{path}: `extends` must be a file path or a list of them (relative to this file)")
    base = None
    for parent in parents:
        loaded = load(path.parent / parent, (*_seen, path))
        loaded.pop("description", None)
        loaded.pop("expect", None)  # a world's verdicts are its own: extending changes them
        try:
            base = loaded if base is None else merge(base, loaded)
        except WorldError as exc:
            raise WorldError(f"{path}: {exc}") from None
    try:
        return merge(base, data)
    except WorldError as exc:
        raise WorldError(f"{path}: {exc}") from None


def _plain(value: Any) -> Any:
    """YAML timestamps written without quotes become RFC 3339 strings (what the API would show)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.UTC)
        return value.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def validate(world: dict, name: str) -> dict:
    """Check structure and fill defaults. Raises WorldError naming the field."""
    w = _plain(world)
    w.setdefault("description", "")
    probes = w.setdefault("probes", {}) or {}
    if not isinstance(probes, dict):
        raise WorldError(f"{name}: probes must be a mapping of lab id to recorded probe results")
    w["probes"] = probes
    vars_ = w.setdefault("vars", {}) or {}
    if not isinstance(vars_, dict):
        raise WorldError(f"{name}: vars must be a mapping")
    w["vars"] = vars_
    w["repos"] = _valid_repos(w.get("repos") or {}, name)
    w["files"] = _valid_files(w.get("files") or {}, name)
    w["cluster"] = _valid_cluster(w.get("cluster") or {}, name)
    if "expect" in w:
        w["expect"] = _valid_expect(w["expect"], name)
    return w


def _valid_expect(expect: Any, name: str) -> dict:
    """The verdicts grading this world gives (tests/grader/test_every_lab.py): `status` for every
    check of the world's lab, `messages` check id -> message (`<host>` for the host directory)."""
    if not isinstance(expect, dict) or set(expect) - EXPECT_KEYS:
        raise WorldError(f"{name}: expect must be a mapping with {sorted(EXPECT_KEYS)}")
    if "status" in expect and expect["status"] not in STATUSES:
        raise WorldError(f"{name}: expect.status must be one of {list(STATUSES)}")
    messages = expect.get("messages", {})
    if not isinstance(messages, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in messages.items()):
        raise WorldError(f"{name}: expect.messages must map check ids to messages")
    return expect


def _valid_repos(repos: Any, name: str) -> dict:
    if not isinstance(repos, dict):
        raise WorldError(f"{name}: repos must be a mapping of repo name -> spec")
    for rname, spec in repos.items():
        where = f"{name}: repos.{rname}"
        if not isinstance(rname, str) or not rname.replace("-", "").replace("_", "").replace(".", "").isalnum():
            raise WorldError(f"{where}: repo names may use letters, digits, '-', '_' and '.'")
        if not isinstance(spec, dict):
            raise WorldError(f"{where}: must be a mapping with commits/clones")
        bad = set(spec) - REPO_KEYS
        if bad:
            raise WorldError(f"{where}: unknown key(s) {sorted(bad)}; allowed: {sorted(REPO_KEYS)}")
        spec.setdefault("branch", "main")
        commits = spec.setdefault("commits", []) or []
        if not isinstance(commits, list):
            raise WorldError(f"{where}.commits: must be a list")
        seen: set[str] = set()
        for i, c in enumerate(commits):
            _check_commit(c, f"{where}.commits[{i}]", seen)
        clones = spec.setdefault("clones", []) or []
        if not isinstance(clones, list):
            raise WorldError(f"{where}.clones: must be a list of paths")
        for i, cl in enumerate(clones):
            cp = cl.get("path") if isinstance(cl, dict) else cl
            if not isinstance(cp, str):
                raise WorldError(f"{where}.clones[{i}]: a path string or {{path: ..., origin_url: ...}}")
            _check_rel_path(cp, f"{where}.clones")
    return repos


def _check_commit(c: Any, cw: str, seen: set[str]) -> None:
    """One commit of a repo; `seen` holds the ids of the earlier ones and gains this one."""
    if not isinstance(c, dict):
        raise WorldError(f"{cw}: must be a mapping")
    bad = set(c) - COMMIT_KEYS
    if bad:
        raise WorldError(f"{cw}: unknown key(s) {sorted(bad)}; allowed: {sorted(COMMIT_KEYS)}")
    cid = c.get("id")
    if not isinstance(cid, str) or not cid:
        raise WorldError(f"{cw}: `id` (a label used by sha()) is required")
    if cid in seen:
        raise WorldError(f"{cw}: duplicate commit id {cid!r}")
    parents = c.get("parents")
    if parents is not None and (not isinstance(parents, list) or not parents
                                or not all(isinstance(p, str) and p in seen for p in parents)):
        raise WorldError(f"{cw}.parents: a list of ids of earlier commits (its files change the first one)")
    seen.add(cid)
    if not isinstance(c.get("message", ""), str):
        raise WorldError(f"{cw}.message: must be a string")
    files = c.setdefault("files", {}) or {}
    if not isinstance(files, dict):
        raise WorldError(f"{cw}.files: must be a mapping path -> content (null deletes)")
    for fp, fs in files.items():
        _check_rel_path(fp, f"{cw}.files")
        if fs is not None:
            check_file_spec(fs, f"{cw}.files[{fp}]")


def _valid_files(files: Any, name: str) -> dict:
    if not isinstance(files, dict):
        raise WorldError(f"{name}: files must be a mapping path -> content")
    for fp, fs in files.items():
        _check_rel_path(fp, f"{name}: files")
        if fp.strip("/").split("/")[0] in RESERVED:
            raise WorldError(f"{name}: files: {fp!r} is reserved for labworld output")
        if fs is not None:
            check_file_spec(fs, f"{name}: files[{fp}]")
    return {k: v for k, v in files.items() if v is not None}


def _valid_cluster(cluster: Any, name: str) -> dict:
    if not isinstance(cluster, dict):
        raise WorldError(f"{name}: cluster must be a mapping")
    bad = set(cluster) - CLUSTER_KEYS
    if bad:
        raise WorldError(f"{name}: cluster: unknown key(s) {sorted(bad)}; allowed: {sorted(CLUSTER_KEYS)}")
    cluster.setdefault("reachable", True)
    if not isinstance(cluster["reachable"], bool):
        raise WorldError(f"{name}: cluster.reachable must be true or false")
    objects = cluster.setdefault("objects", []) or []
    if not isinstance(objects, list):
        raise WorldError(f"{name}: cluster.objects must be a list of API objects")
    seen_keys: set[tuple] = set()
    for i, obj in enumerate(objects):
        _check_object(obj, f"{name}: cluster.objects[{i}]", seen_keys)
    cluster["objects"] = objects
    fault = cluster.get("fault")
    if fault is not None and (not isinstance(fault, dict) or fault.get("mode") not in FAULT_MODES
                              or set(fault) - {"mode", "seconds"}
                              or not isinstance(fault.get("seconds", 1), (int, float))):
        raise WorldError(f"{name}: cluster.fault must be {{mode: {'|'.join(sorted(FAULT_MODES))}, seconds: N}}")
    access = cluster.get("access")
    if access is not None and not isinstance(access, dict):
        raise WorldError(f"{name}: cluster.access must be a mapping")
    reviews = cluster.get("reviews")
    if reviews is not None and not (isinstance(reviews, list) and all(
            isinstance(r, dict) and set(r) == {"kind", "spec", "status"} and r["kind"] in REVIEW_KINDS
            and isinstance(r["spec"], dict) and isinstance(r["status"], dict) for r in reviews)):
        raise WorldError(f"{name}: cluster.reviews must be a list of {{kind: {'|'.join(sorted(REVIEW_KINDS))}, "
                         "spec: {...}, status: {...}}} (recorded answers)")
    return cluster


def _check_object(obj: Any, ow: str, seen_keys: set[tuple]) -> None:
    """One API object: a kind the fake server serves, scoped as that kind is, not a duplicate."""
    key = object_key(obj, ow)
    kind = BY_GVK.get((key[0], key[1]))
    if kind is None:
        known = sorted({f"{k[1]} ({k[0]})" for k in BY_GVK})
        raise WorldError(f"{ow}: kind {key[1]} in {key[0]} is not in the server's kind table; known: {known}")
    if kind.namespaced and not key[2]:
        raise WorldError(f"{ow}: {key[1]} {key[3]} is namespaced: metadata.namespace is required")
    if not kind.namespaced and key[2]:
        raise WorldError(f"{ow}: {key[1]} {key[3]} is cluster-scoped: remove metadata.namespace")
    if key in seen_keys:
        raise WorldError(f"{ow}: duplicate object {_fmt_key(key)}")
    seen_keys.add(key)


def _check_rel_path(p: Any, where: str) -> None:
    if not isinstance(p, str) or not p or p.startswith("/") or ".." in p.split("/"):
        raise WorldError(f"{where}: {p!r} must be a relative path without '..'")


def check_file_spec(spec: Any, where: str) -> None:
    if isinstance(spec, str):
        return
    if not isinstance(spec, dict):
        raise WorldError(f"{where}: file content must be a string or a mapping with one of {list(FILE_FORMS)}, "
                         f"found {type(spec).__name__}")
    forms = [f for f in FILE_FORMS if f in spec]
    if len(forms) != 1:
        raise WorldError(f"{where}: give exactly one of {list(FILE_FORMS)}, found {forms or list(spec)}")
    bad = set(spec) - set(FILE_FORMS) - FILE_OPTS
    if bad:
        raise WorldError(f"{where}: unknown key(s) {sorted(bad)}")
    form = forms[0]
    val = spec[form]
    if form == "text" and not isinstance(val, str):
        raise WorldError(f"{where}.text: must be a string")
    if form == "bytes_hex":
        try:
            bytes.fromhex(str(val).replace(" ", "").replace("\n", ""))
        except ValueError:
            raise WorldError(f"{where}.bytes_hex: not valid hex") from None
    if form == "size_mb":
        if not isinstance(val, (int, float)) or isinstance(val, bool) or not 0 <= val <= 512:
            raise WorldError(f"{where}.size_mb: a number between 0 and 512")
        fill = spec.get("fill", "x")
        if not isinstance(fill, str) or not fill:
            raise WorldError(f"{where}.fill: a non-empty string")
    if form == "symlink" and (not isinstance(val, str) or not val):
        raise WorldError(f"{where}.symlink: the link target (a string)")
    if form in ("dir", "fifo") and val is not True:
        raise WorldError(f"{where}.{form}: must be true")
    if "mode" in spec:
        mode = spec["mode"]
        if isinstance(mode, str):
            try:
                int(mode, 8)
            except ValueError:
                raise WorldError(f"{where}.mode: an octal string such as '0755'") from None
        elif not isinstance(mode, int):
            raise WorldError(f"{where}.mode: an octal string such as '0755'")
