"""Lab cgoa-ci: a broken commit reaches the reconciler, a CI identity that cannot write prod,
server-side dry-run validation, a pre-receive gate, CI writes git and CD writes the cluster.

Specification: shared/labs/cgoa-ci.md. The final state is graded: a check for step N accepts
what later steps legitimately changed (step 7 bumps the image to nginx:1.28-alpine).

The lab's parts: definition.py (the Lab object), spec.py (the names the specification gives),
messages.py, reads.py (what it reads from the API server), probe_cases.py and probes.py (the
inputs and runs of the learner's programs in the sandbox), history.py, application.py and
scripts.py (facts several checks share), step<N>_*.py (the checks, one module per group of steps
from step N, imported in step order so the checks keep their order) and solution.py (the
reference solution, listed in solutions/registry.py, not imported here)."""

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci import (  # noqa: F401 - importing registers the checks
    step1_deploy,
    step3_identity,
    step4_gate,
    step5_hook,
    step6_blocked,
    step7_delivery,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.probe_cases import (
    FEATURE_BRANCHES,
    PROBE_OBJECTS,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci.spec import (
    APP,
    CI_NS,
    DRYRUN_NS,
    PROD_NS,
    VALIDATOR,
)

# What tests and the plane's mutation tables name (the Deployments the probes create, the
# namespaces, the Application, the CI identity, the probes' branch names).
__all__ = ["APP", "CI_NS", "DRYRUN_NS", "FEATURE_BRANCHES", "PROBE_OBJECTS", "PROD_NS", "VALIDATOR", "lab"]
