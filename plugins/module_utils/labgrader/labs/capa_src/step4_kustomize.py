"""Step 4 of capa-src: the Kustomize base and overlay in git, the image override in Application
src-kust instead of git."""

from __future__ import annotations

import posixpath

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    spec_problems,
    verdict_from_problems,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import (
    find_object,
    images,
    object_verdict,
    repo_blocked,
    repo_url,
    wanted_or_first,
    yaml_objects,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.kustomize import (
    build_options,
    image_tag,
    kustomization,
    kustomization_paths,
    replicas_names,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.repo_server import kustomize_build
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.definition import KUST, KUST_APP, lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import errored, failed, passed, pending


def str_list(value):
    return [v.rstrip("/") for v in value if isinstance(v, str)] if isinstance(value, list) else []


@lab.check(4, "kust-base", hint="kustomize_layout")
def kust_base(state):
    stop_if(repo_blocked(state))
    objects = yaml_objects(state.repo.tree, "kust/base")
    path, deployment = find_object(objects, "Deployment", name="api")
    expected = {"replicas": 1, "label app": "api", "image": "nginx:1.27-alpine", "kustomization": True}
    if deployment is None:
        return failed("git_object_missing", expected=expected, found=None, kind="Deployment", name="api",
                      path="kust/base")
    labels = {**(dig(deployment, "metadata", "labels", default={}) or {}),
              **(dig(deployment, "spec", "template", "metadata", "labels", default={}) or {})}
    found = {
        "replicas": dig(deployment, "spec", "replicas"),
        "label app": labels.get("app") if isinstance(labels, dict) else None,
        "image": wanted_or_first(images(deployment), "nginx:1.27-alpine"),
        "kustomization": any(p in state.repo.tree for p in kustomization_paths("kust/base")),
    }
    return object_verdict(path, expected, found)


@lab.check(4, "kust-overlay", hint="kustomize_layout")
def kust_overlay(state):
    stop_if(repo_blocked(state))
    path, overlay = kustomization(state.repo.tree, "kust/overlays/prod")
    expected = {"resources": "../../base", "namePrefix": "prod-", "replicas": {"name": "api", "count": 2}}
    if overlay is None:
        return failed("git_file_missing" if path is None else "git_file_invalid", expected=expected, found=None,
                      path=path or "kust/overlays/prod/kustomization.yaml", detail="")
    resources = str_list(overlay.get("resources")) + str_list(overlay.get("bases"))
    replicas = overlay.get("replicas") if isinstance(overlay.get("replicas"), list) else []
    names = replicas_names(overlay, "api")
    found = {
        "resources": "../../base" if "../../base" in resources else resources,
        "namePrefix": overlay.get("namePrefix"),
        "replicas": next(({"name": "api", "count": r.get("count")} for r in replicas
                          if isinstance(r, dict) and r.get("name") in names), replicas or None),
    }
    return object_verdict(path, expected, found)


@lab.check(4, "no-override-in-git", hint="kustomize_images")
def no_override_in_git(state):
    stop_if(repo_blocked(state))
    if not any(p.startswith("kust/") for p in state.repo.tree):
        return failed("git_dir_missing", expected="kust/", found=None, path="kust/")
    mentions = require(override_in_git(state))
    if mentions:
        return failed("override_in_git", expected=[], found=mentions, paths=", ".join(mentions))
    return passed("override_not_in_git", expected=[], found=[])


OVERRIDE_TAG = "1.28"
KUST_PATH = "kust/overlays/prod"


def argocd_build_options(state):
    """The build options Argo CD adds (checks/kustomize.py build_options). When the cluster
    cannot be read the other checks say so, and git is judged with kustomize's defaults."""
    return build_options(state.cluster.get("argocd_cm")) if state.cluster.ok else ""


def override_in_git(state):
    """(the kustomization files under kust/ whose `kustomize build`, as Argo CD runs it without
    the Application's images, renders an image tagged 1.28..., ERROR verdict or None). What git
    alone makes kustomize render decides, not the text: a comment or a README mentioning 1.28
    renders nothing, an inline patch or an images entry does. A directory kustomize cannot build
    renders nothing (kust-base and kust-overlay say what is wrong with it)."""
    mentions = []
    for directory in sorted({posixpath.dirname(p) for p in state.repo.tree if p.startswith("kust/")}):
        path = next((p for p in kustomization_paths(directory) if p in state.repo.tree), None)
        if path is None:
            continue
        rendered = kustomize_build(state.site.kustomize_binary, state.repo.tree, {"path": directory}, KUST_APP,
                                   KUST_APP, state.repo.head or "", argocd_build_options(state))
        if rendered.unavailable:
            return None, errored("tool_unavailable", tool="kustomize", detail=rendered.unavailable)
        if any(image_tag(i).startswith(OVERRIDE_TAG) for o in rendered.objects or [] for i in images(o)
               if isinstance(i, str)):
            mentions.append(path)
    return mentions, None


KUST_IMAGE = "nginx:1.28-alpine"
KUST_IMAGE_ENTRY = "nginx=nginx:1.28-alpine"
# The lab's base as shared/labs/capa-src.md step 4 asks for it (kust-base checks the learner's):
# what the Application's kustomize.images do is judged on it, so a mistake in the learner's
# kustomization fails kust-base or kust-overlay, not every check that reads the Application.
LAB_BASE = {
    f"{KUST_PATH}/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                       "resources:\n  - deployment.yaml\n",
    f"{KUST_PATH}/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n"
                                    "  labels:\n    app: api\nspec:\n  replicas: 1\n  selector:\n"
                                    "    matchLabels:\n      app: api\n  template:\n    metadata:\n"
                                    "      labels:\n        app: api\n    spec:\n      containers:\n"
                                    "        - name: api\n          image: nginx:1.27-alpine\n",
}


def image_problems(state, app):
    """([the images problem] or [], ERROR verdict or None): the image Deployment api gets when
    Argo CD applies the Application's spec.source.kustomize.images with `kustomize edit set
    image` before `kustomize build` (the same kustomize, checks/repo_server.py) must be
    nginx:1.28-alpine. kustomize decides how an entry reads (name=newName:tag@digest, a tag or
    digest alone, a registry port, a later entry for the same name winning, no trimming)."""
    entries = dig(app, "spec", "source", "kustomize", "images")
    source = {"path": KUST_PATH, "repoURL": dig(app, "spec", "source", "repoURL"),
              "targetRevision": dig(app, "spec", "source", "targetRevision"),
              "kustomize": {"images": entries if isinstance(entries, list) else []}}
    revision = (state.repo.head if state.repo and state.repo.ok else None) or ""
    rendered = kustomize_build(state.site.kustomize_binary, LAB_BASE, source, KUST_APP, KUST_APP, revision,
                               argocd_build_options(state))
    if rendered.unavailable:
        return [], errored("tool_unavailable", tool="kustomize", detail=rendered.unavailable)
    _, deployment = find_object([(KUST_PATH, o) for o in rendered.objects or []], "Deployment", name="api")
    if deployment is None or wanted_or_first(images(deployment), KUST_IMAGE) != KUST_IMAGE:
        return [("spec.source.kustomize.images", [KUST_IMAGE_ENTRY], entries)], None
    return [], None


def kust_app(state, app, where):
    image = require(image_problems(state, app))
    problems = spec_problems(app, state.site, repo_url(state), KUST_PATH, KUST_APP, where.live) + image
    return verdict_from_problems(problems, where.what, where.hint)


KUST.checks(lab, 4, kust_app, "kustomize_images")


@lab.check(4, "live-deployment", hint="kustomize_images")
def kust_live_deployment(state):
    app = KUST.live(state, 4)
    deployment = state.cluster.find("kust_deployments", "prod-api")
    if deployment is None:
        return failed("live_object_missing_named", expected="prod-api", found=None, kind="Deployment",
                      namespace=KUST_APP, name="prod-api", hint="kustomize_layout")
    spec_replicas = dig(deployment, "spec", "replicas")
    ready = dig(deployment, "status", "readyReplicas", default=0)
    health = dig(app, "status", "health", "status")
    expected = {"image": KUST_IMAGE, "readyReplicas": spec_replicas, "health": "Healthy"}
    found = {"image": wanted_or_first(images(deployment), KUST_IMAGE), "readyReplicas": ready, "health": health}
    if found == expected:
        return passed("live_values_ok", expected=expected, found=found, what="Deployment src-kust/prod-api")
    if found["image"] == KUST_IMAGE and (health == "Progressing" or ready != spec_replicas):
        return pending("rollout_in_progress", expected=expected, found=found, what="Deployment src-kust/prod-api")
    return failed("live_values_mismatch", expected=expected, found=found, what="Deployment src-kust/prod-api")


