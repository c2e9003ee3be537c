"""Lab capa-src: Helm value precedence, resource tracking, Kustomize overrides, sync waves and
hooks, a failed PreSync hook, ignoreDifferences + RespectIgnoreDifferences.

Specification: shared/labs/capa-src.md. The final state is graded: a check for step N accepts
what later steps legitimately changed (step 2 adds Helm values, step 6 adds commits, step 7
scales prod-api to 4).

The lab's parts: definition.py (the Lab object, its reads and Applications), messages.py,
step<N>_*.py (the checks, one module per step or group of steps from step N, imported in step order so the
checks keep their order) and solution.py (the reference solution, listed in solutions/registry.py, not imported here)."""

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src import (  # noqa: F401 - importing registers the checks
    step1_helm,
    step4_kustomize,
    step5_waves,
    step6_failed_hook,
    step7_ignore,
    step8_report,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src.definition import lab

__all__ = ["lab"]
