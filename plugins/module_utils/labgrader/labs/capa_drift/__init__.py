"""Lab capa-drift: git is the source of truth only when reconciliation runs both ways. Eight
Applications, one per phenomenon of the lecture, so that a later step cannot erase an earlier
step's proof (docs/capa-drift-design.md). Specification: shared/labs/capa-drift.md; the learner's
text: docs/labs/capa-drift.{en,ja,ko}.md.
The lab's parts: definition.py (the Lab object), spec.py (the names the specification gives),
messages.py, reads.py (files, repository, 14 GET requests), application.py (the Applications and
git facts several steps share), step<N>_*.py (the checks, imported in step order so they keep
their order). Its reference solution (solution.py) is listed in solutions/registry.py, never
imported here."""

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift import (  # noqa: F401 - importing registers the checks
    step1_oneway,
    step2_heal,
    step3_prune,
    step4_health,
    step5_hpa,
    step6_oos,
    step7_apps,
    step8_fence,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import (
    CHILDREN,
    FENCE_CHILDREN,
    NAMESPACES,
    PROJECT,
    ROOT,
)

__all__ = ["CHILDREN", "FENCE_CHILDREN", "NAMESPACES", "PROJECT", "ROOT", "lab"]
