"""The lab_* inventory variables -> lab module options mapping (plugins/filter/lab_options.py),
said once for module_defaults and the recorder."""

from __future__ import annotations

import pytest

from tests.conftest import load_plugin

lab_options_filter = load_plugin("plugins/filter/lab_options.py", "lab_options_filter_under_test")
lab_options = lab_options_filter.lab_options


def test_each_site_option_is_set_by_its_lab_variable_and_only_when_defined():
    variables = {"lab_bare_root": "/data/srv/bare", "lab_gitd_namespace": "git", "lab_helm_binary": "/opt/helm",
                 "lab_grader_kubeconfig": "/etc/lab-grader/kubeconfig", "inventory_hostname": "learner01"}
    assert lab_options(variables, "site") == {"bare_root": "/data/srv/bare", "gitd_namespace": "git"}
    assert lab_options(variables, "tools") == {"helm_binary": "/opt/helm"}
    assert lab_options(variables, "reader") == {"kubeconfig": "/etc/lab-grader/kubeconfig"}
    assert lab_options(variables, "site", "reader") == {"bare_root": "/data/srv/bare", "gitd_namespace": "git",
                                                          "kubeconfig": "/etc/lab-grader/kubeconfig"}
    assert lab_options({}, "site", "tools", "reader", "admin") == {}


def test_the_kubeconfig_is_the_variable_of_whose_kubeconfig_it_is():
    variables = {"lab_grader_kubeconfig": "/grader", "lab_admin_kubeconfig": "/admin", "lab_kubectl": ["k3s", "kubectl"]}
    assert lab_options(variables, "reader") == {"kubeconfig": "/grader"}
    assert lab_options(variables, "admin") == {"kubeconfig": "/admin", "kubectl": ["k3s", "kubectl"]}


def test_an_unknown_group_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown group 'sites'; known: site, tools, reader, admin"):
        lab_options({}, "sites")


def test_the_groups_are_the_action_groups_options():
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import SITE_OPTIONS, TOOL_OPTIONS

    assert set(lab_options_filter.GROUPS["site"]) == set(SITE_OPTIONS)
    assert set(lab_options_filter.GROUPS["tools"]) == set(TOOL_OPTIONS)


def test_cli_args_are_long_options_with_their_values():
    assert lab_options_filter.cli_args({"bare_root": "/srv/x", "api_timeout": 5}) == \
        ["--bare-root", "/srv/x", "--api-timeout", "5"]


@pytest.mark.parametrize(("value", "labs"), [
    (None, ["capa-src"]), (["cgoa-ci"], ["cgoa-ci"]), ("capa-src, cgoa-ci,", ["capa-src", "cgoa-ci"]), ("", []),
])
def test_enrolled_labs(value, labs):
    assert lab_options_filter.enrolled_labs(value) == labs


def test_the_labs_lookup_names_every_lab_of_the_registry_in_its_order():
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS

    labs_lookup = load_plugin("plugins/lookup/labs.py", "labs_lookup_under_test")
    assert labs_lookup.LookupModule().run([]) == list(LABS)
