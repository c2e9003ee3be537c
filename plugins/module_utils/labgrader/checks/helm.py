"""What Helm does with a chart in git, as Argo CD renders it (the rendering itself:
checks/repo_server.py helm_template): the chart's name and where a rendered template came from.
Value precedence, as Argo CD passes them (docs/user-guide/helm.md; util/helm/cmd.go template()):
parameters (--set) > valuesObject/values (last --values) > valueFiles > the chart's values.yaml."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.workspace import parse_yaml_text


def chart_name(tree, chart_dir):
    """`name` of <chart_dir>/Chart.yaml in a {path: text} tree, or None."""
    chart, _ = parse_yaml_text(tree.get(f"{chart_dir}/Chart.yaml") or "")
    return dig(chart[0], "name") if chart and isinstance(chart[0], dict) else None


def template_path(source, name, chart_dir):
    """The repository path of a rendered template: helm names it <chart name>/templates/<file>
    (its `# Source:` line), the chart being `chart_dir` in git."""
    if isinstance(source, str) and isinstance(name, str) and source.startswith(name + "/"):
        return f"{chart_dir}/{source[len(name) + 1:]}"
    return source or chart_dir
