"""The grader reads a token kubeconfig without importing the kubernetes package (about 0.2 CPU-s
on every graded VM, docs/performance.md), and reads it exactly as the package's loader does;
any other shape still goes to the loader."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import loader_settings, token_settings

ROOT = Path(__file__).resolve().parents[2]
CA_PEM = "-----BEGIN CERTIFICATE-----\nbGFid29ybGQgZmFrZSBDQQ==\n-----END CERTIFICATE-----\n"


def config(cluster, user=None):
    return {"apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "k", "cluster": cluster}],
            "users": [{"name": "u", "user": user if user is not None else {"token": "t0ken"}}],
            "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u", "namespace": "default"}}]}


def fields(settings, ca_from_file=False):
    ca = settings.ca_data
    if ca_from_file and settings.ca_file:
        ca = Path(settings.ca_file).read_text()
    return {"host": settings.host, "verify": settings.verify_ssl, "headers": settings.headers, "ca": ca,
            "cert": settings.cert_file}


@pytest.mark.parametrize("cluster", [
    {"server": "http://127.0.0.1:8080/h/learner01/"},
    {"server": "http://127.0.0.1:8080", "certificate-authority-data": base64.b64encode(CA_PEM.encode()).decode()},
    {"server": "https://10.0.0.1:6443", "certificate-authority-data": base64.b64encode(CA_PEM.encode()).decode()},
    {"server": "https://10.0.0.1:6443", "insecure-skip-tls-verify": True},
], ids=["http", "http-with-ca", "https-ca-data", "https-insecure"])
def test_token_kubeconfig_reads_as_the_loader_reads_it(cluster):
    cfg = config(cluster)
    fast = token_settings(cfg)
    assert fast is not None
    loaded = fields(loader_settings(config(cluster), "kubeconfig"), ca_from_file=True)
    loaded["headers"] = {key.lower(): value for key, value in loaded["headers"].items()}
    assert fields(fast) == loaded


@pytest.mark.parametrize("cfg", [
    config({"server": "https://10.0.0.1:6443"}, {"client-certificate-data": "eA==", "client-key-data": "eA=="}),
    config({"server": "https://10.0.0.1:6443"}, {"username": "a", "password": "b"}),
    config({"server": "https://10.0.0.1:6443", "tls-server-name": "kubernetes"}),
    config({"server": "https://10.0.0.1:6443", "proxy-url": "http://proxy:3128"}),
    config({"server": "https://10.0.0.1:6443", "insecure-skip-tls-verify": "true"}),
    config({"server": "https://10.0.0.1:6443", "certificate-authority-data": "not base64!"}),
    {**config({"server": "https://10.0.0.1:6443"}), "current-context": "elsewhere"},
], ids=["client-cert", "basic-auth", "tls-server-name", "proxy", "insecure-as-text", "bad-ca-data", "no-context"])
def test_other_kubeconfigs_go_to_the_loader(cfg):
    assert token_settings(cfg) is None


def test_grading_a_token_kubeconfig_does_not_import_kubernetes(tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(config({"server": "http://127.0.0.1:9/h/learner01"})))
    program = f"""
import sys
sys.path.insert(0, {str(ROOT / 'collections')!r})
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.health import check_health
health = check_health({str(kubeconfig)!r}, timeout=0.5)
assert health["probes"]["python"] == "ok", health
assert health["probes"]["api_server"].startswith("unreachable"), health
print("kubernetes imported" if "kubernetes" in sys.modules else "kubernetes not imported")
"""
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": ""})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "kubernetes not imported"
