"""lab_options: the lab modules' options a host's lab_* inventory variables set, for a play's
module_defaults and the recorder; cli_args: options as a program's --name value arguments;
enrolled_labs: lab_enrolled as the list of lab ids. The mapping from inventory variables to
options is said here once: option O is set by variable lab_O, the kubeconfig by the variable of
whose kubeconfig it is. An unset variable sets nothing, so the module's documented default
(plugins/doc_fragments/lab_site.py) applies."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import (
    DEFAULT_LABS,
    SITE_OPTIONS,
    TOOL_OPTIONS,
    enrolled,
)

# The action groups of meta/runtime.yml (site, tools) and the options only some modules take.
GROUPS = {
    "site": tuple(SITE_OPTIONS),
    "tools": tuple(TOOL_OPTIONS),
    "reader": ("k3s_kubeconfig", "probe_replay"),  # how lab_grade and the recorder read the VM
    "admin": ("kubectl", "argocd"),  # how lab_solve changes it
}
KUBECONFIG_VARIABLES = {"reader": "lab_grader_kubeconfig", "admin": "lab_admin_kubeconfig"}


def lab_options(variables, *groups):
    """{option: value} of every option of `groups` whose inventory variable `variables` defines."""
    options = {}
    for group in groups:
        if group not in GROUPS:
            raise ValueError(f"lab_options: unknown group {group!r}; known: {', '.join(GROUPS)}")
        wanted = {f"lab_{option}": option for option in GROUPS[group]}
        if group in KUBECONFIG_VARIABLES:
            wanted[KUBECONFIG_VARIABLES[group]] = "kubeconfig"
        options.update({option: variables[variable] for variable, option in wanted.items() if variable in variables})
    return options


def cli_args(options):
    """['--bare-root', '/data/srv/bare', ...]: each option as a long option and its value."""
    args = []
    for name, value in options.items():
        args += ["--" + name.replace("_", "-"), str(value)]
    return args


def enrolled_labs(value):
    """lab_enrolled as a list of lab ids (a list, or a comma-separated string from -e); None, an
    unset lab_enrolled, is the default labs."""
    return list(DEFAULT_LABS) if value is None else enrolled(value)


class FilterModule:
    def filters(self):
        return {"lab_options": lab_options, "cli_args": cli_args, "enrolled_labs": enrolled_labs}
