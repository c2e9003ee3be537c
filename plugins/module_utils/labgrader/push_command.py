"""lab-grade-push: one run of a learner VM's push timer (lab-grade-push.timer, roles/grader_runtime
push_client.yml, every 5-10 s). It polls the instructor's collector and, when a grading run is
open that this VM has not pushed for, grades the VM as the lab_grade module does (runner.grade_host)
with the options the collector's answer carries, which are grade.yml's for this host, and pushes
the result (push.poll_and_push). Between runs (no collector listening, or no run open) it only
polls.

    lab-grade-push [--config /etc/lab-grader/push.json]

The settings file, written by provisioning: collector_url, host (the VM's inventory name, the
host its token speaks for), token_file, cafile (the class's certificate, the only one trusted;
null for a plain-HTTP collector on loopback) and state_file (the run last pushed for). One line
on standard output says what happened (the journal keeps it). Exit 0 when the collector was not
reached, had no run open, was busy, had closed the run or kept the result; 1 when it refused this
VM (its token, its result) or the settings or options cannot be used: the instructor's problem,
which systemd shows as the unit's failure."""

from __future__ import annotations

import json
import re
import sys

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.push import poll_and_push

DEFAULT_CONFIG = "/etc/lab-grader/push.json"
# What collector.issue_tokens makes (secrets.token_urlsafe): anything else is refused unread, never
# sent in a header (a newline there would end in a traceback, the token in the journal).
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")
CONFIG_KEYS = ("collector_url", "host", "token_file", "cafile", "state_file")
MAX_SETTINGS_BYTES = 64 * 1024  # settings file and token alike: a few hundred bytes each
NOT_THIS_VMS_FAULT = (409,)  # the run closed while this VM pushed: its next poll hears 204


class Refused(Exception):
    """The settings or the grading options cannot be used; exit 1 with this message."""


def read_bounded(path, what):
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SETTINGS_BYTES + 1)
    except OSError as exc:
        raise Refused(f"the {what} {path} cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_SETTINGS_BYTES:
        raise Refused(f"the {what} {path} is larger than {MAX_SETTINGS_BYTES} bytes")
    return data.decode("utf-8", "replace")


def read_settings(path):
    """The settings file as {key: value}, exactly CONFIG_KEYS."""
    try:
        settings = json.loads(read_bounded(path, "settings file"))
    except ValueError as exc:
        raise Refused(f"the settings file {path} is not JSON: {exc}") from None
    if not isinstance(settings, dict) or set(settings) != set(CONFIG_KEYS):
        raise Refused(f"the settings file {path} is not an object of exactly {', '.join(CONFIG_KEYS)}")
    if str(settings["collector_url"]).startswith("https:") and not settings["cafile"]:
        # without it the system's CAs would be trusted: only the class certificate is
        raise Refused(f"the settings file {path} names an https collector and no cafile (the class certificate)")
    return settings


def grading_params(options):
    """lab_grade's options from the collector's: grade-push checked them as Ansible checks a
    module's arguments (types, choices); an option lab_grade does not take, or a problem
    lab_grade would refuse, is refused here too."""
    # The grader (the labs, GitPython, the Kubernetes client) is imported only when a run is open:
    # the timer's every other run is a poll, 5-10 s apart all day on every VM.
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import (
        ARGUMENT_SPEC,
        module_params,
        option_problem,
    )

    unknown = sorted(set(options) - set(ARGUMENT_SPEC))
    if "labs" not in options or unknown:
        raise Refused("the collector's grading options are not lab_grade's: "
                      + (f"unknown {', '.join(unknown)}" if unknown else "no labs"))
    params = module_params(options)
    problem = option_problem(params)
    if problem:
        raise Refused(f"the collector's grading options: {problem}")
    return params


def grade_host(params):
    """runner.grade_host, imported when a run is open (grading_params)."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import grade_host as grade

    return grade(params)


def run(argv, out=sys.stdout, grade=grade_host):
    """One timer run; returns the exit code. `grade`: runner.grade_host (a test's spy)."""
    if argv not in ([], ["--config", argv[-1]]):
        print("lab-grade-push: usage: lab-grade-push [--config FILE]", file=out)
        return 1
    config = argv[1] if argv else DEFAULT_CONFIG
    try:
        settings = read_settings(config)
        token = read_bounded(settings["token_file"], "token file").strip()
        if not TOKEN.fullmatch(token):
            raise Refused(f"the token file {settings['token_file']} does not hold a push token "
                          "(provisioning writes one: run provision.yml --tags lab-push)")
        status, message = poll_and_push(settings["collector_url"], settings["host"], token, settings["state_file"],
                                        lambda options: grade(grading_params(options)), settings["cafile"])
    except Refused as exc:
        print(f"lab-grade-push: {exc}", file=out)
        return 1
    print(f"lab-grade-push: {status} {' '.join(message.split())}", file=out)
    return 1 if 400 <= status < 500 and status not in NOT_THIS_VMS_FAULT else 0


def main(argv=None):
    sys.exit(run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
