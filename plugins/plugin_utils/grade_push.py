"""grade-push: the instructor's re-grade in the push design (docs/performance.md). Opens a grading
run on a collector (plugin_utils/collector.py), which the learner VMs poll; each VM grades itself
and pushes its result for the run; the run ends when every host pushed or at the deadline, and
the class report is written as grade.yml writes it, with grade.yml's exit codes (README.md, "Exit
codes"). The class is read from the inventory as grade.yml's settings check reads it
(grading_run.py), and refused with that check's messages.

    scripts/grade-push [-i inventory/class] [-l learner03] [--listen 0.0.0.0:8443] [--deadline 45]
    scripts/grade-push --init --address collector.example.org    # the class's certificate, once

Each VM's token digest is read from <grade_report_dir>/.collector/tokens.json ({host: SHA-256}),
which provisioning writes (record_token, by the push_token action plugin); with the class's
certificate there (--init) the collector serves HTTPS, otherwise HTTP, and then only on loopback.
Each VM is told, in the answer to its poll, the lab_grade options grade.yml would give it
(grading_run.grading_options), checked here as Ansible checks a module's arguments."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import fcntl
import ipaddress
import json
import os
import sys
import tempfile
import threading
import urllib.parse
from pathlib import Path

from ansible.inventory.manager import InventoryManager
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.parsing.dataloader import DataLoader
from ansible.vars.hostvars import HostVars
from ansible.vars.manager import VariableManager
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.printable import printable
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.push import MAX_ANSWER_BYTES
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.files import (
    plan_report_dir,
    report_files,
    write_report,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import read_previous
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import UTC
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC, option_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import settings_problems
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.collector import (
    Collector,
    CollectorServer,
    issue_tokens,
    poll_answer,
    token_digest,
)
from ansible_collections.gitops_lab.grader.plugins.plugin_utils.grading_run import class_settings, run_hosts, run_outcome

PROJECT_DIR = Path(__file__).resolve().parents[2]
DEFAULT_DEADLINE = 45  # seconds: a VM polls every 5-10 s and grades in a few; 60 s is the goal
DEFAULT_LISTEN = "127.0.0.1:8443"
COLLECTOR_DIR = ".collector"  # in grade_report_dir: the class's token digests and certificate
TOKENS_FILE, CERT_FILE, KEY_FILE = "tokens.json", "collector.pem", "collector.key"
# The longest run id (push.RUN_ID): a poll's answer is measured with it.
LONGEST_RUN = "0" * 64
SETTINGS_REFUSED = 5  # as grade.yml's settings check (README.md, "Exit codes")
# The collector's worker processes: a push is Python's work (~30-50 ms of CPU, docs/performance.md),
# so a worker per core, up to 4: two took 1,000 pushes in 20 s here, and each holds a copy of the
# class's previous report.
JUDGE_WORKERS = min(os.cpu_count() or 1, 4)


class SettingsRefused(Exception):
    """The run cannot start; exit SETTINGS_REFUSED with this message."""


def read_class(inventory_sources, group="learners", limit=None):
    """The run as grade.yml's settings check reads it from the inventory: (class_settings' options
    for the hosts of `group` that `limit` keeps, with each host's grading options as lab_grade
    reads them and the problems they have, every host of the group, grade_report_dir)."""
    loader = DataLoader()
    inventory = InventoryManager(loader, sources=list(inventory_sources))
    hostvars = HostVars(inventory, VariableManager(loader=loader, inventory=inventory), loader)
    groups = {"groups": inventory.get_groups_dict()}
    hosts = run_hosts(group, limit, loader, groups)
    settings = class_settings(hostvars, hosts, grading=True)
    checked = {host: checked_options(options) for host, options in settings["grading"].items()}
    settings["grading"] = {host: options for host, (options, _) in checked.items()}
    settings["grading_problems"] = [f"{host}: lab_grade's options: {problem}"
                                    for host, (_, problem) in checked.items() if problem]
    # the learners' view of the run-wide variables, as grade.yml's report task reads it
    output_dir = hostvars[hosts[0]].get("grade_report_dir") if hosts else None
    return settings, run_hosts(group, None, loader, groups), output_dir or str(PROJECT_DIR / "reports")


def class_problems(settings, group):
    """settings_problems without the VMs' addresses (the controller never connects to a VM here);
    when there are none, the hosts' grading options that lab_grade would refuse (read_class)."""
    return (settings_problems(settings["hosts"], settings["report_lang"], group, settings["sites"], settings["run"])
            or settings["grading_problems"])


def checked_options(options):
    """(the options as lab_grade would read them, the first problem or None): its argument spec
    as Ansible checks a module's arguments (types, choices), its option_problem, and a poll's
    answer that the VM reads whole (MAX_ANSWER_BYTES)."""
    # as JSON carries them to a module (and to the VM): plain values, not the inventory's tagged ones
    options = json.loads(json.dumps(options))
    checked = ArgumentSpecValidator(ARGUMENT_SPEC).validate(options)
    if checked.error_messages:
        return options, checked.error_messages[0]
    problem = option_problem(checked.validated_parameters)
    if problem:
        return options, problem
    # Converted as the module converts them (types), except paths: expanded on the controller they
    # would name its home and environment; the VM expands them as the module does there (module_params).
    options = {name: (value if value is None else str(value)) if ARGUMENT_SPEC[name].get("type") == "path"
               else checked.validated_parameters[name] for name, value in options.items()}
    answer = len(poll_answer(LONGEST_RUN, False, options).encode("utf-8")) + 1  # and its newline
    if answer > MAX_ANSWER_BYTES:
        return options, f"a poll's answer carrying them is {answer} bytes, more than the {MAX_ANSWER_BYTES} a VM reads"
    return options, None


def collector_dir(output_dir):
    return Path(output_dir) / COLLECTOR_DIR


def read_digests(output_dir):
    """{host: token digest} of <output_dir>/.collector/tokens.json ({} when there is none)."""
    path = collector_dir(output_dir) / TOKENS_FILE
    try:
        digests = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise SettingsRefused(f"the class's token digests {path} cannot be read: {exc}") from exc
    if not isinstance(digests, dict) or not all(isinstance(d, str) for d in digests.values()):
        raise SettingsRefused(f"the class's token digests {path} are not an object of host: SHA-256")
    return digests


@contextlib.contextmanager
def locked_digests(output_dir):
    """The class's digests ({host: SHA-256}) to change under an exclusive lock (provisioning's
    forks each record their host's at once); written on leaving, when changed: 0600, replaced
    atomically, so that a reader (grade-push) never sees half a file."""
    directory = collector_dir(output_dir)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(directory / f"{TOKENS_FILE}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        digests = read_digests(output_dir)
        before = dict(digests)
        yield digests
        if digests != before:
            handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{TOKENS_FILE}-")  # 0600
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump(digests, out, indent=1, sort_keys=True)
                    out.write("\n")
                os.replace(temporary, directory / TOKENS_FILE)
            except BaseException:
                os.unlink(temporary)
                raise


def record_token(output_dir, host, current_digest=None, dry_run=False):
    """(issued, token): a new token for `host`, its SHA-256 recorded in the class's digests, or
    (False, None) when the VM's token (`current_digest`: the SHA-256 of its token file) is the one
    recorded: a re-provisioned VM keeps its token. `dry_run` (check mode) records nothing: (True,
    None) when a token would be issued."""
    def kept(digests):
        return current_digest is not None and digests.get(host) == current_digest

    if dry_run:  # nothing written on the controller either, not even the lock
        return not kept(read_digests(output_dir)), None
    with locked_digests(output_dir) as digests:
        if kept(digests):
            return False, None
        token = issue_tokens([host])[host]
        digests[host] = token_digest(token)
        return True, token


def is_loopback(host):
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def collector_certificate(collector_url, output_dir):
    """The certificate a VM pushing to `collector_url` pins: the class's (grade-push --init) for
    https; None for http, which only a loopback collector may be (grade-push serves plain HTTP on
    loopback only: a token in clear text never crosses a network)."""
    try:
        parts = urllib.parse.urlsplit(collector_url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not one
    except ValueError as exc:
        raise SettingsRefused(f"lab_push_collector_url {collector_url!r} is not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsRefused(f"lab_push_collector_url {collector_url!r} is not an http(s) URL with a host "
                              "(https://<collector>:<port>)")
    if parts.scheme == "http":
        if not is_loopback(parts.hostname):
            raise SettingsRefused(f"lab_push_collector_url {collector_url}: plain HTTP only to a loopback collector; "
                                  "use https:// with the class's certificate (scripts/grade-push --init)")
        return None
    certificate = collector_dir(output_dir) / CERT_FILE
    if not certificate.is_file():
        raise SettingsRefused(f"lab_push_collector_url {collector_url} is HTTPS and the class's certificate "
                              f"{certificate} does not exist: run scripts/grade-push --init --address "
                              f"{parts.hostname} first")
    names = certificate_names(certificate)
    if parts.hostname not in {name.lower() for name in names}:  # urlsplit lowercases; DNS names match in any case
        # the VM's TLS check would refuse every poll, said only in its journal
        raise SettingsRefused(f"lab_push_collector_url {collector_url}: the class's certificate {certificate} is for "
                              f"{', '.join(names) or 'no address'}, not {parts.hostname}: run scripts/grade-push "
                              f"--init --address {parts.hostname} (the VMs provisioned before need provisioning again)")
    return str(certificate)


def certificate_names(path):
    """The addresses (DNS names, IP addresses) of a certificate's subjectAltName, as text."""
    from cryptography import x509

    try:
        certificate = x509.load_pem_x509_certificate(Path(path).read_bytes())
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound) as exc:
        raise SettingsRefused(f"the class's certificate {path} cannot be read: {exc}") from None
    return [str(name) for name in names.get_values_for_type(x509.DNSName) + names.get_values_for_type(x509.IPAddress)]


def listen_address(listen, tls):
    """(host, port) of `listen` ("host:port"); plain HTTP only on loopback: a token in clear text
    never crosses a network."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise SettingsRefused(f"--listen {listen!r} is not host:port")
    if not tls and not is_loopback(host):
        raise SettingsRefused(f"--listen {listen}: without the class's certificate (grade-push --init) the "
                              "collector serves plain HTTP, and only on loopback")
    return host, int(port)


class ClassRun:
    """One grading run: its collector serving from construction (the run is open) until
    shutdown(). `settings`: read_class' options; `now`: the run's start (the report's time).
    `warnings`: what the instructor should know before the run (the previous report unread,
    hosts without a token)."""

    def __init__(self, settings, class_hosts, output_dir, digests, listen, tls=None, now=None, workers=0):
        now = now or datetime.datetime.now(UTC)
        self.output_dir = os.path.abspath(output_dir)
        self.report_dir = plan_report_dir(self.output_dir, now)
        self.previous, self.warnings = read_previous(self.output_dir)
        tokenless = [host for host in settings["hosts"] if host not in digests]
        if tokenless:
            self.warnings.append(f"{len(tokenless)} hosts have no token in {COLLECTOR_DIR}/{TOKENS_FILE} and cannot "
                                 f"push (they will be ERROR rows): {', '.join(tokenless[:5])}"
                                 f"{' ...' if len(tokenless) > 5 else ''}")
        self.collector = Collector(settings["hosts"], digests, os.path.basename(self.report_dir), now=now,
                                   previous=self.previous, lang=settings["report_lang"],
                                   report_dir=self.report_dir, class_hosts=class_hosts, workers=workers,
                                   options=settings.get("grading"))
        try:
            self.server = CollectorServer(listen, self.collector, tls)
        except BaseException:  # the address taken, the certificate unreadable: no worker outlives it
            self.collector.shutdown()
            raise
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        host, port = self.server.server_address[:2]
        scheme = "https" if self.server.tls else "http"
        return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"

    def wait(self, deadline):
        """Until every host pushed or `deadline` seconds passed; True when every host pushed."""
        return self.collector.everyone_pushed.wait(deadline)

    def close(self):
        """Close the run (a late push hears 409) and write its report; returns (the report, the
        writing's warnings)."""
        self.collector.close()
        report = self.collector.finish()
        return report, write_report(self.report_dir, report["contents"])

    def shutdown(self):
        self.server.shutdown()
        self.server.server_close()
        self.collector.shutdown()


def make_certificate(output_dir, address):
    """The class's self-signed ECDSA P-256 certificate for `address` (its subjectAltName), valid
    for a year, in <output_dir>/.collector/ (the key 0600). Returns the certificate's path."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    try:
        name = x509.IPAddress(ipaddress.ip_address(address))
    except ValueError:
        name = x509.DNSName(address)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"lab-grader collector {address}")])
    now = datetime.datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(x509.SubjectAlternativeName([name]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256()))
    directory = collector_dir(output_dir)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    key_path, cert_path = directory / KEY_FILE, directory / CERT_FILE
    descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # an older key file keeps its mode otherwise
    with os.fdopen(descriptor, "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()))
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return cert_path


def class_tls(output_dir):
    """(certificate, key) of the class (--init), or None."""
    directory = collector_dir(output_dir)
    cert, key = directory / CERT_FILE, directory / KEY_FILE
    return (str(cert), str(key)) if cert.exists() and key.exists() else None


def arguments():
    parser = argparse.ArgumentParser(prog="grade-push", description=__doc__.split("\n")[0])
    parser.add_argument("-i", "--inventory", action="append", help="inventory source (default: inventory/class)")
    parser.add_argument("-l", "--limit", help="grade only these hosts of the group (a pattern, as -l)")
    parser.add_argument("--group", default="learners", help="the class's group (grade_hosts; default learners)")
    parser.add_argument("--listen", default=DEFAULT_LISTEN, help=f"host:port to serve on (default {DEFAULT_LISTEN})")
    parser.add_argument("--deadline", type=float, default=DEFAULT_DEADLINE,
                        help=f"seconds the run stays open at most (default {DEFAULT_DEADLINE})")
    parser.add_argument("--init", action="store_true", help="make the class's certificate and stop")
    parser.add_argument("--address", help="with --init: the collector's DNS name or IP address, as the VMs reach it")
    return parser


def main(argv=None, out=None):
    """The command: its exit code; the run's lines and the matrix to `out` (stdout)."""
    out = out or sys.stdout
    args = arguments().parse_args(argv)
    try:
        settings, class_hosts, output_dir = read_class(args.inventory or [str(PROJECT_DIR / "inventory" / "class")],
                                                       args.group, args.limit)
        if args.init:
            if not args.address:
                raise SettingsRefused("--init needs --address, the collector's name or IP as the VMs reach it")
            print(f"grade-push: the class's certificate is {make_certificate(output_dir, args.address)}", file=out)
            return 0
        problems = class_problems(settings, args.group)
        if problems:
            raise SettingsRefused("Grading settings: " + " | ".join(problems))
        tls = class_tls(output_dir)
        run = ClassRun(settings, class_hosts, output_dir, read_digests(output_dir), listen_address(args.listen, tls),
                       tls, workers=JUDGE_WORKERS)
    except (SettingsRefused, OSError) as exc:
        print(f"grade-push: {exc}", file=sys.stderr)
        return SETTINGS_REFUSED
    for warning in run.warnings:
        print(f"grade-push: warning: {warning}", file=sys.stderr)
    try:
        print(f"grade-push: run {run.collector.run} open at {run.url} for "
              f"{len(settings['hosts'])} hosts, at most {args.deadline:g} s", file=out, flush=True)
        run.wait(args.deadline)
        report, warnings = run.close()
    finally:
        run.shutdown()
    for warning in warnings:
        print(f"grade-push: warning: {warning}", file=sys.stderr)
    index_html = report_files(run.report_dir)["html"]
    print("\n" + printable(report["matrix"]), file=out)
    said = run_outcome(report, len(settings["hosts"]), index_html, settings["run"])
    if said["message"]:
        print(f"grade-push: {said['message']}", file=sys.stderr)
    return said["code"]


if __name__ == "__main__":
    sys.exit(main())
