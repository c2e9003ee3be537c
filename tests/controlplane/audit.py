"""The plane's API server audit log (controlplane/cp: Metadata level for every request, one JSON
line per request in $LAB_CP_ROOT/logs/audit.log, rotated once past its size limit): the requests
the API server received between two markers, as plain dicts.

A marker is a GET of a ConfigMap nobody creates (a 404 in the log). It is found in the log by its
URI, and the window is the requests received between the two markers' receipt times, both the API
server's clock: nothing depends on this machine's clock or on how soon a line is written.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cpharness import Plane, wait_until

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
# The plane's own components write all the time (leases, node and pod status, Argo CD's
# Application status, ReplicaSets and pods of a Deployment): known by their user agent.
PLANE_AGENTS = ("kube-apiserver/", "kube-controller-manager/", "kube-scheduler/", "kwok/",
                "argocd-application-controller/")
MARK_TIMEOUT = 30.0
# A request answered just before the end marker may be logged just after the marker's line.
LATE_LINE_SECONDS = 1.0


@dataclass(frozen=True)
class Mark:
    uri: str
    user: str  # who the plane's admin kubeconfig (the grader's) is to the API server
    received: str  # the API server's requestReceivedTimestamp (RFC 3339, fixed width: sorts as text)
    inode: int  # the log file its line is in (it keeps its inode when rotated)
    offset: int  # where that line starts


def event(raw: dict[str, Any]) -> dict[str, Any]:
    """The fields of one audit line that say who did what to which object, and the answer."""
    ref = raw.get("objectRef") or {}
    return {"verb": raw.get("verb"), "user": (raw.get("user") or {}).get("username"),
            "userAgent": raw.get("userAgent", ""), "resource": ref.get("resource"),
            "namespace": ref.get("namespace"), "name": ref.get("name"), "subresource": ref.get("subresource"),
            "requestURI": raw.get("requestURI", ""), "code": (raw.get("responseStatus") or {}).get("code"),
            "received": raw.get("requestReceivedTimestamp", "")}


def is_write(ev: dict[str, Any]) -> bool:
    return ev["verb"] in WRITE_VERBS


def is_dry_run(ev: dict[str, Any]) -> bool:
    return parse_qs(urlsplit(ev["requestURI"]).query).get("dryRun") == ["All"]


def by_plane(ev: dict[str, Any]) -> bool:
    return ev["userAgent"].startswith(PLANE_AGENTS)


def carried_out(ev: dict[str, Any]) -> bool:
    """The API server did it: a refused request (4xx/5xx) changed nothing; no code at all (a
    request that never got an answer) counts as done."""
    return ev["code"] is None or ev["code"] < 400


def describe(ev: dict[str, Any]) -> str:
    """One line for an assertion message."""
    what = "/".join(part for part in (ev["namespace"], ev["resource"], ev["name"], ev["subresource"]) if part)
    return f"{ev['verb']} {what} -> {ev['code']} by {ev['user']} ({ev['userAgent'].split(' ')[0]}): {ev['requestURI']}"


class AuditLog:
    def __init__(self, plane: Plane):
        self.plane = plane
        self.path = plane.root / "logs" / "audit.log"
        if not self.path.exists():
            raise AssertionError(f"{self.path} does not exist: the plane was started without an audit log "
                                 "(controlplane/cp up from before it had one?)")

    def files(self) -> list[Path]:
        """Oldest first: the rotated file (audit-<time>.log), then the one being written."""
        return [*sorted(self.path.parent.glob("audit-*.log")), self.path]

    def lines(self, inode: int, offset: int):
        """(inode, offset, raw event) of every complete line from `offset` of the file `inode` on,
        through the file being written; from the oldest file when `inode` is gone."""
        files = self.files()
        inodes = [path.stat().st_ino for path in files]
        first = inodes.index(inode) if inode in inodes else 0
        for index, path in enumerate(files[first:], first):
            with path.open("rb") as handle:
                if index == first and inodes[first] == inode:
                    handle.seek(offset)
                position = handle.tell()
                for line in handle:
                    if not line.endswith(b"\n"):
                        break  # still being written
                    yield inodes[index], position, json.loads(line)
                    position += len(line)

    def mark(self) -> Mark:
        """A marker request, once the API server has logged it."""
        uri = f"/api/v1/namespaces/default/configmaps/lab-audit-mark-{secrets.token_hex(6)}"
        before = self.path.stat()
        inode, offset = before.st_ino, before.st_size
        self.plane.kubectl("get", "--raw", uri, check=False)

        def logged() -> Mark | None:
            for line_inode, line_offset, raw in self.lines(inode, offset):
                if urlsplit(raw.get("requestURI", "")).path == uri:  # kubectl adds ?timeout=...
                    return Mark(uri, raw["user"]["username"], raw["requestReceivedTimestamp"], line_inode,
                                line_offset)
            return None

        return wait_until(f"the audit log line of GET {uri}", logged, MARK_TIMEOUT, interval=0.5)

    def between(self, start: Mark, end: Mark) -> list[dict[str, Any]]:
        """Every request received after `start` and before `end` (markers excluded), in the order
        they were logged; a watch logged twice (ResponseStarted, ResponseComplete) counts once."""
        time.sleep(LATE_LINE_SECONDS)
        found: dict[str, dict[str, Any]] = {}
        for _, _, raw in self.lines(start.inode, start.offset):
            if start.received < raw.get("requestReceivedTimestamp", "") < end.received:
                found[raw.get("auditID", "")] = event(raw)
        return list(found.values())
