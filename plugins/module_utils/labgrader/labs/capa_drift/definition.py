"""The capa-drift Lab object: its id, title, steps, declared reads, messages and what it owns (the
root before its children, so that nothing re-creates them while reset deletes them). The
checks register themselves on it (step<N>_*.py, imported in step order by __init__.py)."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import Lab, Owned
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.messages import (
    HINTS,
    MESSAGES,
    STEP_TITLES,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.reads import READS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import (
    CHILD_NAMESPACES,
    CHILDREN,
    FENCE_CHILDREN,
    FENCE_NAMESPACE,
    NAMESPACES,
    PATHS,
    PROJECT,
    ROOT,
)

lab = Lab(
    "capa-drift",
    {"en": "Drift: git is the source of truth only in both directions",
     "ja": "ドリフト: 双方向に同期して初めて Git が唯一の正となる",
     "ko": "드리프트: 양방향으로 동기화해야 Git이 유일한 기준이 된다"},
    STEP_TITLES,
    READS,
    MESSAGES,
    HINTS,
    Owned(applications=(ROOT, *CHILDREN, *FENCE_CHILDREN, *PATHS),
          namespaces=(*NAMESPACES.values(), *CHILD_NAMESPACES.values(), FENCE_NAMESPACE), projects=(PROJECT,)),
)
