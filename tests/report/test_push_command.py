"""lab-grade-push, the VM's command (module_utils/labgrader/push_command.py): its settings and token
files, the grading options the collector's poll carries, what it prints and its exit code. Its run
end to end through grade-push: tests/report/test_grade_push.py."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import push_command
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import module_params
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import (
    Collector,
    CollectorServer,
    issue_tokens,
    token_digest,
)
from report_sample import NOW, registry_result

RUN = "20261204T030000Z"
HOSTS = {"learner01": {"labs": ["capa-src"], "lang": "en"}}
OPTIONS = {"labs": ["capa-src"], "lang": "en", "settle_timeout": 0.0, "poll_interval": 5.0, "bare_root": "/data/bare"}


@pytest.fixture
def vm(tmp_path):
    """(run the command -> (exit code, line), the collector, the graded params) for learner01,
    its settings and token files as provisioning writes them, the collector serving on a free
    loopback port with learner01's options `OPTIONS`."""
    tokens = issue_tokens(HOSTS)
    collector = Collector(HOSTS, {h: token_digest(t) for h, t in tokens.items()}, RUN, now=NOW, report_dir="/r/x",
                          options={"learner01": dict(OPTIONS)})
    httpd = CollectorServer(("127.0.0.1", 0), collector)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    (tmp_path / "push-token").write_text(tokens["learner01"])
    settings = {"collector_url": f"http://127.0.0.1:{httpd.server_address[1]}", "host": "learner01",
                "token_file": str(tmp_path / "push-token"), "cafile": None, "state_file": str(tmp_path / "push-run")}
    (tmp_path / "push.json").write_text(json.dumps(settings))
    graded = []

    def grade(params):
        graded.append(params)
        return {"state": "graded", "error": None, "health": {"healthy": True},
                "labs": {"capa-src": registry_result(LABS["capa-src"], "en")}}

    def command(argv=("--config", str(tmp_path / "push.json"))):
        out = io.StringIO()
        return push_command.run(list(argv), out, grade), out.getvalue()

    yield command, collector, graded
    httpd.shutdown()
    httpd.server_close()


def test_the_command_grades_once_per_run_with_the_collectors_options(vm, tmp_path):
    command, collector, graded = vm
    assert command() == (0, "lab-grade-push: 202 learner01: graded\n")
    assert graded == [module_params(OPTIONS)]
    assert (tmp_path / "push-run").read_text() == f"{RUN}\n"
    assert command() == (0, f"lab-grade-push: 200 run {RUN}: this host's result is kept\n")
    collector.close()
    assert command() == (0, "lab-grade-push: 204 no run open\n")
    assert len(graded) == 1


def test_a_collector_not_listening_is_no_failure_and_a_refusal_is(vm, tmp_path):
    command, _, graded = vm
    settings = json.loads((tmp_path / "push.json").read_text())
    (tmp_path / "push.json").write_text(json.dumps({**settings, "collector_url": "http://127.0.0.1:1"}))
    code, line = command()
    assert code == 0 and line.startswith("lab-grade-push: 0 collector http://127.0.0.1:1 not reached: ")
    (tmp_path / "push.json").write_text(json.dumps(settings))
    (tmp_path / "push-token").write_text(issue_tokens(["learner02"])["learner02"])  # another VM's token
    assert command() == (1, "lab-grade-push: 403 this token is not learner01's: a result speaks only for its own "
                            "host\n")
    assert graded == []


@pytest.mark.parametrize(("options", "message"), [
    ({**OPTIONS, "bogus": 1}, "the collector's grading options are not lab_grade's: unknown bogus"),
    ({"lang": "en"}, "the collector's grading options are not lab_grade's: no labs"),
    ({**OPTIONS, "workspace_root": "root"}, "the collector's grading options: workspace_root must be an absolute "
                                            "path, got 'root'"),
])
def test_options_lab_grade_would_refuse_are_refused_and_nothing_is_pushed(vm, tmp_path, options, message):
    command, collector, graded = vm
    collector.options["learner01"] = options
    assert command() == (1, f"lab-grade-push: {message}\n")
    assert graded == [] and collector.records == {} and not (tmp_path / "push-run").exists()


@pytest.mark.parametrize(("write", "message"), [
    (lambda p: p.write_text("{"), "the settings file {p} is not JSON: Expecting property name enclosed in double "
                                  "quotes: line 1 column 2 (char 1)"),
    (lambda p: p.write_text('{"host": "learner01"}'), "the settings file {p} is not an object of exactly "
                                                      "collector_url, host, token_file, cafile, state_file"),
    (lambda p: p.unlink(), "the settings file {p} cannot be read: No such file or directory"),
    (lambda p: p.write_text(" " * (push_command.MAX_SETTINGS_BYTES + 1)),
     "the settings file {p} is larger than 65536 bytes"),
])
def test_settings_it_cannot_use_are_said(vm, tmp_path, write, message):
    command, _, graded = vm
    write(tmp_path / "push.json")
    assert command() == (1, "lab-grade-push: " + message.format(p=tmp_path / "push.json") + "\n")
    assert graded == []


@pytest.mark.parametrize("token", ["\n", "secretAsecretAsecretA\nsecretB", "seçretseçretseçretseçret", "short"])
def test_a_token_file_without_a_token_is_said_and_never_sent(vm, tmp_path, token):
    """Not what provisioning writes: refused before any request (a newline in the header would end
    in a traceback carrying the token), and the token itself is not printed."""
    command, collector, graded = vm
    (tmp_path / "push-token").write_text(token)
    assert command() == (1, f"lab-grade-push: the token file {tmp_path / 'push-token'} does not hold a push token "
                            "(provisioning writes one: run provision.yml --tags lab-push)\n")
    assert graded == [] and collector.records == {}


def test_an_https_collector_without_the_class_certificate_is_refused(vm, tmp_path):
    """Without a cafile, ssl's default context would trust the system's CAs."""
    command, _, graded = vm
    settings = json.loads((tmp_path / "push.json").read_text())
    (tmp_path / "push.json").write_text(json.dumps({**settings, "collector_url": "https://collector.example.org"}))
    assert command() == (1, f"lab-grade-push: the settings file {tmp_path / 'push.json'} names an https collector "
                            "and no cafile (the class certificate)\n")
    assert graded == []


@pytest.mark.parametrize("argv", [["--config"], ["--confg", "x"], ["--config", "a", "b"]])
def test_arguments_it_does_not_take_are_said(vm, argv):
    command, _, graded = vm
    assert command(argv) == (1, "lab-grade-push: usage: lab-grade-push [--config FILE]\n")
    assert graded == []


def test_a_poll_does_not_load_the_grader():
    """The timer runs every 5-10 s all day: only a run that grades imports the grader (measured on
    the host, 2026-12-04, load 5: 0.07 CPU-s per poll without it, 0.19-0.22 s with it; under a
    VM's TCG 15-25x that)."""
    loaded = subprocess.run([sys.executable, "-c", "import sys; from ansible_collections.gitops_lab.grader.plugins."
                             "module_utils.labgrader import push_command; print(sorted(m for m in sys.modules "
                             "if m.endswith(('.runner', '.labs')) or m in ('git', 'kubernetes')))"],
                            capture_output=True, text=True, timeout=60, check=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert loaded.stdout == "[]\n"
