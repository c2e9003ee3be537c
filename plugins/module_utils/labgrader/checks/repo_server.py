"""Manifests as Argo CD v3.5.2's repo server generates them: the same `helm` (v4.2.1) and
`kustomize` (v5.8.1) binaries, given the arguments Argo CD gives them, on a throw-away copy of
the repository files read from bare main (the Applications' targetRevision is `main`).

Nothing here re-implements Helm or Kustomize: the tools decide what a chart or a kustomization
renders. What Argo CD itself does before it runs them (which value files, in which order, which
flags) is reproduced here, each step cited next to its code (argo-cd v3.5.2 sources).

Each run is bounded like every learner input (docs/hostile-input.md): it runs in the sandbox
(docs/sandbox.md) with no network (`Sandbox(network=False)`: neither tool needs one for a chart or
a kustomization from git), over copies of the files, with a wall-clock timeout, the sandbox's
memory, process and disk bounds, and bounded output. A run the learner's files make fail
(a template error, a bad kustomization, a timeout) is `Rendered.problem`, the learner's; a
missing binary or a sandbox that cannot be built is `Rendered.unavailable`, the grader's.
Results are kept per input for the module call (the runner judges again while Argo CD
converges; the repository does not change between attempts, and a new input is a new run).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import posixpath
import re

import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import scrub
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.sandbox import (
    Sandbox,
    SandboxUnavailable,
    TreeRefused,
    login_env,
    mktemp_name,
    reachable,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import (  # noqa: F401 (Site's defaults; tests/conftest.py points them at its builds)
    HELM_BINARY,
    KUSTOMIZE_BINARY,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import parse_yaml_text

RUN_TIMEOUT = 20.0  # seconds per tool run; the lab's chart renders in about 0.2 s
OUTPUT_BYTES = 1024 * 1024  # rendered manifests; more is the learner's problem, not a longer read
DETAIL_CHARS = 600  # of a tool's error message, as shown in a verdict
MEMO_SIZE = 64  # distinct runs kept per module call
_memo = {}


class Rendered:
    """What one tool run gave: `objects` (the rendered YAML documents that are mappings, in
    order), or
    `problem` (why the learner's files do not render, in the tool's words), or `unavailable`
    (why the grader could not run the tool here). `seconds` is the run's wall time."""

    __slots__ = ("objects", "problem", "seconds", "sources", "unavailable")

    def __init__(self, objects=None, problem=None, unavailable=None, seconds=0.0, sources=None):
        self.objects = objects
        self.sources = sources  # per object, the file helm names in its "# Source:" line, or None
        self.problem = problem
        self.unavailable = unavailable
        self.seconds = seconds

    def __repr__(self):
        return (f"Rendered(objects={None if self.objects is None else len(self.objects)}, problem={self.problem!r}, "
                f"unavailable={self.unavailable!r}, seconds={self.seconds:.2f})")


# ---------------------------------------------------------------- Argo CD's value files

CLONE_ROOT = "/tmp"  # the repo server checks out under os.TempDir() (/tmp/_argocd-repo/<uuid>)
URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # what net/url.Parse reads as a scheme
GLOB = re.compile(r"[*?\[]")  # reposerver/repository/repository.go isGlobPath


def resolve_value_files(helm, tree, app_path):
    """The files `helm template --values` gets, as repository paths, in Argo CD's order, or
    (None, entry) for an entry Argo CD refuses. reposerver/repository/repository.go
    getResolvedValueFiles + util/io/path/resolved.go ResolveValueFilePathOrUrl: an entry is
    relative to the chart directory (spec.source.path); a leading "/" means the repository root;
    the cleaned path must stay inside the repository; a glob expands over the checkout in lexical
    order (explicit entries keep their place); a file listed twice counts once; a missing file is
    skipped only with ignoreMissingValueFiles. A URL is remote, never the repository's file."""
    entries = helm.get("valueFiles")
    if not isinstance(entries, list):
        return [], None
    ignore_missing = helm.get("ignoreMissingValueFiles") is True
    paths = []
    for entry in entries:
        if not isinstance(entry, str) or URL_SCHEME.match(entry):
            return None, entry
        base = "/" if entry.startswith("/") else "/" + app_path
        path = posixpath.normpath(posixpath.join(base, entry))[1:]
        if not path or path.startswith("../"):
            return None, entry  # the repository root itself, or outside it
        paths.append(path)
    explicit = {p for p in paths if not GLOB.search(p)}
    resolved = []
    for path, entry in zip(paths, entries, strict=True):
        if GLOB.search(path):
            matches = sorted(p for p in tree if p.count("/") == path.count("/") and fnmatch.fnmatchcase(p, path))
            if not matches and not ignore_missing:
                return None, entry
            resolved.extend(m for m in matches if m not in explicit)
        elif path in tree or not ignore_missing:
            resolved.append(path)
    return list(dict.fromkeys(resolved)), None


# ---------------------------------------------------------------- helm template


def helm_set_value(value):
    """util/helm/cmd.go cleanSetParameters: a value in braces is a Helm list and stays as is;
    otherwise every comma not preceded by a backslash is escaped (Argo CD sets one value)."""
    if value.startswith("{") and value.endswith("}"):
        return value
    out, previous = [], ""
    for char in value:
        out.append("\\," if char == "," and previous != "\\" else char)
        previous = char
    return "".join(out)


def values_yaml(helm):
    """pkg/apis/application/v1alpha1/values.go ValuesYAML: valuesObject as YAML, else the
    `values` string; empty means no extra values file."""
    values_object = helm.get("valuesObject")
    if values_object is not None:
        return yaml.safe_dump(values_object, default_flow_style=False)
    values = helm.get("values")
    return values if isinstance(values, str) else ""


def helm_template_args(source, app_name, namespace, tree, root, extra_values_path):
    """The argv Argo CD runs for a Helm source, or (None, why) when Argo CD refuses the source
    before running helm. reposerver/repository/repository.go helmTemplate builds the options:
    the release name is the Application's name unless helm.releaseName is set; the namespace the
    destination's unless helm.namespace is set (ApplicationSource.GetNamespaceOrDefault); value
    files resolved as above; valuesObject/values written to a file passed last; parameters
    --set, or --set-string with forceString; fileParameters --set-file. util/helm/cmd.go template
    orders them: --name-template, --namespace, --kube-version, --set, --set-string, --set-file,
    --values (valueFiles, then the values file), --api-versions, --include-crds unless skipCrds,
    --skip-schema-validation, --skip-tests. Argo CD also passes the destination cluster's
    version and API list when the source names none (q.KubeVersion, q.ApiVersions from the
    controller's cluster cache); the grader does not read the cluster's discovery, so a source
    without helm.kubeVersion renders with Helm's own defaults (the chart of this lab does not
    read .Capabilities)."""
    helm = source.get("helm") if isinstance(source.get("helm"), dict) else {}
    app_path = posixpath.normpath(source.get("path") or ".")
    args = ["template", ".", "--name-template", helm.get("releaseName") or app_name]
    if helm.get("namespace") or namespace:
        args += ["--namespace", helm.get("namespace") or namespace]
    if helm.get("kubeVersion"):
        args += ["--kube-version", str(helm["kubeVersion"])]
    sets, set_strings, set_files = [], [], []
    for parameter in helm.get("parameters") or []:
        if isinstance(parameter, dict) and isinstance(parameter.get("name"), str):
            pair = f"{parameter['name']}={helm_set_value(str(parameter.get('value', '')))}"
            (set_strings if parameter.get("forceString") is True else sets).append(pair)
    for parameter in helm.get("fileParameters") or []:
        if isinstance(parameter, dict) and isinstance(parameter.get("name"), str):
            files, refused = resolve_value_files({"valueFiles": [parameter.get("path")]}, tree, app_path)
            if refused is not None or not files:
                return None, f"fileParameters {parameter['name']}: {refused!r} is not a file of the repository"
            set_files.append(f"{parameter['name']}={helm_set_value(posixpath.join(root, files[0]))}")
    for flag, pairs in (("--set", sets), ("--set-string", set_strings), ("--set-file", set_files)):
        for pair in pairs:
            args += [flag, pair]
    value_files, refused = resolve_value_files(helm, tree, app_path)
    if refused is not None:
        return None, f"valueFiles {refused!r} is not a file of the repository"
    for path in value_files:
        args += ["--values", posixpath.join(root, path)]
    if extra_values_path:
        args += ["--values", extra_values_path]
    for version in helm.get("apiVersions") or []:
        args += ["--api-versions", str(version)]
    if helm.get("skipCrds") is not True:
        args.append("--include-crds")
    if helm.get("skipSchemaValidation") is True:
        args.append("--skip-schema-validation")
    if helm.get("skipTests") is True:
        args.append("--skip-tests")
    return args, None


def helm_template(binary, tree, source, app_name, namespace):
    """`helm template` of the chart at `source["path"]` in `tree` ({repository path: text}) as
    Argo CD runs it for Application `app_name` whose destination namespace is `namespace`."""
    helm = source.get("helm") if isinstance(source.get("helm"), dict) else {}
    extra_values = values_yaml(helm)

    def run(sandbox, root):
        extra_path = None
        if extra_values:
            extra_path = f"{CLONE_ROOT}/{mktemp_name()}"  # repository.go: os.TempDir()/<uuid>
            sandbox.write_file(extra_path, extra_values)
        args, refused = helm_template_args(source, app_name, namespace, tree, root, extra_path)
        if refused:
            return Rendered(problem=refused)
        home = f"{CLONE_ROOT}/{mktemp_name()}"  # util/helm/cmd.go runWithStdin: a helm home of its own
        env = {"XDG_CACHE_HOME": f"{home}/cache", "XDG_CONFIG_HOME": f"{home}/config",
               "XDG_DATA_HOME": f"{home}/data", "HELM_CONFIG_HOME": f"{home}/config"}
        return sandbox_run(sandbox, binary, [binary, *args], posixpath.join(root, source.get("path") or "."), env, root)

    return memoized(("helm", binary, tree, source, app_name, namespace), binary, tree, run)


# ---------------------------------------------------------------- kustomize build

GO_SHELL_SPECIAL = set("*#$@!?-0123456789")


def envsubst(text, variables):
    """pkg/apis/application/v1alpha1/types.go Env.Envsubst: Go's os.Expand over the build
    variables ($$ is a dollar, an unknown variable is empty, ${} and an unclosed ${ are eaten)."""
    out, index = [], 0
    while index < len(text):
        char = text[index]
        if char != "$" or index + 1 == len(text):
            out.append(char)
            index += 1
            continue
        rest = text[index + 1:]
        if rest[0] == "{":
            if len(rest) > 2 and rest[1] in GO_SHELL_SPECIAL and rest[2] == "}":
                name, width = rest[1], 3
            else:
                close = rest.find("}")
                name, width = (rest[1:close], close + 1) if close > 1 else ("", 2 if close == 1 else 1)
        elif rest[0] in GO_SHELL_SPECIAL:
            name, width = rest[0], 1
        else:
            width = 0
            while width < len(rest) and (rest[width].isascii() and (rest[width].isalnum() or rest[width] == "_")):
                width += 1
            name = rest[:width]
        if name == "$":
            out.append("$")
        elif name:
            out.append(variables.get(name, ""))
        elif width == 0:
            out.append("$")  # a dollar not followed by a name stays
        index += 1 + width
    return "".join(out)


def build_variables(app_name, namespace, source, revision):
    """reposerver/repository/repository.go newEnv: what Envsubst and kustomize's environment get."""
    return {"ARGOCD_APP_NAME": app_name, "ARGOCD_APP_NAMESPACE": namespace, "ARGOCD_APP_PROJECT_NAME": "default",
            "ARGOCD_APP_REVISION": revision, "ARGOCD_APP_REVISION_SHORT": revision[:7],
            "ARGOCD_APP_REVISION_SHORT_8": revision[:8], "ARGOCD_APP_SOURCE_REPO_URL": source.get("repoURL") or "",
            "ARGOCD_APP_SOURCE_PATH": source.get("path") or "",
            "ARGOCD_APP_SOURCE_TARGET_REVISION": source.get("targetRevision") or ""}


def kustomize_build(binary, tree, source, app_name, namespace, revision, build_options=""):
    """`kustomize build` of `source["path"]` in `tree` as Argo CD runs it: the Application's
    kustomize.images applied first with `kustomize edit set image` (each entry passed unchanged
    after Envsubst, util/kustomize/kustomize.go Build), then `kustomize build <path>` from the
    repository root with argocd-cm's `kustomize.buildOptions` split into words
    (parseKustomizeBuildOptions: strings.Fields) and the build variables in the environment.
    Only kustomize.images of the Application is applied: the lab's checks ask what those entries
    do (namePrefix, replicas, labels, patches and components of an Application are not used)."""
    kustomize = source.get("kustomize") if isinstance(source.get("kustomize"), dict) else {}
    variables = build_variables(app_name, namespace, source, revision)
    images = kustomize.get("images") if isinstance(kustomize.get("images"), list) else []
    entries = [envsubst(entry, variables) for entry in images if isinstance(entry, str)]
    options = build_options.split() if isinstance(build_options, str) else []

    def run(sandbox, root):
        app_dir = posixpath.join(root, posixpath.normpath(source.get("path") or "."))
        if not entries:
            return sandbox_run(sandbox, binary, [binary, "build", app_dir, *options], root, variables, root)
        build = " ".join(quote(word) for word in (binary, "build", app_dir, *options))
        # The edit and the build in one run: each run starts from the staged copy again.
        script = f'set -e\ncd {quote(app_dir)}\n{quote(binary)} edit set image "$@" >/dev/null\nexec {build}\n'
        return sandbox_run(sandbox, binary, ["/bin/sh", "-c", script, "sh", *entries], root, variables, root)

    return memoized(("kustomize", binary, tree, source, app_name, namespace, revision, options), binary, tree, run)


def quote(word):
    return "'" + word.replace("'", "'\\''") + "'"


# ---------------------------------------------------------------- running


def memoized(key, binary, tree, run):
    digest = hashlib.sha256(json.dumps([key[0], *key[1:]], sort_keys=True, default=str).encode()).hexdigest()
    if digest not in _memo:
        if len(_memo) >= MEMO_SIZE:
            _memo.pop(next(iter(_memo)))
        _memo[digest] = in_sandbox(binary, tree, run)
    return _memo[digest]


def in_sandbox(binary, tree, run):
    """`run(sandbox, root)` over a fresh sandbox holding `tree`'s text files at `root` (a
    checkout-like /tmp/tmp.XXXXXXXXXX). Files git holds as binary or too large are not staged."""
    problem = binary_problem(binary)
    if problem:
        return Rendered(unavailable=problem)
    try:
        with Sandbox(network=False) as sandbox:
            root = f"{CLONE_ROOT}/{mktemp_name()}"
            for path, text in tree.items():
                if text is not None:
                    sandbox.write_file(posixpath.join(root, path), text)
            sandbox.make_dirs(root)
            return run(sandbox, root)
    except TreeRefused as refused:
        return Rendered(problem=f"the repository files {refused}")
    except SandboxUnavailable as exc:
        return Rendered(unavailable=str(exc))


def binary_problem(binary):
    name = os.path.basename(binary)
    if not (os.path.isabs(binary) and os.path.isfile(binary) and os.access(binary, os.X_OK)):
        return f"{name} is not installed at {binary}"
    if not reachable(os.path.dirname(binary)):
        return f"{name} at {binary} is in a folder the sandbox cannot enter"
    return None


def sandbox_run(sandbox, binary, argv, cwd, extra_env, root):
    """One bounded run of `argv` (the tool `binary`, or a /bin/sh line running it); its folder is
    on PATH, so the sandbox binds it read-only. The rendered documents, or the tool's own error
    with the checkout's path shown as "." (as Argo CD redacts it: repository.go redactPaths)."""
    env = {**login_env(f"{CLONE_ROOT}/home", path=f"{os.path.dirname(binary)}:/usr/sbin:/usr/bin:/sbin:/bin"),
           **extra_env}
    result = sandbox.run(argv, cwd, env, RUN_TIMEOUT, max_output=OUTPUT_BYTES)
    seconds = result.seconds
    name = os.path.basename(binary)
    if result.timed_out:
        return Rendered(problem=f"{name} did not finish within {RUN_TIMEOUT:g} s", seconds=seconds)
    if result.truncated:
        return Rendered(problem=f"{name} wrote more than {OUTPUT_BYTES // 1024} KiB", seconds=seconds)
    if result.returncode in (126, 127):
        return Rendered(unavailable=f"{name} could not be started: {tool_error(result.stderr, root)}", seconds=seconds)
    if result.killed or result.returncode != 0:
        detail = tool_error(result.stderr, root) or f"exit status {result.returncode}"
        return Rendered(problem=detail, seconds=seconds)
    objects, sources = [], []
    # Both tools print one document per object after a line "---"; helm names the template it
    # came from in a "# Source: <chart>/templates/<file>" comment line (pkg/action/action.go).
    for chunk in DOCUMENT_START.split(result.stdout.decode("utf-8", "replace")):
        documents, error = parse_yaml_text(chunk)
        if error:
            return Rendered(problem=f"{name} printed no YAML: {error}", seconds=seconds)
        source = HELM_SOURCE.search(chunk)
        for document in documents:
            if isinstance(document, dict):
                objects.append(document)
                sources.append(source.group(1).strip() if source else None)
    return Rendered(objects=objects, sources=sources, seconds=seconds)


DOCUMENT_START = re.compile(r"^---[ \t]*$", re.M)
HELM_SOURCE = re.compile(r"^# Source: (.+)$", re.M)


def tool_error(stderr, root):
    text = stderr.decode("utf-8", "replace").replace(root + "/", "").replace(root, ".")
    text = " ".join(text.split())
    return scrub(text[-DETAIL_CHARS:] if len(text) > DETAIL_CHARS else text)
