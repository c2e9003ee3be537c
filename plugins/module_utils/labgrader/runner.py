"""What every grading module does: parse the common options, grade, exit. Never writes."""

from __future__ import annotations

from ansible.module_utils.labgrader.grading import grade
from ansible.module_utils.labgrader.i18n import LANGUAGES


def argument_spec(workspace_default):
    return {
        "workspace": {"type": "path", "default": workspace_default},
        "bare_root": {"type": "path", "default": "/srv/bare"},
        "kubeconfig": {"type": "path", "default": "/etc/rancher/k3s/k3s.yaml"},
        "argocd_namespace": {"type": "str", "default": "argocd"},
        "lang": {"type": "str", "default": "en", "choices": list(LANGUAGES)},
        "settle_timeout": {"type": "float", "default": 30},
        "poll_interval": {"type": "float", "default": 5},
        "api_timeout": {"type": "float", "default": 10},
        "max_file_bytes": {"type": "int", "default": 1024 * 1024},
    }


def run_grading_module(module_class, lab_module):
    """`lab_module` exposes `lab` (a grading.Lab), `collect(...)` and `WORKSPACE`."""
    module = module_class(argument_spec=argument_spec(lab_module.WORKSPACE), supports_check_mode=True)
    params = module.params
    for name in ("settle_timeout", "poll_interval", "api_timeout"):
        if params[name] < 0 or params[name] > 600:
            module.fail_json(msg=f"{name} must be between 0 and 600 seconds, got {params[name]}", changed=False)
    if params["api_timeout"] == 0:
        module.fail_json(msg="api_timeout must be more than 0 seconds", changed=False)
    if params["poll_interval"] == 0 and params["settle_timeout"] > 0:
        module.fail_json(msg="poll_interval must be more than 0 when settle_timeout is set", changed=False)

    def collect():
        return lab_module.collect(params["workspace"], params["bare_root"], params["kubeconfig"],
                                  timeout=params["api_timeout"], argocd_namespace=params["argocd_namespace"],
                                  max_bytes=params["max_file_bytes"])

    result = grade(lab_module.lab, collect, params["lang"], params["settle_timeout"], params["poll_interval"])
    module.exit_json(**result)
