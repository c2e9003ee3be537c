"""checks/git.py: the learner's clone must fetch from and push to the lab's bare repo."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import clone_origin_verdict
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import Site
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.gitstate import CloneState
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import Declared, LabState


def state_with(clone):
    return LabState(Site(), "/root/ci", "/srv/bare/src.git", Declared(), None, clone, None, Declared())


def test_origin_and_push_url_at_the_bare_repo_pass():
    clone = CloneState("/root/ci/repo", remotes={"origin": "/srv/bare/src.git"},
                       push_urls={"origin": ["git://gitd.gitsrv.svc.cluster.local:9418/src.git"]})
    assert clone_origin_verdict(state_with(clone)).status == "PASS"


def test_a_push_url_elsewhere_fails():
    clone = CloneState("/root/ci/repo", remotes={"origin": "/srv/bare/src.git"},
                       push_urls={"origin": ["/tmp/elsewhere.git"]})
    verdict = clone_origin_verdict(state_with(clone))
    assert (verdict.status, verdict.key, verdict.found) == ("FAIL", "push_url_mismatch", ["/tmp/elsewhere.git"])
