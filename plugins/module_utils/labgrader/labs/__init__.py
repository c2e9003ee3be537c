"""The labs this grader knows: one object per lab, listed here with plain imports so that
AnsiballZ ships them with the module (no importlib lookups). Adding a lab: its package in this
folder (labs/<id>/, whose `lab` is the Lab object) and one line below; its solution (labs/<id>/solution.py)
is listed in solutions/registry.py, which nothing here imports (a learner's VM must not receive it)
(docs/adding-a-lab.md)."""

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import capa_drift, capa_src, cgoa_ci

LABS = {module.lab.id: module.lab for module in (capa_src, cgoa_ci, capa_drift)}

for _lab in LABS.values():
    i18n.register(_lab)
