"""Kubeconfig files a learner writes, and the bearer tokens in them, read without trusting them.

Nothing here returns or prints a token or a key: checks see the server, the CA, the namespace,
whether a token is present, and the token's unverified JWT claims (iat, exp, sub).
"""

from __future__ import annotations

import base64
import binascii
import json

from ansible.module_utils.labgrader.facts import dig
from ansible.module_utils.labgrader.redaction import register_secret


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
