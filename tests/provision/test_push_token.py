"""The push_token action plugin (plugins/action/push_token.py) and what it calls in grade_push.py:
a VM's push token is issued on the controller, only its SHA-256 recorded in the class's digests
(0600, under a lock, replaced atomically), kept when the VM still has it, replaced when it does
not, and shown by no callback; the collector URL and its certificate are checked with what to do."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import pytest
import yaml
from ansible_collections.gitops_lab.grader.plugins.plugin_utils import grade_push
from provision_helpers import VENV_BIN, run

URL = "http://127.0.0.1:8443"


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def provision(tmp_path, hosts, digests=None, url=URL, check=False):
    """ansible-playbook of push_token on `hosts` (local connections, one fork each), each host's
    current digest from `digests`; the registered results written to <tmp>/result-<host>.json.
    Returns (rc, what Ansible printed with -v, {host: registered result})."""
    inventory = {"learners": {"hosts": {host: {"ansible_connection": "local",
                                               "ansible_python_interpreter": str(VENV_BIN / "python")}
                                        for host in hosts},
                              "vars": {"grade_report_dir": str(tmp_path / "reports")}}}
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / "digests.json").write_text(json.dumps(digests or {}))
    playbook = [{"hosts": "learners", "gather_facts": False, "vars": {"digests": "{{ lookup('file', '"
                 + str(tmp_path / "digests.json") + "') | from_json }}"}, "tasks": [
        {"name": "Issue or keep", "gitops_lab.grader.push_token": {
            "collector_url": url, "current_digest": "{{ digests[inventory_hostname] | default(omit) }}",
            "report_dir": "{{ grade_report_dir }}"}, "register": "issued"},
        {"name": "What the next task sees", "ansible.builtin.copy": {
            "content": "{{ issued | to_json }}", "dest": str(tmp_path) + "/result-{{ inventory_hostname }}.json",
            "mode": "0600"}, "no_log": True, "check_mode": False},
    ]}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(playbook))
    said = run([str(VENV_BIN / "ansible-playbook"), "-v", "-f", str(len(hosts)), "-i", str(tmp_path / "hosts.yml"),
                str(tmp_path / "play.yml"), *(["--check"] if check else [])])
    results = {host: json.loads((tmp_path / f"result-{host}.json").read_text())
               for host in hosts if (tmp_path / f"result-{host}.json").exists()}
    return said.returncode, said.stdout + said.stderr, results


def recorded(tmp_path):
    path = tmp_path / "reports" / ".collector" / "tokens.json"
    return json.loads(path.read_text()), path.stat().st_mode & 0o777


def test_a_token_is_issued_its_digest_recorded_kept_while_the_vm_has_it_and_replaced_when_not(tmp_path):
    hosts = ["learner01", "learner02", "learner03"]
    rc, printed, results = provision(tmp_path, hosts)
    assert rc == 0, printed
    tokens = {host: results[host]["token"] for host in hosts}
    assert all(len(token) == 43 for token in tokens.values())  # 256 bits, URL-safe base64
    assert len(set(tokens.values())) == 3
    digests, mode = recorded(tmp_path)
    assert digests == {host: sha256(token) for host, token in tokens.items()} and mode == 0o600
    for host in hosts:  # the token only in its own field; nowhere in what Ansible printed
        assert [key for key, value in results[host].items() if tokens[host] in json.dumps(value)] == ["token"]
        assert results[host]["changed"] is True
        assert results[host]["certificate"] is None
        assert results[host]["tokens_file"] == str(tmp_path / "reports" / ".collector" / "tokens.json")
    assert not any(token in printed for token in tokens.values())
    assert "censored" in printed

    # re-provisioned: learner01 and learner02 still have theirs; learner03's file was changed
    rc, printed, again = provision(tmp_path, hosts, {"learner01": sha256(tokens["learner01"]),
                                                     "learner02": sha256(tokens["learner02"]),
                                                     "learner03": sha256("edited by the learner")})
    assert rc == 0, printed
    assert {host: (again[host]["changed"], again[host]["token"]) for host in hosts[:2]} == {
        "learner01": (False, None), "learner02": (False, None)}
    assert again["learner03"]["changed"] is True and again["learner03"]["token"] not in (None, tokens["learner03"])
    assert recorded(tmp_path) == ({**digests, "learner03": sha256(again["learner03"]["token"])}, 0o600)


def test_check_mode_records_nothing_and_says_what_it_would_issue(tmp_path):
    rc, printed, results = provision(tmp_path, ["learner01"], check=True)
    assert rc == 0, printed
    assert (results["learner01"]["changed"], results["learner01"]["token"]) == (True, None)
    assert not (tmp_path / "reports" / ".collector").exists()


def test_a_wrong_collector_url_fails_with_what_to_do(tmp_path):
    cert = tmp_path / "reports" / ".collector" / "collector.pem"
    rc, printed, results = provision(tmp_path, ["learner01"], url="https://10.0.0.5:8443")
    assert rc == 2 and results == {}
    assert (f"lab_push_collector_url https://10.0.0.5:8443 is HTTPS and the class's certificate {cert} does not "
            "exist: run scripts/grade-push --init --address 10.0.0.5 first") in printed
    assert not (tmp_path / "reports" / ".collector" / "tokens.json").exists()  # no token for a VM that cannot push


@pytest.mark.parametrize(("url", "message"), [
    ("http://10.0.0.5:8443", "lab_push_collector_url http://10.0.0.5:8443: plain HTTP only to a loopback collector; "
                             "use https:// with the class's certificate (scripts/grade-push --init)"),
    ("10.0.0.5:8443", "lab_push_collector_url '10.0.0.5:8443' is not an http(s) URL with a host "
                      "(https://<collector>:<port>)"),
    ("https://10.0.0.5:port", "lab_push_collector_url 'https://10.0.0.5:port' is not a URL: Port could not be cast "
                              "to integer value as 'port'"),
])
def test_a_collector_url_is_refused_with_its_reason(tmp_path, url, message):
    with pytest.raises(grade_push.SettingsRefused) as refused:
        grade_push.collector_certificate(url, tmp_path)
    assert str(refused.value) == message


def test_the_certificate_is_the_classs_once_made_for_the_urls_host(tmp_path):
    assert grade_push.collector_certificate("http://localhost:8443", tmp_path) is None
    assert grade_push.collector_certificate("http://[::1]:8443", tmp_path) is None
    certificate = grade_push.make_certificate(tmp_path, "10.0.0.5")
    assert grade_push.collector_certificate("https://10.0.0.5:8443", tmp_path) == str(certificate)
    with pytest.raises(grade_push.SettingsRefused) as refused:
        grade_push.collector_certificate("https://collector.example.org:8443", tmp_path)
    assert str(refused.value) == (
        f"lab_push_collector_url https://collector.example.org:8443: the class's certificate {certificate} is for "
        "10.0.0.5, not collector.example.org: run scripts/grade-push --init --address collector.example.org (the VMs "
        "provisioned before need provisioning again)")
    grade_push.make_certificate(tmp_path, "Collector.Example.org")  # DNS names match in any case (RFC 6125)
    assert grade_push.collector_certificate("https://collector.example.org:8443", tmp_path) == str(certificate)
    certificate.write_text("not a certificate")
    with pytest.raises(grade_push.SettingsRefused) as refused:
        grade_push.collector_certificate("https://collector.example.org:8443", tmp_path)
    assert str(refused.value).startswith(f"the class's certificate {certificate} cannot be read: ")


def test_hosts_recording_at_once_lose_no_entry(tmp_path):
    """Provisioning's forks record their hosts at the same moment: each read-change-write is under
    the lock, so none overwrites another's entry."""
    hosts = [f"learner{n:03}" for n in range(40)]
    tokens, start = {}, threading.Barrier(len(hosts))

    def provision_one(host):
        start.wait()
        tokens[host] = grade_push.record_token(tmp_path, host)[1]

    threads = [threading.Thread(target=provision_one, args=(host,)) for host in hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    digests = json.loads((tmp_path / ".collector" / "tokens.json").read_text())
    assert digests == {host: sha256(token) for host, token in tokens.items()} and len(digests) == 40
    assert sorted(p.name for p in (tmp_path / ".collector").iterdir()) == ["tokens.json", "tokens.json.lock"]


def test_without_the_lock_entries_are_lost(tmp_path, monkeypatch):
    """The test above can fail: with the lock taken away, forks overwrite each other's entries."""
    monkeypatch.setattr(grade_push.fcntl, "flock", lambda *_: None)
    real_read = grade_push.read_digests

    def slow_read(output_dir):  # every fork reads before any writes, as the lock prevents
        digests = real_read(output_dir)
        start.wait()
        return digests

    monkeypatch.setattr(grade_push, "read_digests", slow_read)
    start = threading.Barrier(5)
    threads = [threading.Thread(target=grade_push.record_token, args=(tmp_path, f"learner{n}")) for n in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(json.loads((tmp_path / ".collector" / "tokens.json").read_text())) < 5


def test_a_digests_file_it_cannot_read_is_not_replaced(tmp_path):
    path = Path(tmp_path) / ".collector" / "tokens.json"
    path.parent.mkdir()
    path.write_text("{")
    with pytest.raises(grade_push.SettingsRefused) as refused:
        grade_push.record_token(tmp_path, "learner01")
    assert str(refused.value).startswith(f"the class's token digests {path} cannot be read: ")
    assert path.read_text() == "{"
