"""No English sentence inside a Japanese or Korean text a person reads (issue 20, "Words").

Two sources are rendered in ja and ko:
- the catalogue itself: every message and hint (placeholders filled with a mark that is no
  word), every lab and step title, every report and learner-report label;
- what the checks really say: every fixture world of every lab graded, each verdict's message
  re-rendered in ja and ko from its own parameters, its hint, and the expected value the report
  shows next to it. That is where the grader's own phrases passed as parameters show up
  ("validate.sh は次を満たす必要があります: use --dry-run=server (not client)").

A Latin-script word is allowed when it is not a sentence word: a token (a run of characters
between spaces and CJK text) with `/ . _ - = : < > { } $ *`, a digit, backticks, camelCase or
capitals (ConfigMap, OutOfSync, SHA), or a word of ALLOWED below (Kubernetes kinds and fields, Argo
CD statuses, product names, commands). Values from outside the grader (what the learner wrote,
what a program printed, a library's error text) are masked: they are the learner's words, not
the catalogue's.

`pytest -s` prints twenty rendered messages per language chosen at random (seeded).
"""

from __future__ import annotations

import random
import re
import string

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.health import cluster_probes
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import ClusterError, KubeReader
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.learner_text import error_text
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import REPORT_TEXTS

from tests.conftest import WORLDS
from tests.grader.catalogues import texts
from tests.grader.conftest import collect_host

LANGS = ("ja", "ko")
MARK = "◆"  # stands for a placeholder's value: no Latin letter, so it is never a word

# Words that name things rather than say things; each group says why it is not prose.
ALLOWED = {
    # Kubernetes kinds and the fields, values and verbs the labs ask for by name
    "Application", "Deployment", "Job", "Secret", "Role", "RoleBinding", "ServiceAccount", "ConfigMap",
    "Service", "StatefulSet", "CRD", "replicas", "replica", "namespace", "image", "mode", "green", "blue",
    "commit", "phase", "project", "default", "prune", "selfHeal", "automated", "manager", "rules", "verbs",
    "apiGroups", "resources", "apps", "deployments", "get", "create", "patch", "deploy", "web", "api",
    "cluster", "git", "gate", "token", "iat", "exp", "true", "false", "True", "False", "null", "two", "kustomization",
    "fieldsV1", "managedFields", "annotation", "label", "parameters", "valuesObject", "valueFiles",
    "generateName", "creationTimestamp", "ignoreDifferences", "syncOptions", "hard", "refresh",
    # kubeconfig fields a message names (users[].user.exec), and the HTTP method a request names
    "exec", "server", "users", "clusters", "contexts", "GET", "POST",
    # the Python package the grader reads the cluster with
    "kubernetes",
    # the labs' object names (Job smoke, ConfigMap settings, Deployment app, ServiceAccount validator)
    # and Application fields the hints list by name
    "settings", "app", "smoke", "migrate", "validator", "greeting", "path", "gitsrv",
    # JSON's type names, as the JSON type of an evidence value is reported
    "object", "array", "string", "integer", "number", "boolean",
    # Argo CD statuses and sync phases, as the Argo CD UI shows them
    "Synced", "OutOfSync", "Healthy", "Progressing", "Degraded", "Running", "Failed", "Succeeded",
    "PreSync", "Sync", "PostSync", "Complete",
    # products, standards and tools
    "Argo", "CD", "Helm", "Kustomize", "Git", "Python", "JSON", "YAML", "UTF", "RFC", "Unix", "JWT", "SHA", "CA", "CI",
    "API", "VM", "URL", "CSV", "Esc", "k3s", "gitd", "kubeconfig", "kubectl", "argocd", "helm", "kustomize",
    "nginx", "tar", "tee", "chmod", "stdin", "pipefail", "init", "bare", "clone",
    # the learner's own command, `lab check`, and the codes of its --lang option
    "lab", "check", "en", "ja", "ko",
    # git's words for what a learner does with it (written as in the git CLI)
    "push", "revert", "origin", "main", "scale", "hook", "ci",
    # the production environment, as the labs name it (values-prod.yaml, overlays/prod, prod-api)
    "prod",
    # capa-drift's evidence keys, which the hints of a missing evidence file list by name (diff.json kind, name, ...)
    "sync", "health", "field", "fix", "kind", "name", "resource", "revision", "rescales",
}

# Parameters whose values come from outside the grader: what the learner wrote, what a program
# printed, what a library or the API server said.
OUTSIDE = {"found", "recorded", "detail", "kubeconfig", "user", "cluster", "server", "host", "output",
           "problem", "proof", "missing", "paths", "name",
           "sha", "sha7", "started", "created", "committed", "phase", "sync", "health", "method", "waited",
           "returncode", "kind", "key", "other"}
OUTSIDE_BY_KEY = {("token_rejected", "reason"), ("spec_mismatch", "details")}

TOKEN = re.compile(r"[^\s\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]+")
NOT_PROSE = re.compile(r"[/._\-=:<>{}$*0-9`@#\\]|[a-z][A-Z]|^[A-Z][a-z]*[A-Z]|^[A-Z]{2,}$")
EDGES = "\"'()[],;!?「」（）『』…+→|&"


def english_words(text):
    """The Latin-script words of `text` that are prose, in order."""
    text = re.sub(r"`[^`]*`", " ", text)
    words = []
    for token in TOKEN.findall(text):
        token = token.strip(EDGES)
        if not re.search(r"[A-Za-z]", token) or NOT_PROSE.search(token):
            continue
        for word in re.findall(r"[A-Za-z]+", token):
            if word not in ALLOWED:
                words.append(word)
    return words


def fields(template):
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def catalogue_texts():
    """(where, lang, text) for the catalogue's own words, placeholders marked."""
    return [(where, lang, template.format_map(dict.fromkeys(fields(template), MARK)))
            for where, lang, template in texts(LANGS)]


def world_paths():
    return [(lab_id, path) for lab_id in LABS for path in sorted((WORLDS / lab_id).glob("*.yaml"))
            if path.name != "class.yaml"]


@pytest.fixture(scope="module")
def graded_checks(fake_api):
    """Every check result of every world of every lab (graded once, in English: the parameters
    are the same in every language)."""
    results = []
    for lab_id, path in world_paths():
        state = collect_host(fake_api.world(str(path.relative_to(WORLDS))), lab_id)
        results += [(path.name, check) for check in LABS[lab_id].judge(state, "en")]
    return results


def masked(key, params):
    return {name: MARK if name in OUTSIDE or (key, name) in OUTSIDE_BY_KEY else value
            for name, value in params.items()}


def checked_texts(graded_checks):
    """(where, lang, text) for what the checks say: message, hint and the expected value shown."""
    texts = []
    for world, check in graded_checks:
        where = f"{world} {check['check']} {check['message_key']}"
        params = masked(check["message_key"], check["params"])
        for lang in LANGS:
            texts.append((where, lang, i18n.message(check["message_key"], params, lang)))
            if check["hint_key"]:
                texts.append((f"{where} hint {check['hint_key']}", lang, i18n.hint(check["hint_key"], lang, params)))
            if check["status"] != "PASS" and check["expected"] is not None:
                texts.append((f"{where} expected", lang, i18n.show(check["expected"])))
    return texts


def findings(texts):
    found = {}
    for where, lang, text in texts:
        words = english_words(text)
        if words:
            found.setdefault((lang, text), (where, words))
    return [f"{lang} {where}: {' '.join(words)} | {text}" for (lang, text), (where, words) in sorted(found.items())]


def test_the_allowlist_tells_names_from_prose():
    assert english_words("validate.sh は次を満たす必要があります: use --dry-run=server (not client)") == [
        "use", "not", "client"]
    assert english_words("기댓값: \"a non-zero exit code\"") == ["a", "exit", "code"]
    assert english_words("Application src-waves は OutOfSync です（`git log` を見る）") == []
    assert english_words("環境の異常: the kubeconfig /etc/x does not exist") == ["the", "does", "not", "exist"]


def test_no_english_sentence_in_the_catalogue():
    found = findings(catalogue_texts())
    print("\n".join(["", f"catalogue: {len(found)} texts with English words", *found]))
    assert found == []


def test_no_english_sentence_in_what_the_checks_say(graded_checks):
    found = findings(checked_texts(graded_checks))
    print("\n".join(["", f"checks: {len(found)} texts with English words", *found]))
    assert found == []


def test_twenty_rendered_messages_per_language(graded_checks):
    """Twenty messages per language as a learner reads them (unmasked), seeded so a run can be
    repeated; printed for the reviewer (`pytest -s`)."""
    chooser = random.Random(20)
    for lang in (*LANGS, "en"):
        print(f"\n--- {lang}")
        for world, check in chooser.sample(graded_checks, 20):
            print(f"{check['check']} [{world}] {check['status']}: {i18n.message(check['message_key'], check['params'], lang)}")
    assert graded_checks


def test_japanese_prose_uses_full_width_parentheses():
    """（ ） in Japanese prose; ( ) only inside `code`."""
    half = [where for where, lang, text in catalogue_texts()
            if lang == "ja" and re.search(r"[()]", re.sub(r"`[^`]*`", "", text))]
    assert half == []


def test_korean_writes_gidaetgap():
    """기댓값 (the standard spelling, with the 사이시옷), never 기대값."""
    assert [where for where, lang, text in catalogue_texts() if lang == "ko" and "기대값" in text] == []


def health_reasons(tmp_path):
    """Every catalogued reason of the health gate, as the probes give it for a broken VM: each
    cluster probe's judge on a missing and on a not-ready object, and a missing kubeconfig."""
    reasons = [judge(obj) for _, _, judge in cluster_probes("argocd", "gitsrv") for obj in (None, {"status": {}})]
    try:
        KubeReader(str(tmp_path / "no-kubeconfig"), 1)
    except ClusterError as exc:
        reasons.append(exc.reason)
    return [reason for reason in reasons if reason]


def test_the_health_gate_says_why_in_every_language(tmp_path):
    reasons = health_reasons(tmp_path)
    english = [i18n.message(r["key"], r["params"], "en") for r in reasons]
    # the host record's English message is what it was before the reasons were catalogued
    assert english == [
        "no version answered", "no version answered", "CRD applications.argoproj.io is not installed",
        "StatefulSet argocd-application-controller is missing", "argocd-application-controller has no ready replica",
        "Deployment argocd-repo-server is missing", "argocd-repo-server has no available replica",
        "Service gitd is missing in namespace gitsrv", f"the kubeconfig {tmp_path}/no-kubeconfig does not exist"]
    texts = [(r["key"], lang, i18n.message(r["key"], r["params"], lang)) for r in reasons for lang in LANGS]
    assert findings(texts) == []
    error = {"kind": "health", "message": "; ".join(english[-2:]), "reasons": reasons[-2:]}
    assert error_text(error, "ja") == (
        f"gitsrv ネームスペースに Service gitd がありません; kubeconfig {tmp_path}/no-kubeconfig がありません")
    assert error_text({**error, "reasons": None}, "ja") == error["message"]  # text from elsewhere stays as it is


def test_korean_writes_step_n_one_way():
    """"5단계" (the number first, as Korean counts steps), never "단계 5" or "단계 {step}"."""
    other_form = re.compile(r"단계\s*(?:\{[a-z_]+\}|\d)")
    assert [(where, text) for where, lang, text in catalogue_texts() if lang == "ko" and other_form.search(text)] == []
    assert REPORT_TEXTS["step_n"]["ko"] == "{step}단계"
