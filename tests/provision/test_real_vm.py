"""The logic of scripts/real-vm that needs no VM: the image's cache key, QEMU's command line, the
wall-clock limit, ending processes by pid, and reading ansible-playbook's output."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from provision_helpers import REPO


def load_script():
    loader = importlib.machinery.SourceFileLoader("real_vm", str(REPO / "scripts" / "real-vm"))
    spec = importlib.util.spec_from_loader("real_vm", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


real_vm = load_script()


def test_the_cache_key_follows_everything_the_image_holds() -> None:
    key = real_vm.cache_key()
    assert key == real_vm.cache_key(packages=tuple(reversed(real_vm.PACKAGES)))  # order does not matter
    assert key != real_vm.cache_key(packages=(*real_vm.PACKAGES, "chrony"))
    assert key != real_vm.cache_key(suite="trixie")
    assert key != real_vm.cache_key(recipe=real_vm.RECIPE_VERSION + 1)
    assert key != real_vm.cache_key(sources=real_vm.SOURCES[:1])
    assert key != real_vm.cache_key(disk_gb=real_vm.DISK_GB + 1)


def test_the_image_is_a_minimal_cloud_image_without_ntp_or_python_apt() -> None:
    assert {"openssh-server", "python3", "linux-image-amd64", "systemd-sysv", "cloud-init"} <= set(real_vm.PACKAGES)
    assert not {"systemd-timesyncd", "chrony", "ntpsec", "ntp", "python3-apt"} & set(real_vm.PACKAGES)


def test_an_image_folder_missing_a_file_is_not_used(tmp_path: Path) -> None:
    for name in real_vm.IMAGE_FILES:
        (tmp_path / name).write_text("x")
    assert real_vm.image_complete(tmp_path)
    (tmp_path / "initrd.img").unlink()
    assert not real_vm.image_complete(tmp_path)


def test_qemu_runs_tcg_small_and_forwards_ssh_to_loopback_only(tmp_path: Path) -> None:
    argv = real_vm.qemu_argv(Path("/img"), tmp_path / "state-x", 40022, 4096, 2)
    joined = " ".join(argv)
    assert argv[argv.index("-accel") + 1] == "tcg"
    assert argv[argv.index("-smp") + 1] == "2" and argv[argv.index("-m") + 1] == "4096"
    assert "hostfwd=tcp:127.0.0.1:40022-:22" in joined
    assert "lab-realvm-state-x" in joined  # the marker end_pid checks before signalling
    assert "/img/disk.raw" not in joined  # the cached image is never written: an overlay is


def test_a_free_port_is_bindable_on_loopback() -> None:
    import socket

    port = real_vm.free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))


def test_the_deadline_names_the_phase_and_the_setting() -> None:
    now = [100.0]
    deadline = real_vm.Deadline(60, clock=lambda: now[0])
    assert deadline.check("provision 1") == 60
    now[0] = 161.0
    with pytest.raises(real_vm.LimitReached, match=r"limit of 60s \(LAB_REALVM_LIMIT\) was reached during provision 2"):
        deadline.check("provision 2")


def test_end_pid_ends_its_own_process_and_spares_another() -> None:
    ours = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "lab-realvm-test-marker"])
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "someone-else"])
    try:
        real_vm.end_pid(other.pid, "lab-realvm-test-marker", grace=1)
        real_vm.end_pid(ours.pid, "lab-realvm-test-marker", grace=5)
        assert ours.wait(timeout=10) == -15
        assert other.poll() is None  # a pid whose command line lacks the marker is never signalled
    finally:
        other.kill()
        other.wait()


def test_end_pid_kills_what_ignores_term() -> None:
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); time.sleep(60)"
    stubborn = subprocess.Popen([sys.executable, "-c", code, "lab-realvm-stubborn"], stdout=subprocess.PIPE)
    stubborn.stdout.readline()  # the handler is in place
    real_vm.end_pid(stubborn.pid, "lab-realvm-stubborn", grace=1)
    assert stubborn.wait(timeout=10) == -9


OUTPUT = """
TASK [Packages | install the base tools] ***
ok: [learner01]

TASK [Kernel | load the missing modules] ***
changed: [learner01] => (item=overlay)
changed: [learner01] => (item=br_netfilter)

TASK [Gitd | systemd unit] ***
changed: [learner01]

PLAY RECAP *********************************************************************
learner01                  : ok=52   changed=3    unreachable=0    failed=0    skipped=21   rescued=0    ignored=0
localhost                  : ok=1    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
"""


def test_the_recap_and_the_changed_tasks_are_read() -> None:
    recap = real_vm.parse_recap(OUTPUT)
    assert recap["learner01"]["changed"] == 3 and recap["learner01"]["ok"] == 52
    assert recap["localhost"]["changed"] == 0
    assert real_vm.changed_tasks(OUTPUT) == ["Kernel | load the missing modules", "Gitd | systemd unit"]


def test_the_inventory_reaches_the_vm_as_a_controller_does(tmp_path: Path) -> None:
    host = real_vm.inventory(tmp_path, Path("/img"), 40022)["all"]["children"]["learners"]["hosts"]["learner01"]
    assert (host["ansible_host"], host["ansible_port"], host["ansible_user"]) == ("127.0.0.1", 40022, "debian")
    assert host["ansible_become"] is True and host["lab_artifact_source"] == "mirror"
    assert f"UserKnownHostsFile={tmp_path / 'known_hosts'}" in host["ansible_ssh_common_args"]


def test_the_vm_run_leaves_out_only_what_needs_k3s_or_unreachable_releases() -> None:
    assert set(real_vm.PROVISION_SKIP_TAGS.split(",")) == {"lab-cluster", "lab-k3s-install", "lab-grader-tools"}


def test_idempotence_names_every_change(tmp_path: Path) -> None:
    class StubVM:
        state = tmp_path

    scenario = real_vm.Scenario(StubVM(), real_vm.Deadline(60))
    scenario.idempotent("provision 2", OUTPUT.replace("changed=3", "changed=0").replace("changed: ", "ok: "))
    with pytest.raises(SystemExit, match=r"provision 2 changed \['Kernel \| load the missing modules', 'Gitd \| systemd unit'\]"):
        scenario.idempotent("provision 2", OUTPUT)
    with pytest.raises(SystemExit, match="wanted no change"):
        scenario.idempotent("provision 3", "no recap at all")


def test_a_change_made_while_the_vm_ran_is_named_as_the_checkouts(tmp_path: Path, monkeypatch) -> None:
    """Run F1 (docs/real-vm.md): provision 2 replaced the library because the checkout was
    edited between provision 1 and 2; the message said only "wanted no change"."""
    class StubVM:
        state = tmp_path

    monkeypatch.setattr(real_vm, "checkout_digest", lambda: "before")
    scenario = real_vm.Scenario(StubVM(), real_vm.Deadline(60))
    with pytest.raises(SystemExit) as unchanged:
        scenario.idempotent("provision 2", OUTPUT)
    assert "checkout changed" not in str(unchanged.value)
    monkeypatch.setattr(real_vm, "checkout_digest", lambda: "after")
    with pytest.raises(SystemExit, match=r"wanted no change \(log .*\) -- the checkout changed since the run started"):
        scenario.idempotent("provision 2", OUTPUT)


def test_the_checkout_digest_follows_uncommitted_changes(tmp_path: Path) -> None:
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "f").write_text("1\n")
    subprocess.run([*git, "add", "f"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    first = real_vm.checkout_digest(tmp_path)
    assert first and first == real_vm.checkout_digest(tmp_path)
    (tmp_path / "f").write_text("2\n")
    edited = real_vm.checkout_digest(tmp_path)
    assert edited != first
    (tmp_path / "g").write_text("new\n")
    assert real_vm.checkout_digest(tmp_path) != edited
    assert real_vm.checkout_digest(tmp_path / "not-a-checkout") is None


def test_a_resumed_run_goes_on_from_the_named_phase_and_names_the_phases_otherwise(tmp_path: Path) -> None:
    class StubVM:
        state = tmp_path

    phases = real_vm.Scenario(StubVM(), real_vm.Deadline(60)).phases()
    names = [name for name, _ in phases]
    assert names == ["mirror", "prepare", "provision 1", "provision 2", "provision check", "verify", "reboot",
                     "verify after reboot", "provision 3"]
    assert [name for name, _ in real_vm.phases_from(phases, None)] == names
    assert [name for name, _ in real_vm.phases_from(phases, "verify after reboot")] == names[-2:]
    with pytest.raises(SystemExit, match=r"no phase 'provision 4'; the phases are: mirror, prepare, provision 1"):
        real_vm.phases_from(phases, "provision 4")


def test_resuming_needs_a_state_folder_whose_vm_still_runs(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"\(no vm\.json\)"):
        real_vm.VM.attach(Path("/img"), tmp_path)
    code = "import time; print(1, flush=True); time.sleep(60)"
    ours = subprocess.Popen([sys.executable, "-c", code, f"lab-realvm-{tmp_path.name}"], stdout=subprocess.PIPE)
    ours.stdout.readline()  # exec'd: its command line holds the marker
    try:
        (tmp_path / "vm.json").write_text(f'{{"pid": {ours.pid}, "port": 40022}}')
        vm = real_vm.VM.attach(Path("/img"), tmp_path)
        assert (vm.pid, vm.port) == (ours.pid, 40022) and vm.alive()
        vm.stop()  # by its pid and marker, though this process did not start it
        assert ours.wait(timeout=10) == -15
        with pytest.raises(SystemExit, match=f"pid {ours.pid}\\) is not running any more"):
            real_vm.VM.attach(Path("/img"), tmp_path)
    finally:
        ours.kill()
        ours.wait()


def test_run_refuses_resume_without_a_phase(capsys) -> None:
    with pytest.raises(SystemExit):
        real_vm.main(["run", "--resume", "/nonexistent"])
    assert "--resume and --from go together" in capsys.readouterr().err


def test_the_plane_phases_follow_the_vm_phases_only_with_the_plane(tmp_path: Path) -> None:
    class StubVM:
        state = tmp_path

    plain = [name for name, _ in real_vm.Scenario(StubVM(), real_vm.Deadline(60)).phases()]
    phases = real_vm.Scenario(StubVM(), real_vm.Deadline(60), real_vm.Plane(tmp_path)).phases()
    names = [name for name, _ in phases]
    assert names == [*plain, "plane", "provision with the cluster", "grade before", "solve", "grade solved",
                     "lab check", "record", "push"]
    assert [name for name, _ in real_vm.phases_from(phases, "grade solved")] == ["grade solved", "lab check", "record",
                                                                                 "push"]


def test_the_tunnel_brings_the_api_to_the_guest_and_the_guests_gitd_to_the_plane(tmp_path: Path) -> None:
    vm = real_vm.VM(Path("/img"), tmp_path)
    vm.port = 40022
    plane = real_vm.Plane(tmp_path)
    plane.record = {"addr": "127.123.4.5", "collector": 41234}
    argv = plane.tunnel_argv(vm)
    assert argv[:3] == ["ssh", "-p", "40022"] and argv[-1] == "debian@127.0.0.1"
    remote = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-R"]
    assert remote == ["127.0.0.1:6443:127.123.4.5:26443",  # k3s's address in the guest
                      "127.0.0.1:41234:127.0.0.1:41234"]  # the push phase's collector, as the VM's URL names it
    assert argv[argv.index("-L") + 1] == "127.123.4.5:9418:127.0.0.1:9418"  # where the repo-server resolves gitd
    assert "ExitOnForwardFailure=yes" in argv and "-N" in argv


def test_the_plane_variables_change_only_what_a_plane_makes_different(tmp_path: Path) -> None:
    plane_vars = real_vm.plane_vars(tmp_path, {"addr": "127.123.4.5"})
    assert plane_vars["lab_enrolled"] == ["capa-src", "cgoa-ci", "capa-drift"]
    assert plane_vars["learner_base_required_ports"] == [{"port": 9418, "owners": ["git-daemon", "git"]}]
    assert plane_vars["instructor_kubeconfig_server"] == "https://127.123.4.5:26443"
    # TCG: 240 s ran out in cgoa-ci's probes on the VM (run G)
    assert (plane_vars["grade_time_budget"], plane_vars["grade_task_timeout"]) == (1500, 1800)
    assert set(plane_vars) == {"lab_enrolled", "grade_time_budget", "grade_task_timeout",
                               "learner_base_required_ports", "k3s_server_system_workloads",
                               "argocd_airgap_images", "argocd_cli_checksums", "grader_runtime_install_tools",
                               "instructor_kubeconfig_server", "instructor_kubeconfig_dir"}
    assert set(real_vm.PLANE_SKIP_TAGS.split(",")) == {"molecule-notest", "lab-k3s-install", "lab-grader-tools"}


def test_the_push_phase_gives_the_vm_a_url_the_class_certificate_names(tmp_path: Path) -> None:
    assert real_vm.push_vars(tmp_path, {"collector": 41234}) == {
        "lab_enrolled": ["capa-src", "cgoa-ci", "capa-drift"],
        "grade_time_budget": 1500,
        "grade_task_timeout": 1800,
        "grade_report_dir": str(tmp_path / "reports" / "push"),
        "lab_push_collector_url": "https://127.0.0.1:41234",
    }


def test_the_labs_solved_over_ssh_are_the_registrys() -> None:
    labs = REPO / "plugins/module_utils/labgrader/labs"
    assert sorted(real_vm.PLANE_LABS) == sorted(p.name.replace("_", "-") for p in labs.iterdir()
                                                if (p / "__init__.py").is_file())


def test_a_plane_never_started_stops_without_touching_anything(tmp_path: Path, monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(real_vm.subprocess, "run", lambda *a, **k: calls.append(a))
    real_vm.Plane(tmp_path).stop()
    assert calls == []


def test_the_plane_address_is_loopback_and_its_ports_free() -> None:
    addr = real_vm.pick_plane_address()
    assert addr.startswith("127.") and addr != "127.0.0.1"
    assert all(real_vm.port_free(addr, port) for port in (9418, 26443))


def scenario_with_report(tmp_path: Path, monkeypatch, statuses: dict[str, str]):
    """A plane Scenario whose grade.yml run is replaced by a grades.json of `statuses` ({lab: status})."""
    class StubVM:
        state = tmp_path

    scenario = real_vm.Scenario(StubVM(), real_vm.Deadline(60), real_vm.Plane(tmp_path))

    def grade_yml(phase, playbook, *extra):
        write_report(Path(next(e for e in extra if e.startswith("grade_report_dir=")).split("=", 1)[1]), statuses)

    monkeypatch.setattr(scenario, "on_plane", grade_yml)
    return scenario


def test_a_grade_over_ssh_passes_only_when_every_lab_is_graded_as_wanted(tmp_path: Path, monkeypatch) -> None:
    scenario_with_report(tmp_path / "ok", monkeypatch, dict.fromkeys(real_vm.PLANE_LABS, "PASS")).grade(
        "grade solved", "solved", {"PASS"})
    failing = scenario_with_report(tmp_path / "fail", monkeypatch, {**dict.fromkeys(real_vm.PLANE_LABS, "PASS"),
                                                                    "cgoa-ci": "FAIL"})
    with pytest.raises(SystemExit, match=r"real-vm: grade solved: labs \['capa-drift', 'capa-src', 'cgoa-ci'\] "
                                         r"\(wanted \['capa-drift', 'capa-src', 'cgoa-ci'\]\); not PASS: "
                                         r"\['cgoa-ci/cgoa-ci.1.a: FAIL m'\]"):
        failing.grade("grade solved", "solved", {"PASS"})
    missing = scenario_with_report(tmp_path / "missing", monkeypatch, {"capa-src": "FAIL"})
    with pytest.raises(SystemExit, match=r"labs \['capa-src'\] \(wanted \['capa-drift', 'capa-src', 'cgoa-ci'\]\); "
                                         r"not FAIL/PENDING: \[\]"):
        missing.grade("grade before", "before", {"FAIL", "PENDING"})


def write_report(reports: Path, statuses: dict[str, str]) -> None:
    (reports / "latest").mkdir(parents=True)
    records = [{"lab": lab, "check": f"{lab}.1.a", "status": status, "message": "m"} for lab, status in statuses.items()]
    (reports / "latest" / "grades.json").write_text(real_vm.json.dumps({"records": records}))


def scenario_with_push(tmp_path: Path, monkeypatch, pushed: dict[str, str]):
    """A plane Scenario after grade solved (every lab PASS) whose grade-push run's report is `pushed`;
    the commands it runs are recorded in scenario.ran."""
    class StubVM:
        state = tmp_path

    (tmp_path / "inventory").mkdir()
    write_report(tmp_path / "reports" / "solved", dict.fromkeys(real_vm.PLANE_LABS, "PASS"))
    plane = real_vm.Plane(tmp_path)
    plane.record = {"addr": "127.123.4.5", "collector": 41234}
    scenario = real_vm.Scenario(StubVM(), real_vm.Deadline(60), plane)
    scenario.ran = []

    def grade_push(phase, *args):
        scenario.ran.append((phase, *args))
        if "--listen" in args:
            write_report(tmp_path / "reports" / "push", pushed)

    monkeypatch.setattr(scenario, "grade_push", grade_push)
    monkeypatch.setattr(scenario, "on_plane", lambda phase, playbook, *extra: scenario.ran.append((phase, *extra)))
    return scenario


def test_the_push_phase_passes_when_the_vm_pushed_what_grade_yml_graded(tmp_path: Path, monkeypatch) -> None:
    scenario = scenario_with_push(tmp_path, monkeypatch, dict.fromkeys(real_vm.PLANE_LABS, "PASS"))
    scenario.push()
    assert scenario.ran == [
        ("push certificate", "--init", "--address", "127.0.0.1"),
        ("push provision check", "--skip-tags", real_vm.PLANE_SKIP_TAGS, "--tags", "lab-push", "--check"),
        ("push provision", "--skip-tags", real_vm.PLANE_SKIP_TAGS, "--tags", "lab-push"),
        ("push", "--listen", "127.0.0.1:41234", "--deadline", "1800"),
    ]
    hosts = real_vm.json.loads((tmp_path / "inventory" / "push.yml").read_text())["all"]["children"]["learners"]
    assert hosts["hosts"]["learner01"]["lab_push_collector_url"] == "https://127.0.0.1:41234"


def test_the_push_phase_fails_naming_each_check_graded_otherwise(tmp_path: Path, monkeypatch) -> None:
    scenario = scenario_with_push(tmp_path, monkeypatch, {"capa-src": "PASS", "cgoa-ci": "ERROR"})
    with pytest.raises(SystemExit) as failed:
        scenario.push()
    assert str(failed.value) == (
        "real-vm: push: the pushed report differs from grade.yml's on the solved VM at "
        "[(('capa-drift', 'capa-drift.1.a'), 'PASS', None), (('cgoa-ci', 'cgoa-ci.1.a'), 'PASS', 'ERROR')]")
