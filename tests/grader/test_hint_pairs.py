"""A hint matches the message it stands under (issue 20, "Words"): the failure kinds that need
their own advice get it whatever the check's hint is, in every world where they occur."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import render
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

from tests.grader.conftest import collect_host

# failure kind: the hint it stands under (wrong_type of a whole evidence file: an object is asked)
PAIRS = {
    "file_missing": "file_create",
    "git_file_missing": "git_file_create",
    "git_dir_missing": "git_file_create",
    "git_object_missing": "git_object_add",
    "file_invalid_yaml": "yaml_syntax",
    "file_invalid_json": "json_syntax",
}


class _Check:
    step, id, hint = 1, "lab.1.check", "json_types"  # a check whose own hint is about JSON numbers


STATE = SimpleNamespace(files={"report.json": SimpleNamespace(ok=True, path="/w/report.json", data=["a", 1])},
                        evidence_keys={"report.json": ("gate", "ci_writes")})


def test_every_failure_kind_with_its_own_advice_has_it():
    assert i18n.MESSAGE_HINTS == PAIRS
    assert all(hint in i18n.HINTS for hint in PAIRS.values())


def test_the_failure_kind_decides_the_hint_over_the_check():
    for key, hint in PAIRS.items():
        verdict = type("V", (), {"status": "FAIL", "key": key, "hint": None, "expected": None, "found": None,
                                 "params": {"path": "waves/migrate.yaml", "kind": "Job", "name": "migrate-"}})()
        assert render("lab", _Check(), verdict, "en", {})["hint_key"] == hint, key


def test_a_json_array_where_an_object_is_asked_gets_the_object_hint():
    _, problem = evidence(STATE, "report.json")
    assert (problem.key, problem.hint) == ("wrong_type", "json_object")
    assert i18n.hint(problem.hint, "en", problem.params) == (
        "Write the evidence file as one JSON object, in curly braces, with the keys gate, ci_writes; not an array "
        "or a single value.")


def test_a_missing_git_file_is_told_to_create_it(fake_api):
    state = collect_host(fake_api.world("capa-src/half-done.yaml"))
    checks = {c["check"]: c for c in LABS["capa-src"].judge(state, "en")}
    missing = [c for c in checks.values() if c["message_key"] in ("git_file_missing", "file_missing")]
    assert missing and all(c["hint"].startswith("Create ") for c in missing)


def test_a_manifest_missing_from_git_is_told_to_add_it(fake_api):
    """Was the step's concept hint (waves and creationTimestamps under "no ConfigMap settings")."""
    state = collect_host(fake_api.world("capa-src/half-done.yaml"))
    checks = {c["check"]: c for c in LABS["capa-src"].judge(state, "en")}
    assert checks["capa-src.5.git-settings"]["message"] == "the bare repository's main has no ConfigMap settings under waves/"
    assert checks["capa-src.5.git-settings"]["hint"] == (
        "Put the manifest of ConfigMap settings in waves/ of your clone, commit it and push main: the grader reads the "
        "bare repository's main.")


def test_a_pending_check_is_told_to_look_again_not_how_to_fix():
    """PENDING is Argo CD still converging: the check's own advice (how to fix) is not true for it."""
    verdict = type("V", (), {"status": "PENDING", "key": "app_converging", "hint": None, "expected": None,
                             "found": None, "params": {"name": "web", "sync": "OutOfSync", "health": "Progressing"}})()
    checked = render("lab", _Check(), verdict, "ja", {})
    assert (checked["hint_key"], checked["params"]["check_step"]) == ("pending_again", 1)
    assert checked["hint"] == "Argo CD はまだ作業中です。1 分ほど待ってから `lab check 1` をもう一度実行してください。"
    assert i18n.hint("pending_again", "en", checked["params"]) == (
        "Argo CD has not finished yet: run `lab check 1` again in a minute.")


class _KeysRead(dict):
    """An evidence file's object that records which keys the checks read."""

    def __init__(self, data, seen):
        super().__init__(data)
        self.seen = seen

    def __getitem__(self, key):
        self.seen.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.seen.add(key)
        return super().get(key, default)

    def __contains__(self, key):
        self.seen.add(key)
        return super().__contains__(key)


@pytest.mark.parametrize("lab_id", sorted(LABS))
def test_the_keys_a_hint_names_are_the_keys_the_checks_read(fake_api, lab_id):
    """Reads json_files declares each evidence file's keys; graded on the golden world, the checks
    read exactly those."""
    state = collect_host(fake_api.world(f"{lab_id}/golden.yaml"), lab_id)
    seen = {name: set() for name in state.evidence_keys}
    for name in seen:
        state.files[name].data = _KeysRead(state.files[name].data, seen[name])
    LABS[lab_id].judge(state, "en")
    assert {name: sorted(keys) for name, keys in seen.items()} == {
        name: sorted(keys) for name, keys in state.evidence_keys.items()}


def test_a_missing_evidence_file_is_told_its_keys(fake_api):
    state = collect_host(fake_api.world("capa-src/half-done.yaml"))
    checks = {c["check"]: c for c in LABS["capa-src"].judge(state, "ja")}
    waves = [c for c in checks.values() if c["message_key"] == "file_missing" and c["params"]["path"].endswith("waves.json")]
    assert waves and {(c["hint_key"], c["hint"]) for c in waves} == {(
        "evidence_create", f"{waves[0]['params']['path']} を作成してください。"
        "キー hook_job, hook_created, settings_created を持つ 1 つの JSON オブジェクトです。")}
