"""Every module documents exactly the options it accepts, and ansible-doc can read it."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import load_plugin

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p.stem for p in (ROOT / "plugins" / "modules").glob("*.py"))
COLLECTION = "gitops_lab.grader"


def load(name):
    return load_plugin(f"plugins/modules/{name}.py", f"labmodule_{name}")


class Captured(Exception):
    pass


def argument_spec_of(module):
    """Run the module's main() with an AnsibleModule stand-in that captures the spec."""
    captured = {}

    class Spy:
        def __init__(self, argument_spec, **kwargs):
            captured.update(argument_spec)
            raise Captured

    module.AnsibleModule = Spy
    with pytest.raises(Captured):
        module.main()
    return captured


def fragment_documentation(name):
    """The YAML of a doc fragment by the name a module extends: gitops_lab.grader.lab_site[.part]
    (this collection's, part DOCUMENTATION unless named) or one of ansible-core's own."""
    if name.startswith(COLLECTION + "."):
        file, _, part = name[len(COLLECTION) + 1:].partition(".")
        fragment_module = load_plugin(f"plugins/doc_fragments/{file}.py", f"labfragment_{file}")
        return getattr(fragment_module.ModuleDocFragment, (part or "documentation").upper())
    return importlib.import_module(f"ansible.plugins.doc_fragments.{name}").ModuleDocFragment.DOCUMENTATION


def documented_options(module):
    """The module's options with those of its doc fragments, as ansible-doc merges them."""
    documentation = yaml.safe_load(module.DOCUMENTATION)
    options = {}
    for fragment in documentation.get("extends_documentation_fragment", []):
        options.update(yaml.safe_load(fragment_documentation(fragment)).get("options") or {})
    options.update(documentation["options"])
    return options


@pytest.mark.parametrize("name", MODULES)
def test_documentation_matches_argument_spec(name):
    module = load(name)
    documented = documented_options(module)
    spec = argument_spec_of(module)
    assert sorted(documented) == sorted(spec)
    for option, doc in documented.items():
        assert doc.get("type", "str") == spec[option].get("type", "str"), option
        assert doc.get("default") == spec[option].get("default"), option
        assert doc.get("required", False) == spec[option].get("required", False), option
        assert doc.get("choices") == spec[option].get("choices"), option
        assert doc.get("elements") == spec[option].get("elements"), option
        assert doc.get("description"), option


@pytest.mark.parametrize("name", MODULES)
def test_examples_and_return_are_yaml(name):
    module = load(name)
    assert yaml.safe_load(module.EXAMPLES)
    assert isinstance(yaml.safe_load(module.RETURN), dict)


@pytest.mark.parametrize("name", MODULES)
def test_ansible_doc_reads_the_module(name, tmp_path):
    """By its FQCN, from a folder that is not the checkout (no ansible.cfg there): the collection is
    found through collections/ (ANSIBLE_COLLECTIONS_PATH, as for a collection installed there)."""
    ansible_doc = Path(sys.executable).with_name("ansible-doc")
    result = subprocess.run([str(ansible_doc), f"{COLLECTION}.{name}"], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path, env={"ANSIBLE_NOCOLOR": "1", "HOME": str(tmp_path),
                                               "ANSIBLE_COLLECTIONS_PATH": str(ROOT / "collections")})
    assert result.returncode == 0, result.stderr
    where = ROOT / "collections" / "ansible_collections" / "gitops_lab" / "grader" / "plugins" / "modules"
    assert result.stdout.startswith(f"> MODULE {COLLECTION}.{name} ({where}/{name}.py)")
    assert "ERROR" not in result.stderr and "WARNING" not in result.stderr, result.stderr


def test_the_fragment_documents_the_defaults_of_site_defaults():
    """The defaults said once in Python (site_defaults.py) and once in the documentation."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import site_defaults

    for part, spec in (("", site_defaults.SITE_OPTIONS), (".tools", site_defaults.TOOL_OPTIONS),
                       (".cluster", site_defaults.CLUSTER_OPTIONS)):
        options = yaml.safe_load(fragment_documentation(f"{COLLECTION}.lab_site{part}"))["options"]
        assert {name: doc.get("default") for name, doc in options.items()} == \
            {name: option["default"] for name, option in spec.items()}, part
