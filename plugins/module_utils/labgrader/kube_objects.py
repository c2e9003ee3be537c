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


def replicas_owner(obj):
    """The managedFields entry that owns f:spec.f:replicas, or None.

    Several managers may list the field only when they share it (server-side apply); the last
    writer in time is the one a learner means by "owns it right now".
    """
    owners = []
    for entry in dig(obj, "metadata", "managedFields", default=[]) or []:
        fields = dig(entry, "fieldsV1", "f:spec")
        if isinstance(fields, dict) and "f:replicas" in fields:
            owners.append(entry)
    if not owners:
        return None
    return max(owners, key=lambda e: str(e.get("time") or ""))
