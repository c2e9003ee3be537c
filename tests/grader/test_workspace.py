"""Evidence files: every kind of bad input is a finding with a reason, never an exception or a hang."""

from __future__ import annotations

import json
import os

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import (
    read_json,
    read_text,
    read_yaml_documents,
)


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return root


def test_valid_json_object_is_parsed(ws):
    (ws / "a.json").write_text('{"replicas": 3}')
    read = read_json(str(ws), "a.json")
    assert read.ok and read.data == {"replicas": 3}
    assert read.path == str(ws / "a.json")


@pytest.mark.parametrize(("content", "problem"), [
    (b"", "empty"),
    (b"  \n\t", "empty"),
    (b"{not json", "invalid_json"),
    (b'{"a": NaN}', "invalid_json"),
    (b"\x00\x01\x02binary", "binary"),
    (b"\xff\xfe\xfa", "binary"),
])
def test_bad_json_content_is_a_finding(ws, content, problem):
    (ws / "a.json").write_bytes(content)
    assert read_json(str(ws), "a.json").problem == problem


def test_missing_file(ws):
    read = read_json(str(ws), "nope.json")
    assert (read.problem, read.data) == ("missing", None)


def test_large_file_is_not_read(ws):
    with open(ws / "big.json", "wb") as handle:
        handle.truncate(10 * 1024 * 1024)  # sparse 10 MB file
    read = read_json(str(ws), "big.json")
    assert read.problem == "too_large"
    assert read.detail == f"{10 * 1024 * 1024} > {1024 * 1024} bytes"


def test_symlink_outside_workspace_is_refused(ws, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"replicas": 3}')
    os.symlink(secret, ws / "a.json")
    read = read_json(str(ws), "a.json")
    assert read.problem == "outside"
    assert read.detail == str(secret)


def test_symlink_inside_workspace_is_followed(ws):
    (ws / "real.json").write_text("[1]")
    os.symlink(ws / "real.json", ws / "a.json")
    assert read_json(str(ws), "a.json").data == [1]


def test_fifo_does_not_hang(ws):
    os.mkfifo(ws / "a.json")
    assert read_json(str(ws), "a.json").problem == "not_regular"


def test_directory_is_not_a_file(ws):
    (ws / "a.json").mkdir()
    assert read_text(str(ws), "a.json").problem == "not_regular"


def test_dangling_symlink_is_missing(ws):
    os.symlink(ws / "gone", ws / "a.json")
    assert read_json(str(ws), "a.json").problem == "missing"


def test_deeply_nested_json_is_invalid_not_a_crash(ws):
    (ws / "a.json").write_text("[" * 100000 + "]" * 100000)
    assert read_json(str(ws), "a.json").problem == "invalid_json"


def test_utf8_bom_is_accepted(ws):
    (ws / "a.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"k": "値"}, ensure_ascii=False).encode())
    assert read_json(str(ws), "a.json").data == {"k": "値"}


def test_yaml_multi_document(ws):
    (ws / "a.yaml").write_text("---\nkind: A\n---\n---\nkind: B\n")
    assert read_yaml_documents(str(ws), "a.yaml").data == [{"kind": "A"}, {"kind": "B"}]


def test_truncated_yaml_is_invalid(ws):
    (ws / "a.yaml").write_text("apiVersion: argoproj.io/v1alpha1\nkind: Application\nspec:\n  source: {repoURL: 'git")
    read = read_yaml_documents(str(ws), "a.yaml")
    assert read.problem == "invalid_yaml"
    assert "while scanning a quoted scalar" in read.detail


def test_unreadable_file(ws):
    path = ws / "a.json"
    path.write_text("{}")
    path.chmod(0)
    read = read_json(str(ws), "a.json")
    if os.geteuid() == 0:  # root reads anyway; the finding only exists for other users
        assert read.ok
    else:
        assert read.problem == "unreadable"
