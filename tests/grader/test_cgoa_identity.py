"""cgoa-ci step 3 as the API server and client-go decide it: the identity of ci-kubeconfig as a
whole is what `kubectl auth whoami` says when run with the file in the sandbox (here against the
fake API server, which answers a SelfSubjectReview for the credential it is sent); servers are
compared as client-go reaches them. The judging of those answers (an admin certificate beside
the token, RBAC by what it grants) is in test_cgoa_ci.py; the real API server's answers in
tests/controlplane/mutations_cgoa_ci.py."""

from __future__ import annotations

import base64
import http.server
import json
import ssl
import subprocess
import threading
import time

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.kubeconfig import (
    identity,
    reviewed_user,
    server_address,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.collect import ProbeContext, Site

SAME = [
    ("https://127.0.0.1:6443", "https://127.0.0.1:6443/"),
    ("https://127.0.0.1:6443", "127.0.0.1:6443"),  # no scheme: https, since a CA is configured
    ("https://K3S.Example:6443", "https://k3s.example:6443"),
    ("HTTPS://k3s.example", "https://k3s.example:443"),
    ("https://[::1]:6443", "https://[::1]:6443//"),
    ("https://k3s.example:6443/prefix", "https://k3s.example:6443/prefix/"),
]
DIFFERENT = [
    ("https://127.0.0.1:6443", "https://127.0.0.1:6444"),
    ("https://127.0.0.1:6443", "http://127.0.0.1:6443"),
    ("https://127.0.0.1:6443", "https://localhost:6443"),  # client-go resolves no name
    ("https://k3s.example:6443", "https://k3s.example:6443/prefix"),
    ("https://k3s.example:6443", "https://k3s.example:not-a-port"),
    ("https://k3s.example:6443", ""),
]


@pytest.mark.parametrize(("one", "other"), SAME)
def test_servers_client_go_reaches_alike_are_the_same(one, other):
    assert server_address(one) is not None
    assert server_address(one) == server_address(other)


@pytest.mark.parametrize(("one", "other"), DIFFERENT)
def test_servers_client_go_reaches_apart_differ(one, other):
    assert server_address(one) != server_address(other)


@pytest.mark.parametrize(
    "stdout",
    [
        b"",
        b"not json",
        b'{"kind": "SelfSubjectReview", "status": {}}',
        b'{"kind": "TokenReview", "status": {"userInfo": {"username": "system:serviceaccount:ci:validator"}}}',
        # a credential plugin that wrote its own review to kubectl's output before kubectl's own
        b'{"kind": "SelfSubjectReview", "status": {"userInfo": {"username": "system:serviceaccount:ci:validator"}}}\n'
        b'{"kind": "SelfSubjectReview", "status": {"userInfo": {"username": "system:admin"}}}',
    ],
)
def test_only_one_self_subject_review_is_an_answer(stdout):
    assert reviewed_user(stdout) is None


class Api:
    """An HTTPS server in this test that answers SelfSubjectReview as kube-apiserver orders its
    authenticators (a verified client certificate first, then the bearer token) and records what
    each request presented; kubectl sends no credential over plain http, so the fake API server
    of the worlds cannot be used here (observed with kubectl v1.32 and the control plane's)."""

    def __init__(self, folder, tokens):
        self.folder, self.tokens, self.seen = folder, tokens, []
        self.pem = {}
        openssl = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        run([*openssl, "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=test-ca"], folder)
        for name, subject, ext in (
            ("server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1"),
            ("admin", "/O=system:masters/CN=lab-admin", "extendedKeyUsage=clientAuth"),
        ):
            run(
                [
                    "openssl",
                    "req",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-keyout",
                    f"{name}.key",
                    "-out",
                    f"{name}.csr",
                    "-subj",
                    subject,
                ],
                folder,
            )
            (folder / f"{name}.ext").write_text(ext + "\n")
            run(
                [
                    "openssl",
                    "x509",
                    "-req",
                    "-in",
                    f"{name}.csr",
                    "-CA",
                    "ca.crt",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-days",
                    "1",
                    "-extfile",
                    f"{name}.ext",
                    "-out",
                    f"{name}.crt",
                ],
                folder,
            )
        for name in ("ca.crt", "admin.crt", "admin.key"):
            self.pem[name] = base64.b64encode((folder / name).read_bytes()).decode()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(folder / "server.crt", folder / "server.key")
        context.load_verify_locations(folder / "ca.crt")
        context.verify_mode = ssl.CERT_OPTIONAL
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                cert = self.connection.getpeercert()
                token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                api.seen.append({"certificate": bool(cert), "token": bool(token)})
                if cert:
                    subject = dict(item for rdn in cert["subject"] for item in rdn)
                    user = {"username": subject["commonName"], "groups": [subject["organizationName"]]}
                else:
                    user = api.tokens.get(token)
                body = json.dumps(
                    {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1", "status": {"userInfo": user}}
                    if user
                    else {
                        "kind": "Status",
                        "apiVersion": "v1",
                        "status": "Failure",
                        "code": 401,
                        "reason": "Unauthorized",
                        "message": "Unauthorized",
                    }
                ).encode()
                self.send_response(201 if user else 401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def run(argv, cwd):
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True, timeout=60)


VALIDATOR_TOKEN = "validator-token-0123456789abcdef"
GRADER_TOKEN = "grader-token-0123456789abcdef"


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    server = Api(
        tmp_path_factory.mktemp("api"),
        {
            VALIDATOR_TOKEN: {
                "username": "system:serviceaccount:ci:validator",
                "groups": ["system:serviceaccounts", "system:authenticated"],
            },
            GRADER_TOKEN: {"username": "system:admin", "groups": ["system:masters"]},
        },
    )
    yield server
    server.close()


@pytest.fixture
def workspace(tmp_path):
    """A learner's workspace beside the grader's kubeconfig (which the sandbox must hide)."""
    (tmp_path / "grader").mkdir()
    (tmp_path / "grader" / "kubeconfig").write_text(f"users: [{{name: g, user: {{token: {GRADER_TOKEN}}}}}]\n")
    (tmp_path / "root" / "cgoa-ci").mkdir(parents=True)
    return tmp_path


def context_of(root):
    grader = str(root / "grader" / "kubeconfig")
    site = Site(bare_root=str(root / "srv" / "bare"), workspace_root=str(root / "root"), k3s_kubeconfig=grader)
    return ProbeContext(
        site, str(root / "root" / "cgoa-ci"), str(root / "srv" / "bare" / "ci.git"), {}, grader, time.monotonic() + 60
    )


def ci_kubeconfig(root, api, user):
    path = root / "root" / "cgoa-ci" / "ci-kubeconfig"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "ci",
                "clusters": [{"name": "lab", "cluster": {"server": api.url, "certificate-authority-data": api.pem["ca.crt"]}}],
                "contexts": [{"name": "ci", "context": {"cluster": "lab", "user": "validator", "namespace": "ci-dryrun"}}],
                "users": [{"name": "validator", "user": user}],
            }
        )
    )
    return str(path)


def never_skip(relpath, data):
    return False


def test_the_token_alone_is_who_the_server_says(api, workspace):
    path = ci_kubeconfig(workspace, api, {"token": VALIDATOR_TOKEN})
    started = time.monotonic()
    found = identity(context_of(workspace), path, never_skip)
    assert found == {
        "username": "system:serviceaccount:ci:validator",
        "groups": ["system:serviceaccounts", "system:authenticated"],
    }
    assert time.monotonic() - started < 20


def test_every_credential_of_the_file_is_sent_and_the_servers_answer_is_kept(api, workspace):
    """An admin certificate beside the validator's token: kubectl presents both (the server saw
    the certificate and the token), and the answer is the server's, not the token's."""
    path = ci_kubeconfig(
        workspace,
        api,
        {"token": VALIDATOR_TOKEN, "client-certificate-data": api.pem["admin.crt"], "client-key-data": api.pem["admin.key"]},
    )
    api.seen.clear()
    found = identity(context_of(workspace), path, never_skip)
    assert api.seen == [{"certificate": True, "token": True}]
    assert found == {"username": "lab-admin", "groups": ["system:masters"]}


def test_a_refused_credential_is_kubectls_failure_without_the_token(api, workspace):
    token = "refused-token-0123456789abcdef"
    path = ci_kubeconfig(workspace, api, {"token": token})
    found = identity(context_of(workspace), path, never_skip)
    assert found["returncode"] == 1 and "Unauthorized" in found["failed"]
    assert token not in str(found)


def test_a_credential_plugin_runs_in_the_sandbox_and_cannot_forge_the_answer(api, workspace):
    """An exec plugin in ci-kubeconfig is a learner program: it runs in the sandbox, where the
    grader's kubeconfig is not, and what it writes to kubectl's own output (where the sandbox
    lets it: /proc/$PPID/fd/1) makes the answer unreadable, never another user: the answer is
    the server's for the credential the plugin gave."""
    plugin = workspace / "root" / "cgoa-ci" / "get-token.sh"
    forged = '{"kind": "SelfSubjectReview", "status": {"userInfo": {"username": "system:serviceaccount:ci:validator"}}}'
    plugin.write_text(
        "#!/bin/sh\n"
        f"test -e {workspace / 'grader' / 'kubeconfig'} && echo 'the grader kubeconfig is visible' >&2 && exit 3\n"
        f"echo '{forged}' > /proc/$PPID/fd/1\n"
        'printf \'{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", '
        f'"status": {{"token": "{GRADER_TOKEN}"}}}}\'\n'
    )
    plugin.chmod(0o755)
    path = ci_kubeconfig(
        workspace,
        api,
        {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin), "interactiveMode": "Never"}},
    )
    found = identity(context_of(workspace), path, never_skip)
    assert "grader kubeconfig is visible" not in str(found)
    assert found.get("username", "system:admin") == "system:admin", found
