"""The health gate verifies the grader's own Python runtime first (issue 16): a `.pth` file planted
in the grader venv made an empty VM grade 104/104. Every file a RECORD lists is there with its
size and sha256, and site-packages holds nothing no RECORD claims; otherwise one runtime ERROR
naming the file and the reason, and nothing else is probed."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.health import check_health, probe_runtime
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runtime import (
    RUNTIME_SECONDS,
    environment_findings,
    interpreter_site_packages,
    runtime_problem,
    verify_site_packages,
)

ROOT = Path(__file__).resolve().parents[2]
# The grader's package by the name its modules import (the whole-repository import rewrite renames it).
GRADER_PACKAGE = "ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader"
REAL_SITE_PACKAGES = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
YAML_INIT = b"__version__ = '6.0'\n"


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def install(root, dist_info, files, unhashed=(), outside=()):
    """A distribution as pip leaves it: its files, and a dist-info whose RECORD lists each with
    sha256 and size, `unhashed` paths without a hash, and itself last."""
    metadata = {f"{dist_info}/METADATA": b"Metadata-Version: 2.1\nName: x\n", f"{dist_info}/INSTALLER": b"pip\n"}
    lines = []
    for path, data in {**files, **metadata}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
        lines.append(record_line(path, data))
    for path in unhashed:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(b"\x00compiled")
        lines.append(f"{path},,")
    lines.extend(outside)
    lines.append(f"{dist_info}/RECORD,,")
    (root / dist_info / "RECORD").write_text("\n".join(lines) + "\n")


@pytest.fixture
def site_packages(tmp_path):
    """A small venv-like site-packages: PyYAML with its compiled .pyc and a console script,
    setuptools with its legitimate distutils-precedence.pth."""
    root = tmp_path / "site-packages"
    install(root, "PyYAML-6.0.dist-info", {"yaml/__init__.py": YAML_INIT, "yaml/nodes.py": b"class Node: pass\n",
                                           "_yaml/__init__.py": b"from yaml import *\n"},
            unhashed=["yaml/__pycache__/__init__.cpython-312.pyc"],
            outside=[record_line("../../../bin/yamlish", b"#!/venv/bin/python\n")])
    install(root, "setuptools-69.0.dist-info", {"distutils-precedence.pth": b"import _distutils_hack\n",
                                                "_distutils_hack/__init__.py": b"pass\n"})
    return root


def runtime_detail(root):
    health = check_health(str(root / "no-kubeconfig"), site_packages=[str(root)], environ={})
    assert health["healthy"] is False
    assert health["api_requests"] == 0
    assert list(health["probes"]) == ["runtime"]  # nothing else is probed on a modified runtime
    [problem] = health["problems"]
    assert problem["probe"] == "runtime"
    return problem["detail"]


def test_an_unmodified_site_packages_passes(site_packages):
    report = verify_site_packages(str(site_packages))
    assert (report["findings"], report["stopped"]) == ([], None)
    assert report["files"] == 9  # 5 files and 4 metadata files; not the .pyc, the RECORDs or bin/yamlish
    health = check_health(str(site_packages / "no-kubeconfig"), site_packages=[str(site_packages)], environ={})
    assert health["probes"]["runtime"] == "ok"
    assert health["problems"][0]["probe"] == "kubeconfig"  # the gate goes on to the kubeconfig
    assert health["runtime"]["files"] == 9


def test_the_real_venv_is_verified_quickly_and_passes():
    """/work/main/.venv (ansible-core, kubernetes, ...; 6,600 files, 155 MB hashed), read-only."""
    report = verify_site_packages(str(REAL_SITE_PACKAGES))
    assert (report["findings"], report["stopped"]) == ([], None)
    assert report["files"] > 1000
    assert report["seconds"] < RUNTIME_SECONDS
    print(f"\n{REAL_SITE_PACKAGES}: {report['files']} files, {report['bytes']} bytes in {report['seconds'] * 1000:.0f} ms")


def test_the_gate_checks_the_interpreters_own_site_packages_by_default():
    assert [os.path.realpath(path) for path in interpreter_site_packages()] == [os.path.realpath(REAL_SITE_PACKAGES)]
    problem, covered = probe_runtime(environ={})
    assert problem is None
    assert covered["site_packages"] == interpreter_site_packages() and covered["files"] > 1000


def plant(path, data=b"import os; os.system('grade me 104/104')\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.mark.parametrize(("planted", "reason"), [
    ("evil.pth", "site-packages/evil.pth is not part of any installed package"),
    ("sitecustomize.py", "site-packages/sitecustomize.py is not part of any installed package"),
    ("usercustomize.py", "site-packages/usercustomize.py is not part of any installed package"),
    ("evil.py", "site-packages/evil.py is not part of any installed package"),
    ("evil/__init__.py", "site-packages/evil/__init__.py is not part of any installed package"),
    # an extension module is imported before the package's __init__.py next to it
    ("yaml/__init__.abi3.so", "site-packages/yaml/__init__.abi3.so is not part of any installed package"),
    ("evil.pyc", "site-packages/evil.pyc is not part of any installed package"),
])
def test_a_planted_file_is_a_runtime_error(site_packages, planted, reason):
    plant(site_packages / planted)
    assert runtime_detail(site_packages) == f"grader runtime modified: {reason}"


def test_a_modified_file_is_a_runtime_error(site_packages):
    (site_packages / "yaml/__init__.py").write_bytes(YAML_INIT.replace(b"6.0", b"9.9"))  # same size
    assert runtime_detail(site_packages) == \
        "grader runtime modified: site-packages/yaml/__init__.py does not match its RECORD hash"


def test_a_modified_legitimate_pth_is_a_runtime_error(site_packages):
    (site_packages / "distutils-precedence.pth").write_bytes(b"import evil_hack______\n")
    assert runtime_detail(site_packages) == \
        "grader runtime modified: site-packages/distutils-precedence.pth does not match its RECORD hash"


def test_a_missing_file_is_a_runtime_error(site_packages):
    (site_packages / "yaml/__init__.py").unlink()
    assert runtime_detail(site_packages) == ("grader runtime modified: site-packages/yaml/__init__.py is missing "
                                             "(listed in site-packages/PyYAML-6.0.dist-info/RECORD)")


def test_a_size_mismatch_is_a_runtime_error_and_the_file_is_not_read(site_packages):
    with open(site_packages / "yaml/__init__.py", "ab") as grown:
        grown.truncate(1 << 30)  # sparse 1 GiB: never hashed
    started = time.monotonic()
    assert runtime_detail(site_packages) == \
        "grader runtime modified: site-packages/yaml/__init__.py has 1073741824 bytes, its RECORD says 20"
    assert time.monotonic() - started < 2


def test_a_symlink_or_fifo_is_refused_without_being_followed_or_opened(site_packages, tmp_path):
    (tmp_path / "elsewhere.py").write_bytes(YAML_INIT)
    (site_packages / "yaml/__init__.py").unlink()
    (site_packages / "yaml/__init__.py").symlink_to(tmp_path / "elsewhere.py")
    os.mkfifo(site_packages / "yaml/nodes.py.new")
    (site_packages / "yaml/nodes.py").unlink()
    os.mkfifo(site_packages / "yaml/nodes.py")
    assert runtime_detail(site_packages) == (
        "grader runtime modified: site-packages/yaml/__init__.py is a symbolic link; "
        "site-packages/yaml/nodes.py is a FIFO; site-packages/yaml/nodes.py.new is a FIFO")


def test_a_file_listed_without_a_hash_is_a_runtime_error(site_packages):
    plant(site_packages / "evil.pth")
    record = site_packages / "setuptools-69.0.dist-info/RECORD"
    record.write_text("evil.pth,,\n" + record.read_text())
    assert runtime_detail(site_packages) == ("grader runtime modified: site-packages/evil.pth has no hash in "
                                             "site-packages/setuptools-69.0.dist-info/RECORD")


UNCLAIMED_YAML = ("; site-packages/_yaml/__init__.py is not part of any installed package; "
                  "site-packages/yaml/__init__.py is not part of any installed package; "
                  "site-packages/yaml/nodes.py is not part of any installed package")


@pytest.mark.parametrize(("rewrite", "detail"), [
    (None, "site-packages/PyYAML-6.0.dist-info has no RECORD" + UNCLAIMED_YAML),
    (lambda text: "yaml/__init__.py,sha256=abc\n" + text,
     "site-packages/PyYAML-6.0.dist-info/RECORD is not a valid RECORD: row 1 has 2 fields, not 3" + UNCLAIMED_YAML),
    (lambda text: text + "yaml/__init__.py,sha256=abc,big\n",
     "site-packages/PyYAML-6.0.dist-info/RECORD is not a valid RECORD: row 9 has size 'big'" + UNCLAIMED_YAML),
    (lambda text: re.sub("^yaml/__init__.py,sha256=", "yaml/__init__.py,md5=", text, flags=re.MULTILINE),
     "site-packages/yaml/__init__.py has a md5 hash in its RECORD, not sha256 or stronger"),
], ids=["missing", "short-row", "bad-size", "md5"])
def test_a_missing_or_bad_record_is_a_runtime_error(site_packages, rewrite, detail):
    record = site_packages / "PyYAML-6.0.dist-info/RECORD"
    if rewrite is None:
        record.unlink()
    else:
        record.write_text(rewrite(record.read_text()))
    assert runtime_detail(site_packages) == f"grader runtime modified: {detail}"


def test_a_startup_file_is_named_first_among_many(site_packages):
    for number in range(8):
        plant(site_packages / f"junk{number}.txt")
    plant(site_packages / "zz-evil.pth")
    assert runtime_detail(site_packages) == (
        "grader runtime modified: site-packages/zz-evil.pth is not part of any installed package; "
        "site-packages/junk0.txt is not part of any installed package; "
        "site-packages/junk1.txt is not part of any installed package; "
        "site-packages/junk2.txt is not part of any installed package; "
        "site-packages/junk3.txt is not part of any installed package; and 4 more")


def test_a_file_two_distributions_list_passes_when_it_matches_one(site_packages):
    install(site_packages, "older-1.0.dist-info", {"yaml/nodes.py": b"class OldNode: pass\n"})
    (site_packages / "yaml/nodes.py").write_bytes(b"class Node: pass\n")  # the later install wrote it
    assert verify_site_packages(str(site_packages))["findings"] == []


def test_bytecode_in_pycache_is_not_judged(site_packages):
    """RECORD lists .pyc without a hash and the interpreter writes more: neither is judged
    (the limit docs/hostile-input.md states)."""
    plant(site_packages / "yaml/__pycache__/nodes.cpython-312.pyc", b"\x00forged")
    assert verify_site_packages(str(site_packages))["findings"] == []


def test_a_missing_site_packages_is_a_runtime_error(tmp_path):
    assert runtime_detail(tmp_path / "none") == \
        "grader runtime modified: site-packages cannot be listed: No such file or directory"


@pytest.mark.parametrize(("limits", "cut"), [
    ({"max_bytes": 40}, "more than 40 bytes to hash (3 files, 39 bytes hashed)"),
    ({"seconds": 0}, "not done within 0 s (0 files, 0 bytes hashed)"),
    ({"max_files": 3}, "more than 3 files (0 files, 0 bytes hashed)"),
])
def test_verification_is_bounded_and_says_so(site_packages, limits, cut):
    report = verify_site_packages(str(site_packages), **limits)
    assert runtime_problem(report["findings"], [report["stopped"]]) == f"grader runtime could not be verified: {cut}"


def test_findings_and_a_cut_are_both_said(site_packages):
    plant(site_packages / "evil.pth")
    report = verify_site_packages(str(site_packages), max_bytes=40)
    assert runtime_problem(report["findings"], [report["stopped"]]) == (
        "grader runtime modified: site-packages/evil.pth is not part of any installed package; "
        "then verification stopped: more than 40 bytes to hash (3 files, 39 bytes hashed)")


def test_a_pth_in_the_interpreters_own_venv_is_found_after_it_ran(tmp_path):
    """End to end with a real venv's python and the default site-packages. The .pth has already
    run when the gate looks (the limit docs/hostile-input.md states): the gate reports it."""
    venv.create(tmp_path / "venv", with_pip=False)
    [purelib] = (tmp_path / "venv" / "lib").glob("python3*/site-packages")
    (purelib / "evil.pth").write_text("import os; os.environ['PTH_RAN'] = 'yes'\n")
    *parents, _ = GRADER_PACKAGE.split(".")  # regular packages, as the installed `lab` command has them
    lib = tmp_path / "lib"
    for depth in range(1, len(parents) + 1):
        (lib.joinpath(*parents[:depth])).mkdir(parents=True)
        (lib.joinpath(*parents[:depth]) / "__init__.py").write_text("")
    lib.joinpath(*GRADER_PACKAGE.split(".")).symlink_to(ROOT / "plugins" / "module_utils" / "labgrader")
    program = ("import json, os, sys; sys.path.insert(0, sys.argv[1])\n"
               "from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.health import check_health\n"
               "print(json.dumps([os.environ.get('PTH_RAN'), check_health(sys.argv[2])]))")
    out = subprocess.run([str(tmp_path / "venv" / "bin" / "python"), "-c", program, str(tmp_path / "lib"),
                          str(tmp_path / "no-kubeconfig")], capture_output=True, text=True, timeout=60,
                         env={"PATH": os.environ["PATH"]})
    assert out.returncode == 0, out.stderr
    pth_ran, health = json.loads(out.stdout)
    assert pth_ran == "yes"
    assert health["problems"] == [{"probe": "runtime", "detail": "grader runtime modified: site-packages/evil.pth "
                                                                 "is not part of any installed package"}]
    assert health["runtime"]["site_packages"] == [str(purelib)]


@pytest.mark.parametrize("name", ["PYTHONPATH", "PYTHONHOME", "PYTHONPLATLIBDIR", "PYTHONPYCACHEPREFIX"])
def test_an_environment_that_loads_code_from_elsewhere_is_a_runtime_error(site_packages, name):
    health = check_health(str(site_packages / "no-kubeconfig"), site_packages=[str(site_packages)],
                          environ={name: "/tmp/learner", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONSAFEPATH": "1"})
    assert health["problems"] == [{"probe": "runtime", "detail": f"grader runtime modified: the grader's "
                                                                 f"environment sets {name}='/tmp/learner'"}]


def test_an_empty_or_ignored_environment_variable_is_not_a_finding():
    assert environment_findings({"PYTHONPATH": ""}, ignored=0) == []
    assert environment_findings({"PYTHONPATH": "/tmp/learner"}, ignored=1) == []
