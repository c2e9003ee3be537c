"""What kustomize does with a directory in git, as Argo CD runs it: which file is the
kustomization, which names a replicas entry matches, the build options Argo CD adds, and how a
rendered image reference reads (the build itself: checks/repo_server.py kustomize_build)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import parse_yaml_text

# kustomize's konfig.RecognizedKustomizationFileNames, in the order it looks for them.
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def kustomization_paths(directory):
    return [f"{directory}/{name}" for name in KUSTOMIZATION_FILES]


def kustomization(tree, directory):
    """(path, mapping) of the kustomization file of `directory` in a {path: text} tree; (path, None)
    when it is not a YAML mapping, (None, None) when there is none."""
    for path in kustomization_paths(directory):
        text = tree.get(path)
        if text is not None:
            documents, _ = parse_yaml_text(text)
            if documents and isinstance(documents[0], dict):
                return path, documents[0]
            return path, None
    return None, None


def replicas_names(kustomization_doc, name):
    """The names a `replicas` entry may give to set the replicas of resource `name`. kustomize's
    ReplicaCountTransformer matches a resource by any of its ids (resmap
    GetMatchingResourcesByAnyId: the base's name or the prefixed one), so `api` and `prod-api`
    both set api's replicas (observed with the plane's kustomize v5.8.1)."""
    prefix = kustomization_doc.get("namePrefix") or ""
    suffix = kustomization_doc.get("nameSuffix") or ""
    return (name, f"{prefix}{name}{suffix}")


def build_options(argocd_cm):
    """argocd-cm `kustomize.buildOptions`, which Argo CD adds to every `kustomize build`
    (util/kustomize/kustomize.go parseKustomizeBuildOptions); "" without the ConfigMap."""
    return dig(argocd_cm, "data", "kustomize.buildOptions") or ""


def image_tag(reference):
    """The tag of a rendered image reference, name[:tag][@digest], as the OCI distribution
    reference grammar reads it: after the ":" in the last path component (a registry port is in
    the first). A reference kustomize made invalid (newName nginx:1.28-alpine renders
    nginx:1.28-alpine:1.27-alpine) keeps everything after that ":" as its tag."""
    last = reference.split("@", 1)[0].rsplit("/", 1)[-1]
    return last.partition(":")[2]
