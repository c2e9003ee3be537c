"""A read-only fake Kubernetes API server serving every materialized host under /h/<host>/."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import signal
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from . import kinds as K

OPEN_PATHS = {"/version", "/healthz", "/livez", "/readyz"}
MAX_BODY = 1024 * 1024


class ApiError(Exception):
    def __init__(self, code: int, reason: str, message: str, details: dict | None = None):
        super().__init__(message)
        self.code, self.reason, self.message, self.details = code, reason, message, details or {}

    def status(self) -> dict:
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": self.message, "reason": self.reason, "details": self.details, "code": self.code}


def not_found(kind: K.Kind, name: str) -> ApiError:
    details = {"name": name, "kind": kind.plural}
    if kind.group:
        details = {"name": name, "group": kind.group, "kind": kind.plural}
    return ApiError(404, "NotFound", f'{kind.qualified} "{name}" not found', details)


PAGE_NOT_FOUND = ("NotFound", "the server could not find the requested resource")


# -- selectors -----------------------------------------------------------------------------------
_KEY = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_SET = re.compile(r"^(\S+)\s+(in|notin)\s+\((.*)\)$", re.DOTALL)


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def parse_label_selector(text: str):
    """Return a predicate over a labels dict. Raises ApiError(400) on a malformed selector."""
    reqs = []

    def bad(msg):
        return ApiError(400, "BadRequest", f"unable to parse requirement: {msg}")

    for req in _split_top(text):
        m = _SET.match(req)
        if m:
            key, op, vals = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",") if v.strip()}
            if not _KEY.match(key):
                raise bad(f"invalid label key {key!r}")
            reqs.append((key, op, vals))
            continue
        if req.startswith("!"):
            key, op, vals = req[1:].strip(), "!exists", set()
        elif "!=" in req:
            key, val = req.split("!=", 1)
            key, op, vals = key.strip(), "!=", {val.strip()}
        elif "==" in req:
            key, val = req.split("==", 1)
            key, op, vals = key.strip(), "=", {val.strip()}
        elif "=" in req:
            key, val = req.split("=", 1)
            key, op, vals = key.strip(), "=", {val.strip()}
        else:
            key, op, vals = req, "exists", set()
        if not _KEY.match(key) or any(c in "<>" for c in key):
            raise bad(f"invalid label key {key!r} in {req!r}")
        reqs.append((key, op, vals))

    def pred(labels: dict) -> bool:
        for key, op, vals in reqs:
            has = key in labels
            val = labels.get(key)
            if op == "exists" and not has:
                return False
            if op == "!exists" and has:
                return False
            if op in ("=", "in") and (not has or val not in vals):
                return False
            if op in ("!=", "notin") and has and val in vals:
                return False
        return True
    return pred


def _field_value(obj: dict, path: str, kind: K.Kind) -> str:
    if kind.kind == "Secret" and path == "type":
        return str(obj.get("type", "Opaque"))
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def parse_field_selector(text: str, kind: K.Kind):
    reqs = []
    allowed = ("metadata.name", "metadata.namespace", *kind.fields)
    for req in _split_top(text):
        if "!=" in req:
            f, v = req.split("!=", 1)
            neg = True
        elif "==" in req:
            f, v = req.split("==", 1)
            neg = False
        elif "=" in req:
            f, v = req.split("=", 1)
            neg = False
        else:
            raise ApiError(400, "BadRequest", f"invalid selector: '{text}'; can't understand '{req}'")
        f = f.strip()
        if f not in allowed:
            if kind.custom:
                raise ApiError(400, "BadRequest", f'"{f}" is not a known field selector: only '
                               '"metadata.name", "metadata.namespace"')
            raise ApiError(400, "BadRequest", f"field label not supported: {f}")
        reqs.append((f, v.strip(), neg))

    def pred(obj: dict) -> bool:
        return all((_field_value(obj, f, kind) == v) != neg for f, v, neg in reqs)
    return pred


# -- per-host state --------------------------------------------------------------------------------
class HostState:
    def __init__(self, path: Path):
        self.path = path
        self.mtime = None
        self.data: dict = {}

    def get(self) -> dict:
        st = self.path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self.mtime:
            self.data = json.loads(self.path.read_text())
            self.mtime = stamp
        return self.data


class Backend:
    def __init__(self, root: Path, check_token: bool = True):
        self.root = root
        self.check_token = check_token
        self.lock = threading.Lock()
        self.hosts: dict[str, HostState] = {}
        self.log_locks: dict[str, threading.Lock] = {}

    def state(self, host: str) -> dict | None:
        path = self.root / host / "cluster.json"
        with self.lock:
            hs = self.hosts.get(host)
            if hs is None:
                hs = self.hosts[host] = HostState(path)
                self.log_locks[host] = threading.Lock()
            try:
                return hs.get()
            except FileNotFoundError:
                return None

    def log(self, host: str, entry: dict) -> None:
        lock = self.log_locks.get(host)
        if lock is None:
            return
        line = json.dumps(entry, sort_keys=True) + "\n"
        with lock, open(self.root / host / "requests.log", "a", encoding="utf-8") as fh:
            fh.write(line)


# -- request handling ------------------------------------------------------------------------------
def _strip_for_list(obj: dict, kind: K.Kind) -> dict:
    if kind.custom:
        return obj
    return {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}


def _with_gvk(obj: dict, kind: K.Kind) -> dict:
    out = {"kind": kind.kind, "apiVersion": kind.api_version}
    out.update(obj)
    return out


def _find_kind(group: str, version: str, plural: str) -> K.Kind:
    kind = K.BY_PATH.get((group, version, plural))
    if kind is None:
        raise ApiError(404, *PAGE_NOT_FOUND)
    return kind


def parse_resource_path(parts: list[str]):
    """parts after /h/<host>. Returns (group, version, rest) or None for non-resource paths."""
    if len(parts) >= 2 and parts[0] == "api":
        return "", parts[1], parts[2:]
    if len(parts) >= 3 and parts[0] == "apis":
        return parts[1], parts[2], parts[3:]
    return None


def resolve(group: str, version: str, rest: list[str]):
    """-> (kind, namespace|None, name|None, subresource|None)"""
    if rest[0] == "namespaces" and len(rest) >= 3 and not (group == "" and rest[2] in ("status", "finalize")):
        ns, plural, more = rest[1], rest[2], rest[3:]
        kind = _find_kind(group, version, plural)
        if not kind.namespaced or len(more) > 2:
            raise ApiError(404, *PAGE_NOT_FOUND)
        return kind, ns, (more[0] if more else None), (more[1] if len(more) > 1 else None)
    kind = _find_kind(group, version, rest[0])
    if len(rest) > 3:
        raise ApiError(404, *PAGE_NOT_FOUND)
    return kind, None, (rest[1] if len(rest) > 1 else None), (rest[2] if len(rest) > 2 else None)


def get_object(state: dict, kind: K.Kind, ns: str | None, name: str, sub: str | None) -> dict:
    if kind.namespaced and ns is None:
        raise ApiError(404, *PAGE_NOT_FOUND)
    for obj in state["objects"]:
        meta = obj["metadata"]
        if obj["kind"] == kind.kind and obj["apiVersion"] == kind.api_version and meta["name"] == name \
                and (meta.get("namespace") or None) == (ns if kind.namespaced else None):
            if sub is None or sub == "status":
                return _with_gvk(obj, kind)
            if sub == "scale" and "scale" in kind.subresources:
                sel = obj.get("status", {}).get("selector") or ",".join(
                    f"{k}={v}" for k, v in (obj.get("spec", {}).get("selector", {}).get("matchLabels") or {}).items())
                return {"kind": "Scale", "apiVersion": "autoscaling/v1",
                        "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion",
                                                           "creationTimestamp") if k in meta},
                        "spec": {"replicas": obj.get("spec", {}).get("replicas", 1)},
                        "status": {"replicas": obj.get("status", {}).get("replicas", 0), "selector": sel}}
            raise ApiError(404, *PAGE_NOT_FOUND)
    raise not_found(kind, name)


def list_objects(state: dict, kind: K.Kind, ns: str | None, query: dict) -> dict:
    lsel = query.get("labelSelector", [""])[0]
    fsel = query.get("fieldSelector", [""])[0]
    lpred = parse_label_selector(lsel) if lsel else (lambda labels: True)
    fpred = parse_field_selector(fsel, kind) if fsel else (lambda obj: True)
    items = []
    for obj in state["objects"]:
        if obj["kind"] != kind.kind or obj["apiVersion"] != kind.api_version:
            continue
        meta = obj["metadata"]
        if ns is not None and meta.get("namespace") != ns:
            continue
        if lpred(meta.get("labels") or {}) and fpred(obj):
            items.append(obj)
    items.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
    start = 0
    cont = query.get("continue", [""])[0]
    if cont:
        try:
            start = int(base64.urlsafe_b64decode(cont.encode()).decode())
        except (ValueError, UnicodeDecodeError):
            raise ApiError(400, "BadRequest", "continue key is not valid") from None
    limit = query.get("limit", ["0"])[0]
    try:
        limit_n = int(limit)
    except ValueError:
        raise ApiError(400, "BadRequest", f"invalid limit {limit!r}") from None
    page = items[start:]
    # custom resources (apiextensions) always answer a `continue` key; built-in lists only when paging
    meta: dict = {"continue": ""} if kind.custom else {}
    meta["resourceVersion"] = state.get("resourceVersion", "1")
    if limit_n > 0 and len(page) > limit_n:
        page = page[:limit_n]
        meta["continue"] = base64.urlsafe_b64encode(str(start + limit_n).encode()).decode()
        meta["remainingItemCount"] = len(items) - start - limit_n
    return {"kind": f"{kind.kind}List", "apiVersion": kind.api_version, "metadata": meta,
            "items": [_strip_for_list(_with_gvk(o, kind), kind) for o in page]}


def discovery(parts: list[str]) -> dict | None:
    if parts == ["api"]:
        return {"kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "10.0.2.15:6443"}]}
    if parts == ["apis"]:
        groups = []
        for g, versions in K.groups().items():
            vs = [{"groupVersion": f"{g}/{v}", "version": v} for v in versions]
            groups.append({"name": g, "versions": vs, "preferredVersion": vs[0]})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
    if len(parts) == 2 and parts[0] == "apis":
        versions = K.groups().get(parts[1])
        if versions is None:
            return None
        vs = [{"groupVersion": f"{parts[1]}/{v}", "version": v} for v in versions]
        return {"kind": "APIGroup", "apiVersion": "v1", "name": parts[1], "versions": vs,
                "preferredVersion": vs[0]}
    if len(parts) == 2 and parts[0] == "api":
        return K.resource_list("", parts[1])
    if len(parts) == 3 and parts[0] == "apis":
        return K.resource_list(parts[1], parts[2])
    return None


# -- reviews ---------------------------------------------------------------------------------------
def _match(rule_val, actual) -> bool:
    if rule_val is None or rule_val == "*":
        return True
    vals = rule_val if isinstance(rule_val, list) else [rule_val]
    return "*" in vals or actual in vals


def _self_user(access: dict) -> dict:
    user = dict(access.get("user") or {})
    user.setdefault("username", "system:admin")
    user.setdefault("groups", ["system:masters", "system:authenticated"])
    return user


def decide(access: dict, username: str, attrs: dict) -> tuple[bool, str]:
    verb = attrs.get("verb", "")
    resource = attrs.get("resource", "")
    if attrs.get("subresource"):
        resource = f"{resource}/{attrs['subresource']}"
    for rule in access.get("rules") or []:
        if (_match(rule.get("user"), username) and _match(rule.get("verbs"), verb)
                and _match(rule.get("apiGroups"), attrs.get("group", ""))
                and _match(rule.get("resources"), resource)
                and _match(rule.get("namespaces"), attrs.get("namespace", ""))
                and _match(rule.get("names"), attrs.get("name", ""))
                and _match(rule.get("nonResourceURLs"), attrs.get("path", ""))):
            return bool(rule.get("allowed", True)), str(rule.get("reason", ""))
    return bool(access.get("default", True)), str(access.get("default_reason", ""))


def review(state: dict, kind: K.Kind, body: dict) -> dict:
    access = state.get("access") or {}
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    recorded = [r["status"] for r in state.get("reviews") or [] if r["kind"] == kind.kind and r["spec"] == spec]
    status: dict
    if recorded:  # answered as the recorded API server answered (python -m labworld record)
        status = recorded[0]
    elif kind.kind in ("SelfSubjectAccessReview", "SubjectAccessReview"):
        user = _self_user(access)["username"] if kind.kind == "SelfSubjectAccessReview" else spec.get("user", "")
        attrs = spec.get("resourceAttributes") or spec.get("nonResourceAttributes") or {}
        allowed, reason = decide(access, user, attrs)
        status = {"allowed": allowed}
        if reason:
            status["reason"] = reason
        if not allowed and reason:
            status["denied"] = True
    elif kind.kind == "TokenReview":
        token = spec.get("token", "")
        tokens = access.get("tokens") or {}
        if token == state.get("token"):
            status = {"authenticated": True, "user": _self_user(access), "audiences": spec.get("audiences") or []}
        elif token in tokens:
            status = {"authenticated": True, "user": tokens[token], "audiences": spec.get("audiences") or []}
        else:
            status = {"user": {}, "error": "invalid bearer token"}
    else:  # SelfSubjectReview
        status = {"userInfo": _self_user(access)}
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    out = {"kind": kind.kind, "apiVersion": kind.api_version,
           "metadata": {**meta, "creationTimestamp": None}, "status": status}
    if kind.kind != "SelfSubjectReview":
        out["spec"] = spec
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "labworld-fake-apiserver"
    backend: Backend

    def setup(self) -> None:
        super().setup()
        # one small JSON answer per request: avoid Nagle + delayed-ACK stalls (~40 ms each)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):  # quiet
        pass

    def _send(self, code: int, payload, content_type: str = "application/json") -> None:
        body = payload if isinstance(payload, bytes) else (json.dumps(payload) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Audit-Id", "labworld")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ApiError(413, "RequestEntityTooLarge", "request body too large")
        return self.rfile.read(length) if length > 0 else b""

    def _handle(self) -> None:
        split = urlsplit(self.path)
        parts = [unquote(p) for p in split.path.split("/") if p]
        query = parse_qs(split.query, keep_blank_values=True)
        if len(parts) < 2 or parts[0] != "h":
            self._read_body()
            return self._send(404, ApiError(404, "NotFound", "labworld: paths start with /h/<host>/").status())
        host, parts = parts[1], parts[2:]
        backend = self.backend
        if "/" in host or "\\" in host or host.startswith("."):
            self._read_body()
            return self._send(404, ApiError(404, "NotFound", f"labworld: invalid host name {host!r}").status())
        try:
            state = backend.state(host)
        except (OSError, ValueError) as exc:
            self._read_body()
            return self._send(500, ApiError(500, "InternalError", f"labworld: cannot read cluster.json: {exc}").status())
        body = self._read_body()
        entry = {"ts": round(time.time(), 3), "method": self.command, "path": "/" + "/".join(parts),
                 "query": {k: v[0] if len(v) == 1 else v for k, v in query.items()},
                 "user_agent": self.headers.get("User-Agent", "")}
        if state is None:
            return self._send(404, ApiError(404, "NotFound", f"labworld: no materialized host {host!r}").status())
        if not state.get("reachable", True):
            entry.update(status=None, dropped=True)
            backend.log(host, entry)
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return None
        if state.get("fault"):
            entry.update(status=None, fault=state["fault"]["mode"])
            backend.log(host, entry)
            return self._misbehave(**state["fault"])
        code, payload, ctype = self._route(state, parts, query, body)
        entry["status"] = code
        if self.command not in ("GET", "HEAD") and code != 201:
            entry["body"] = body[:4096].decode("utf-8", "replace")
        backend.log(host, entry)
        return self._send(code, payload, ctype)

    def _misbehave(self, mode: str, seconds: float = 1) -> None:
        """A hostile or broken API server (docs/fixture-format.md, `cluster.fault`): the grader
        must give up within its deadline, whatever the server does."""
        self.close_connection = True
        if mode == "stall":  # read the request, never answer
            time.sleep(seconds)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if mode == "flood":  # an endless answer, as fast as the client reads
            self.send_header("Content-Length", str(1 << 40))
            self.end_headers()
            chunk = b"[" * 65536
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                self.wfile.write(chunk)
            return
        body = b'{"kind": "List", "items": []}'
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if mode == "cut":  # half an answer, then hang up
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        for byte in body:  # trickle: one byte every `seconds`, each read is quick but the answer never ends
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(seconds)

    def _route(self, state: dict, parts: list[str], query: dict, body: bytes):
        path = "/" + "/".join(parts)
        try:
            if self.backend.check_token:
                auth = self.headers.get("Authorization")
                anonymous_ok = auth is None and (path in OPEN_PATHS or path.startswith(("/healthz/", "/livez/",
                                                                                        "/readyz/")))
                if auth != f"Bearer {state.get('token')}" and not anonymous_ok:
                    raise ApiError(401, "Unauthorized", "Unauthorized")
            if self.command in ("GET", "HEAD"):
                return self._get(state, parts, query)
            if self.command == "POST":
                res = parse_resource_path(parts)
                if res and len(res[2]) == 1:
                    kind = K.BY_PATH.get((res[0], res[1], res[2][0]))
                    if kind is not None and kind in K.REVIEWS:
                        try:
                            data = json.loads(body or b"{}")
                        except ValueError:
                            raise ApiError(400, "BadRequest", "the body of the request was in an unknown format") from None
                        if not isinstance(data, dict):
                            raise ApiError(400, "BadRequest", "the body of the request must be an object")
                        return 201, review(state, kind, data), "application/json"
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"
                           " (labworld fake API server is read-only)")
        except ApiError as err:
            return err.code, err.status(), "application/json"

    def _get(self, state: dict, parts: list[str], query: dict):
        path = "/" + "/".join(parts)
        if path == "/version":
            return 200, state.get("version", {}), "application/json"
        if parts and parts[0] in ("healthz", "livez", "readyz"):
            return 200, b"ok", "text/plain; charset=utf-8"
        if query.get("watch", [""])[0] in ("true", "1"):
            raise ApiError(405, "MethodNotAllowed", "watch is not supported by the labworld fake API server")
        disc = discovery(parts)
        if disc is not None:
            return 200, disc, "application/json"
        res = parse_resource_path(parts)
        if res is None or not res[2]:
            raise ApiError(404, *PAGE_NOT_FOUND)
        group, version, rest = res
        kind, ns, name, sub = resolve(group, version, rest)
        if name is None:
            return 200, list_objects(state, kind, ns, query), "application/json"
        return 200, get_object(state, kind, ns, name, sub), "application/json"

    def _dispatch(self):
        try:
            self._handle()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_server(root: str | Path, port: int = 0, check_token: bool = True) -> Server:
    backend = Backend(Path(root).resolve(), check_token)
    handler = type("BoundHandler", (Handler,), {"backend": backend})
    return Server(("127.0.0.1", port), handler)


def serve(root: str | Path, port: int = 0, port_file: str | None = None, check_token: bool = True) -> None:
    server = make_server(root, port, check_token)
    chosen = server.server_address[1]
    if port_file:
        tmp = f"{port_file}.tmp"
        Path(tmp).write_text(f"{chosen}\n")
        os.replace(tmp, port_file)

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
