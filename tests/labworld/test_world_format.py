"""World format: extends merging, removal, rendering, and clear errors for bad worlds."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from labworld import WorldError
from labworld.materialize import materialize
from labworld.world import load, validate

REPO = Path(__file__).resolve().parents[2]

BASE = """
description: base
vars: {t0: "2026-11-29T09:00:00Z", keep: kept}
repos:
  src:
    commits:
      - {id: one, date: "2026-11-29T09:00:00Z", message: one, files: {a.txt: "a\\n", b.txt: "b\\n"}}
      - {id: two, date: "2026-11-29T09:05:00Z", message: two, files: {b.txt: null, c.txt: "c\\n"}}
      - {id: three, date: "2026-11-29T09:10:00Z", message: three, files: {d.txt: "d\\n"}}
    clones: [root/ws/repo]
files:
  root/ws/data.json: {json: {a: 1, nested: {x: 1, y: 2}, list: [1, 2], label: set}}
  root/ws/keep.txt: "{{ keep }} {{ sha7('one') }}\\n"
  root/ws/gone.txt: "bye\\n"
cluster:
  objects:
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: cm, namespace: ns, labels: {a: "1", b: "2"}}
      data: {k: v, rev: "{{ head('src') }}", when: "{{ unix(t0) }}"}
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: other, namespace: ns}
      data: {k: v}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_extends_patch_and_removal(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    child = write(tmp_path, "child.yaml", """
        extends: base.yaml
        description: child
        repos:
          src:
            commits:
              - {id: three, $delete: true}
              - {id: two, message: two-patched}
              - {id: four, date: "2026-11-29T09:20:00Z", files: {e.txt: "e\\n"}}
        files:
          root/ws/gone.txt: null
          root/ws/data.json: {json: {a: 2, nested: {y: null}, list: [9], label: {$literal: null}}}
          root/ws/new.bin: {bytes_hex: "00ff"}
        cluster:
          objects:
            - apiVersion: v1
              kind: ConfigMap
              metadata: {name: cm, namespace: ns, labels: {b: null}}
              data: {k: patched}
            - {apiVersion: v1, kind: ConfigMap, metadata: {name: other, namespace: ns}, $delete: true}
            - apiVersion: v1
              kind: Secret
              metadata: {name: s, namespace: ns}
              type: helm.sh/release.v1
    """)
    world = validate(load(child), "child.yaml")
    assert world["description"] == "child"
    assert [c["id"] for c in world["repos"]["src"]["commits"]] == ["one", "two", "four"]
    assert world["repos"]["src"]["commits"][1]["message"] == "two-patched"
    assert world["repos"]["src"]["commits"][1]["files"] == {"b.txt": None, "c.txt": "c\n"}

    summary = materialize(child, "h", tmp_path / "out", "http://x")
    host = tmp_path / "out" / "h"
    ws = host / "root/ws"
    assert not (ws / "gone.txt").exists()
    assert json.loads((ws / "data.json").read_text()) == {"a": 2, "nested": {"x": 1}, "list": [9], "label": None}
    assert (ws / "new.bin").read_bytes() == b"\x00\xff"
    shas = summary["repos"]["src"]["commits"]
    assert list(shas) == ["one", "two", "four"]
    assert (ws / "keep.txt").read_text() == f"kept {shas['one'][:7]}\n"
    assert sorted(p.name for p in (ws / "repo").iterdir() if p.name != ".git") == ["a.txt", "c.txt", "e.txt"]
    objs = json.loads((host / "cluster.json").read_text())["objects"]
    assert [(o["kind"], o["metadata"]["name"]) for o in objs] == [("ConfigMap", "cm"), ("Secret", "s")]
    assert objs[0]["metadata"]["labels"] == {"a": "1"}
    assert objs[0]["data"] == {"k": "patched", "rev": shas["four"], "when": 1795942800}


def test_replace_and_file_form_change(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    child = write(tmp_path, "child.yaml", """
        extends: base.yaml
        files:
          root/ws/data.json: "not json any more"
        cluster:
          objects:
            - apiVersion: v1
              kind: ConfigMap
              metadata: {name: cm, namespace: ns}
              data: {$replace: true, only: this}
    """)
    materialize(child, "h", tmp_path / "out", "http://x")
    host = tmp_path / "out" / "h"
    assert (host / "root/ws/data.json").read_text() == "not json any more"
    cm = json.loads((host / "cluster.json").read_text())["objects"][0]
    assert cm["data"] == {"only": "this"}
    assert cm["metadata"]["labels"] == {"a": "1", "b": "2"}


@pytest.mark.parametrize(("text", "message"), [
    ("files: [a]", "files must be a mapping"),
    ("bogus: 1", "unknown top-level key(s) ['bogus']"),
    ("files:\n  a.txt: {json: 1, yaml: 2}", "give exactly one of"),
    ("files:\n  ../escape: x", "must be a relative path without '..'"),
    ("files:\n  cluster.json: x", "reserved for labworld output"),
    ("cluster:\n  objects:\n    - {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}",
     "ConfigMap x is namespaced: metadata.namespace is required"),
    ("cluster:\n  objects:\n    - {apiVersion: v9, kind: Gizmo, metadata: {name: x}}",
     "kind Gizmo in v9 is not in the server's kind table"),
    ("cluster:\n  objects:\n    - {apiVersion: v1, kind: ConfigMap, metadata: {namespace: x}}",
     "metadata.name is required"),
    ("cluster:\n  reachable: maybe", "cluster.reachable must be true or false"),
    ("files:\n  a.txt: '{{ nope }}'", "files[a.txt]: template error: 'nope' is undefined"),
    ("files:\n  a.txt: \"{{ sha('ghost') }}\"", "sha('ghost'): commit id found in 0 repos"),
    ("files:\n  a.txt: '{{ broken'", "files[a.txt]: template error"),
    ("repos:\n  src:\n    commits:\n      - {id: a}\n      - {id: a}", "duplicate commit id 'a'"),
    ("repos:\n  src:\n    commits:\n      - {message: x}", "`id` (a label used by sha()) is required"),
    ("extends: missing.yaml", "missing.yaml: world file not found"),
    ("extends: bad.yaml", "bad.yaml: extends cycle"),
    ("key: [unclosed", "invalid YAML (line 1"),
    ("- just\n- a list", "must be a YAML mapping, found list"),
    ("expect: {status: GREEN}", "expect.status must be one of ['PASS', 'FAIL', 'PENDING', 'ERROR']"),
    ("expect: {messages: {a.1.x: 3}}", "expect.messages must map check ids to messages"),
    ("expect: {verdicts: {}}", "expect must be a mapping with ['messages', 'status']"),
])
def test_bad_worlds_give_clear_errors(tmp_path, text, message):
    write(tmp_path, "bad.yaml", text)
    with pytest.raises(WorldError) as err:
        materialize(tmp_path / "bad.yaml", "h", tmp_path / "out", "http://x")
    assert message.replace("extends cycle", "`extends` cycle") in str(err.value)


def test_cli_error_is_one_line_without_traceback(tmp_path):
    write(tmp_path, "bad.yaml", "cluster:\n  objects:\n    - {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n")
    proc = subprocess.run([sys.executable, "-m", "labworld", "materialize", str(tmp_path / "bad.yaml"),
                           "--host", "h", "--out", str(tmp_path / "out")], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("labworld: error: ")
    assert "cluster.objects[0]: ConfigMap x is namespaced" in proc.stderr
    assert proc.stdout == ""


def test_cli_materialize_prints_nothing(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "labworld", "materialize", "fixtures/worlds/capa-src/empty.yaml",
                           "--host", "learner04", "--out", str(tmp_path), "--api-url", "http://127.0.0.1:5"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert "server: http://127.0.0.1:5/h/learner04" in (tmp_path / "learner04/kubeconfig").read_text()


def test_expect_is_the_worlds_own_not_inherited(tmp_path):
    write(tmp_path, "base.yaml", "expect: {status: PASS}\n")
    write(tmp_path, "child.yaml", "extends: base.yaml\n")
    write(tmp_path, "own.yaml", "extends: base.yaml\nexpect: {status: FAIL, messages: {a.1.x: gone}}\n")
    assert "expect" not in validate(load(tmp_path / "child.yaml"), "child")
    assert validate(load(tmp_path / "own.yaml"), "own")["expect"] == {"status": "FAIL", "messages": {"a.1.x": "gone"}}
