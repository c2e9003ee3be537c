"""The cgoa-ci Lab object: its id, title, steps, declared reads, messages, what it owns and its
reference solution. The checks register themselves on it (step<N>_*.py, imported in step order by
__init__.py)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import Lab, Owned
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.messages import (
    HINTS,
    MESSAGES,
    STEP_TITLES,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.reads import READS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import APP, CI_NS, DRYRUN_NS, PROD_NS

lab = Lab(
    "cgoa-ci",
    {"en": "CI validates, git gates, Argo CD deploys", "ja": "CI が検証し、Git が守り、Argo CD がデプロイする",
     "ko": "CI가 검증하고 Git이 막고 Argo CD가 배포한다"},
    STEP_TITLES,
    READS,
    MESSAGES,
    HINTS,
    Owned(applications=(APP,), namespaces=(PROD_NS, DRYRUN_NS, CI_NS)),
)
