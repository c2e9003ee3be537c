"""python -m labworld record: a world recorded from a materialized world (served by the fake API
server) replays to the same grade, check by check, message by message; recording reads only
(the source's files are unchanged, the API got GETs and the lab's declared reviews) and copies no
token."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import grade
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.reads import ACCESS

from labworld import WorldError
from labworld.__main__ import main
from labworld.materialize import materialize
from tests.conftest import REPO_ROOT
from tests.grader.conftest import host_collector

KNOWN_LABS = ", ".join(sorted(LABS))  # as settings.unknown_lab_message lists them

# (world, the labs it is graded for): each lab's golden and classic mistakes, the other shapes
# of capa-src (nothing done, half done, mid-sync, retrying, garbage files), both labs at once;
# capa-drift's judge the paths each commit changes (RepoState.changed), whatever the grader reads.
RECORDED = [
    ("capa-src/golden.yaml", ("capa-src",)),
    ("capa-src/classic-mistakes.yaml", ("capa-src",)),
    ("capa-src/empty.yaml", ("capa-src",)),
    ("capa-src/half-done.yaml", ("capa-src",)),
    ("capa-src/mid-sync.yaml", ("capa-src",)),
    ("capa-src/step6-retrying.yaml", ("capa-src",)),
    ("capa-src/garbage.yaml", ("capa-src",)),
    ("capa-src/argo-equivalents.yaml", ("capa-src",)),
    ("capa-src/broken-cluster.yaml", ("capa-src",)),
    ("cgoa-ci/golden.yaml", ("cgoa-ci",)),
    ("cgoa-ci/classic-mistakes.yaml", ("cgoa-ci",)),
    ("cgoa-ci/empty.yaml", ("cgoa-ci",)),
    ("capa-drift/golden.yaml", ("capa-drift",)),
    ("capa-drift/classic-mistakes.yaml", ("capa-drift",)),
    ("capa-drift/half-done.yaml", ("capa-drift",)),
    ("demo/both-mistakes.yaml", ("capa-src", "cgoa-ci")),
]


def site_args(host_dir: Path) -> list[str]:
    args = ["--kubeconfig", str(host_dir / "kubeconfig"), "--k3s-kubeconfig", str(host_dir / "kubeconfig"),
            "--workspace-root", str(host_dir / "root"), "--bare-root", str(host_dir / "srv" / "bare")]
    if (host_dir / "probes.json").exists():
        args += ["--probe-replay", str(host_dir / "probes.json")]
    return args


def record_host(host_dir: Path, labs, out: Path) -> Path:
    argv = ["record", *[a for lab in labs for a in ("--lab", lab)], "--out", str(out), *site_args(host_dir)]
    assert main(argv) == 0
    return out


def original_ids(replay: Path, source: Path) -> dict[str, str]:
    """{replay's commit id: source's}: a recorded commit's id in the world is its original short id."""
    def original(repo, label):
        return subprocess.run(["git", "--git-dir", str(source / "srv" / "bare" / f"{repo}.git"), "rev-parse",
                               "--verify", f"{label}^{{commit}}"], capture_output=True, text=True,
                              check=True).stdout.strip()
    rebuilt = json.loads((replay / "labworld.json").read_text())["repos"]
    return {new: original(repo, label) for repo, spec in rebuilt.items() for label, new in spec["commits"].items()}


def verdicts(fake_api, host_dir: Path, labs, commits=None) -> dict:
    """{check: (status, message, hint)} with the host's own paths and server URL written alike
    (and `commits`' ids replaced: {rebuilt sha: original sha})."""
    server = f"{fake_api.url}/h/{host_dir.name}"

    def same(text):
        if not isinstance(text, str):
            return text
        for new, old in (commits or {}).items():
            text = text.replace(new, old).replace(new[:7], old[:7])
        return text.replace(str(host_dir), "<host>").replace(server, "<server>")

    out = {}
    for lab_id in labs:
        result = grade(LABS[lab_id], host_collector(host_dir, lab_id), "en", 0, 1)
        for step in result["steps"]:
            for check in step["checks"]:
                out[check["check"]] = (check["status"], same(check["message"]), same(check.get("hint")))
    return out


def digest(root: Path) -> dict:
    """Every file, link and directory under root (the fake API server's log aside)."""
    entries = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = str(path.relative_to(root))
            st = path.lstat()
            if path.is_symlink():
                entries[rel] = ("link", os.readlink(path))
            elif path.is_file() and rel != "requests.log":
                entries[rel] = (oct(st.st_mode), hashlib.sha256(path.read_bytes()).hexdigest())
            elif path.is_dir():
                entries[rel] = (oct(st.st_mode), "dir")
    return entries


@pytest.mark.parametrize(("world", "labs"), RECORDED, ids=[w for w, _ in RECORDED])
def test_the_replay_of_a_recording_grades_as_the_original(fake_api, tmp_path, world, labs):
    source = fake_api.world(world)
    original = verdicts(fake_api, source, labs)
    assert {status for status, _, _ in original.values()} != {"ERROR"}
    recorded = record_host(source, labs, tmp_path / "world.yaml")
    replay = fake_api.root / f"{source.name}-replay"
    materialize(recorded, replay.name, fake_api.root, fake_api.url)
    assert verdicts(fake_api, replay, labs, original_ids(replay, source)) == original


def git(*args, cwd):
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "l",
           "GIT_AUTHOR_EMAIL": "l@x", "GIT_COMMITTER_NAME": "l", "GIT_COMMITTER_EMAIL": "l@x"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def test_shapes_a_learner_leaves_replay_as_they_were(fake_api, tmp_path):
    """A clone ahead of origin, evidence with Jinja-looking text, a directory for a file, a
    script without its execute bit, a link inside the workspace (followed) and one to a missing
    file, a hook that is not executable."""
    source = fake_api.world("cgoa-ci/golden.yaml")
    workspace = source / "root" / "cgoa-ci"
    git("commit", "-q", "--allow-empty", "-m", "local only", cwd=workspace / "repo")
    report = json.loads((workspace / "report.json").read_text())
    (workspace / "report.json").write_text(json.dumps({**report, "gate": "{{ pre-receive }} {% raw %} {#"}))
    (workspace / "app.yaml").unlink()
    (workspace / "app.yaml").mkdir()
    (workspace / "bump.sh").chmod(0o644)
    (workspace / "kubeconfig").unlink()
    (workspace / "my-kubeconfig").write_text((workspace / "ci-kubeconfig").read_text())  # a file the lab does not read
    (workspace / "kubeconfig").symlink_to(workspace / "my-kubeconfig")
    (workspace / "blocked.txt").unlink()
    (workspace / "blocked.txt").symlink_to(workspace / "no-such-file")
    (source / "srv/bare/ci.git/hooks/pre-receive").chmod(0o600)
    original = verdicts(fake_api, source, ["cgoa-ci"])
    for check in ("6.clone-reset", "8.gate", "1.app-file", "7.bump-script", "3.argocd-kubeconfig", "6.blocked-transcript",
                  "5.hook-file"):
        assert original[f"cgoa-ci.{check}"][0] == "FAIL", check
    replay = fake_api.root / f"{source.name}-replay"
    materialize(record_host(source, ["cgoa-ci"], tmp_path / "world.yaml"), replay.name, fake_api.root, fake_api.url)
    assert verdicts(fake_api, replay, ["cgoa-ci"], original_ids(replay, source)) == original


def only_master(bare: Path) -> None:
    git("init", "-q", "--bare", "-b", "master", str(bare), cwd=bare.parent)
    work = bare.parent / "work"
    git("clone", "-q", str(bare), str(work), cwd=bare.parent)
    git("commit", "-q", "--allow-empty", "-m", "on master", cwd=work)
    git("push", "-q", "origin", "HEAD:master", cwd=work)


@pytest.mark.parametrize(("make", "check", "message"), [
    (only_master, "1.bare-repo", "<host>/srv/bare/ci.git has no branch main (branches: master)"),
    (lambda bare: (bare / ".git").mkdir(parents=True), "1.bare-repo",
     "<host>/srv/bare/ci.git is not a bare repository (create it with git init --bare)"),
    (lambda bare: bare.write_text("not a repo"), "1.bare-repo", "<host>/srv/bare/ci.git is not a git repository"),
    (lambda bare: os.mkfifo(bare.parents[2] / "root" / "cgoa-ci" / "report.json"), "8.ci-writes",
     "<host>/root/cgoa-ci/report.json is not a regular file"),
], ids=["no main", "not bare", "a file", "a FIFO for a workspace file"])
def test_broken_repos_and_special_files_replay_as_they_were(fake_api, tmp_path, make, check, message):
    """What the grader reports about the bare repo's path replays (the grader names the branch
    there is); a FIFO is recorded without being opened, and replayed as a FIFO."""
    source = fake_api.world("cgoa-ci/empty.yaml")
    (source / "srv" / "bare").mkdir(parents=True, exist_ok=True)
    (source / "root" / "cgoa-ci").mkdir(parents=True, exist_ok=True)
    make(source / "srv" / "bare" / "ci.git")
    original = verdicts(fake_api, source, ["cgoa-ci"])
    recorded = record_host(source, ["cgoa-ci"], tmp_path / "world.yaml")
    replay = fake_api.root / f"{source.name}-replay"
    materialize(recorded, replay.name, fake_api.root, fake_api.url)
    found = verdicts(fake_api, replay, ["cgoa-ci"])
    assert original[f"cgoa-ci.{check}"][:2] == ("FAIL", message)
    assert found == original


def repo_shape(host_dir: Path, lab_id: str, names: dict[str, str]) -> dict:
    """The bare repo as the grader reads it, commit ids written as `names` says."""
    repo = host_collector(host_dir, lab_id)().repo
    return {names.get(sha, sha): ([names.get(p, p) for p in commit["parents"]], commit["time"], commit["subject"],
                                  repo.history[sha]) for sha, commit in repo.commits.items()}


def test_a_history_with_merges_replays_with_its_parents(fake_api, tmp_path):
    """A side branch from an older commit, merged into main: each commit keeps its parents (the
    world's `parents`), and its tracked files."""
    source = fake_api.world("capa-src/golden.yaml")
    clone = source / "root" / "capa-src" / "repo"
    git("checkout", "-q", "-b", "side", "HEAD~3", cwd=clone)
    (clone / "waves" / "config.yaml").parent.mkdir(exist_ok=True)
    (clone / "waves" / "config.yaml").write_text("side: true\n")
    git("add", "-A", cwd=clone)
    git("commit", "-q", "-m", "side", cwd=clone)
    git("checkout", "-q", "main", cwd=clone)
    git("merge", "-q", "--no-ff", "-X", "ours", "-m", "merge side", "side", cwd=clone)
    git("push", "-q", "origin", "main", cwd=clone)
    original = verdicts(fake_api, source, ["capa-src"])
    recorded = record_host(source, ["capa-src"], tmp_path / "world.yaml")
    commits = yaml.safe_load(recorded.read_text())["repos"]["src"]["commits"]
    assert [c["message"] for c in commits if "parents" in c] == ["side", "merge side"]
    replay = fake_api.root / f"{source.name}-replay"
    materialize(recorded, replay.name, fake_api.root, fake_api.url)
    names = original_ids(replay, source)
    assert repo_shape(replay, "capa-src", names) == repo_shape(source, "capa-src", {})
    assert verdicts(fake_api, replay, ["capa-src"], names) == original


def test_the_golden_replays_pass_and_the_mistakes_replay_their_failures(fake_api, tmp_path):
    """The comparison above means something: the replays are graded, not errored."""
    for world, lab, failing in (("cgoa-ci/golden.yaml", "cgoa-ci", set()),
                                ("cgoa-ci/classic-mistakes.yaml", "cgoa-ci",
                                 {"cgoa-ci.4.validate-rejects-string-replicas", "cgoa-ci.8.ci-can-write-prod"})):
        source = fake_api.world(world)
        replay = fake_api.root / f"{source.name}-replay"
        materialize(record_host(source, [lab], tmp_path / f"{source.name}.yaml"), replay.name, fake_api.root,
                    fake_api.url)
        found = verdicts(fake_api, replay, [lab])
        assert len(found) == len(LABS[lab].checks)
        assert failing <= {check for check, (status, _, _) in found.items() if status == "FAIL"}
        assert bool(failing) == any(status != "PASS" for status, _, _ in found.values())


def test_recording_reads_only_and_sends_gets_and_the_declared_reviews(fake_api, tmp_path):
    source = fake_api.world("cgoa-ci/golden.yaml")
    before = digest(source)
    (source / "requests.log").unlink(missing_ok=True)
    record_host(source, ["cgoa-ci"], tmp_path / "world.yaml")
    assert digest(source) == before
    requests = [json.loads(line) for line in (source / "requests.log").read_text().splitlines()]
    methods = {(r["method"], r["path"]) for r in requests if r["method"] != "GET"}
    assert methods == {("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews"),
                       ("POST", "/apis/authentication.k8s.io/v1/tokenreviews")}
    assert sum(r["method"] == "POST" for r in requests) == len(ACCESS) + 1  # a SubjectAccessReview each, 1 TokenReview
    assert sum(r["method"] == "GET" for r in requests) == 6 + 5  # the lab's GETs, the health gate's


def test_no_token_is_copied_into_the_world(fake_api, tmp_path):
    source = fake_api.world("cgoa-ci/golden.yaml")
    bump = source / "root/cgoa-ci/bump.sh"  # a token of a kubeconfig the lab does not read, in a script
    bump.write_text(bump.read_text() + "# kubectl --token eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2VjcmV0LXNpZ25hdHVyZQ\n")
    learner = source / "root/cgoa-ci/kubeconfig"
    config = yaml.safe_load(learner.read_text())
    config["users"][0]["user"].update({"client-key-data": "c2VjcmV0LWtleQ==", "password": "hunter2-secret"})
    learner.write_text(yaml.safe_dump(config))
    text = record_host(source, ["cgoa-ci"], tmp_path / "world.yaml").read_text()
    ci_token = yaml.safe_load((source / "root/cgoa-ci/ci-kubeconfig").read_text())["users"][0]["user"]["token"]
    header, claims, signature = ci_token.split(".")
    assert signature not in text
    assert f"token: {header}.{claims}.labworld-redacted-signature" in text  # the claims the grader reads
    assert f"labworld-{source.name}-token" not in text
    assert "c2VjcmV0LXNpZ25hdHVyZQ" not in text
    assert "c2VjcmV0LWtleQ" not in text and "hunter2" not in text
    assert sorted(re.findall(r"(client-key-data|password): labworld-redacted-\d+\n", text)) == [
        "client-key-data", "password"]
    assert "--token eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.labworld-redacted-signature" in text
    assert "token: labworld-{{ host }}-token" in text  # the grader's own token is the replay's


def test_commit_ids_become_templates_of_the_rebuilt_commits(fake_api, tmp_path):
    source = fake_api.world("cgoa-ci/golden.yaml")
    world = yaml.safe_load(record_host(source, ["cgoa-ci"], tmp_path / "world.yaml").read_text())
    shas = json.loads((source / "labworld.json").read_text())["repos"]["ci"]["commits"]
    assert [c["id"] for c in world["repos"]["ci"]["commits"]] == [shas[c][:7] for c in ("baseline", "broken", "revert",
                                                                                         "bump")]
    head = shas["bump"][:7]
    assert world["files"]["root/cgoa-ci/repo/.git/refs/heads/main"] == {"text": f"{{{{ sha('ci', '{head}') }}}}\n"}
    app = next(o for o in world["cluster"]["objects"] if o["kind"] == "Application")
    assert app["status"]["sync"]["revision"] == f"{{{{ sha('ci', '{head}') }}}}"


@pytest.mark.parametrize(("argv", "message"), [
    (["--lab", "capa-sr"], f"labworld: error: unknown lab capa-sr (did you mean capa-src?); known labs: {KNOWN_LABS}"),
    (["--lab", "cgoa-ci", "--kubeconfig", "/nonexistent/kubeconfig"],
     "labworld: error: kubeconfig: the kubeconfig /nonexistent/kubeconfig does not exist"),
    (["--lab", "cgoa-ci", "--api-timeout", "0"],
     "labworld: error: --api-timeout must be more than 0 and at most 600 seconds"),
    (["--lab", "cgoa-ci", "--time-budget", "3601"],
     "labworld: error: --time-budget must be more than 0 and at most 3600 seconds"),
    (["--lab", "cgoa-ci", "--workspace-root", "root"], "labworld: error: --workspace-root must be an absolute path"),
    (["--lab", "cgoa-ci", "--probe-replay", "/nonexistent/probes.json"],
     "labworld: error: --probe-replay /nonexistent/probes.json: No such file or directory"),
    (["--lab", "cgoa-ci", "--probe-replay", "{tmp}/probes.json"],
     "labworld: error: --probe-replay {tmp}/probes.json: Expecting value: line 1 column 1 (char 0)"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, message):
    (tmp_path / "probes.json").write_text("not JSON")
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    assert main(["record", *argv, "--out", str(tmp_path / "world.yaml")]) == 2
    assert capsys.readouterr().err == message.replace("{tmp}", str(tmp_path)) + "\n"
    assert not (tmp_path / "world.yaml").exists()


def test_the_recorder_runs_where_ansible_is_not_installed(fake_api, tmp_path):
    """A learner VM has the grader's Python libraries, not Ansible: the grader's module_utils are
    imported under a package of the recorder's own; the world is the one recorded with Ansible."""
    source = fake_api.world("cgoa-ci/golden.yaml")
    with_ansible = record_host(source, ["cgoa-ci"], tmp_path / "with.yaml")
    code = ("import sys; sys.modules['ansible'] = None; from labworld.__main__ import main; "
            "sys.exit(main(sys.argv[1:]))")
    argv = ["record", "--lab", "cgoa-ci", "--out", str(tmp_path / "without.yaml"), *site_args(source)]
    result = subprocess.run([sys.executable, "-c", code, *argv], cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr

    def body(path):
        return [line for line in path.read_text().splitlines() if "recorded by python -m labworld" not in line]
    assert body(tmp_path / "without.yaml") == body(with_ansible)


def test_parents_name_earlier_commits(tmp_path):
    world = tmp_path / "world.yaml"
    world.write_text(yaml.safe_dump({"repos": {"src": {"commits": [
        {"id": "a"}, {"id": "b", "parents": ["a", "c"]}, {"id": "c"}]}}}))
    with pytest.raises(WorldError) as raised:
        materialize(world, "h", tmp_path / "out", "http://127.0.0.1:1")
    assert str(raised.value) == (f"{world}: repos.src.commits[1].parents: a list of ids of earlier commits "
                                 "(its files change the first one)")


def test_objects_replay_verbatim_even_with_merge_markers_and_braces(fake_api, tmp_path):
    """An object's keys and values that the world format would read as its own (`$delete`,
    `{{ ... }}`) are served again as they were."""
    source = fake_api.world("cgoa-ci/golden.yaml")
    state = json.loads((source / "cluster.json").read_text())
    web = next(o for o in state["objects"] if o["kind"] == "Deployment")
    web["metadata"]["labels"]["$delete"] = "true"
    web["metadata"]["annotations"]["note"] = "{{ not jinja }} {% raw %} {# #}"
    (source / "cluster.json").write_text(json.dumps(state))
    replay = fake_api.root / f"{source.name}-replay"
    materialize(record_host(source, ["cgoa-ci"], tmp_path / "world.yaml"), replay.name, fake_api.root, fake_api.url)
    names = {new[:7]: old[:7] for new, old in original_ids(replay, source).items()}
    replayed = next(o for o in json.loads((replay / "cluster.json").read_text())["objects"] if o["kind"] == "Deployment")
    assert json.loads(re.sub("|".join(names), lambda m: names[m.group(0)], json.dumps(replayed))) == web
