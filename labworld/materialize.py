"""Build a world on disk: host root tree, bare repos + clones, cluster.json, kubeconfig."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from . import WorldError
from .kinds import BY_GVK
from .render import Renderer, parse_time, rfc3339
from .world import load, validate

DEFAULT_AUTHOR = ("Lab Learner", "learner@lab.example")
DEFAULT_FIRST_DATE = "2026-01-01T00:00:00Z"
MARKER = "labworld.json"
PROBES = "probes.json"  # recorded probe results of the world, per lab id
DEFAULT_VERSION = {
    "major": "1", "minor": "34", "emulationMajor": "1", "emulationMinor": "34",
    "minCompatibilityMajor": "1", "minCompatibilityMinor": "33",
    "gitVersion": "v1.34.2+k3s1", "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean", "buildDate": "2026-11-12T00:00:00Z", "goVersion": "go1.24.9",
    "compiler": "gc", "platform": "linux/amd64",
}
_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C"}


def _git(*args: str, cwd: Path | None = None, env: dict | None = None) -> str:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    full_env.update(_GIT_ENV)
    full_env.update(env or {})
    proc = subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false",
                           "-c", "init.defaultBranch=main", *args], check=False, cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise WorldError(f"git {' '.join(args)} failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout.strip()


# -- files -------------------------------------------------------------------------------------
def encode(spec: Any) -> tuple[str, Any]:
    """Return (kind, payload): ('bytes', b'..'), ('symlink', target), ('dir', None), ('fifo', None),
    ('stream', (size, fill, prefix, suffix))."""
    if isinstance(spec, str):
        return "bytes", spec.encode("utf-8")
    if "text" in spec:
        return "bytes", spec["text"].encode("utf-8")
    if "json" in spec:
        return "bytes", (json.dumps(spec["json"], indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if "yaml" in spec:
        return "bytes", yaml.safe_dump(spec["yaml"], sort_keys=False, allow_unicode=True,
                                       default_flow_style=False).encode("utf-8")
    if "bytes_hex" in spec:
        return "bytes", bytes.fromhex(str(spec["bytes_hex"]).replace(" ", "").replace("\n", ""))
    if "symlink" in spec:
        return "symlink", spec["symlink"]
    if "dir" in spec:
        return "dir", None
    if "fifo" in spec:
        return "fifo", None
    size = int(float(spec["size_mb"]) * 1024 * 1024)
    return "stream", (size, spec.get("fill", "x").encode("utf-8"), spec.get("prefix", "").encode("utf-8"),
                      spec.get("suffix", "").encode("utf-8"))


def write_file(root: Path, rel: str, spec: Any) -> None:
    dest = root / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    kind, payload = encode(spec)
    if kind == "symlink":
        os.symlink(payload, dest)
        return
    if kind == "dir":
        dest.mkdir(parents=True, exist_ok=True)
    elif kind == "fifo":  # a learner's named pipe where a file belongs: a reader that opens it hangs
        os.mkfifo(dest)
    elif kind == "bytes":
        dest.write_bytes(payload)
    else:
        size, fill, prefix, suffix = payload
        body = max(size - len(prefix) - len(suffix), 0)
        chunk = fill * (1024 * 1024 // len(fill) + 1)
        with dest.open("wb") as fh:
            fh.write(prefix)
            left = body
            while left > 0:
                part = chunk[: min(left, 1024 * 1024)]
                fh.write(part)
                left -= len(part)
            fh.write(suffix)
    if isinstance(spec, dict) and "mode" in spec:
        mode = spec["mode"]
        os.chmod(dest, int(mode, 8) if isinstance(mode, str) else mode)


# -- repos -------------------------------------------------------------------------------------
def build_repo(host_root: Path, name: str, spec: dict) -> tuple[dict[str, str], dict[str, str]]:
    """Create srv/bare/<name>.git from the commits. Returns (id -> sha, id -> date)."""
    bare = host_root / "srv" / "bare" / f"{name}.git"
    bare.parent.mkdir(parents=True, exist_ok=True)
    branch = spec["branch"]
    _git("init", "-q", "--bare", "-b", branch, str(bare))
    shas: dict[str, str] = {}
    dates: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="labworld-") as tmp:
        work = Path(tmp) / "work"
        _git("init", "-q", "-b", branch, str(work))
        prev = None
        for i, commit in enumerate(spec["commits"]):
            where = f"repos.{name}.commits[{i}] ({commit['id']})"
            parents = commit.get("parents")
            if parents:  # its files change its first parent, not the commit before it in the list
                _git("reset", "-q", "--hard", shas[parents[0]], cwd=work)
            for rel, fspec in (commit.get("files") or {}).items():
                target = work / rel
                if fspec is None:
                    if not (target.exists() or target.is_symlink()):
                        raise WorldError(f"{where}: deletes {rel}, which is not in the repo at that commit")
                    if target.is_dir() and not target.is_symlink():
                        shutil.rmtree(target)
                    else:
                        target.unlink()
                else:
                    try:
                        write_file(work, rel, fspec)
                    except OSError as exc:
                        raise WorldError(f"{where}: cannot write {rel}: {exc}") from None
            if commit.get("date"):
                try:
                    when = parse_time(commit["date"])
                except WorldError as exc:
                    raise WorldError(f"{where}.date: {exc}") from None
            elif prev is not None:
                when = prev + timedelta(seconds=60)
            else:
                when = parse_time(DEFAULT_FIRST_DATE)
            stamp = f"@{int(when.timestamp())} +0000"
            author = commit.get("author")
            aname, aemail = DEFAULT_AUTHOR
            if author:
                if not isinstance(author, str) or "<" not in author or not author.endswith(">"):
                    raise WorldError(f"{where}.author: write 'Name <email>'")
                aname, aemail = author[:-1].split("<", 1)
                aname = aname.strip()
            env = {"GIT_AUTHOR_NAME": aname, "GIT_AUTHOR_EMAIL": aemail, "GIT_AUTHOR_DATE": stamp,
                   "GIT_COMMITTER_NAME": aname, "GIT_COMMITTER_EMAIL": aemail, "GIT_COMMITTER_DATE": stamp}
            _git("add", "-A", cwd=work)
            message = commit.get("message") or commit["id"]
            if parents:
                tree = _git("write-tree", cwd=work)
                merged = [arg for p in parents for arg in ("-p", shas[p])]
                _git("reset", "-q", _git("commit-tree", tree, *merged, "-m", message, cwd=work, env=env), cwd=work)
            else:
                _git("commit", "-q", "--allow-empty", "-m", message, cwd=work, env=env)
            shas[commit["id"]] = _git("rev-parse", "HEAD", cwd=work)
            dates[commit["id"]] = rfc3339(when)
            prev = when
        if spec["commits"]:
            _git("push", "-q", str(bare), f"{branch}:refs/heads/{branch}", cwd=work)
    for clone in spec["clones"]:
        rel = clone["path"] if isinstance(clone, dict) else clone
        dest = host_root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        _git("clone", "-q", str(bare), str(dest))
        vm_url = f"/srv/bare/{name}.git"
        if isinstance(clone, dict) and clone.get("origin_url"):
            _git("remote", "set-url", "origin", str(clone["origin_url"]), cwd=dest)
        else:
            # Record the VM path (what a learner's clone has); keep fetch/push working on this machine.
            _git("remote", "set-url", "origin", vm_url, cwd=dest)
            _git("config", f"url.{bare}.insteadOf", vm_url, cwd=dest)
    return shas, dates


# -- cluster -----------------------------------------------------------------------------------
def finish_objects(objects: list[dict], host: str) -> tuple[list[dict], int]:
    """Fill metadata.uid / resourceVersion when missing (deterministic); return (objects, max rv)."""
    rv = 1000
    out = []
    for obj in objects:
        obj = json.loads(json.dumps(obj))
        meta = obj["metadata"]
        rv += 7
        key = f"{host}/{obj['apiVersion']}/{obj['kind']}/{meta.get('namespace', '')}/{meta['name']}"
        meta.setdefault("uid", str(uuid.uuid5(uuid.NAMESPACE_URL, "labworld:" + key)))
        meta.setdefault("resourceVersion", str(rv))
        with contextlib.suppress(TypeError, ValueError):
            rv = max(rv, int(meta["resourceVersion"]))
        out.append(obj)
    return out, rv + 1


# A CA the fake API never uses (it speaks plain HTTP): kubeconfigs carry it like k3s.yaml does, so
# that a learner's kubeconfig can be compared with the VM's ("the same CA data").
FAKE_CA_DATA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nlabworld fake CA\n-----END CERTIFICATE-----\n").decode()


def kubeconfig(host: str, server: str, token: str) -> dict:
    return {
        "apiVersion": "v1", "kind": "Config", "preferences": {},
        "clusters": [{"name": host, "cluster": {"server": server, "certificate-authority-data": FAKE_CA_DATA}}],
        "users": [{"name": f"{host}-admin", "user": {"token": token}}],
        "contexts": [{"name": host, "context": {"cluster": host, "user": f"{host}-admin",
                                                "namespace": "default"}}],
        "current-context": host,
    }


def _safe_clear(host_dir: Path) -> None:
    if host_dir.is_symlink() or host_dir.is_file():
        raise WorldError(f"{host_dir}: exists and is not a directory; refusing to replace it")
    if not host_dir.exists():
        return
    if any(host_dir.iterdir()) and not (host_dir / MARKER).is_file():
        raise WorldError(f"{host_dir}: exists, is not empty and was not made by labworld "
                         f"(no {MARKER}); refusing to delete it")
    shutil.rmtree(host_dir)


def materialize(world_path: str | Path, host: str, out: str | Path, api_url: str) -> dict:
    """Build world_path for host under out/host. Returns the summary written to labworld.json."""
    if not host or "/" in host or host.startswith("."):
        raise WorldError(f"invalid host name {host!r}")
    world_path = Path(world_path)
    world = validate(load(world_path), str(world_path))
    host_dir = Path(out).resolve() / host
    _safe_clear(host_dir)
    host_dir.mkdir(parents=True)
    summary: dict = {"world": str(world_path.resolve()), "description": world["description"],
                     "host": host, "repos": {}}
    try:
        shas: dict[str, dict[str, str]] = {}
        dates: dict[str, dict[str, str]] = {}
        heads: dict[str, str] = {}
        for name, spec in world["repos"].items():
            shas[name], dates[name] = build_repo(host_dir, name, spec)
            if spec["commits"]:
                heads[name] = shas[name][spec["commits"][-1]["id"]]
            summary["repos"][name] = {"bare": f"srv/bare/{name}.git", "branch": spec["branch"],
                                      "head": heads.get(name), "commits": shas[name]}
        server = api_url.rstrip("/") + f"/h/{host}"
        renderer = Renderer(shas, heads, dates, host, world["vars"], str(host_dir), server, FAKE_CA_DATA)
        for rel, spec in world["files"].items():
            spec = renderer.render(spec, f"files[{rel}]")
            write_file(host_dir, rel, spec)
        cluster = renderer.render(world["cluster"], "cluster")
        # rendering may not change identity fields into something invalid
        for i, obj in enumerate(cluster["objects"]):
            kind = BY_GVK.get((obj.get("apiVersion"), obj.get("kind")))
            if kind is None or not isinstance(obj.get("metadata", {}).get("name"), str):
                raise WorldError(f"cluster.objects[{i}]: after rendering, apiVersion/kind/metadata.name invalid")
        objects, rv = finish_objects(cluster["objects"], host)
        token = str(cluster.get("token") or f"labworld-{host}-token")
        state = {"host": host, "reachable": cluster["reachable"], "token": token,
                 "version": {**DEFAULT_VERSION, **(cluster.get("version") or {})},
                 "access": cluster.get("access") or {}, "reviews": cluster.get("reviews") or [],
                 "resourceVersion": str(rv), "objects": objects,
                 "fault": cluster.get("fault")}
        (host_dir / "cluster.json").write_text(json.dumps(state, indent=1) + "\n")
        (host_dir / "kubeconfig").write_text(yaml.safe_dump(kubeconfig(host, server, token), sort_keys=False))
        if world.get("probes"):  # recorded probe results, replayed by the grader (lab_grade probe_replay)
            (host_dir / PROBES).write_text(json.dumps(renderer.render(world["probes"], "probes"), indent=1) + "\n")
        summary["api_server"] = server
        summary["kubeconfig"] = str(host_dir / "kubeconfig")
    except WorldError as exc:
        raise WorldError(f"{world_path}: {exc}") from None
    finally:
        (host_dir / MARKER).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def load_class(class_path: str | Path) -> dict[str, dict]:
    class_path = Path(class_path)
    try:
        data = yaml.safe_load(class_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorldError(f"{class_path}: class file not found") from None
    except (OSError, yaml.YAMLError) as exc:
        raise WorldError(f"{class_path}: cannot read class file: {exc}") from None
    hosts = data.get("hosts") if isinstance(data, dict) else None
    if not isinstance(hosts, dict) or not hosts:
        raise WorldError(f"{class_path}: expected `hosts:` mapping host name -> world file")
    out = {}
    for host, entry in hosts.items():
        if isinstance(entry, str):
            entry = {"world": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("world"), str):
            raise WorldError(f"{class_path}: hosts.{host}: a world path or {{world: path, ...}}")
        entry = dict(entry)
        entry["world"] = str((class_path.parent / entry["world"]).resolve())
        out[str(host)] = entry
    return out


def materialize_class(class_path: str | Path, out: str | Path, api_url: str) -> dict:
    hosts = load_class(class_path)
    result = {"class": str(Path(class_path).resolve()), "api_url": api_url, "hosts": {}}
    for host, entry in hosts.items():
        summary = materialize(entry["world"], host, out, api_url)
        extra = {k: v for k, v in entry.items() if k != "world"}
        result["hosts"][host] = {"world": entry["world"], **extra, "kubeconfig": summary["kubeconfig"],
                                 "api_server": summary["api_server"],
                                 "heads": {r: v["head"] for r, v in summary["repos"].items()}}
    Path(out, "class.json").write_text(json.dumps(result, indent=2) + "\n")
    return result
