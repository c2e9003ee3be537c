"""Kubeconfig files a learner writes, and the bearer tokens in them, read without trusting them;
and what the probes need to know of a kubeconfig before a learner's program runs.

Nothing here prints a token or a key: checks see the server, the CA, the namespace, whether a
token is present, and the token's unverified JWT claims (iat, exp, sub). Only `credentials`
returns secrets, for the probes to withhold every file holding one from the sandbox's copies.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import load_kubeconfig_data
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import ClusterError
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import Refused, load_yaml, read_regular
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import register_secret


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
    token = user.get("token") if isinstance(user, dict) else None
    if isinstance(token, str) and token:
        register_secret(token)
    return {
        "server": cluster.get("server") if isinstance(cluster, dict) else None,
        "ca_data": decoded(cluster.get("certificate-authority-data")) if isinstance(cluster, dict) else None,
        "namespace": context.get("namespace") if isinstance(context, dict) else None,
        "token": token if isinstance(token, str) and token else None,
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


def same_cluster(context, k3s):
    """{"server": bool, "CA data": bool}: whether a current_context() names the cluster that
    kubeconfig_cluster() read."""
    ca = base64.b64decode(k3s["ca_data"]) if k3s.get("ca_data") else None
    return {"server": context["server"] == k3s["server"],
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
