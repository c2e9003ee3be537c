"""docs/mutations.md is what the mutation tables say, README's table of labs is what the registry
says, and every check of every lab is either flipped by a mutation on the real control plane or
listed with the reason no mutation flips it.
The tables are found by path (mutations_doc.table_path: tests/controlplane/mutations_<lab>.py)."""

from __future__ import annotations

import sys

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "tests" / "controlplane"))
import mutations_doc

MIN_MUTATIONS = 30  # issue 12 §4


def test_docs_mutations_md_is_generated_from_the_tables():
    assert mutations_doc.DOC.read_text(encoding="utf-8") == mutations_doc.render(), (
        "docs/mutations.md is stale: .venv/bin/python tests/controlplane/mutations_doc.py --write")


def test_readme_labs_table_is_generated_from_the_registry():
    assert mutations_doc.README.read_text(encoding="utf-8") == mutations_doc.readme(), (
        "README.md's table of labs is stale: .venv/bin/python tests/controlplane/mutations_doc.py --write")


def test_there_are_enough_mutations_across_the_labs():
    assert sum(len(mutations) for mutations, _ in mutations_doc.tables().values()) >= MIN_MUTATIONS


@pytest.mark.parametrize("lab_id", list(LABS))
def test_every_check_is_flipped_or_explained_never_both(lab_id):
    mutations, unflipped = mutations_doc.table(lab_id)
    checks = {check.id for check in LABS[lab_id].checks}
    flipped = {check for _, expected in mutations.values() for check in expected}
    assert flipped <= checks, flipped - checks
    assert set(unflipped) <= checks, set(unflipped) - checks
    assert flipped & set(unflipped) == set()
    assert flipped | set(unflipped) == checks, checks - flipped - set(unflipped)
    assert all(reason.strip() for reason in unflipped.values())
