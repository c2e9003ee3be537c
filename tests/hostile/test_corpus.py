"""The hostile-input corpus (issue 10, docs/hostile-input.md): what a learner who is root on the
VM can put in the workspace, the clone, the bare repo, and what a broken environment does to the
kubeconfig and the API. Every case runs in a fresh process under RLIMIT_AS and asserts the
outcome class, the message, a time bound, a memory bound and that the canary token never
appears in anything printed (conftest.run)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.hostile.harness import CANARY, edit_kubeconfig, fifo, run, set_fault, sparse, symlink

GiB = 1024 ** 3


def alias_bomb(levels=9):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def unix_socket(path):
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()


def write(text):
    return lambda path: Path(path).write_text(text) and None


def link_loop(path):
    symlink(path, path.with_name("other"))
    symlink(path.with_name("other"), path)


# ------------------------------------------------------------------ workspace evidence files

WORKSPACE = [
    ("ws-fifo", "json", fifo, "not_regular", "a FIFO"),
    ("ws-fifo-yaml", "yaml", fifo, "not_regular", "a FIFO"),
    ("ws-devzero-link", "json", lambda p: symlink(p, "/dev/zero"), "outside", "/dev/zero"),
    ("ws-devzero-link-yaml", "yaml", lambda p: symlink(p, "/dev/zero"), "outside", "/dev/zero"),
    ("ws-link-loop", "json", link_loop, "not_regular", "a symbolic link"),
    ("ws-directory", "json", os.mkdir, "not_regular", "a directory"),
    ("ws-sparse-1g", "json", sparse, "too_large", f"{GiB} > 1048576 bytes"),
    ("ws-sparse-1g-yaml", "yaml", sparse, "too_large", f"{GiB} > 1048576 bytes"),
    ("ws-socket", "json", unix_socket, "not_regular", "a socket"),
    ("ws-char-device", "json", lambda p: os.mknod(p, stat.S_IFCHR | 0o600, os.makedev(1, 5)),
     "not_regular", "a character device"),
    ("ws-json-deep-100000", "json", write("[" * 100_000 + "]" * 100_000), "invalid_json", "nested deeper than 64 levels"),
    ("ws-json-deep-65", "json", write("[" * 65 + "]" * 65), "invalid_json", "nested deeper than 64 levels"),
    ("ws-json-duplicate-key", "json", write('{"replicas": 3, "replicas": 4}'), "invalid_json",
     'duplicate key "replicas"'),
    ("ws-json-nan", "json", write('{"replicas": NaN}'), "invalid_json", "NaN is not valid JSON"),
    ("ws-json-huge-int", "json", write("9" * 5000), "invalid_json", "Exceeds the limit (4300 digits)"),
    ("ws-json-nul", "json", lambda p: Path(p).write_bytes(b'{"a": "\0"}'), "binary", ""),
    ("ws-yaml-alias-bomb", "yaml", write(alias_bomb()), "invalid_yaml",
     "uses YAML aliases that expand to more than 100000 nodes"),
    ("ws-yaml-recursive-alias", "yaml", write("a: &a [*a]\n"), "invalid_yaml",
     "uses the YAML alias *a inside its own anchor or before it"),
    ("ws-yaml-deep-flow", "yaml", write("[" * 100 + "]" * 100), "invalid_yaml", "nested deeper than 64 levels"),
    ("ws-yaml-deep-block", "yaml", write("".join(f"{'  ' * i}k:\n" for i in range(200)) + "  " * 200 + "v\n"),
     "invalid_yaml", "nested deeper than 64 levels"),
    ("ws-yaml-wide", "yaml", write("[" + "1," * 150_000 + "1]"), "invalid_yaml", "has more than 100000 nodes"),
    ("ws-yaml-many-documents", "yaml", write("---\n" * 200_000), "invalid_yaml", "has more than 100000 nodes"),
    ("ws-yaml-python-tag", "yaml", write("!!python/object/apply:os.system [true]\n"), "invalid_yaml",
     "could not determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system'"),
    # PyYAML quotes the offending line in its errors; a linked /etc/shadow must not reach a report.
    ("ws-yaml-error-quotes-no-line", "yaml", write(f"{CANARY}: [\n  - a: [\n"), "invalid_yaml",
     "while parsing a flow node: did not find expected node content (line 2, column 3)"),
]


@pytest.mark.parametrize(("case", "op", "make", "problem", "detail"), WORKSPACE, ids=[c[0] for c in WORKSPACE])
def test_workspace_file(tmp_path, case, op, make, problem, detail):
    name = "evidence.json" if op == "json" else "app.yaml"
    make(tmp_path / name)
    answer = run(case, op, 10, root=str(tmp_path), name=name)
    assert answer["problem"] == problem
    assert detail in answer["detail"]


WORKSPACE_ACCEPTED = [
    ("ws-yaml-timestamp-key", "2026-01-01: x\nwhen: 2026-11-29T09:00:00Z\n"),
    ("ws-yaml-benign-alias", "base: &b {x: 1}\nz:\n  <<: *b\n"),
    ("ws-yaml-empty-documents", "---\n" * 50_000),
    ("ws-yaml-binary-tag", "a: !!binary aGVsbG8=\n"),
]


@pytest.mark.parametrize(("case", "text"), WORKSPACE_ACCEPTED, ids=[c[0] for c in WORKSPACE_ACCEPTED])
def test_workspace_yaml_accepted(tmp_path, case, text):
    (tmp_path / "app.yaml").write_text(text)
    assert run(case, "yaml", 10, root=str(tmp_path), name="app.yaml")["problem"] is None


# ------------------------------------------------------------------ the learner's clone

def append(text):
    return lambda config, tmp: config.write_text(config.read_text() + text)


def include(target_maker):
    def change(config, tmp):
        target = tmp / "included"
        target_maker(target)
        config.write_text(config.read_text() + f"[include]\n\tpath = {target}\n")
    return change


CLONE_REFUSED = [
    ("clone-config-fifo", lambda c, t: fifo(c), "not_a_clone", "not_regular"),
    ("clone-config-link-shadow", lambda c, t: symlink(c, "/etc/shadow"), "not_a_clone", "outside"),
    ("clone-config-link-devzero", lambda c, t: symlink(c, "/dev/zero"), "not_a_clone", "outside"),
    ("clone-config-sparse", lambda c, t: sparse(c), "not_a_clone", "too_large"),
    ("clone-config-binary", lambda c, t: c.write_bytes(b"\0\xff\xfe"), "not_a_clone", "binary"),
    ("clone-git-is-a-file", lambda c, t: (shutil.rmtree(c.parent), c.parent.write_text("gitdir: /dev/zero\n")),
     "not_a_clone", "missing"),
]


@pytest.mark.parametrize(("case", "change", "problem", "detail"), CLONE_REFUSED, ids=[c[0] for c in CLONE_REFUSED])
def test_clone_refused(host, tmp_path, case, change, problem, detail):
    clone = host / "root" / "capa-src" / "repo"
    change(clone / ".git" / "config", tmp_path)
    answer = run(case, "clone", 10, path=str(clone))
    assert (answer["problem"], answer["detail"]) == (problem, detail)


CLONE_INCLUDES_IGNORED = [
    ("clone-include-devzero", append("[include]\n\tpath = /dev/zero\n")),
    ("clone-include-fifo", include(fifo)),
    ("clone-include-sparse", include(sparse)),
    ("clone-include-secret", include(lambda p: p.write_text(f'[remote "origin"]\n\turl = /{CANARY}\n'))),
    ("clone-includeif-devzero", append('[includeIf "gitdir:/"]\n\tpath = /dev/zero\n')),
]


@pytest.mark.parametrize(("case", "change"), CLONE_INCLUDES_IGNORED, ids=[c[0] for c in CLONE_INCLUDES_IGNORED])
def test_clone_includes_are_not_followed(host, tmp_path, case, change):
    clone = host / "root" / "capa-src" / "repo"
    change(clone / ".git" / "config", tmp_path)
    answer = run(case, "clone", 10, path=str(clone))
    assert answer["problem"] is None
    assert answer["remotes"] == {"origin": str(host / "srv" / "bare" / "src.git")}


def test_clone_pushurl_elsewhere_is_reported(host):
    clone = host / "root" / "capa-src" / "repo"
    config = clone / ".git" / "config"
    config.write_text(config.read_text().replace("[remote \"origin\"]", "[remote \"origin\"]\n\tpushurl = /srv/other.git"))
    answer = run("clone-pushurl", "clone", 10, path=str(clone))
    assert answer["remotes"]["origin"] == str(host / "srv" / "bare" / "src.git")
    assert answer["push_urls"] == {"origin": ["/srv/other.git"]}


def test_clone_push_insteadof_is_applied(host):
    clone = host / "root" / "capa-src" / "repo"
    config = clone / ".git" / "config"
    config.write_text(config.read_text() + '[url "/srv/elsewhere.git"]\n\tpushInsteadOf = /srv/bare/src.git\n')
    answer = run("clone-push-insteadof", "clone", 10, path=str(clone))
    assert answer["push_urls"] == {"origin": ["/srv/elsewhere.git"]}


# ------------------------------------------------------------------ the bare repo


def git(bare, *args, stdin=None):
    return subprocess.run(["git", "--git-dir", str(bare), *args], input=stdin, capture_output=True, check=True,
                          env={"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(bare)}).stdout


def loose_object(bare, sha):
    return bare / "objects" / sha[:2] / sha[2:]


def head_sha(bare):
    return git(bare, "rev-parse", "refs/heads/main").decode().strip()


def fast_import(bare, commits, files=lambda i: {}, message=lambda i: f"c{i}"):
    """Put `commits` commits on a new refs/heads/main (parented in a chain)."""
    stream = []
    for i in range(commits):
        stream.append(f"commit refs/heads/main\nmark :{i + 1}\ncommitter L <l@x> {1_700_000_000 + i} +0000\n")
        text = message(i).encode()
        stream.append(f"data {len(text)}\n")
        stream.append(text)
        stream.append(b"\n")
        if i:
            stream.append(f"from :{i}\n")
        for path, content in files(i).items():
            stream.append(f"M 100644 inline {path}\ndata {len(content)}\n")
            stream.append(content)
            stream.append(b"\n")
    data = b"".join(s.encode() if isinstance(s, str) else s for s in stream)
    git(bare, "fast-import", "--quiet", "--force", stdin=data)


def packed(bare):
    """The repo after `git gc`: refs in packed-refs, objects in one pack."""
    git(bare, "gc", "-q", "--prune=now")
    return bare


def alternates_elsewhere(bare, tmp):
    other = tmp / "other.git"
    shutil.copytree(bare, other)
    for entry in (bare / "objects").iterdir():
        if entry.name != "info":
            shutil.rmtree(entry)
    (bare / "objects" / "info" / "alternates").write_text(f"{other / 'objects'}\n")


def objects_dir_link(bare, tmp):
    directory = loose_object(bare, head_sha(bare)).parent
    shutil.move(directory, tmp / "moved")
    directory.symlink_to(tmp / "moved")


REPO_REFUSED = [
    ("repo-packed-refs-fifo", lambda b, t: fifo(b / "packed-refs"), "packed-refs is a FIFO"),
    ("repo-packed-refs-devzero", lambda b, t: symlink(b / "packed-refs", "/dev/zero"), "packed-refs is a symbolic link"),
    ("repo-packed-refs-sparse", lambda b, t: sparse(b / "packed-refs"),
     f"packed-refs is too large ({GiB} > 4194304 bytes)"),
    ("repo-ref-fifo", lambda b, t: fifo(b / "refs/heads/main"), "refs/heads/main is a FIFO"),
    ("repo-ref-devzero", lambda b, t: symlink(b / "refs/heads/main", "/dev/zero"), "refs/heads/main is a symbolic link"),
    ("repo-ref-sparse", lambda b, t: sparse(b / "refs/heads/main"), f"refs/heads/main is too large ({GiB} > 4096 bytes)"),
    ("repo-ref-directory", lambda b, t: ((b / "refs/heads/main").unlink(), (b / "refs/heads/main").mkdir()),
     "refs/heads/main is a directory"),
    ("repo-ref-garbage", lambda b, t: (b / "refs/heads/main").write_text("not a commit\n"),
     "refs/heads/main does not hold a commit id"),
    ("repo-ref-self", lambda b, t: (b / "refs/heads/main").write_text("ref: refs/heads/main\n"),
     "refs/heads/main: symbolic refs nest too deep"),
    ("repo-head-fifo", lambda b, t: fifo(b / "HEAD"), "HEAD is a FIFO"),
    ("repo-head-devzero", lambda b, t: symlink(b / "HEAD", "/dev/zero"), "HEAD is a symbolic link"),
    ("repo-objects-fifo", lambda b, t: (shutil.rmtree(b / "objects"), fifo(b / "objects")), "objects is a FIFO"),
    ("repo-objects-dir-link", objects_dir_link, "is a symbolic link"),
    ("repo-object-fifo", lambda b, t: fifo(loose_object(b, head_sha(b))), "git rev-list did not finish within 3 s"),
    ("repo-object-devzero", lambda b, t: symlink(loose_object(b, head_sha(b)), "/dev/zero"), "git rev-list: "),
    ("repo-object-sparse", lambda b, t: sparse(loose_object(b, head_sha(b))), "git rev-list: "),
    ("repo-alternates-elsewhere", alternates_elsewhere, "git rev-list: "),
    ("repo-pack-index-fifo", lambda b, t: fifo(next(packed(b).glob("objects/pack/*.idx"))),
     "git rev-list did not finish within 3 s"),
    ("repo-pack-sparse", lambda b, t: sparse(next(packed(b).glob("objects/pack/*.pack"))), "git rev-list: "),
    ("repo-history-5001", lambda b, t: fast_import(b, 5001),
     "its history has more than 5000 commits; the grader reads at most 5000"),
    ("repo-huge-subject", lambda b, t: fast_import(b, 1, message=lambda i: "s" * (20 * 1024 * 1024)),
     "git rev-list printed more than 16777216 bytes"),
    ("repo-tracked-history-too-large", lambda b, t: fast_import(
        b, 140, files=lambda i: {"waves/config.yaml": (f"# {i}\n" + "x" * 250_000).encode()}),
     "its tracked files add up to"),
]


@pytest.mark.parametrize(("case", "change", "detail"), REPO_REFUSED, ids=[c[0] for c in REPO_REFUSED])
def test_bare_repo_refused(host, tmp_path, case, change, detail):
    bare = host / "srv" / "bare" / "src.git"
    change(bare, tmp_path)
    answer = run(case, "repo", 10, path=str(bare), timeout=3)
    assert answer["problem"] == "unreadable"
    assert detail in answer["detail"]
    assert CANARY not in answer["detail"]


REPO_IGNORED = [
    ("repo-config-fifo", lambda b, t: fifo(b / "config")),
    ("repo-config-include-devzero", lambda b, t: (b / "config").write_text("[include]\n\tpath = /dev/zero\n")),
    ("repo-commondir-fifo", lambda b, t: fifo(b / "commondir")),
    ("repo-alternates-fifo", lambda b, t: fifo(b / "objects" / "info" / "alternates")),
    ("repo-alternates-devzero", lambda b, t: symlink(b / "objects" / "info" / "alternates", "/dev/zero")),
    ("repo-grafts-fifo", lambda b, t: ((b / "info").mkdir(exist_ok=True), fifo(b / "info" / "grafts"))),
    ("repo-shallow-fifo", lambda b, t: fifo(b / "shallow")),
    ("repo-commit-graph-fifo", lambda b, t: fifo(b / "objects" / "info" / "commit-graph")),
    ("repo-other-ref-fifo", lambda b, t: fifo(b / "refs" / "heads" / "other")),
    ("repo-packed-by-gc", lambda b, t: packed(b)),  # not hostile: refs in packed-refs, objects in a pack
]


@pytest.mark.parametrize(("case", "change"), REPO_IGNORED, ids=[c[0] for c in REPO_IGNORED])
def test_bare_repo_files_git_would_read_are_not_read(host, tmp_path, case, change):
    bare = host / "srv" / "bare" / "src.git"
    change(bare, tmp_path)
    answer = run(case, "repo", 10, path=str(bare), timeout=3)
    assert answer["problem"] is None and answer["commits"] == 5  # golden.yaml's five commits


REPO_SHAPES = [
    ("repo-path-fifo", lambda b: (shutil.rmtree(b), fifo(b)), "not_a_repo"),
    ("repo-path-devzero", lambda b: (shutil.rmtree(b), symlink(b, "/dev/zero")), "not_a_repo"),
    ("repo-path-link-loop", lambda b: (shutil.rmtree(b), link_loop(b)), "unreadable"),
    ("repo-not-bare", lambda b: (b / ".git").mkdir(), "not_bare"),
    ("repo-no-main", lambda b: (b / "refs/heads/main").rename(b / "refs/heads/other"), "no_branch"),
]


@pytest.mark.parametrize(("case", "change", "problem"), REPO_SHAPES, ids=[c[0] for c in REPO_SHAPES])
def test_bare_repo_shapes(host, case, change, problem):
    bare = host / "srv" / "bare" / "src.git"
    change(bare)
    assert run(case, "repo", 10, path=str(bare), timeout=3)["problem"] == problem


def test_long_history_is_read_completely(host):
    bare = host / "srv" / "bare" / "src.git"
    fast_import(bare, 5000, files=lambda i: {"waves/config.yaml": f"mode: {i % 7}\n".encode()})
    answer = run("repo-history-5000", "repo", 15, path=str(bare))
    assert (answer["problem"], answer["commits"]) == (None, 5000)


def test_many_files_are_cut_with_a_flag(host):
    bare = host / "srv" / "bare" / "src.git"
    fast_import(bare, 1, files=lambda i: {f"waves/f{n}.yaml": b"a: 1\n" for n in range(2000)})
    answer = run("repo-many-files", "repo", 10, path=str(bare))
    assert (answer["problem"], answer["tree"], answer["truncated"]) == (None, 300, True)


# ------------------------------------------------------------------ the grader's kubeconfig


def token_file(content_maker):
    def change(config, host):
        path = host / "token"
        content_maker(path)
        user = config["users"][0]["user"]
        del user["token"]
        user["tokenFile"] = str(path)
    return change


def user_field(key, value):
    def change(config, host):
        config["users"][0]["user"][key] = value
    return change


KUBECONFIG_REFUSED = [
    ("kube-token-newline", user_field("token", CANARY + "\n"), "the token has whitespace or a control character"),
    ("kube-token-inner-newline", user_field("token", CANARY + "\nX-Evil: 1"),
     "the token has whitespace or a control character"),
    ("kube-tokenfile-fifo", token_file(fifo), "token is a FIFO"),
    ("kube-tokenfile-devzero", token_file(lambda p: symlink(p, "/dev/zero")), "token is a character device"),
    ("kube-tokenfile-sparse", token_file(sparse), f"token is too large ({GiB} > 65536 bytes)"),
    ("kube-exec-plugin", lambda c, h: c["users"][0]["user"].update(exec={
        "apiVersion": "client.authentication.k8s.io/v1", "command": "touch", "args": [str(h / "exec-ran")]}),
     "uses an exec plugin; the grader only uses a token or client-certificate kubeconfig and runs no command"),
    ("kube-auth-provider", user_field("auth-provider", {"name": "oidc", "config": {"id-token": CANARY}}),
     "uses an auth-provider plugin"),
    ("kube-ca-fifo", lambda c, h: (fifo(h / "ca.crt"),
                                   c["clusters"][0]["cluster"].update({"certificate-authority": str(h / "ca.crt")})),
     "ca.crt is a FIFO"),
    ("kube-client-key-sparse", lambda c, h: (sparse(h / "key.pem"), c["users"][0]["user"].update(
        {"client-key": str(h / "key.pem"), "client-certificate": str(h / "key.pem")})), "key.pem is too large"),
]


@pytest.mark.parametrize(("case", "change", "detail"), KUBECONFIG_REFUSED, ids=[c[0] for c in KUBECONFIG_REFUSED])
def test_kubeconfig_refused_without_leaking(host, case, change, detail):
    edit_kubeconfig(host, change)
    answer = run(case, "cluster", 10, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert answer["problem"] == "kubeconfig"
    assert detail in answer["detail"]
    assert not (host / "exec-ran").exists()


KUBECONFIG_FILE = [
    ("kube-config-fifo", fifo, "kubeconfig is a FIFO"),
    ("kube-config-devzero", lambda p: symlink(p, "/dev/zero"), "kubeconfig is a character device"),
    ("kube-config-sparse", sparse, f"kubeconfig is too large ({GiB} > 1048576 bytes)"),
    ("kube-config-alias-bomb", lambda p: p.write_text(alias_bomb()), "uses YAML aliases that expand"),
    ("kube-config-not-a-mapping", lambda p: p.write_text("- a\n"), "not a kubeconfig (no mapping)"),
]


@pytest.mark.parametrize(("case", "make", "detail"), KUBECONFIG_FILE, ids=[c[0] for c in KUBECONFIG_FILE])
def test_kubeconfig_file_refused(host, case, make, detail):
    make(host / "kubeconfig")
    answer = run(case, "cluster", 10, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert answer["problem"] == "kubeconfig"
    assert detail in answer["detail"]


def test_token_file_with_a_newline_is_trimmed_like_client_go(host):
    edit_kubeconfig(host, token_file(lambda p: p.write_text(CANARY + "\n")))
    answer = run("kube-tokenfile-newline", "cluster", 10, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert answer["problem"] is None and answer["requests"] == 2


def test_health_gate_names_the_bad_token_without_it(host):
    edit_kubeconfig(host, user_field("token", CANARY + "\n"))
    answer = run("kube-health-token-newline", "health", 10, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert answer["healthy"] is False
    assert "the token has whitespace or a control character" in answer["problems"][0]["detail"]


def test_rejected_token_is_not_quoted(host):
    state = json.loads((host / "cluster.json").read_text())
    state["token"] = "another-token"
    (host / "cluster.json").write_text(json.dumps(state))
    answer = run("kube-token-rejected", "cluster", 10, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert (answer["problem"], answer["detail"]) == ("unauthorized", "GET /api/v1/namespaces/src-helm/configmaps: 401")


# ------------------------------------------------------------------ a hostile or broken API server

API = [
    ("api-trickle", ("trickle", 0.4), "got no complete answer before the 3 s deadline for all reads", 6),
    ("api-stall", ("stall", 30), "Read timed out", 4),
    ("api-cut", ("cut", 0), "the server closed the connection in the middle of the answer", 4),
    ("api-flood", ("flood", 30), "the answer has more than 33554432 bytes", 6),
]


@pytest.mark.parametrize(("case", "fault", "detail", "bound"), API, ids=[c[0] for c in API])
def test_api_server_misbehaves(host, case, fault, detail, bound):
    set_fault(host, *fault)
    answer = run(case, "cluster", bound, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert answer["problem"] in ("unreachable", "api")
    assert detail in answer["detail"]


def test_api_server_hangs_up(host):
    state = json.loads((host / "cluster.json").read_text())
    state["reachable"] = False
    (host / "cluster.json").write_text(json.dumps(state))
    answer = run("api-hangup", "cluster", 4, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert answer["problem"] == "unreachable"
    assert answer["detail"].endswith("the server closed the connection without an answer")


def test_health_gate_on_a_trickling_server(host):
    set_fault(host, "trickle", 0.4)
    answer = run("api-health-trickle", "health", 6, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert answer["healthy"] is False
    assert answer["problems"][0]["probe"] == "api_server"
    assert "deadline" in answer["problems"][0]["detail"]


def test_huge_api_answer_is_refused(host):
    state = json.loads((host / "cluster.json").read_text())
    state["objects"].append({"apiVersion": "v1", "kind": "ConfigMap", "data": {"big": "x" * (33 * 1024 * 1024)},
                             "metadata": {"name": "big", "namespace": "src-helm", "uid": "u-big",
                                          "resourceVersion": "1", "creationTimestamp": "2026-11-29T09:00:00Z"}})
    (host / "cluster.json").write_text(json.dumps(state))
    answer = run("api-huge-list", "cluster", 10, kubeconfig=str(host / "kubeconfig"), timeout=2)
    assert (answer["problem"], answer["detail"]) == (
        "api", "GET /api/v1/namespaces/src-helm/configmaps: the answer has more than 33554432 bytes")


# ------------------------------------------------------------------ end to end through capa-src


def e2e(host, case, bound=20, timeout=5):
    answer = run(case, "grade", bound, host_dir=str(host), timeout=timeout)
    statuses = {status for status, _ in answer["checks"].values()}
    return answer, statuses


def workspace_file(host, name):
    return host / "root" / "capa-src" / name


def test_e2e_alias_bomb_in_an_application_file(host):
    workspace_file(host, "app-src-helm.yaml").write_text(alias_bomb())
    answer, _ = e2e(host, "e2e-app-alias-bomb")
    status, message = answer["checks"]["capa-src.1.app-file"]
    assert status == "FAIL"
    assert message.endswith("app-src-helm.yaml is not valid YAML: uses YAML aliases that expand to more than "
                            "100000 nodes")


def test_e2e_fifo_evidence_file(host):
    fifo(workspace_file(host, "precedence.json"))
    answer, statuses = e2e(host, "e2e-evidence-fifo")
    status, message = answer["checks"]["capa-src.2.precedence-replicas"]
    assert (status, message) == ("FAIL", f"{workspace_file(host, 'precedence.json')} is not a regular file")
    assert "ERROR" not in statuses


def test_e2e_packed_refs_fifo(host):
    fifo(host / "srv" / "bare" / "src.git" / "packed-refs")
    answer, statuses = e2e(host, "e2e-packed-refs-fifo")
    status, message = answer["checks"]["capa-src.1.bare-repo"]
    assert status == "FAIL" and message.endswith("cannot be read: packed-refs is a FIFO")
    assert "ERROR" not in statuses


def test_e2e_clone_include_of_a_secret_file(host, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text(f"[remote \"origin\"]\n\turl = /{CANARY}\n")
    config = workspace_file(host, "repo/.git/config")
    config.write_text(config.read_text() + f"[include]\n\tpath = {secret}\n")
    answer, statuses = e2e(host, "e2e-clone-include-secret")
    assert answer["checks"]["capa-src.1.clone-origin"][0] == "PASS"
    assert statuses == {"PASS"}


def test_e2e_long_history_fails_with_the_reason(host):
    fast_import(host / "srv" / "bare" / "src.git", 5001)
    answer, statuses = e2e(host, "e2e-history-5001")
    status, message = answer["checks"]["capa-src.1.bare-repo"]
    assert status == "FAIL" and message.endswith("its history has more than 5000 commits; the grader reads at most 5000")
    assert "ERROR" not in statuses


def test_e2e_token_with_a_newline_is_an_error_without_the_token(host):
    edit_kubeconfig(host, user_field("token", CANARY + "\n"))
    answer, _ = e2e(host, "e2e-token-newline")
    status, message = answer["checks"]["capa-src.1.live-app"]
    assert status == "ERROR" and "the token has whitespace or a control character" in message
    assert answer["error"]["kind"] == "kubeconfig"


def test_e2e_trickling_api_server(host):
    set_fault(host, "trickle", 0.4)
    answer, _ = e2e(host, "e2e-api-trickle", bound=8, timeout=1)
    status, message = answer["checks"]["capa-src.1.live-app"]
    assert status == "ERROR" and "deadline" in message
    assert answer["checks"]["capa-src.1.bare-repo"][0] == "PASS"  # what the grader could read is still judged


def set_values_object(host, value, extra_line=""):
    """app-src-helm.yaml with spec.source.helm.valuesObject = value (plus a raw YAML line in it)."""
    path = workspace_file(host, "app-src-helm.yaml")
    documents = list(yaml.safe_load_all(path.read_text()))
    documents[0]["spec"]["source"]["helm"]["valuesObject"] = value
    text = yaml.safe_dump_all(documents)
    path.write_text(text.replace("valuesObject:\n", f"valuesObject:\n        {extra_line}\n") if extra_line else text)


@pytest.mark.parametrize(("case", "line"), [
    ("e2e-yaml-date-key", "2026-01-01: 2026-01-02"),
    ("e2e-yaml-binary-key", "? !!binary aGk=\n        : x"),
    ("e2e-yaml-set-value", "s: !!set {a}"),
], ids=["date-key", "binary-key", "set-value"])
def test_e2e_non_json_yaml_in_values_is_judged(host, case, line):
    set_values_object(host, {"replicas": 3}, line)
    answer, statuses = e2e(host, case)
    assert "ERROR" not in statuses
    assert answer["checks"]["capa-src.2.app-file-values"][0] == "FAIL"


def test_e2e_kubeconfig_copied_into_the_workspace(host):
    shutil.copy(host / "kubeconfig", workspace_file(host, "app-src-helm.yaml"))
    answer, statuses = e2e(host, "e2e-kubeconfig-as-app-file")
    assert answer["checks"]["capa-src.1.app-file"][0] == "FAIL"
    assert "ERROR" not in statuses


def test_e2e_deep_values_leave_the_module_bounded(host):
    deep = "leaf"
    for _ in range(60):
        deep = {"d": deep}
    set_values_object(host, deep)
    answer, _ = e2e(host, "e2e-deep-found")
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import BOUND_DEPTH, depth

    assert depth(answer["full"], 100) <= BOUND_DEPTH + 8
