"""The labs' reference solutions (labs/<id>/solution.py), by lab id.

They are listed here, not on the Lab objects: lab_grade and the learner's `lab check`
run on the learner's VM, and AnsiballZ ships every module the Lab imports, so a Lab that carried
its solution would hand each learner the answers with every grading run. Only lab_solve (an
instructor's playbooks/solve.yml) imports this registry; tests/grader/test_solutions.py proves
that nothing a learner's VM receives reaches it, and that every lab of LABS has its solution here.
"""

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift import solution as capa_drift
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_src import solution as capa_src
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.cgoa_ci import solution as cgoa_ci

# lab id -> one function per step
SOLUTIONS = {"capa-src": capa_src.STEPS, "cgoa-ci": cgoa_ci.STEPS, "capa-drift": capa_drift.STEPS}
