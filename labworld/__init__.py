"""labworld: declarative fixture worlds for the lab grader.

A *world* is one YAML file describing a learner VM: bare git repos, workspace files and the
Kubernetes objects the API server would return. ``python -m labworld materialize`` builds it on
disk and ``python -m labworld serve`` answers Kubernetes API requests from it.
See docs/fixture-format.md.
"""

class WorldError(Exception):
    """A world file (or class file) is invalid; the message names the file and the field."""
