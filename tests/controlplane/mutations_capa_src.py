"""capa-src's mistakes, each applied to a solved learner on the real control plane and undone
afterwards: mutation -> (how, {check id: the start of its message, <root> for the learner's root}).
test_labs_plane.py grades each and asserts that exactly these checks flip; docs/mutations.md is
generated from this table (tests/controlplane/mutations_doc.py)."""

from __future__ import annotations

from labflow import edited


def mutation_replicas_as_string(plane, learner):
    return edited(learner.workspace / "precedence.json", '"replicas": 3', '"replicas": "3"')


MUTATIONS = {
    "precedence.json replicas as a string": (mutation_replicas_as_string, {
        "capa-src.2.precedence-replicas": "precedence.json replicas: the JSON type must be number"}),
}
