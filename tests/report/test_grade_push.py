"""grade-push end to end (plugins/plugin_utils/grade_push.py): the class read from an inventory,
a run opened on a free port, simulated VMs running the real client (push.poll_and_push) in
threads, each grading once per run; the report written is the pull path's for the same results,
byte for byte; a VM that never pushes is an ERROR row, a push after the run closed hears 409;
grade.yml's exit codes; the class's certificate pinned by the client."""

from __future__ import annotations

import ast
import datetime
import io
import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible_collections.gitops_lab.grader.plugins.filter.grading import grade_record
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import push, push_command
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.registry import CLASS_FILES
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import (
    ARGUMENT_SPEC,
    grade_host,
    module_params,
)
from ansible_collections.gitops_lab.grader.plugins.plugin_utils import grade_push, grading_run
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import issue_tokens, token_digest
from report_sample import registry_result

from tests.conftest import REPO_ROOT

LABS_OF = {"learner01": ["capa-src", "cgoa-ci"], "learner02": ["capa-src"], "learner03": ["cgoa-ci"],
           "learner04": ["capa-src"]}
LANG_OF = {"learner01": "en", "learner02": "ja", "learner03": "ko", "learner04": "en"}
NEVER_PUSHES = "learner04"
# learner02's inventory sets its workspace and the grader's kubeconfig, learner03 a settle timeout
# as -e gives it (a string): the options its VM hears are those grade.yml gives lab_grade.
SITE_VARIABLES = {"learner02": {"lab_workspace_root": "/home/learner02", "lab_grader_kubeconfig": "/etc/lab-grader/kc"},
                  "learner03": {"grade_settle_timeout": "12"}}
GRADING = {host: {"labs": labs, "lang": LANG_OF[host], "settle_timeout": 30.0, "poll_interval": 5.0,
                  "time_budget": 240.0}
           for host, labs in LABS_OF.items()}
GRADING["learner02"].update(workspace_root="/home/learner02", kubeconfig="/etc/lab-grader/kc")
GRADING["learner03"].update(settle_timeout=12.0)
HEALTH_ERROR = {"state": "error", "error": {"kind": "health", "message": "api_server: unreachable"}, "labs": {}}


def result_of(host):
    """The host's lab_grade result: learner01 fails a check, learner03's cluster is unhealthy."""
    if host == "learner03":
        return HEALTH_ERROR
    fail = {LABS["capa-src"].checks[2].id: "FAIL"} if host == "learner01" else None
    return {"state": "graded", "error": None, "health": {"healthy": True},
            "labs": {lab: registry_result(LABS[lab], LANG_OF[host], fail) for lab in LABS_OF[host]}}


@pytest.fixture
def a_class(tmp_path):
    """(inventory path, report dir, tokens) of a class of four, the tokens' digests where
    grade-push reads them."""
    reports = tmp_path / "reports"
    hosts = {host: {"lab_enrolled": labs, "lab_lang": LANG_OF[host], **SITE_VARIABLES.get(host, {})}
             for host, labs in LABS_OF.items()}
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(json.dumps({"learners": {"hosts": hosts, "vars": {"grade_report_dir": str(reports)}}}))
    tokens = issue_tokens(LABS_OF)
    (reports / ".collector").mkdir(parents=True)
    (reports / ".collector" / "tokens.json").write_text(json.dumps({h: token_digest(t) for h, t in tokens.items()}))
    return inventory, reports, tokens


def vm(url, host, token, state_file, seconds, cafile=None):
    """A VM's timer, every 50 ms until it pushed or `seconds` passed. Returns (the answers, the
    options of each time it graded)."""
    answers, gradings = [], []

    def grade(options):
        gradings.append(options)
        return result_of(host)

    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        answers.append(push.poll_and_push(url, host, token, str(state_file), grade, cafile))
        if answers[-1][0] in (202, 422):
            answers.append(push.poll_and_push(url, host, token, str(state_file), grade, cafile))
            break
        time.sleep(0.05)
    return answers, gradings


class Terminal:
    """grade-push's `out`: what it printed, and an event once its first line is there."""

    def __init__(self):
        self.text, self.first_line = "", threading.Event()

    def write(self, text):
        self.text += text
        if "\n" in self.text:
            self.first_line.set()

    def flush(self):
        pass


def vm_command(url, host, token, state_file, seconds, graded):
    """A provisioned VM's timer: its command (push_command.run, lab-grade-push) every 50 ms until
    it pushed or `seconds` passed, with its settings file and token file as provisioning writes
    them; it grades with the real runner.grade_host, each (params, result) appended to `graded`.
    Returns the lines it printed, with its exit code."""
    token_file, settings = state_file.with_suffix(".token"), state_file.with_suffix(".json")
    token_file.write_text(token)
    settings.write_text(json.dumps({"collector_url": url, "host": host, "token_file": str(token_file),
                                    "cafile": None, "state_file": str(state_file)}))

    def grade(params):
        graded.append((params, grade_host(params)))
        return graded[-1][1]

    lines = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop and not any(" 202 " in line for _, line in lines):
        out = io.StringIO()
        lines.append((push_command.run(["--config", str(settings)], out, grade), out.getvalue()))
        time.sleep(0.05)
    return lines


def run_grade_push(argv, a_class, tmp_path, vms, seconds=10, commands=None):
    """grade_push.main(argv) in a thread, the `vms` polling its URL (read from its first line), and
    the hosts of `commands` ({host: a list for what it grades}) running the VM's command.
    Returns (exit code, what it printed, {host: vm()'s or vm_command()'s answer})."""
    inventory, _, tokens = a_class
    out, exit_code = Terminal(), []
    main = threading.Thread(target=lambda: exit_code.append(grade_push.main(["-i", str(inventory), *argv], out)))
    main.start()
    assert out.first_line.wait(30)
    url = out.text.split(" open at ")[1].split(" ")[0]
    answers = {}
    threads = [threading.Thread(target=lambda h=host: answers.__setitem__(
        h, vm(url, h, tokens[h], tmp_path / f"{h}.run", seconds))) for host in vms]
    threads += [threading.Thread(target=lambda h=host, g=graded: answers.__setitem__(
        h, vm_command(url, h, tokens[h], tmp_path / f"{h}.run", seconds, g))) for host, graded in (commands or {}).items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    main.join()
    return exit_code[0], out.text, answers


def written(report_dir):
    """{file name: text} of a written report, as write_report wrote it."""
    files = {}
    for root, _, names in os.walk(report_dir):
        for name in names:
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", newline="") as handle:
                files[os.path.relpath(path, report_dir)] = handle.read()
    return files


def test_grade_push_writes_the_pull_paths_report_and_says_who_did_not_push(a_class, tmp_path, capsys):
    _, reports, _ = a_class
    pushing = [h for h in LABS_OF if h != NEVER_PUSHES]
    code, printed, answers = run_grade_push(["--listen", "127.0.0.1:0", "--deadline", "3"], a_class, tmp_path, pushing)
    first, matrix = printed.split("\n", 1)

    [report_dir] = [p for p in reports.iterdir() if p.name not in (".collector", "latest")]
    assert first.startswith(f"grade-push: run {report_dir.name} open at http://127.0.0.1:")
    assert first.endswith(" for 4 hosts, at most 3 s")
    for host in pushing:  # polled until the run was open, graded once with grade.yml's options, pushed once
        assert answers[host][1] == [GRADING[host]], answers[host]
        assert answers[host][0][-1] == (200, f"run {report_dir.name}: this host's result is kept")
    assert answers["learner01"][0][-2] == (202, "learner01: graded\n")
    assert answers["learner03"][0][-2] == (202, "learner03: error\n")

    files = written(report_dir)
    grades = json.loads(files["grades.json"])
    now = datetime.datetime.strptime(grades["generated_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)
    pulled = build.build_report([grade_record(result_of(h), h, LANG_OF[h]) for h in pushing], hosts=list(LABS_OF),
                                lang="en", now=now, report_dir=str(report_dir), class_hosts=list(LABS_OF),
                                enrolled=LABS_OF)
    assert files == pulled["contents"]
    assert {fmt.FILE for fmt in CLASS_FILES} <= set(files)
    rows = {host["host"]: host for host in grades["hosts"]}
    assert rows[NEVER_PUSHES]["error"]["message"] == (
        "the host produced no grading record (unreachable, or grading stopped early)")
    assert os.path.realpath(reports / "latest") == str(report_dir)

    assert code == grading_run.HOSTS_IN_ERROR
    assert matrix == "\n" + pulled["matrix"] + "\n"
    assert capsys.readouterr().err == (f"grade-push: Could not grade 2 of 4 hosts: learner03 (environment unhealthy), "
                            f"learner04 (grader error). The other 2 were graded; see {report_dir}/index.html\n")


def test_a_vms_command_grades_with_grade_ymls_options_and_its_push_is_the_pull_paths_record(a_class, tmp_path):
    """learner02 runs the VM's command for real (lab-grade-push: settings and token files, the
    collector's poll, runner.grade_host with the options its answer carried, the push): it grades
    with the options grade.yml would give it (its inventory's workspace and kubeconfig; that
    kubeconfig and workspace do not exist here, so its grade is the health gate's ERROR naming
    both), and the
    report is the pull path's for that result, byte for byte."""
    _, reports, _ = a_class
    graded = []
    simulated = [host for host in LABS_OF if host != "learner02"]
    code, _, answers = run_grade_push(["--listen", "127.0.0.1:0", "--deadline", "30"], a_class, tmp_path, simulated,
                                      seconds=25, commands={"learner02": graded})
    [(params, result)] = graded
    assert params == module_params(GRADING["learner02"])
    assert params["kubeconfig"] == "/etc/lab-grader/kc" and params["workspace_root"] == "/home/learner02"
    assert result["error"]["message"] == ("the kubeconfig /etc/lab-grader/kc does not exist; "
                                          "lab_workspace_root /home/learner02 is not a directory on this VM")
    assert answers["learner02"][-1] == (0, "lab-grade-push: 202 learner02: error\n")
    assert all(line == (0, "lab-grade-push: 204 no run open\n") or " 200 " in line[1]
               for line in answers["learner02"][:-1]), answers["learner02"]

    [report_dir] = [p for p in reports.iterdir() if p.name not in (".collector", "latest")]
    files = written(report_dir)
    now = datetime.datetime.strptime(json.loads(files["grades.json"])["generated_at"],
                                     "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)
    results = {**{host: result_of(host) for host in simulated}, "learner02": result}
    pulled = build.build_report([grade_record(results[h], h, LANG_OF[h]) for h in LABS_OF], hosts=list(LABS_OF),
                                lang="en", now=now, report_dir=str(report_dir), class_hosts=list(LABS_OF),
                                enrolled=LABS_OF)
    assert files == pulled["contents"]
    assert code == grading_run.HOSTS_IN_ERROR


def test_a_vm_is_told_exactly_the_options_grade_yml_gives_lab_grade(tmp_path, monkeypatch):
    """The real `ansible-playbook grade.yml` on a local host whose inventory sets every kind of
    option (a lab list as -e gives it, site, tools and reader paths, a run-wide timing as a string):
    the lab_grade arguments its module was sent (the kept AnsiballZ file's) are, once checked as the
    module checks them, what the VM's command grades with from grade-push's poll answer. Paths
    with ~ or $VAR are expanded on the VM, as the module expands them there, never with the
    controller's home or environment."""
    python = os.path.join(os.path.dirname(sys.executable), "python")
    host = {"ansible_connection": "local", "ansible_host": "127.0.0.1", "ansible_python_interpreter": python,
            "lab_grader_python": python, "lab_enrolled": "capa-src,cgoa-ci", "lab_lang": "ko",
            "lab_workspace_root": "/home/l1", "lab_bare_root": "/data/bare", "lab_argocd_namespace": "argo",
            "lab_grader_kubeconfig": str(tmp_path / "none.kubeconfig"), "lab_k3s_kubeconfig": "$LAB_VM_ETC/k3s.yaml",
            "lab_helm_binary": "~/bin/helm", "grade_settle_timeout": "12", "grade_poll_interval": 2}
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(json.dumps({"learners": {"hosts": {"learner01": host},
                                                  "vars": {"grade_report_dir": str(tmp_path / "reports")}}}))
    remote = tmp_path / "remote"
    graded = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", str(inventory),
                             "grade.yml"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "ANSIBLE_KEEP_REMOTE_FILES": "1", "ANSIBLE_REMOTE_TMP": str(remote)})
    assert graded.returncode == grading_run.HOSTS_IN_ERROR, graded.stdout + graded.stderr
    [module] = remote.glob("*/AnsiballZ_lab_grade.py")
    sent = json.loads(ast.literal_eval(re.search(r"^params=('.*'),$", module.read_text(), re.M)[1]))
    arguments = {k: v for k, v in sent["ANSIBLE_MODULE_ARGS"].items() if not k.startswith("_ansible")}
    vm = {"HOME": "/root", "LAB_VM_ETC": "/etc/rancher"}
    controller = {"HOME": "/home/instructor", "LAB_VM_ETC": "/controller/etc"}
    monkeypatch.setattr(os, "environ", {**os.environ, **vm})
    pulled = ArgumentSpecValidator(ARGUMENT_SPEC).validate(arguments).validated_parameters  # as on the VM

    monkeypatch.setattr(os, "environ", {**os.environ, **controller})
    settings, _, _ = grade_push.read_class([str(inventory)])
    assert settings["grading_problems"] == []
    monkeypatch.setattr(os, "environ", {**os.environ, **vm})
    pushed = module_params(settings["grading"]["learner01"])
    assert (pushed["helm_binary"], pushed["k3s_kubeconfig"]) == ("/root/bin/helm", "/etc/rancher/k3s.yaml")
    # labs_as_json only shapes what Ansible returns; the VM pushes runner.grade_host's result
    assert pushed == {**pulled, "labs_as_json": False}
    assert (pushed["labs"], pushed["settle_timeout"]) == (["capa-src", "cgoa-ci"], 12.0)


def test_grade_push_ends_when_every_host_pushed_with_strict_modes_exit_code(a_class, tmp_path, capsys):
    inventory, _, _ = a_class
    data = json.loads(inventory.read_text())
    data["learners"]["vars"].update(grade_strict=True, grade_allow_host_errors=True)
    inventory.write_text(json.dumps(data))
    started = time.monotonic()
    code, _, _ = run_grade_push(["--listen", "127.0.0.1:0", "--deadline", "30"], a_class, tmp_path, list(LABS_OF))
    assert time.monotonic() - started < 15  # the deadline was not waited for
    assert code == grading_run.STRICT_FAILURES
    assert capsys.readouterr().err.startswith(
        "grade-push: Strict mode: failing checks for 1 of 3 graded learners: learner01. See ")


@pytest.mark.parametrize("switch", ["false", "no", "off", "0", False])
def test_a_switch_the_inventory_turns_off_in_words_is_off(switch):
    """grade_strict: "false" (a string, as -e and many inventories give it) is off, as Ansible's
    bool filter reads it in grade.yml: grade-push had its own copy of the outcome, which took any
    non-empty string for on (exit 3 for a run grade.yml ends with 0)."""
    report = {"host_errors": [{"host": "learner02", "kind": "unreachable", "message": "gone"}],
              "failing_learners": ["learner01"]}
    run = {**grading_run.RUN_DEFAULTS, "grade_strict": switch, "grade_allow_host_errors": switch}
    assert grading_run.run_outcome(report, 2, "index.html", run)["code"] == grading_run.HOSTS_IN_ERROR
    run = {**run, "grade_allow_host_errors": "yes"}
    assert grading_run.run_outcome(report, 2, "index.html", run) == {"code": 0, "message": ""}
    assert grading_run.run_outcome(report, 2, "index.html", {**run, "grade_strict": "true"}) == {
        "code": grading_run.STRICT_FAILURES,
        "message": "Strict mode: failing checks for 1 of 1 graded learners: learner01. See index.html"}


def test_a_push_after_the_run_closed_is_refused(a_class, tmp_path):
    inventory, reports, tokens = a_class
    settings, class_hosts, output_dir = grade_push.read_class([str(inventory)])
    assert output_dir == str(reports) and class_hosts == list(LABS_OF)
    digests = grade_push.read_digests(output_dir)
    del digests["learner03"]
    run = grade_push.ClassRun(settings, class_hosts, output_dir, digests, ("127.0.0.1", 0))
    assert run.warnings == ["1 hosts have no token in .collector/tokens.json and cannot push (they will be ERROR "
                            "rows): learner03"]
    try:
        run_id = run.collector.run
        assert push.poll_run(run.url, "learner02", tokens["learner02"]) == (
            run_id, GRADING["learner02"], 200, f"run {run_id} open")
        assert not run.wait(0.1)
        run.close()
        assert push.push_result(run.url, "learner02", tokens["learner02"], run_id, result_of("learner02")) == (
            409, f"run {run_id} is closed\n")
        assert push.poll_run(run.url, "learner02", tokens["learner02"]) == (None, None, 204, "no run open")
    finally:
        run.shutdown()
    grades = json.loads((reports / run_id / "grades.json").read_text())
    assert grades["counts"]["hosts_graded"] == 0


def test_grade_push_refuses_the_class_as_grade_yml_does(a_class, capsys):
    inventory, _, _ = a_class
    data = json.loads(inventory.read_text())
    data["learners"]["hosts"]["learner02"]["lab_lang"] = "jp"
    inventory.write_text(json.dumps(data))
    assert grade_push.main(["-i", str(inventory), "--listen", "127.0.0.1:0"]) == grade_push.SETTINGS_REFUSED
    assert capsys.readouterr().err.startswith(
        "grade-push: Grading settings: lab_lang 'jp' is not one of en, ja, ko")


@pytest.mark.parametrize(("variables", "why"), [
    ({"lab_workspace_root": "/" + "w" * 20000},
     "a poll's answer carrying them is 20230 bytes, more than the 16384 a VM reads"),
    # the run-wide check reads the first learner's grade_* only; grade.yml gives each host its own
    ({"grade_poll_interval": "often"},
     "argument 'poll_interval' is of type str and we were unable to convert to float: <class 'str'> cannot be "
     "converted to a float"),
    ({"grade_settle_timeout": 900}, "settle_timeout must be between 0 and 600 seconds, got 900.0"),
])
def test_grade_push_refuses_options_lab_grade_would_refuse_or_a_vm_could_not_read(a_class, capsys, variables, why):
    inventory, _, _ = a_class
    data = json.loads(inventory.read_text())
    data["learners"]["hosts"]["learner03"].update(variables)
    inventory.write_text(json.dumps(data))
    assert grade_push.main(["-i", str(inventory), "--listen", "127.0.0.1:0"]) == grade_push.SETTINGS_REFUSED
    assert capsys.readouterr().err == f"grade-push: Grading settings: learner03: lab_grade's options: {why}\n"


def test_plain_http_is_served_on_loopback_only(a_class, capsys):
    inventory, _, _ = a_class
    assert grade_push.main(["-i", str(inventory), "--listen", "0.0.0.0:0"]) == grade_push.SETTINGS_REFUSED
    assert capsys.readouterr().err == (
        "grade-push: --listen 0.0.0.0:0: without the class's certificate (grade-push --init) the collector "
        "serves plain HTTP, and only on loopback\n")
    assert grade_push.main(["-i", str(inventory), "--listen", "8443"]) == grade_push.SETTINGS_REFUSED
    assert capsys.readouterr().err == "grade-push: --listen '8443' is not host:port\n"


def test_the_client_trusts_only_the_class_certificate(a_class, tmp_path, capsys):
    inventory, reports, tokens = a_class
    assert grade_push.main(["-i", str(inventory), "--init"]) == grade_push.SETTINGS_REFUSED
    assert capsys.readouterr().err == (
        "grade-push: --init needs --address, the collector's name or IP as the VMs reach it\n")
    cert = reports / ".collector" / "collector.pem"
    assert grade_push.main(["-i", str(inventory), "--init", "--address", "127.0.0.1"]) == 0
    assert capsys.readouterr().out == f"grade-push: the class's certificate is {cert}\n"
    assert (reports / ".collector" / "collector.key").stat().st_mode & 0o777 == 0o600
    other = grade_push.make_certificate(tmp_path / "another-class", "127.0.0.1")

    settings, class_hosts, output_dir = grade_push.read_class([str(inventory)])
    tls = grade_push.class_tls(output_dir)
    run = grade_push.ClassRun(settings, class_hosts, output_dir, grade_push.read_digests(output_dir),
                              ("127.0.0.1", 0), tls)
    try:
        assert run.url.startswith("https://127.0.0.1:")
        run_id = run.collector.run
        assert push.poll_run(run.url, "learner02", tokens["learner02"], cafile=str(cert)) == (
            run_id, GRADING["learner02"], 200, f"run {run_id} open")
        for untrusted in (str(other), None):  # another class's certificate; the system's CAs
            found, _, status, message = push.poll_run(run.url, "learner02", tokens["learner02"], cafile=untrusted)
            assert (found, status) == (None, 0) and "CERTIFICATE_VERIFY_FAILED" in message, message
        assert push.push_result(run.url, "learner02", tokens["learner02"], run_id, result_of("learner02"),
                                cafile=str(cert)) == (202, "learner02: graded\n")
    finally:
        run.close()
        run.shutdown()


@pytest.mark.parametrize(("text", "why"), [
    ("{", "cannot be read: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ('{"learner01": 7}', "are not an object of host: SHA-256"),
])
def test_grade_push_refuses_token_digests_it_cannot_read(a_class, capsys, text, why):
    inventory, reports, _ = a_class
    digests = reports / ".collector" / "tokens.json"
    digests.write_text(text)
    assert grade_push.main(["-i", str(inventory), "--listen", "127.0.0.1:0"]) == grade_push.SETTINGS_REFUSED
    assert capsys.readouterr().err == f"grade-push: the class's token digests {digests} {why}\n"
