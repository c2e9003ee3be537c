"""The repository is the collection gitops_lab.grader: `ansible-galaxy collection build` makes a
tarball of its plugins, roles and playbooks without the test suite, and what it installs is
found by FQCN from any directory; the checkout's playbooks also run from another directory."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.playbook

BIN = Path(sys.executable).parent
GALAXY = yaml.safe_load((REPO_ROOT / "galaxy.yml").read_text())
FQCN = f"{GALAXY['namespace']}.{GALAXY['name']}"
MODULES = sorted(p.stem for p in (REPO_ROOT / "plugins" / "modules").glob("*.py"))
# What the repository holds but the collection does not: the tests, their worlds, the venv, the
# link back to the checkout.
NOT_SHIPPED = ("tests/", "fixtures/", ".venv/", "collections/", "molecule/", "controlplane/", "playbooks/collections")


def run(argv, cwd, **env):
    result = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=cwd, capture_output=True, text=True, timeout=300,
                            env={"HOME": str(cwd), "ANSIBLE_NOCOLOR": "1", "PATH": "/usr/bin:/bin", **env})
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The tarball ansible-galaxy builds from the checkout, and its member names."""
    out = tmp_path_factory.mktemp("build")
    run(["ansible-galaxy", "collection", "build", str(REPO_ROOT), "--output-path", str(out)], cwd=out)
    [tarball] = out.glob("*.tar.gz")
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
    return tarball, names


def test_the_tarball_holds_the_plugins_roles_and_playbooks(built):
    tarball, names = built
    assert tarball.name == f"{GALAXY['namespace']}-{GALAXY['name']}-{GALAXY['version']}.tar.gz"
    expected = {"MANIFEST.json", "meta/runtime.yml", "plugins/callback/grade_matrix.py",
                "plugins/doc_fragments/lab_site.py", "plugins/filter/lab_options.py", "plugins/filter/lab_options.yml",
                "plugins/module_utils/labgrader/site_defaults.py", "playbooks/grade.yml", "grade.yml",
                "roles/grader_runtime/tasks/main.yml", "labworld/record.py"}
    expected |= {f"plugins/modules/{name}.py" for name in MODULES}
    assert expected <= set(names)


def test_the_tarball_holds_no_tests_fixtures_or_venv(built):
    _, names = built
    assert [name for name in names if name.startswith(NOT_SHIPPED) or "__pycache__" in name] == []


def test_an_installed_collection_is_found_by_fqcn_from_any_directory(built, tmp_path):
    tarball, _ = built
    installed = tmp_path / "installed"
    run(["ansible-galaxy", "collection", "install", str(tarball), "-p", str(installed)], cwd=tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = installed / "ansible_collections" / GALAXY["namespace"] / GALAXY["name"]
    for name in MODULES:
        result = run(["ansible-doc", f"{FQCN}.{name}"], cwd=elsewhere, ANSIBLE_COLLECTIONS_PATH=str(installed))
        assert result.stdout.startswith(f"> MODULE {FQCN}.{name} ({root}/plugins/modules/{name}.py)")
    result = run(["ansible-doc", "-t", "filter", f"{FQCN}.lab_options"], cwd=elsewhere,
                 ANSIBLE_COLLECTIONS_PATH=str(installed))
    assert result.stdout.startswith(f"> FILTER {FQCN}.lab_options")
    result = run(["ansible-doc", "-t", "lookup", f"{FQCN}.labs"], cwd=elsewhere, ANSIBLE_COLLECTIONS_PATH=str(installed))
    assert result.stdout.startswith(f"> LOOKUP {FQCN}.labs")
    result = run(["ansible-playbook", f"{FQCN}.grade", "--syntax-check"], cwd=elsewhere,
                 ANSIBLE_COLLECTIONS_PATH=str(installed))
    assert "ERROR" not in result.stderr


@pytest.mark.parametrize("playbook", sorted(p.relative_to(REPO_ROOT).as_posix() for p in
                                            [*REPO_ROOT.glob("*.yml"), *(REPO_ROOT / "playbooks").glob("*.yml")]
                                            if yaml.safe_load(p.read_text()).__class__ is list))
def test_every_playbook_of_the_checkout_runs_from_another_directory(playbook, tmp_path):
    """No ansible.cfg there: the collection is found next to the playbook (collections/)."""
    result = run(["ansible-playbook", str(REPO_ROOT / playbook), "--syntax-check"], cwd=tmp_path)
    assert "ERROR" not in result.stderr and "could not be resolved" not in result.stderr, result.stderr
