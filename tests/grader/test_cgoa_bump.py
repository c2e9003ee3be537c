"""cgoa-ci's bump.sh probe runs the learner's real script (on a fixture world, no API server
needed) in a sandbox with kubectl/argocd replaced by traps, a fresh clone of the bare repo's copy,
and the copy's main one commit ahead of the clone: the right script passes, and each plausible
wrong one fails with the requirement it misses. The real bare repo is never written."""

from __future__ import annotations

import time

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site, collector
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import LabBudget
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci import probe_cases
from test_cgoa_probes import refs_and_objects

LAB = LABS["cgoa-ci"]
CHECK = "cgoa-ci.7.bump-script"
HEAD = "#!/usr/bin/env bash\nset -euo pipefail\ntag=${1:?usage: bump.sh <tag>}\ncd {repo}\n"
SYNC = "git fetch -q origin\ngit reset -q --hard origin/main\n"
EDIT = 'sed -i "s#image: nginx:.*#image: nginx:$tag#" deploy/web.yaml\n'
COMMIT = 'git commit -q -am "ci: web nginx:$tag"\n'
PUSH = "git push -q origin main\n"
GOOD = HEAD + SYNC + EDIT + COMMIT + PUSH


def grade_with(host, budget_seconds=60):
    site = Site(bare_root=str(host / "srv" / "bare"), workspace_root=str(host / "root"), k3s_kubeconfig=str(host / "kubeconfig"))
    collect = collector(LAB, site, str(host / "kubeconfig"), timeout=5, budget=LabBudget(LAB, budget_seconds, budget_seconds))
    state = collect()
    return state, {c["check"]: c for c in LAB.judge(state, "en")}


def bump_with(fake_api, text):
    host = fake_api.world("cgoa-ci/golden.yaml")
    (host / "probes.json").unlink()  # run the probes for real
    script = host / "root" / "cgoa-ci" / "bump.sh"
    script.write_text(text.replace("{repo}", str(host / "root" / "cgoa-ci" / "repo")))
    before = refs_and_objects(host / "srv" / "bare" / "ci.git")
    started = time.monotonic()
    state, checks = grade_with(host)
    assert time.monotonic() - started < 120
    assert refs_and_objects(host / "srv" / "bare" / "ci.git") == before  # the real repository is never written
    return state.probes["bump"], checks[CHECK]


def test_the_lab_solution_passes(fake_api):
    run, check = bump_with(fake_api, GOOD)
    # The same words whatever tag the run chose: grading twice gives the same verdicts.
    assert (check["status"], check["message"]) == (
        "PASS",
        'bump.sh <tag> (run with a tag chosen by the grader) pushed one commit "ci: web nginx:<tag>" on the '
        "remote's current main that sets only the web container's image to nginx:<tag>, and called no cluster tool",
    )
    assert run["seconds"] < 10


# Scripts a learner could write that do the job another way: each must pass.
RIGHT = {
    "git pull instead of fetch and reset": HEAD + "git pull -q origin main\n" + EDIT + COMMIT + PUSH,
    "a comment that mentions kubectl": GOOD.replace("set -euo", "# never kubectl set image: Argo CD deploys\nset -euo"),
    "a fresh clone of the repository's origin": (
        '#!/bin/sh\nset -e\nwork=$(mktemp -d)\ngit clone -q "$(git -C {repo} remote get-url origin)" "$work"\n'
        'cd "$work"\n' + EDIT.replace("$tag", "$1") + COMMIT.replace("$tag", "$1") + PUSH
    ),
    "push without naming the branch": HEAD + SYNC + EDIT + COMMIT + "git push -q\n",
}


@pytest.mark.parametrize("kind", list(RIGHT))
def test_other_right_scripts_pass(fake_api, kind):
    _, check = bump_with(fake_api, RIGHT[kind])
    assert check["status"] == "PASS", check["message"]


LAB_IMAGE = "bump.sh {tag} set the web container's image to nginx:1.28-alpine, expected nginx:{tag} (the tag given as $1)"


def committed_with(message):
    return f'bump.sh {{tag}} committed with the message "{message}", expected "ci: web nginx:{{tag}}"'


def tag_from(expression):
    return GOOD.replace("tag=${1:?usage: bump.sh <tag>}", f"tag={expression}")


def message(text):
    return GOOD.replace('"ci: web nginx:$tag"', text)


# (script, expected message: {tag}, {remote} and {clone} filled from the run; a trailing "..."
# means the message starts so). At least three wrong scripts per requirement.
WRONG = {
    # writes the given tag
    "hard-coded tag": (
        GOOD.replace('nginx:$tag#"', 'nginx:1.28-alpine#"'),
        LAB_IMAGE,
    ),
    "tag from a variable with the lab's default": (
        tag_from("${TAG:-1.28-alpine}"),
        LAB_IMAGE,
    ),
    "the tag from $2": (
        tag_from("${2:-1.28-alpine}"),
        LAB_IMAGE,
    ),
    "sed over every image": (
        GOOD.replace("s#image: nginx:.*#", "s#image: .*#"),
        "bump.sh {tag} changed more than the web container's image in deploy/web.yaml: "
        "spec.template.spec.initContainers[0].image",
    ),
    "sed that breaks YAML": (
        GOOD.replace("#image: nginx:$tag#", "#image:nginx:$tag#"),
        "deploy/web.yaml of the commit bump.sh {tag} pushed no longer parses as YAML with Deployment web",
    ),
    "file rewritten from a template": (
        HEAD + SYNC + "cat > deploy/web.yaml <<EOF\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
        "spec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n"
        "      labels:\n        app: web\n    spec:\n      containers:\n        - name: web\n"
        "          image: nginx:$tag\nEOF\n" + COMMIT + PUSH,
        "bump.sh {tag} changed more than the web container's image in deploy/web.yaml: metadata.labels, "
        "spec.replicas, spec.template.spec.initContainers",
    ),
    # commits with the message ci: web nginx:<tag>
    "hard-coded message": (
        message('"ci: web nginx:1.28-alpine"'),
        committed_with("ci: web nginx:1.28-alpine"),
    ),
    "another message": (
        message('"bump web to $tag"'),
        committed_with("bump web to {tag}"),
    ),
    "the tag without the image name": (
        message('"ci: web $tag"'),
        committed_with("ci: web {tag}"),
    ),
    # starts from the remote's current main
    "no fetch": (HEAD + EDIT + COMMIT + PUSH, "bump.sh {tag} pushed nothing to the remote's main (exit code 1; ..."),
    "no fetch, forced push": (
        HEAD + EDIT + COMMIT + "git push -q -f origin main\n",
        "bump.sh {tag} committed on the clone's old main {clone} and overwrote the remote's "
        "main {remote}, which had moved ahead: fetch and start from origin/main",
    ),
    "fetch without reset, forced push": (
        HEAD + "git fetch -q origin\n" + EDIT + COMMIT + "git push -q -f origin main\n",
        "bump.sh {tag} committed on the clone's old main {clone} and overwrote the "
        "remote's main {remote}, which had moved ahead: fetch and start from "
        "origin/main",
    ),
    # pushes (to main)
    "push to another branch": (
        GOOD.replace("git push -q origin main", "git push -q origin HEAD:bump-$tag"),
        "bump.sh {tag} left the remote's main where it was and updated refs/heads/bump-{tag}: push to main",
    ),
    "no push": (HEAD + SYNC + EDIT + COMMIT, "bump.sh {tag} pushed nothing to the remote's main (exit code 0; ..."),
    "commit without adding the file": (
        GOOD.replace("git commit -q -am", "git commit -q -m"),
        "bump.sh {tag} pushed nothing to the remote's main (exit code 1; ...",
    ),
    # never calls the cluster
    "kubectl set image as well": (
        GOOD + "kubectl -n ci-web set image deployment/web web=nginx:$tag\n",
        "bump.sh {tag} called kubectl -n ci-web set image deployment/web web=nginx:{tag}: CI "
        "writes git only, Argo CD deploys (a stand-in recorded the call; nothing reached a "
        "cluster)",
    ),
    "argocd app sync": (
        GOOD + "argocd app sync ci-web --core\n",
        "bump.sh {tag} called argocd app sync ci-web --core: CI writes git only, Argo CD deploys (a "
        "stand-in recorded the call; nothing reached a cluster)",
    ),
    "a hard refresh through kubectl": (
        GOOD + "kubectl -n argocd annotate app ci-web argocd.argoproj.io/refresh=hard --overwrite\n",
        "bump.sh {tag} called kubectl -n argocd annotate app ci-web argocd.argoproj.io/refresh=hard --overwrite: CI "
        "writes git only, Argo CD deploys (a stand-in recorded the call; nothing reached a cluster)",
    ),
    "kubectl found through env": (
        GOOD + "/usr/bin/env kubectl -n ci-web get deployment web\n",
        "bump.sh {tag} called kubectl -n ci-web get deployment web: CI writes git only, Argo CD deploys (a stand-in "
        "recorded the call; nothing reached a cluster)",
    ),
    # a job that reports success
    "fails after the push": (
        GOOD + "exit 3\n",
        "bump.sh {tag} pushed the right commit but exited with code 3: a CI job would be reported failed",
    ),
}


@pytest.mark.parametrize("kind", list(WRONG))
def test_wrong_scripts_fail_with_what_they_miss(fake_api, kind):
    text, expected = WRONG[kind]
    run, check = bump_with(fake_api, text)
    assert run["tag"] in probe_cases.BUMP_TAGS and run["tag"] != "1.28-alpine"
    expected = expected.format(tag=run["tag"], remote=run["remote_main"][:7], clone=run["clone_main"][:7])
    assert check["status"] == "FAIL"
    if expected.endswith("..."):
        assert check["message"].startswith(expected[:-3]), check["message"]
    else:
        assert check["message"] == expected


def test_a_bump_sh_that_hangs_is_a_bounded_fail(fake_api, monkeypatch):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks import probes

    monkeypatch.setattr(probes, "SCRIPT_TIMEOUT", 1.0)
    run, check = bump_with(fake_api, GOOD + "sleep 600\n")
    assert (check["status"], check["message"]) == ("FAIL", f"bump.sh {run['tag']} was stopped (timed out) before it finished")


def test_a_hostile_bump_sh_changes_nothing_real(fake_api):
    """bump.sh runs on copies only: writing the workspace, deleting the bare repo's refs and
    pushing a forged main change nothing the grader or the learner keeps (bump_with asserts the
    real bare repo; here the workspace too)."""
    hostile = HEAD.replace("cd {repo}\n", "") + (
        "echo forged > {repo}/../report.json\nrm -rf {repo}/../../../srv/bare/ci.git/refs\n"
        "cd {repo} && git commit -q --allow-empty -m forged && git push -q -f origin HEAD:main\n"
    )
    host = fake_api.world("cgoa-ci/golden.yaml")
    report = host / "root" / "cgoa-ci" / "report.json"
    before = report.read_text()
    (host / "probes.json").unlink()
    (host / "root" / "cgoa-ci" / "bump.sh").write_text(hostile.replace("{repo}", str(host / "root" / "cgoa-ci" / "repo")))
    bare_before = refs_and_objects(host / "srv" / "bare" / "ci.git")
    state, checks = grade_with(host)
    assert (checks[CHECK]["status"], checks[CHECK]["message"].split(" (exit code")[0]) == (
        "FAIL",
        f"after bump.sh {state.probes['bump']['tag']} the remote has no main branch any more",
    )
    assert report.read_text() == before
    assert refs_and_objects(host / "srv" / "bare" / "ci.git") == bare_before
