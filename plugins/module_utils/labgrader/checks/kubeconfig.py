"""Kubeconfig files a learner writes, and the bearer tokens in them, read without trusting them;
what the probes need to know of a kubeconfig before a learner's program runs; and who the API
server says a kubeconfig is, as kubectl uses it (`identity`).

Nothing here prints a token or a key: checks see the server, the CA, the namespace, whether a
token is present, the names of the credentials a user entry holds, and the token's unverified
JWT claims (iat, exp, sub). Only `credentials` returns secrets, for the probes to withhold every
file holding one from the sandbox's copies.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import urllib.parse

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.probes import (
    OUTPUT_BYTES,
    probe_env,
    tail,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import load_kubeconfig_data
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import ClusterError
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, load_yaml, read_regular
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import register_secret, scrub
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.sandbox import (
    Sandbox,
    SandboxUnavailable,
    TreeRefused,
)

# The credentials a kubeconfig's user entry can hold (client-go tools/clientcmd/api/v1 AuthInfo):
# their names, never their values, tell a learner what kubectl sent besides the token.
CREDENTIAL_KEYS = ("client-certificate", "client-certificate-data", "client-key", "client-key-data", "token",
                   "tokenFile", "username", "password", "auth-provider", "exec", "as", "as-uid", "as-groups")


def _named(entries, name):
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry
    return None


def current_context(config):
    """{"server", "ca_data", "namespace", "token"} of the current context of a
    parsed kubeconfig; fields it lacks are None. Registers the token as a secret."""
    config = config if isinstance(config, dict) else {}
    context = dig(_named(config.get("contexts"), config.get("current-context")), "context", default={}) or {}
    cluster = dig(_named(config.get("clusters"), dig(context, "cluster")), "cluster", default={}) or {}
    user = dig(_named(config.get("users"), dig(context, "user")), "user", default={}) or {}
    user = user if isinstance(user, dict) else {}
    token = user.get("token")
    if isinstance(token, str) and token:
        register_secret(token)
    return {
        "server": cluster.get("server") if isinstance(cluster, dict) else None,
        "ca_data": decoded(cluster.get("certificate-authority-data")) if isinstance(cluster, dict) else None,
        "namespace": context.get("namespace") if isinstance(context, dict) else None,
        "token": token if isinstance(token, str) and token else None,
        "credentials": [key for key in CREDENTIAL_KEYS if user.get(key) not in (None, "", [], {})],
    }


def decoded(data):
    """Bytes of a base64 *-data field, or None."""
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data.strip(), validate=False)
    except (binascii.Error, ValueError):
        return None


def jwt_claims(token):
    """The payload of a JWT as a dict, unverified (the API server's TokenReview is the proof of
    who it is; the claims only tell its lifetime). None when it is not a JWT."""
    parts = token.split(".") if isinstance(token, str) else []
    if len(parts) != 3 or len(parts[1]) > 8192:
        return None
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload))
    except (binascii.Error, ValueError):
        return None
    return claims if isinstance(claims, dict) else None


DEFAULT_PORTS = {"https": 443, "http": 80}


def server_address(server):
    """(scheme, host, port, path) that client-go connects to for a kubeconfig's `server`, or None
    when it names none. client-go rest/url_utils.go DefaultServerURL: a value without a scheme
    (`host:port`) is https when TLS is configured (a CA is) and may carry no path; a path ("/" or
    a prefix) is joined before every API path (path.Join: trailing and doubled slashes fall
    away). Go's net/url lowercases the scheme; the port defaults to the scheme's; a host name is
    case-insensitive (DNS, and the certificate check of crypto/tls)."""
    if not isinstance(server, str) or not server.strip():
        return None
    text = server.strip()
    parsed = urllib.parse.urlsplit(text)
    if not parsed.scheme or not parsed.netloc:
        parsed = urllib.parse.urlsplit("https://" + text)
    try:
        port = parsed.port
    except ValueError:
        return None
    scheme = parsed.scheme.lower()
    if not parsed.hostname or scheme not in DEFAULT_PORTS:
        return None
    path = "/".join(part for part in parsed.path.split("/") if part)
    return scheme, parsed.hostname.lower(), port or DEFAULT_PORTS[scheme], "/" + path


def same_cluster(context, k3s):
    """{"server": bool, "CA data": bool}: whether a current_context() names the cluster that
    kubeconfig_cluster() read: the same server as client-go reaches it (server_address), trusted
    with the same CA."""
    ca = base64.b64decode(k3s["ca_data"]) if k3s.get("ca_data") else None
    address = server_address(context["server"])
    return {"server": address is not None and address == server_address(k3s["server"]),
            "CA data": context["ca_data"] is not None and context["ca_data"] == ca}


def kubeconfig_cluster(path):
    """{"server", "ca_data" (base64 text)} of the current context of the kubeconfig at `path` (the
    VM's admin kubeconfig: plain data a recorded world can replay), or {"error": why}."""
    try:
        config = load_kubeconfig_data(path)
    except ClusterError as exc:
        return {"error": exc.detail}
    found = current_context(config)
    ca = found["ca_data"]
    return {"server": found["server"], "ca_data": base64.b64encode(ca).decode() if ca else None}


def credentials(path):
    """The secrets (tokens, client keys, passwords; 16 characters or more) of every user of the
    kubeconfig at `path`, as bytes in every form a file could hold them; [] when unreadable."""
    try:
        config = load_kubeconfig_data(path)
    except ClusterError:
        return []
    found = []
    for entry in config.get("users") or []:
        user = entry.get("user") if isinstance(entry, dict) else None
        for key in ("token", "client-key-data", "password"):
            value = user.get(key) if isinstance(user, dict) else None
            if isinstance(value, str) and len(value.strip()) >= 16:
                found.append(value.strip().encode())
                if key == "client-key-data":
                    with contextlib.suppress(ValueError):
                        found += [line for line in base64.b64decode(value).splitlines()
                                  if len(line) >= 16 and not line.startswith(b"-----")]
    return found


def referenced_files(kubeconfig):
    """The files a kubeconfig names (CA, client certificate and key, token file), resolved as
    kubectl resolves them (relative to the kubeconfig's directory), that exist."""
    try:
        docs = load_yaml(read_regular(kubeconfig).decode("utf-8", "replace"))
    except Refused:
        return []
    config = docs[0] if docs and isinstance(docs[0], dict) else {}
    paths = []
    for section, keys in (("clusters", ("certificate-authority",)),
                          ("users", ("client-certificate", "client-key", "tokenFile", "token-file"))):
        for entry in config.get(section) or []:
            inner = entry.get(section[:-1]) if isinstance(entry, dict) else None
            for key in keys:
                value = inner.get(key) if isinstance(inner, dict) else None
                if isinstance(value, str) and value:
                    path = os.path.join(os.path.dirname(kubeconfig), value)
                    if os.path.isfile(path):
                        paths.append(os.path.abspath(path))
    return paths


WHOAMI_TIMEOUT = 20.0


def identity(context, path, skip, timeout=WHOAMI_TIMEOUT):
    """Who the API server authenticates for the kubeconfig at `path` as a whole, as kubectl sends
    it: every credential of its current user at once (a client certificate and a token are both
    sent; kube-apiserver's authenticator union tries the x509 authenticator before the bearer
    token ones and the first that succeeds decides: pkg/kubeapiserver/authenticator/config.go
    New, k8s.io/apiserver/pkg/authentication/request/union). It asks `kubectl auth whoami -o
    json` (a SelfSubjectReview) in a sandbox of its own: an `exec` credential plugin named in the
    file is a learner program. The sandbox holds the kubeconfig as the learner wrote it and the
    files it names (what they carry is what is judged), the rest of its directory but what
    `skip(relpath, data)` withholds (the caller's credentials rule, as for every probe), and not
    the grader's or the admin's kubeconfig. {"username", "groups"}, {"failed": kubectl's output
    (scrubbed), "returncode", "out_of_time": the lab's probe time, not kubectl, cut it short}, or
    {"error": why the grader cannot run it}."""
    if timeout <= 0:
        return {"failed": "", "returncode": None, "timed_out": True, "out_of_time": True}
    name = os.path.basename(path)
    try:
        with Sandbox(hidden=(context.kubeconfig, context.site.k3s_kubeconfig)) as sandbox:
            sandbox.stage_tree(os.path.dirname(path), skip=lambda rel, data: rel != name and skip(rel, data))
            for source in referenced_files(path):
                sandbox.stage_tree(source)
            result = sandbox.run(["kubectl", "auth", "whoami", "-o", "json", "--kubeconfig", path],
                                 os.path.dirname(path), probe_env(context), timeout, OUTPUT_BYTES)
    except SandboxUnavailable as exc:
        return {"error": str(exc)}
    except TreeRefused as exc:
        return {"failed": f"the kubeconfig {exc}", "returncode": None}
    user = reviewed_user(result.stdout) if result.ok else None
    if user is None:
        output = (result.stdout + result.stderr).decode("utf-8", "replace")
        return {"failed": scrub(tail(output)), "returncode": result.returncode, "timed_out": result.timed_out,
                "out_of_time": result.timed_out and timeout < WHOAMI_TIMEOUT}
    return user


def reviewed_user(stdout):
    """{"username", "groups"} of kubectl's SelfSubjectReview output, or None unless stdout is
    exactly one such JSON document (anything else written to kubectl's output, by a credential
    plugin for instance, makes it unreadable, never another user)."""
    try:
        review = json.loads(stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    info = dig(review, "status", "userInfo") if isinstance(review, dict) else None
    if dig(review, "kind") != "SelfSubjectReview" or not isinstance(info, dict):
        return None
    username, groups = info.get("username"), info.get("groups") or []
    if not isinstance(username, str) or not isinstance(groups, list):
        return None
    return {"username": username, "groups": [str(group) for group in groups]}
