"""Lab cgoa-ci: a broken commit reaches the reconciler, a CI identity that cannot write prod,
server-side dry-run validation, a pre-receive gate, CI writes git and CD writes the cluster.

Specification: shared/labs/cgoa-ci.md. The final state is graded: a check for step N accepts
what later steps legitimately changed (step 7 bumps the image to nginx:1.28-alpine).

The package: `lab.py` the Lab object; `spec.py` the names the specification gives; `messages.py`
titles, messages and hints; `reads.py` what it reads from the API server; `probe_cases.py` and
`probes.py` the inputs and runs of the learner's programs in the sandbox; `history.py`,
`application.py` and `scripts.py` the facts several checks share; `checks_deploy.py` (steps 1-2),
`checks_identity.py` (3), `checks_gate.py` (4-6) and `checks_delivery.py` (7-8) the checks,
imported here in step order so that they register on the lab in that order.
"""

from __future__ import annotations

# The check modules in step order: each registers its checks on the lab as it is imported, and the
# lab judges them in that order.
# isort: off
from ansible.module_utils.labgrader.labs.cgoa_ci import checks_deploy, checks_identity  # noqa: F401
from ansible.module_utils.labgrader.labs.cgoa_ci import checks_gate, checks_delivery  # noqa: F401
# isort: on
from ansible.module_utils.labgrader.labs.cgoa_ci.lab import lab
from ansible.module_utils.labgrader.labs.cgoa_ci.probe_cases import FEATURE_BRANCHES, PROBE_OBJECTS
from ansible.module_utils.labgrader.labs.cgoa_ci.spec import APP, CI_NS, DRYRUN_NS, PROD_NS, VALIDATOR

# What tests and the plane's mutation tables name (the Deployments the probes create, the
# namespaces, the Application, the CI identity, the probes' branch names).
__all__ = ["APP", "CI_NS", "DRYRUN_NS", "FEATURE_BRANCHES", "PROBE_OBJECTS", "PROD_NS", "VALIDATOR", "lab"]
