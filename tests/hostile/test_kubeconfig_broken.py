"""A broken kubeconfig is one clear reason, never a traceback (issue 16): the grader's own gives
the health gate's ERROR (probe "kubeconfig") and the cluster checks' ERROR; a learner's with the
same defect FAILs the checks that need it ("<path>: <reason>: it cannot be used as a kubeconfig").
Before, CA data that is not a certificate, a server such as http://[::1 or https://host:notaport,
or a client key that does not match its certificate crashed the module."""

from __future__ import annotations

import base64
import subprocess

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import read_kubeconfig

from tests.grader.conftest import collect_host, judge
from tests.grader.test_words import english_words, masked
from tests.hostile.harness import edit_kubeconfig, run


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    """A self-signed certificate and its key, another key, and that key encrypted (PEM files)."""
    folder = tmp_path_factory.mktemp("tls")
    for command in (
        f"openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout {folder}/key.pem "
        f"-out {folder}/cert.pem -days 2 -subj /CN=labgrader-test",
        f"openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out {folder}/other.pem",
        f"openssl pkey -in {folder}/key.pem -aes128 -passout pass:secret -out {folder}/encrypted.pem",
    ):
        subprocess.run(command.split(), check=True, capture_output=True)
    (folder / "garbage.pem").write_text("not a certificate\n")
    (folder / "cadir").mkdir()
    return folder


def b64(path):
    return base64.b64encode(path.read_bytes()).decode()


def cluster(**fields):
    def change(config, tls):
        config["clusters"][0]["cluster"].update(fields)
    return change


def https(**fields):
    """An https server (never reached: the kubeconfig is refused first) whose CA is the test
    certificate (the worlds' fake CA is no certificate), then the given fields."""
    def change(config, tls):
        config["clusters"][0]["cluster"].update({"server": "https://127.0.0.1:9",
                                                 "certificate-authority-data": b64(tls / "cert.pem")})
        if "certificate-authority" in fields:  # the data would be used instead of the file
            del config["clusters"][0]["cluster"]["certificate-authority-data"]
        for key, value in fields.items():
            section = "cluster" if key.startswith(("certificate-authority", "insecure")) else "user"
            config[f"{section}s"][0][section][key] = value(tls) if callable(value) else value
    return change


# (case, change, reason): the reason follows "<kubeconfig>: " in the grader's ERROR and fills the
# learner's FAIL; {cluster} and {user} are the names of the current context's cluster and user.
BROKEN = [
    ("kube-ca-data-not-a-certificate", https(**{"certificate-authority-data": "bm90IGEgY2VydA=="}),
     "cluster {cluster}: certificate-authority-data is not a PEM certificate"),
    ("kube-ca-data-not-base64", https(**{"certificate-authority-data": "not base64!"}),
     "cluster {cluster}: certificate-authority-data is not base64 of a PEM certificate"),
    ("kube-ca-data-not-a-certificate-insecure", https(**{"certificate-authority-data": "bm90IGEgY2VydA==",
                                                         "insecure-skip-tls-verify": True}),
     "cluster {cluster}: certificate-authority-data is not a PEM certificate"),
    ("kube-ca-file-not-a-certificate", https(**{"certificate-authority": lambda t: str(t / "garbage.pem")}),
     "cluster {cluster}: certificate-authority {tls}/garbage.pem is not a PEM certificate"),
    ("kube-ca-file-directory", https(**{"certificate-authority": lambda t: str(t / "cadir")}),
     "cluster {cluster}: {tls}/cadir is a directory"),
    ("kube-server-ipv6-unclosed", cluster(server="http://[::1"),
     "cluster {cluster}: the server 'http://[::1' is not a URL (Invalid IPv6 URL)"),
    ("kube-server-port-not-a-number", cluster(server="https://host:notaport"),
     "cluster {cluster}: the server 'https://host:notaport' is not a URL (Port could not be cast to integer "
     "value as 'notaport')"),
    ("kube-server-port-too-large", cluster(server="http://127.0.0.1:99999"),
     "cluster {cluster}: the server 'http://127.0.0.1:99999' is not a URL (Port out of range 0-65535)"),
    ("kube-server-empty", cluster(server=""), "cluster {cluster} has no server"),
    ("kube-server-space", cluster(server="http://a b"),
     "cluster {cluster}: the server 'http://a b' has a space or a control character"),
    ("kube-server-no-host", cluster(server="https://:6443"), "cluster {cluster}: the server 'https://:6443' has no host"),
    ("kube-client-certificate-not-pem", https(**{"client-certificate-data": "eA==",
                                                 "client-key-data": lambda t: b64(t / "key.pem")}),
     "user {user}: client-certificate-data is not a PEM certificate"),
    ("kube-client-key-other", https(**{"client-certificate-data": lambda t: b64(t / "cert.pem"),
                                       "client-key-data": lambda t: b64(t / "other.pem")}),
     "user {user}: client-key-data is not the key of client-certificate-data"),
    ("kube-client-key-encrypted", https(**{"client-certificate": lambda t: str(t / "cert.pem"),
                                           "client-key": lambda t: str(t / "encrypted.pem")}),
     "user {user}: client-key is not an unencrypted PEM private key"),
    ("kube-client-key-missing", https(**{"client-certificate-data": lambda t: b64(t / "cert.pem")}),
     "user {user}: client-certificate-data is given without a client key"),
    ("kube-users-not-a-list", lambda config, tls: config.update(users=5), "users is not a list"),
    ("kube-clusters-not-a-list", lambda config, tls: config.update(clusters={"name": "x"}), "clusters is not a list"),
]
IDS = [case[0] for case in BROKEN]


def reason(template, config, tls):
    context = next(c["context"] for c in config["contexts"] if c["name"] == config["current-context"])
    return template.format(cluster=repr(context["cluster"]), user=repr(context["user"]), tls=tls)


@pytest.mark.parametrize(("case", "change", "template"), BROKEN, ids=IDS)
def test_grader_kubeconfig_is_the_health_gate_error(host, tls, case, change, template):
    edit_kubeconfig(host, lambda config, h: change(config, tls))
    kubeconfig = host / "kubeconfig"
    expected = f"{kubeconfig}: {reason(template, yaml.safe_load(kubeconfig.read_text()), tls)}"
    answer = run(case, "health", 10, kubeconfig=str(kubeconfig), timeout=1)
    assert (answer["healthy"], [(p["probe"], p["detail"]) for p in answer["problems"]]) == (
        False, [("kubeconfig", expected)])
    # the same reason as a catalogue entry: in English the detail itself, in Japanese no English sentence
    catalogued = answer["problems"][0]["reason"]
    assert i18n.message(catalogued["key"], catalogued["params"], "en") == expected
    assert english_words(i18n.message(catalogued["key"], masked(catalogued["key"], catalogued["params"]), "ja")) == []


@pytest.mark.parametrize("case", ["kube-ca-data-not-a-certificate", "kube-server-ipv6-unclosed"])
def test_grader_kubeconfig_is_the_cluster_checks_error(host, tls, case):
    _, change, template = BROKEN[IDS.index(case)]
    edit_kubeconfig(host, lambda config, h: change(config, tls))
    kubeconfig = host / "kubeconfig"
    expected = f"{kubeconfig}: {reason(template, yaml.safe_load(kubeconfig.read_text()), tls)}"
    answer = run(f"e2e-{case}", "grade", 20, host_dir=str(host), timeout=1)
    assert answer["error"] == {"kind": "kubeconfig", "detail": expected}
    assert answer["checks"]["capa-src.1.live-app"] == ["ERROR", f"the cluster could not be read (kubeconfig: {expected})"]
    assert answer["checks"]["capa-src.1.bare-repo"][0] == "PASS"  # what the grader could read is still judged


def test_grader_kubeconfig_without_a_scheme_is_named(host, tls):
    edit_kubeconfig(host, lambda config, h: (https()(config, tls), config["clusters"][0]["cluster"].update(
        server="127.0.0.1:6443")))
    answer = run("kube-server-no-scheme", "health", 10, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert [(p["probe"], p["detail"]) for p in answer["problems"]] == [("kubeconfig", f"{host / 'kubeconfig'}: the server "
                                                                       "'127.0.0.1:6443' is not an http:// or https:// URL")]


def test_working_client_certificate_kubeconfig_is_used(host, tls):
    """Not refused: a CA that is a certificate, a client certificate with its own key."""
    edit_kubeconfig(host, lambda config, h: https(**{
        "certificate-authority-data": lambda t: b64(t / "cert.pem"), "client-certificate-data": lambda t: b64(
            t / "cert.pem"), "client-key": lambda t: str(t / "key.pem")})(config, tls))
    answer = run("kube-client-certificate-ok", "health", 10, kubeconfig=str(host / "kubeconfig"), timeout=1)
    assert answer["problems"][0]["probe"] == "api_server"
    assert answer["problems"][0]["detail"] == "unreachable: https://127.0.0.1:9: Connection refused"


# ------------------------------------------------------------------ a learner's kubeconfig


def test_learner_kubeconfig_without_a_scheme_is_https(golden_cgoa_host, tmp_path):
    """The worlds' fake CA is no certificate: kubectl refuses it for https://127.0.0.1:6443."""
    config = yaml.safe_load((golden_cgoa_host / "root" / "cgoa-ci" / "ci-kubeconfig").read_text())
    config["clusters"][0]["cluster"]["server"] = "127.0.0.1:6443"
    (tmp_path / "ci-kubeconfig").write_text(yaml.safe_dump(config))
    read = read_kubeconfig(str(tmp_path), "ci-kubeconfig", 1024 * 1024)
    assert (read.problem, read.detail) == ("invalid_kubeconfig", f"{read.path}: cluster 'lab': "
                                           "certificate-authority-data is not a PEM certificate")


@pytest.mark.parametrize(("case", "change", "template"), BROKEN, ids=IDS)
def test_learner_kubeconfig_is_invalid_with_the_reason(golden_cgoa_host, tmp_path, tls, case, change, template):
    config = yaml.safe_load((golden_cgoa_host / "root" / "cgoa-ci" / "ci-kubeconfig").read_text())
    change(config, tls)
    (tmp_path / "ci-kubeconfig").write_text(yaml.safe_dump(config))
    read = read_kubeconfig(str(tmp_path), "ci-kubeconfig", 1024 * 1024)
    assert (read.problem, read.detail) == ("invalid_kubeconfig", f"{read.path}: {reason(template, config, tls)}")


def test_learner_kubeconfig_without_a_scheme_is_read_as_kubectl_reads_it(golden_cgoa_host, tmp_path, tls):
    config = yaml.safe_load((golden_cgoa_host / "root" / "cgoa-ci" / "ci-kubeconfig").read_text())
    https()(config, tls)
    config["clusters"][0]["cluster"]["server"] = "127.0.0.1:6443"  # client-go adds https://
    (tmp_path / "ci-kubeconfig").write_text(yaml.safe_dump(config))
    assert read_kubeconfig(str(tmp_path), "ci-kubeconfig", 1024 * 1024).problem is None


@pytest.fixture(scope="module")
def golden_cgoa_host(fake_api):
    return fake_api.world("cgoa-ci/golden.yaml")


@pytest.mark.parametrize("case", ["kube-ca-data-not-a-certificate", "kube-server-ipv6-unclosed",
                                  "kube-client-key-other"])
def test_learner_kubeconfig_fails_the_checks_that_need_it(fake_api, tls, case):
    host = fake_api.world("cgoa-ci/golden.yaml")
    _, change, template = BROKEN[IDS.index(case)]
    path = host / "root" / "cgoa-ci" / "ci-kubeconfig"
    config = yaml.safe_load(path.read_text())
    change(config, tls)
    path.write_text(yaml.safe_dump(config))
    checks = judge(collect_host(host, "cgoa-ci"), "en", "cgoa-ci")
    expected = f"{path}: {reason(template, config, tls)}: it cannot be used as a kubeconfig"
    failing = {check: (c["status"], c["message"]) for check, c in checks.items() if c["status"] != "PASS"}
    assert failing == {check: ("FAIL", expected) for check in (
        "cgoa-ci.3.ci-kubeconfig", "cgoa-ci.3.ci-token-identity", "cgoa-ci.3.ci-token-lifetime")}
