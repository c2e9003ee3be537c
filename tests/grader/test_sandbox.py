"""The sandbox of learner programs (sandbox.py, docs/sandbox.md), property by property: what a
program inside can see, change, signal and spend. Each test runs real namespaces and cgroups
(the grader and CI run as root)."""

from __future__ import annotations

import hashlib
import os
import sys
import time

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.sandbox import (
    Sandbox,
    SandboxUnavailable,
    TreeRefused,
    login_env,
)

from tests.grader.test_cgoa_probes import no_process_left

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root, as the grader has on a VM")

ENV = login_env("/root")


def run(sandbox, script, cwd="/root", timeout=20):
    return sandbox.run(["sh", "-c", script], cwd, ENV, timeout)


def output(sandbox, script, cwd="/root", timeout=20):
    """(stdout, stderr) of `script` run by sh in `sandbox`."""
    result = run(sandbox, script, cwd, timeout)
    return result.stdout.decode(), result.stderr.decode()


def digest(root):
    parts = []
    for directory, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                parts.append((os.path.relpath(path, root), hashlib.sha256(handle.read()).hexdigest()))
    return parts


@pytest.fixture()
def learner(tmp_path):
    """A learner's tree beside a secret of the grader's that must stay out of reach."""
    tree = tmp_path / "root" / "lab"
    (tree / "repo").mkdir(parents=True)
    (tree / "validate.sh").write_text("#!/bin/sh\necho ok\n")
    (tree / "validate.sh").chmod(0o755)
    (tmp_path / "grader-kubeconfig").write_text("token: grader-secret-0123456789abcdef\n")
    (tmp_path / "outside.txt").write_text("outside\n")
    return tmp_path


def test_the_copy_is_at_its_real_path_and_writes_stay_in_it(learner):
    tree = learner / "root" / "lab"
    before = digest(learner)
    with Sandbox() as sandbox:
        sandbox.stage_tree(str(tree))
        out, err = output(sandbox, f"echo changed > {tree}/validate.sh; cat {tree}/validate.sh; "
                                   f"echo new > {tree}/repo/new; ls {tree}/repo", cwd=str(tree))
        assert out == "changed\nnew\n", err
        # Every run starts again from the staged copy: the first run's writes are gone.
        out, _ = output(sandbox, f"cat {tree}/validate.sh; ls {tree}/repo", cwd=str(tree))
        assert out == "#!/bin/sh\necho ok\n"
    assert digest(learner) == before


def test_nothing_of_the_host_is_there_but_the_system_directories(learner):
    with Sandbox(hidden=[str(learner / "grader-kubeconfig")]) as sandbox:
        sandbox.stage_tree(str(learner / "root" / "lab"))
        top, _ = output(sandbox, "ls /")
        out, err = output(sandbox, f"ls {learner}; cat {learner}/grader-kubeconfig {learner}/outside.txt; "
                                   f"ls {sys.prefix} /root/.pyenv /srv /var /opt /home 2>&1; echo end")
    # /root is the run's working directory (a fresh, empty one); /tmp holds the learner's copy.
    assert set(top.split()) <= {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "root", "sbin", "tmp",
                                "usr"}
    assert out.split() == ["root", *out.split()[1:]] and "grader-secret" not in out + err and "outside\n" not in out
    for path in (sys.prefix, "/root/.pyenv", "/srv", "/var", "/opt", "/home"):
        assert f"cannot access '{path}': No such file or directory" in out
    assert out.rstrip().endswith("end")


def test_system_directories_are_read_only_and_devices_are_few(learner):
    with Sandbox() as sandbox:
        out, _ = output(sandbox, "touch /etc/x /usr/x 2>&1; ls /dev; echo x > /dev/null && echo null-ok")
    assert out.count("Read-only file system") == 2
    assert "null-ok" in out
    assert "sda" not in out and "vda" not in out and "mem" not in out.split()


def test_the_program_looks_like_root_but_has_no_capability(learner):
    with Sandbox() as sandbox:
        out, _ = output(sandbox, "id -u; grep CapEff /proc/self/status; umount /etc 2>&1; "
                                        "cat /proc/self/cgroup | cut -d: -f3 | sort -u; "
                                        "unshare -rm true 2>&1 || echo no-nested-root")
    lines = out.splitlines()
    assert lines[0] == "0"
    assert lines[1].split() == ["CapEff:", "0000000000000000"]
    assert "must be superuser" in out
    assert "/" in lines and not any(line.startswith("/job") for line in lines)
    assert "no-nested-root" in out


def test_it_sees_only_its_own_processes_and_cannot_reach_the_grader(learner, capfd):
    with Sandbox() as sandbox:
        out, _ = output(sandbox, "ps -e -o pid=,comm= | wc -l; echo '{\"forged\": true}' > /proc/$PPID/fd/1; "
                                        "kill -9 $PPID; kill -STOP 1; echo still-here")
    assert int(out.split()[0]) < 6  # sh, ps, wc and the init shell
    assert "still-here" in out
    assert "forged" not in capfd.readouterr().out  # the grader's own stdout got nothing


def test_no_process_outlives_a_run(learner):
    marker = f"sandbox-daemon-{os.getpid()}"
    script = (f"setsid bash -c 'exec -a {marker} sleep 300' & "
              f"(nohup bash -c 'exec -a {marker} sleep 300' >/dev/null 2>&1 &) ; "
              f"bash -c '(exec -a {marker} sleep 300 &) &' ; "
              f"bash -c 'exec -a {marker} sleep 300' & sleep 1; pgrep -fc ^{marker}; echo started")
    started = time.monotonic()
    with Sandbox() as sandbox:
        out, _ = output(sandbox, script)
    assert out.split() == ["4", "started"], out  # all four daemons ran
    assert time.monotonic() - started < 10  # the one holding stdout costs nothing
    no_process_left(marker)


def test_a_run_ends_whole_at_its_deadline(learner):
    marker = f"sandbox-slow-{os.getpid()}"
    started = time.monotonic()
    with Sandbox() as sandbox:
        result = run(sandbox, f"(bash -c 'exec -a {marker} sleep 300' &); bash -c 'exec -a {marker} sleep 300'",
                           timeout=1)
    assert result.timed_out and time.monotonic() - started < 8
    no_process_left(marker)


def test_memory_pids_and_disk_are_bounded_together(learner):
    with Sandbox(memory_bytes=200 * 1024 ** 2, pids_max=40, disk_bytes=32 * 1024 ** 2) as sandbox:
        # Three children of 150 MB each: each is under RLIMIT_AS, together over the cgroup's memory.
        out, err = output(sandbox, "for i in 1 2 3; do python3 -c 'import time; b = bytearray(150 * 2 ** 20); "
                                        "b[::4096] = b\"x\" * (len(b) // 4096); print(\"alive\", flush=True); "
                                        "time.sleep(3)' & done; wait; echo waited", timeout=30)
        assert "waited" in out and out.count("alive") < 3, (out, err)
        out, err = output(sandbox, "i=0; while [ $i -lt 100 ]; do sleep 5 & i=$((i+1)); done 2>&1 | head -1",
                               timeout=30)
        assert "fork" in out + err or "Resource temporarily unavailable" in out + err, (out, err)
        out, err = output(sandbox, "head -c 100000000 /dev/zero > /tmp/big; echo $?; du -m /tmp/big")
        assert "No space left on device" in err
        assert int(out.split()[1]) <= 32


def test_links_in_a_copy_are_copies_and_loops_are_refused(learner):
    tree = learner / "root" / "lab"
    os.symlink(learner / "outside.txt", tree / "linked.txt")
    os.symlink(learner, tree / "repo" / "up")  # reaches the tree again: a loop
    with Sandbox() as sandbox, pytest.raises(TreeRefused, match="reached twice through symbolic links"):
        sandbox.stage_tree(str(tree))
    os.remove(tree / "repo" / "up")
    with Sandbox() as sandbox:
        sandbox.stage_tree(str(tree))
        out, _ = output(sandbox, f"echo written > {tree}/linked.txt; cat {tree}/linked.txt; "
                                      f"test -L {tree}/linked.txt || echo not-a-link")
    assert out == "written\nnot-a-link\n"
    assert (learner / "outside.txt").read_text() == "outside\n"


def test_a_copy_larger_than_the_bound_is_refused(learner, monkeypatch):
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import sandbox as sandbox_module

    monkeypatch.setattr(sandbox_module, "COPY_MAX_BYTES", 1024)
    (learner / "root" / "lab" / "big").write_bytes(b"x" * 2048)
    with Sandbox() as sandbox, pytest.raises(TreeRefused, match="is larger than 0 MiB"):
        sandbox.stage_tree(str(learner / "root" / "lab"))


def test_the_environment_is_a_root_login(learner):
    with Sandbox() as sandbox:
        sandbox.stage_tree(str(learner / "root" / "lab"), "/root/lab")
        out, _ = output(sandbox, "env | sort; pwd; cat /proc/1/cmdline | tr '\\0' ' '", cwd="/root/lab")
    assert "probe" not in out.lower() and "grader" not in out.lower() and "sandbox" not in out.lower()
    assert "OLDPWD" not in out and "HOME=/root\n" in out and out.splitlines()[-2] == "/root/lab"


def test_without_root_there_is_no_sandbox(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(SandboxUnavailable, match="the grader does not run as root"):
        Sandbox()
