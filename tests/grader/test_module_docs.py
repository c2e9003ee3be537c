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


def documented_options(module):
    """The module's options with those of its doc fragments, as ansible-doc merges them."""
    documentation = yaml.safe_load(module.DOCUMENTATION)
    options = {}
    for fragment in documentation.get("extends_documentation_fragment", []):
        if (ROOT / "plugins" / "doc_fragments" / f"{fragment}.py").exists():
            fragment_module = load_plugin(f"plugins/doc_fragments/{fragment}.py", f"labfragment_{fragment}")
        else:  # one of ansible-core's own
            fragment_module = importlib.import_module(f"ansible.plugins.doc_fragments.{fragment}")
        options.update(yaml.safe_load(fragment_module.ModuleDocFragment.DOCUMENTATION).get("options") or {})
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
def test_ansible_doc_reads_the_module(name):
    ansible_doc = Path(sys.executable).with_name("ansible-doc")
    result = subprocess.run([str(ansible_doc), "-M", str(ROOT / "plugins" / "modules"), name],
                            capture_output=True, text=True, timeout=120, cwd=ROOT, env={"ANSIBLE_NOCOLOR": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"> MODULE {name} ({ROOT}/plugins/modules/{name}.py)")
    assert "ERROR" not in result.stderr
