"""What a Kubernetes object (a manifest or a live object) holds: containers, commands, annotations,
conditions, field owners."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig


def containers(obj):
    """Containers of a Deployment/Job/Pod manifest or live object."""
    spec = dig(obj, "spec", "template", "spec") if dig(obj, "spec", "template") is not None else dig(obj, "spec")
    items = dig(spec, "containers")
    return [c for c in items if isinstance(c, dict)] if isinstance(items, list) else []


def command_line(container):
    """command + args of a container as one string (shell scripts included)."""
    parts = []
    for key in ("command", "args"):
        value = container.get(key)
        if isinstance(value, list):
            parts.extend(str(v) for v in value)
        elif isinstance(value, str):
            parts.append(value)
    return " ".join(parts)


def annotation(obj, key):
    value = dig(obj, "metadata", "annotations", key)
    return None if value is None else str(value)


def condition(obj, kind):
    for cond in dig(obj, "status", "conditions", default=[]) or []:
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None


def managed_entries(obj):
    """metadata.managedFields of a live object (a GET returns them; kubectl only hides them)."""
    entries = dig(obj, "metadata", "managedFields", default=[])
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def field_owners(obj, *path):
    """The managedFields entries whose fieldsV1 hold `path` ("f:spec", "f:replicas", ...): the
    managers that set that field (or, for a path that ends at a map, something under it)."""
    return [e for e in managed_entries(obj) if dig(e, "fieldsV1", *path) is not None]


def replicas_owner(obj):
    """The managedFields entry that owns f:spec.f:replicas, or None.

    Several managers may list the field only when they share it (server-side apply); the last
    writer in time is the one a learner means by "owns it right now".
    """
    owners = field_owners(obj, "f:spec", "f:replicas")
    if not owners:
        return None
    return max(owners, key=lambda e: str(e.get("time") or ""))
