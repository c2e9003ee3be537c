"""Static table of the API resources the fake server knows (discovery, paths, list shapes)."""

from __future__ import annotations

from dataclasses import dataclass, field

READ = ["get", "list", "watch"]
CRUD = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


@dataclass(frozen=True)
class Kind:
    group: str  # "" for the core group
    version: str
    plural: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    # Custom resources (served by apiextensions) keep kind/apiVersion on list items;
    # built-in types do not (that is what the real API server returns).
    custom: bool = False
    verbs: tuple[str, ...] = tuple(CRUD)
    subresources: tuple[str, ...] = ()
    # Extra field selectors the real server accepts for this resource (besides metadata.*)
    fields: tuple[str, ...] = field(default=())

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def qualified(self) -> str:
        """Resource name as the API server writes it in messages: `deployments.apps`."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


KINDS: tuple[Kind, ...] = (
    Kind("", "v1", "configmaps", "ConfigMap", True, ("cm",)),
    Kind("", "v1", "secrets", "Secret", True, (), fields=("type",)),
    Kind("", "v1", "services", "Service", True, ("svc",), subresources=("status",)),
    Kind("", "v1", "namespaces", "Namespace", False, ("ns",), subresources=("status",),
         fields=("status.phase",)),
    Kind("", "v1", "pods", "Pod", True, ("po",), subresources=("status", "log"),
         fields=("spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                 "spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName")),
    Kind("", "v1", "serviceaccounts", "ServiceAccount", True, ("sa",)),
    Kind("", "v1", "events", "Event", True, ("ev",),
         fields=("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                 "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                 "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type")),
    Kind("apps", "v1", "deployments", "Deployment", True, ("deploy",), subresources=("status", "scale")),
    Kind("apps", "v1", "statefulsets", "StatefulSet", True, ("sts",), subresources=("status", "scale")),
    Kind("apps", "v1", "replicasets", "ReplicaSet", True, ("rs",), subresources=("status", "scale")),
    Kind("", "v1", "nodes", "Node", False, ("no",), subresources=("status",), fields=("spec.unschedulable",)),
    Kind("batch", "v1", "jobs", "Job", True, (), subresources=("status",), fields=("status.successful",)),
    Kind("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ("hpa",),
         subresources=("status",)),
    Kind("argoproj.io", "v1alpha1", "applications", "Application", True, ("app", "apps"), custom=True),
    Kind("argoproj.io", "v1alpha1", "appprojects", "AppProject", True, ("appproj", "appprojs"), custom=True),
    Kind("argoproj.io", "v1alpha1", "applicationsets", "ApplicationSet", True, ("appset", "appsets"),
         custom=True),
    Kind("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False,
         ("crd", "crds"), subresources=("status",)),
    Kind("rbac.authorization.k8s.io", "v1", "roles", "Role", True),
    Kind("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", True),
    Kind("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", False),
    Kind("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", False),
)

# Review APIs: POST-only, answered from cluster.access, never stored.
REVIEWS: tuple[Kind, ...] = (
    Kind("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False,
         verbs=("create",)),
    Kind("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", False,
         verbs=("create",)),
    Kind("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", False, verbs=("create",)),
    Kind("authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", False,
         verbs=("create",)),
)

ALL = KINDS + REVIEWS

BY_GVK: dict[tuple[str, str], Kind] = {(k.api_version, k.kind): k for k in KINDS}
BY_PATH: dict[tuple[str, str, str], Kind] = {(k.group, k.version, k.plural): k for k in ALL}


def groups() -> dict[str, list[str]]:
    """group name -> versions (core group excluded)."""
    out: dict[str, list[str]] = {}
    for k in ALL:
        if k.group and k.version not in out.setdefault(k.group, []):
            out[k.group].append(k.version)
    return out


def resource_list(group: str, version: str) -> dict | None:
    kinds = [k for k in ALL if k.group == group and k.version == version]
    if not kinds:
        return None
    resources = []
    for k in kinds:
        entry = {"name": k.plural, "singularName": k.singular, "namespaced": k.namespaced,
                 "kind": k.kind, "verbs": list(k.verbs)}
        if k.short_names:
            entry["shortNames"] = list(k.short_names)
        resources.append(entry)
        for sub in k.subresources:
            if sub == "scale":
                resources.append({"name": f"{k.plural}/scale", "singularName": "", "namespaced": True,
                                  "group": "autoscaling", "version": "v1", "kind": "Scale",
                                  "verbs": ["get", "patch", "update"]})
            elif sub == "log":
                resources.append({"name": f"{k.plural}/log", "singularName": "", "namespaced": True,
                                  "kind": k.kind, "verbs": ["get"]})
            else:
                resources.append({"name": f"{k.plural}/{sub}", "singularName": "",
                                  "namespaced": k.namespaced, "kind": k.kind,
                                  "verbs": ["get", "patch", "update"]})
    return {"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version, "resources": resources}
