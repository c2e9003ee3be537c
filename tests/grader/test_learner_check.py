"""`lab check [LAB] [STEP]` (labgrader/lab_command.py): the learner's own check on fixture
worlds, in their language, one line per step with the details of the step they are on; and the
command the grader_runtime role installs, run as the learner runs it, changes nothing."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import lab_command
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import repo_server
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

from tests.conftest import REPO_ROOT
from tests.grader.test_readonly import (
    REVIEW_PATHS,
    api_path,
    assert_nothing_left,
    point_kubeconfig_at,
    recording_server,
    tree_digest,
)


def write_config(host, where, labs=("capa-src",), lang="en", replay=True):
    """The settings provisioning writes (roles/grader_runtime/templates/lab-check.json.j2), for a
    fixture host; its recorded probes are replayed unless `replay` is false."""
    config = {"labs": list(labs), "lang": lang, "kubeconfig": str(host / "kubeconfig"),
              "k3s_kubeconfig": str(host / "kubeconfig"), "bare_root": str(host / "srv" / "bare"),
              "workspace_root": str(host / "root"), "settle_timeout": 0,
              "helm_binary": repo_server.HELM_BINARY, "kustomize_binary": repo_server.KUSTOMIZE_BINARY}
    if replay and (host / "probes.json").exists():
        config["probe_replay"] = str(host / "probes.json")
    path = where / "lab-check.json"
    path.write_text(json.dumps(config))
    return path


def lab_check(config, *args, environ=None, err=None):
    out = io.StringIO()
    code = lab_command.run(["check", *args, "--config", str(config)], environ or {}, out, err or io.StringIO())
    return code, out.getvalue()


def lab(config, *argv):
    """`lab` with exactly these arguments (the command among them or not): (code, out, err)."""
    out, err = io.StringIO(), io.StringIO()
    code = lab_command.run([*argv, "--config", str(config)], {}, out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def half_done(fake_api):
    return fake_api.world("capa-src/half-done.yaml")


CAPA, CGOA = (len(LABS["capa-src"].checks), len(LABS["cgoa-ci"].checks))
HALF_DONE = sum(check.step <= 4 for check in LABS["capa-src"].checks)  # half-done.yaml: steps 1-4 pass
HALF_DONE_JA = """\
capa-src  Argo CD のソース: Helm・Kustomize・ウェーブ・フック  {passed}/{total}
✓ ステップ 1: Git のチャート charts/web をデプロイする Application src-helm
✓ ステップ 2: src-helm の valuesObject と parameters、どの値が優先されるか（precedence.json）
✓ ステップ 3: Helm リリースはなく、Argo CD の追跡用ラベル／アノテーションだけ（tracking.json）
✓ ステップ 4: Kustomize のオーバーレイを使い、1.28 のイメージを Application で指定する src-kust
✗ ステップ 5: 同期ウェーブ -1/0/1 と PreSync フックの Job を持つ Application src-waves（waves.json）
    ✗ ベアリポジトリの main の waves/ に ConfigMap settings がありません
      ヒント: ConfigMap settings のマニフェストをクローンの waves/ に置いてコミットし、main を push してください。\
採点はベアリポジトリの main を読みます。
    ✗ ベアリポジトリの main の waves/ に Deployment app がありません
      ヒント: Deployment app のマニフェストをクローンの waves/ に置いてコミットし、main を push してください。\
採点はベアリポジトリの main を読みます。
    ✗ ベアリポジトリの main の waves/ に Job smoke がありません
      ヒント: Job smoke のマニフェストをクローンの waves/ に置いてコミットし、main を push してください。\
採点はベアリポジトリの main を読みます。
    ✗ ベアリポジトリの main に waves/migrate.yaml がありません
      ヒント: クローンに waves/migrate.yaml を作成してコミットし、main を push してください。\
採点はベアリポジトリの main を読みます。
    ✗ {host}/root/capa-src/app-src-waves.yaml がありません
      ヒント: {host}/root/capa-src/app-src-waves.yaml を作成してください。何を書くかはステップに書かれています。
    ✗ Application src-waves が argocd ネームスペースにありません
      ヒント: `kubectl apply -n argocd -f <ファイル>` で適用し、`kubectl -n argocd get app <名前> -o yaml` \
の出力と比べてください。
    ✗ {host}/root/capa-src/waves.json がありません（4 件のチェックで同じ）
      ヒント: {host}/root/capa-src/waves.json を作成してください。キー hook_job, hook_created, settings_created \
を持つ 1 つの JSON オブジェクトです。
    ✗ src-waves ネームスペースにまだありません: ConfigMap settings, Deployment app, Job smoke
      期待値: ["ConfigMap settings", "Deployment app", "Job smoke"]
      ヒント: 同じフェーズの中では、Argo CD は小さいウェーブから適用し、ウェーブが Healthy になるまで次のウェーブに進みません。\
時刻は実際のオブジェクトの creationTimestamp から記録してください。
✗ ステップ 6: PreSync フックが失敗するコミットとその修正（failed-hook.json）
✗ ステップ 7: /spec/replicas を ignoreDifferences に入れた selfHeal: 4 に増やしたレプリカが残る（ignore.json）
✗ ステップ 8: report.json: それぞれの値を誰が決めたか
ほかのステップの詳細は lab check <ステップ> で見られます
capa-src: 8 ステップ中 4 ステップが合格です。次はステップ 5「同期ウェーブ -1/0/1 と PreSync フックの Job を持つ \
Application src-waves（waves.json）」です
"""


def test_a_half_done_learner_sees_each_step_and_the_details_of_the_step_they_are_on(half_done, tmp_path):
    code, out = lab_check(write_config(half_done, tmp_path, lang="ja"))
    assert code == 1
    assert out == HALF_DONE_JA.format(host=half_done, passed=HALF_DONE, total=CAPA)


def test_one_step(half_done, tmp_path):
    config = write_config(half_done, tmp_path, lang="ko")
    assert lab_check(config, "3") == (0, f"capa-src  Argo CD 소스: Helm, Kustomize, 웨이브, 훅  {HALF_DONE}/{CAPA}\n"
                                         "✓ 3단계: Helm 릴리스 없이 Argo CD의 추적용 레이블/어노테이션만 (tracking.json)\n"
                                         "capa-src: 3단계를 통과했습니다\n")
    code, out = lab_check(config, "6")
    lines = out.splitlines()
    assert code == 1 and lines[1] == "✗ 6단계: PreSync 훅이 실패하는 커밋과 그 수정 (failed-hook.json)"
    assert all(line.startswith("    ") for line in lines[2:-1]) and len(lines) > 3
    assert lines[-1] == "capa-src: 6단계를 아직 통과하지 못했습니다"
    assert "lab check <" not in out  # the step asked for is shown whole


def test_the_language_is_the_option_then_lab_lang_then_the_vms(half_done, tmp_path):
    config = write_config(half_done, tmp_path, lang="ja")
    assert "✓ ステップ 3:" in lab_check(config, "3")[1]
    assert "✓ 3단계:" in lab_check(config, "3", environ={"LAB_LANG": "ko"})[1]
    assert "✓ Step 3:" in lab_check(config, "3", "--lang", "en", environ={"LAB_LANG": "ko"})[1]
    assert "✓ ステップ 3:" in lab_check(config, "3", environ={"LAB_LANG": "fr"})[1]  # not a language: ignored


def test_both_labs_done(fake_api, tmp_path):
    host = fake_api.world("demo/both-golden.yaml")
    code, out = lab_check(write_config(host, tmp_path, labs=("capa-src", "cgoa-ci")))
    assert code == 0
    blocks = out.split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == [
        f"capa-src  Argo CD sources: Helm, Kustomize, waves and hooks  {CAPA}/{CAPA}",
        f"cgoa-ci  CI validates, git gates, Argo CD deploys  {CGOA}/{CGOA}"]
    assert all(line.startswith("✓ Step ") for b in blocks for line in b.splitlines()[1:-1])
    assert [b.splitlines()[-1] for b in blocks] == ["capa-src: all 8 steps pass", "cgoa-ci: all 8 steps pass"]


def test_a_lab_and_a_step_in_either_order(fake_api, tmp_path):
    host = fake_api.world("demo/both-mistakes.yaml")  # cgoa-ci's client dry-run mistake
    config = write_config(host, tmp_path, labs=("capa-src", "cgoa-ci"))
    code, out = lab_check(config, "4", "cgoa-ci")
    lines = out.splitlines()
    assert code == 1 and lines[:3] == [
        f"cgoa-ci  CI validates, git gates, Argo CD deploys  {CGOA - 8}/{CGOA}",  # eight checks fail
        "✗ Step 4: validate.sh: a server-side dry run of the manifests as the CI ServiceAccount",
        "    ✗ validate.sh rejects a Deployment whose selector does not match its template's labels (only the API "
        "server rejects it: validate on the server, --dry-run=server), but exited with code 0: deployment.apps/web "
        "created (dry run)"]
    assert lines[-3].startswith("    ✗ validate.sh rejects a folder with a bad api.yaml beside a good web.yaml, but "
                                "exited with code 0")
    assert lines[-2:] == ["      Expected: ≠ 0", "cgoa-ci: step 4 does not pass yet"]  # the values the message does not say
    assert lab_check(config, "cgoa-ci", "4") == (code, out)


@pytest.mark.parametrize("targets, message", [
    (["9"], "capa-src has no step 9 (steps 1 to 8)"),
    (["capa-sr"], "capa-sr is neither a step number nor a lab (capa-src)"),
    (["cgoa-ci"], "this VM is not set up for cgoa-ci (labs here: capa-src)"),
    (["3", "4"], "4 is neither a step number nor a lab (capa-src)"),
])
def test_a_wrong_target_says_what_is_there(half_done, tmp_path, targets, message):
    code, out = lab_check(write_config(half_done, tmp_path), *targets)
    assert (code, out) == (2, message + "\nusage: lab check [LAB] [STEP] [--lang en|ja|ko]\n")


def test_a_broken_settings_file_is_a_clear_message(tmp_path):
    config = tmp_path / "lab-check.json"
    config.write_text('{"labs": ["capa-src"], "token": "x"}')
    code, out = lab_check(config, environ={"LAB_LANG": "ja"})
    assert (code, out.splitlines()[0]) == (2, f"設定ファイル {config} を使えません: unknown settings token")



@pytest.mark.parametrize(("seconds", "first_line"), [
    # provisioned with -e grade_time_budget=1500: a string, which lab check read as text (a traceback)
    ({"time_budget": "1500", "settle_timeout": "0"}, "capa-src  Argo CD sources: Helm, Kustomize, waves and hooks  "),
    ({"time_budget": "soon"}, "the settings file {config} cannot be used: time_budget must be a number of seconds, "
                              "got 'soon'"),
    ({"time_budget": 4000}, "the settings file {config} cannot be used: time_budget must be between 0 and 3600 "
                            "seconds, got 4000.0"),
])
def test_seconds_in_the_settings_are_numbers_or_a_clear_message(half_done, tmp_path, seconds, first_line):
    config = write_config(half_done, tmp_path)
    config.write_text(json.dumps({**json.loads(config.read_text()), **seconds}))
    code, out = lab_check(config)
    assert out.splitlines()[0].startswith(first_line.format(config=config)), out
    assert code == (2 if "cannot be used" in first_line else 1)


def test_a_broken_vm_is_not_the_learners_failure(fake_api, tmp_path):
    host = fake_api.world("capa-src/broken-cluster.yaml")
    code, out = lab_check(write_config(host, tmp_path, lang="ja"))
    assert code == lab_command.EXIT_ENVIRONMENT == 3
    # the reason in the learner's language (was "環境の異常: unreachable: <host>: the server closed ...")
    assert re.fullmatch(r"! 採点できませんでした（受講者の失敗ではありません）: 環境の異常: http://\S+: "
                        r"API サーバーが応答せずに接続を閉じました\n", out)


# ---------------------------------------------------------------- the learner's loop (issue 20 §1)

STEP3_EN = f"✓ Step 3: {LABS['capa-src'].step_titles[3]['en']}"


@pytest.mark.parametrize("argv", [["check", "--lang", "en", "3"], ["check", "3", "--lang", "en"],
                                  ["--lang=en", "check", "3"], ["check", "capa-src", "--lang", "en", "3"]])
def test_arguments_in_any_order(half_done, tmp_path, argv):
    code, out, _ = lab(write_config(half_done, tmp_path, lang="ja"), *argv)
    assert (code, out.splitlines()[1:]) == (0, [STEP3_EN, "capa-src: step 3 passes"])


USAGE_JA = "使い方: lab check [ラボ] [ステップ] [--lang en|ja|ko]"


def test_bare_lab_prints_the_usage_in_the_vms_language(half_done, tmp_path):
    config = write_config(half_done, tmp_path, lang="ja")
    usage = f"{USAGE_JA}\nこの VM でのラボの作業を確認し（読み取りのみ）、次にすることを示します。\n"
    assert lab(config) == (2, usage, "")
    assert lab(config, "--help") == (0, usage, "")


@pytest.mark.parametrize("argv, message", [
    (["check", "--verbose"], "--verbose は lab check のオプションではありません"),
    (["check", "--lang", "fr"], "--lang に指定できるのは en・ja・ko です（fr は使えません）"),
    (["check", "--lang"], "--lang には値が必要です"),
    (["chek", "3"], "chek は lab のコマンドではありません（コマンドは check です）"),
])
def test_a_wrong_argument_is_said_in_the_vms_language_with_the_usage(half_done, tmp_path, argv, message):
    code, out, _ = lab(write_config(half_done, tmp_path, lang="ja"), *argv)
    assert (code, out) == (2, f"{message}\n{USAGE_JA}\n")


def test_while_argo_cd_converges_it_says_so_and_the_hint_is_to_look_again(fake_api, tmp_path):
    host = fake_api.world("capa-src/mid-sync.yaml")
    config = json.loads(write_config(host, tmp_path).read_text())
    (tmp_path / "lab-check.json").write_text(json.dumps({**config, "settle_timeout": 6}))
    err = io.StringIO()
    code, out = lab_check(tmp_path / "lab-check.json", "6", err=err)
    progress = err.getvalue().splitlines()
    assert progress[0] == "checking capa-src ..."
    assert len(progress) == 2 and re.fullmatch(r"waiting for Argo CD: \d+ checks pending \(\d+ s of at most 6 s\)",
                                               progress[1]), progress
    assert code == 1 and "run `lab check 6` again in a minute" in out
    assert out.splitlines()[-1] == "capa-src: step 6 does not pass yet"


# ---------------------------------------------------------------- the installed command


def install(vm_root, host):
    """roles/grader_runtime's learner_check.yml run by ansible-playbook into `vm_root` (lab_root),
    with the project's venv standing in for the grader's; returns the play's recap line."""
    playbook = vm_root.parent / "install-lab-check.yml"
    playbook.write_text("- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n"
                        "    - ansible.builtin.import_role: {name: grader_runtime, tasks_from: learner_check.yml}\n")
    # A snapshot of the library, so that an edit of the working tree during the test changes nothing.
    sources = vm_root.parent / "labgrader"
    if not sources.exists():
        shutil.copytree(REPO_ROOT / "plugins/module_utils/labgrader", sources,
                        ignore=shutil.ignore_patterns("__pycache__"))
    extra = {"lab_root": str(vm_root), "grader_runtime_learner_sources": str(sources),
             "grader_runtime_venv": os.path.dirname(os.path.dirname(sys.executable)),
             "grader_runtime_admin_kubeconfig": str(host / "kubeconfig"), "lab_enrolled": ["capa-src", "cgoa-ci"],
             "lab_lang": "ja", "lab_bare_root": str(host / "srv" / "bare"), "lab_workspace_root": str(host / "root"),
             "lab_helm_binary": repo_server.HELM_BINARY, "lab_kustomize_binary": repo_server.KUSTOMIZE_BINARY,
             "ansible_python_interpreter": sys.executable}
    ansible = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    result = subprocess.run([ansible, "-i", "localhost,", str(playbook), "-e", json.dumps(extra)], cwd=REPO_ROOT,
                            env={**os.environ, "ANSIBLE_ROLES_PATH": str(REPO_ROOT / "roles"), "ANSIBLE_NOCOLOR": "1"},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return next(line for line in result.stdout.splitlines() if line.startswith("localhost"))


def test_the_installed_lab_command_is_read_only(fake_api, tmp_path, reachable_tmp):
    host = fake_api.world("demo/both-mistakes.yaml")
    (host / "probes.json").unlink()  # cgoa-ci's probes run for real: the learner's scripts on copies
    vm_root = tmp_path / "vm"
    vm_root.mkdir()
    assert "failed=0" in install(vm_root, host)
    assert "changed=0" in install(vm_root, host)  # a second provisioning run changes nothing
    library = vm_root / "opt" / "lab-grader" / "lib"
    package = library / "ansible_collections/gitops_lab/grader/plugins/module_utils/labgrader"
    assert (package / "labs/capa_src/definition.py").is_file()
    assert not [path for path in library.rglob("*") if "solution" in path.name]  # no answers on the VM
    server, seen = recording_server(fake_api.root)
    private = reachable_tmp  # the sandboxes of the tool runs and probes are made under TMPDIR
    (private / "home").mkdir(parents=True)
    (private / "tmp").mkdir()
    try:
        point_kubeconfig_at(host, server)
        before, installed = tree_digest(host), tree_digest(vm_root)
        # What a learner's shell may hold changes nothing: a PYTHONPATH or a current directory with
        # a package named ansible, a KUBECONFIG naming another cluster identity.
        decoy = tmp_path / "decoy"
        (decoy / "ansible").mkdir(parents=True)
        (decoy / "ansible" / "__init__.py").write_text("raise ImportError('the decoy was imported')\n")
        env = {"PATH": os.environ["PATH"], "HOME": str(private / "home"), "TMPDIR": str(private / "tmp"),
               "PYTHONPATH": str(decoy), "KUBECONFIG": str(decoy / "no-such-kubeconfig"), "LAB_LANG": "ja"}
        result = subprocess.run([str(vm_root / "usr/local/bin/lab"), "check"], env=env, cwd=decoy,
                                capture_output=True, text=True, timeout=300)
    finally:
        server.shutdown()
        server.server_close()
    # 1, not 3: every check could be judged (an ERROR, e.g. a sandbox that cannot be built, is 3)
    assert result.returncode == 1, [line for line in result.stdout.splitlines() if line.lstrip().startswith("!")]
    assert result.stdout.startswith("capa-src  Argo CD のソース: Helm・Kustomize・ウェーブ・フック  ")
    assert "\n\ncgoa-ci  CI が検証し、Git が守り、Argo CD がデプロイする  " in result.stdout
    after = tree_digest(host)
    assert {k for k in set(before) | set(after) if before.get(k) != after.get(k)} <= {"requests.log"}
    assert tree_digest(vm_root) == installed  # not even a .pyc next to the installed library
    assert seen and all(method == "GET" or (method == "POST" and api_path(path).startswith(REVIEW_PATHS))
                        for method, path in seen), seen
    assert_nothing_left(private)


# ---------------------------------------------------------------- the learners' card (issue 20 §1)

def card_example(path):
    """The example output in a learner card: the block after `$ lab check` in its ```text fence."""
    block = path.read_text(encoding="utf-8").split("```text\n$ lab check\n", 1)[1]
    return block.split("```", 1)[0]


@pytest.mark.parametrize("lang", ["en", "ja", "ko"])
def test_the_learner_card_shows_what_lab_check_really_prints(half_done, tmp_path, lang):
    """docs/labs/lab-check.<lang>.md, the card instructors hand out with any lab's text, shows
    the half-done learner exactly as `lab check` prints them on a VM (workspace under /root)."""
    code, out = lab_check(write_config(half_done, tmp_path, lang=lang))
    assert code == 1
    assert card_example(REPO_ROOT / "docs" / "labs" / f"lab-check.{lang}.md") == out.replace(str(half_done), "")


# What runs on the VM imports only what the VM has: the standard library, the grader's library
# (shipped under ansible_collections) and the grader runtime's pinned closure
# (roles/grader_runtime/files/grader-runtime-hashes.txt). The controller's venv has more (jinja2,
# ansible), so a plain import here would not notice: the VM found `lab check` failing with
# "No module named 'jinja2'" (docs/real-vm.md, defect 4).
RUNTIME_PINS = REPO_ROOT / "roles" / "grader_runtime" / "files" / "grader-runtime-hashes.txt"
ONLY_THE_VMS_PACKAGES = """
import importlib.abc, sys
allowed = set(sys.argv[1].split(","))
class OnlyTheVMsPackages(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names or top in allowed:
            return None
        raise ModuleNotFoundError(f"No module named {top!r} on the VM", name=top)
sys.meta_path.insert(0, OnlyTheVMsPackages())
importlib.import_module(sys.argv[2])
print("imported")
"""


def vm_import_names() -> set[str]:
    """The top-level names the grader runtime's pinned distributions install."""
    from importlib.metadata import packages_distributions

    def canonical(name):
        return re.sub(r"[-_.]+", "-", name).lower()

    pins = {canonical(line.split("==")[0]) for line in RUNTIME_PINS.read_text().splitlines()
            if "==" in line and not line.lstrip().startswith("#")}
    return {top for top, dists in packages_distributions().items() if any(canonical(d) in pins for d in dists)}


@pytest.mark.parametrize("module, extra", [
    ("ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.lab_command", set()),
    # lab_grade's own code: AnsiballZ ships ansible's module_utils with it.
    ("ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner", {"ansible"}),
])
def test_what_runs_on_the_vm_imports_only_the_grader_runtime(module, extra):
    allowed = {"ansible_collections", *vm_import_names(), *extra}
    assert "yaml" in allowed and "kubernetes" in allowed and "jinja2" not in allowed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", ONLY_THE_VMS_PACKAGES, ",".join(sorted(allowed)), module],
                          capture_output=True, text=True, timeout=120, env=env)
    assert (done.returncode, done.stderr.strip().splitlines()[-1:], done.stdout) == (0, [], "imported\n")
