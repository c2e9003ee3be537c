"""Every translation table a person reads, in the one shape {key: {lang: text}}: the tests of
words, glossary and catalogue walk these, so a new table is added here once."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.lab_command import command_texts
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import LEARNER_TEXTS, REPORT_TEXTS

# Tables of titles and labels: names, not sentences (no sentence ending is asked of them).
TITLE_TABLES = {"lab title", "step title", "report label", "learner report label"}


def tables():
    """{table name: {key: {lang: text}}}; importing LABS has added the labs' messages and hints."""
    found = {"message": i18n.MESSAGES, "hint": i18n.HINTS,
             "lab title": {lab.id: lab.title for lab in LABS.values()},
             "report label": REPORT_TEXTS, "learner report label": LEARNER_TEXTS, "lab command": command_texts()}
    found["step title"] = {f"{lab.id} {step}": titles for lab in LABS.values()
                           for step, titles in lab.step_titles.items()}
    return found


def texts(langs):
    """(where, lang, template) for every entry of every table in `langs`; `where` names the table
    and the key and ends with " title" for a title or label (and `lab`'s usage synopsis)."""
    found = []
    for name, table in tables().items():
        for key, entry in table.items():
            title = name in TITLE_TABLES or (name, key) == ("lab command", "usage")
            found += [(f"{name} {key}" + (" title" if title else ""), lang, i18n.pick(entry, lang)) for lang in langs]
    return found
