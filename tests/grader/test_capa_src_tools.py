"""capa-src judged with the tools Argo CD runs (issue 18 section 7): the chart is rendered by
helm v4.2.1 and the kustomizations built by kustomize v5.8.1 (the control plane's builds), in
the sandbox, as Argo CD v3.5.2 runs them. Each case below was judged wrongly by the grader's own
template renderer or image parser (a false fail or a false pass) and is judged here as the
tools judge it, with the exact message."""

from __future__ import annotations

import copy

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import images
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src import step1_helm, step4_kustomize

from tests.grader.test_capa_src import both_apps, file_app, not_passing

CHART = "charts/web"
OVERLAY = "kust/overlays/prod/kustomization.yaml"
KUST_APP_CHECKS = {"capa-src.4.app-file", "capa-src.4.live-app", "capa-src.7.app-file", "capa-src.7.live-app"}


def replace_in_tree(state, path, old, new):
    assert old in state.repo.tree[path]
    state.repo.tree[path] = state.repo.tree[path].replace(old, new)


# ---------------------------------------------------------------- Helm reads what the chart says


def test_values_yaml_read_by_the_templates_passes(state):
    """values.yaml sets the image the Deployment template uses: the renderer never read it."""
    state.repo.tree[f"{CHART}/values.yaml"] += "image:\n  repository: nginx\n  tag: 1.27-alpine\n"
    replace_in_tree(state, f"{CHART}/templates/deployment.yaml", "image: nginx:1.27-alpine",
                    'image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"')
    assert not_passing(state) == {}


HELPERS = '{{- define "web.fullname" -}}{{ .Release.Name }}{{- end -}}\n'


@pytest.mark.parametrize(("template", "text"), [
    # a helper from _helpers.tpl, through include
    ("configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"web.fullname\" . }}-greeting\n"
                       "data:\n  greeting: {{ .Values.greeting | quote }}\n"),
    # the data block written by toYaml
    ("configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\n"
                       "data:\n  {{- toYaml (dict \"greeting\" .Values.greeting) | nindent 2 }}\n"),
    # with: the value is "."
    ("configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\n"
                       "data:\n  {{- with .Values.greeting }}\n  greeting: {{ . | quote }}\n  {{- end }}\n"),
    # tpl over a value that is itself a template
    ("deployment.yaml", None),
])
def test_helpers_include_tpl_toyaml_render_as_helm_renders_them(state, template, text):
    state.repo.tree[f"{CHART}/templates/_helpers.tpl"] = HELPERS
    if text is None:  # the Deployment's name through tpl over a value
        state.repo.tree[f"{CHART}/values.yaml"] += "webName: '{{ .Release.Name }}-web'\n"
        replace_in_tree(state, f"{CHART}/templates/deployment.yaml", "name: {{ .Release.Name }}-web\nspec",
                        "name: {{ tpl .Values.webName . }}\nspec")
    else:
        state.repo.tree[f"{CHART}/templates/{template}"] = text
    assert not_passing(state) == {}


@pytest.mark.parametrize(("setup", "check", "message"), [
    # a file starting with "_" is a partial: helm never renders it as a manifest
    (lambda tree: tree.update({f"{CHART}/templates/_configmap.yaml": tree.pop(f"{CHART}/templates/configmap.yaml")}),
     "template-configmap", "no template in charts/web/templates renders ConfigMap {{ .Release.Name }}-greeting"),
    # .helmignore leaves the template out of the chart
    (lambda tree: tree.update({f"{CHART}/.helmignore": "templates/deployment.yaml\n"}),
     "template-deployment", "no template in charts/web/templates renders Deployment {{ .Release.Name }}-web"),
    # the value is overwritten before it is used: replicas do not follow replicaCount
    (lambda tree: tree.update({f"{CHART}/templates/deployment.yaml": '{{- $_ := set .Values "replicaCount" 1 }}\n'
                               + tree[f"{CHART}/templates/deployment.yaml"]}),
     "template-deployment", "charts/web/templates/deployment.yaml does not render spec.replicas from .Values.replicaCount"),
])
def test_what_helm_does_not_render_fails(state, setup, check, message):
    setup(state.repo.tree)
    failing = not_passing(state)
    assert set(failing) == {f"capa-src.1.{check}"}
    assert failing[f"capa-src.1.{check}"]["message"] == message


def test_a_chart_helm_cannot_render_fails_both_template_checks_with_helms_error(state):
    state.repo.tree[f"{CHART}/templates/configmap.yaml"] = (
        "kind: ConfigMap\nmetadata:\n  name: [{{ .Release.Name }}-greeting\n")
    failing = not_passing(state)
    assert set(failing) == {"capa-src.1.template-configmap", "capa-src.1.template-deployment"}
    assert failing["capa-src.1.template-deployment"]["message"] == (
        "`helm template` of charts/web at bare main fails, as it fails in Argo CD: Error: YAML parse error on "
        "web/templates/configmap.yaml: error converting YAML to JSON: yaml: line 3: did not find expected ',' or ']' "
        "Use --debug flag to render out invalid YAML")


def test_argo_cds_precedence_is_what_helm_renders_for_the_golden_application(state):
    """The facts step 2 grades against (PRECEDENCE_*) are what helm renders for the lab's
    Application as Argo CD passes it: valueFiles, valuesObject as the last --values, --set."""
    app = file_app(state, "app-src-helm.yaml", "src-helm")
    rendered = repo_server.helm_template(repo_server.HELM_BINARY, state.repo.tree, app["spec"]["source"], "src-helm",
                                         "src-helm")
    by_kind = {o["kind"]: o for o in rendered.objects}
    assert (by_kind["Deployment"]["spec"]["replicas"], by_kind["ConfigMap"]["data"]["greeting"]) == (
        step1_helm.PRECEDENCE_REPLICAS, step1_helm.PRECEDENCE_GREETING)
    assert rendered.sources == ["web/templates/configmap.yaml", "web/templates/deployment.yaml"]
    assert by_kind["ConfigMap"]["metadata"].get("namespace") is None  # helm template sets none; Argo CD does


def test_helm_arguments_follow_argo_cds_order():
    source = {"path": CHART, "helm": {
        "releaseName": "rel", "namespace": "other", "valueFiles": ["values-prod.yaml"], "valuesObject": {"a": 1},
        "parameters": [{"name": "b", "value": "x,y"}, {"name": "c", "value": "1", "forceString": True},
                       {"name": "d", "value": "{p,q}"}],
        "fileParameters": [{"name": "e", "path": "values.yaml"}], "apiVersions": ["v1"], "skipCrds": True,
        "skipTests": True}}
    tree = {f"{CHART}/values.yaml": "", f"{CHART}/values-prod.yaml": ""}
    args, refused = repo_server.helm_template_args(source, "src-helm", "src-helm", tree, "/r", "/tmp/v")
    assert refused is None
    assert args == ["template", ".", "--name-template", "rel", "--namespace", "other", "--set", "b=x\\,y",
                    "--set", "d={p,q}", "--set-string", "c=1", "--set-file", f"e=/r/{CHART}/values.yaml",
                    "--values", f"/r/{CHART}/values-prod.yaml", "--values", "/tmp/v", "--api-versions", "v1",
                    "--skip-tests"]


# ---------------------------------------------------------------- kustomize reads the image entries


def set_images(state, entries):
    for app in both_apps(state, "app-src-kust.yaml", "src-kust"):
        app["spec"]["source"]["kustomize"]["images"] = entries


def test_an_entry_kustomize_refuses_fails_although_an_earlier_one_is_right(state):
    """`kustomize edit set image nginx=nginx:1.28-alpine nginx` fails as a whole: Argo CD renders
    nothing. The parser skipped the second entry and passed."""
    set_images(state, ["nginx=nginx:1.28-alpine", "nginx"])
    failing = not_passing(state)
    assert set(failing) == KUST_APP_CHECKS
    assert failing["capa-src.4.app-file"]["message"] == (
        'app-src-kust.yaml: fields differ (field: expected / found): spec.source.kustomize.images: '
        '["nginx=nginx:1.28-alpine"] / ["nginx=nginx:1.28-alpine", "nginx"]')


def test_an_entry_is_substituted_by_argo_cd_before_kustomize_reads_it(state):
    """Argo CD runs Envsubst over each entry: an unknown variable is empty."""
    set_images(state, ["nginx=nginx:1.28-alpine${TAG_SUFFIX}"])
    assert not_passing(state) == {}


@pytest.mark.parametrize(("entries", "image"), [
    (["nginx=localhost:5000/nginx"], "localhost:5000/nginx:1.27-alpine"),  # newName only keeps the tag
    (["nginx=registry.local:5000/nginx:1.28-alpine"], "registry.local:5000/nginx:1.28-alpine"),  # a registry port
    (["nginx@sha256:" + "b" * 64], "nginx@sha256:" + "b" * 64),  # a digest alone
    (["nginx=nginx:1.28-alpine", "nginx=nginx"], "nginx:1.27-alpine"),  # the later entry, newName only
])
def test_image_entries_render_as_kustomize_renders_them(entries, image):
    source = {"path": step4_kustomize.KUST_PATH, "kustomize": {"images": entries}}
    rendered = repo_server.kustomize_build(repo_server.KUSTOMIZE_BINARY, step4_kustomize.LAB_BASE, source, "src-kust",
                                           "src-kust", "0" * 40)
    assert images(rendered.objects[0]) == [image]


@pytest.mark.parametrize("entries", [["nginx=localhost:5000/nginx"], ["nginx=registry.local:5000/nginx:1.28-alpine"],
                                     ["nginx=nginx:1.28-alpine@sha256:" + "a" * 64]])
def test_image_entries_that_render_another_image_fail(state, entries):
    set_images(state, entries)
    assert set(not_passing(state)) == KUST_APP_CHECKS


# ---------------------------------------------------------------- what git alone makes kustomize render


JSON_PATCH = ('[{"op": "replace", "path": "/spec/template/spec/containers/0/image", '
              '"value": "nginx:1.28-alpine"}]\n')


def test_1_28_set_by_a_json_patch_file_fails(state):
    """A .json patch is read by kustomize; the YAML scan never looked at it."""
    state.repo.tree["kust/overlays/prod/image.json"] = JSON_PATCH
    state.repo.tree[OVERLAY] += "patches:\n  - path: image.json\n    target: {kind: Deployment, name: api}\n"
    failing = not_passing(state)
    assert set(failing) == {"capa-src.4.no-override-in-git"}
    assert failing["capa-src.4.no-override-in-git"]["message"] == (
        "the 1.28 override is committed under kust/ (kust/overlays/prod/kustomization.yaml); "
        "it must live in the Application")


def test_1_28_newname_in_git_fails_although_kustomize_makes_it_an_odd_reference(state):
    state.repo.tree[OVERLAY] += "images:\n  - name: nginx\n    newName: nginx:1.28-alpine\n"
    assert set(not_passing(state)) == {"capa-src.4.no-override-in-git"}


def test_1_28_in_a_kustomization_that_renders_nothing_passes(state):
    """A kustomization with no resources renders no image: nothing Argo CD could apply."""
    state.repo.tree["kust/scratch/kustomization.yaml"] = "images:\n  - name: nginx\n    newTag: 1.28-alpine\n"
    assert not_passing(state) == {}


# ---------------------------------------------------------------- the grader's environment


def test_missing_tools_are_the_graders_error_never_a_learners_failure(golden_state):
    state = copy.deepcopy(golden_state)
    state.site.helm_binary, state.site.kustomize_binary = "/nonexistent/helm", "/nonexistent/kustomize"
    failing = not_passing(state)
    assert {k: c["status"] for k, c in failing.items()} == dict.fromkeys(
        {"capa-src.1.template-configmap", "capa-src.1.template-deployment", "capa-src.4.no-override-in-git",
         *KUST_APP_CHECKS}, "ERROR")
    assert failing["capa-src.1.template-configmap"]["message"] == (
        "the grader cannot run helm on this VM: helm is not installed at /nonexistent/helm")
    assert failing["capa-src.4.live-app"]["message"] == (
        "the grader cannot run kustomize on this VM: kustomize is not installed at /nonexistent/kustomize")


def test_a_tool_run_is_bounded_in_time(monkeypatch):
    monkeypatch.setattr(repo_server, "RUN_TIMEOUT", 1.0)
    tree = {f"{CHART}/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
            f"{CHART}/templates/loop.yaml": "{{ range until 100000000 }}{{ end }}\n"}
    rendered = repo_server.helm_template(repo_server.HELM_BINARY, tree, {"path": CHART}, "src-helm", "src-helm")
    assert (rendered.problem, rendered.objects) == ("helm did not finish within 1 s", None)
    assert rendered.seconds < 5
