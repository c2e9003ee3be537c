"""Run one task file of a role for real (tests/provision/run_tasks.yml), with fake commands
(fakes/fake_cmd.py) standing in for kubectl, ctr, modprobe, sysctl and the firewalls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from provision_helpers import REPO, VENV_BIN, run

FAKE = REPO / "tests" / "provision" / "fakes" / "fake_cmd.py"
FAKE_NAMES = ("kubectl", "ctr", "modprobe", "sysctl", "ufw", "firewall-cmd", "argocd")


@dataclass
class Run:
    rc: int
    output: str
    calls: list[dict]

    def argvs(self, name: str) -> list[list[str]]:
        return [c["argv"] for c in self.calls if c["name"] == name]


class RoleRunner:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.bin = tmp / "bin"
        self.bin.mkdir()
        for name in FAKE_NAMES:
            script = self.bin / name
            script.write_text(f'#!/bin/sh\nexec /usr/bin/python3 {FAKE} {name} "$@"\n')
            script.chmod(0o755)
        self.log = tmp / "calls.jsonl"

    def fake(self, name: str) -> str:
        return str(self.bin / name)

    def __call__(self, role: str, tasks: str, variables: dict, rules: list[dict] | None = None, check: bool = False) -> Run:
        self.log.write_text("")
        extra = self.tmp / "vars.json"
        extra.write_text(json.dumps({"test_role": role, "test_tasks": tasks, "lab_root": str(self.tmp / "root")} | variables))
        result = run(
            [
                str(VENV_BIN / "ansible-playbook"),
                "-i",
                "localhost,",
                "-e",
                "ansible_python_interpreter=/usr/bin/python3",
                "-e",
                f"@{extra}",
                "tests/provision/run_tasks.yml",
                *(["--check"] if check else []),
            ],
            extra_env={"FAKE_LOG": str(self.log), "FAKE_RULES": json.dumps(rules or [])},
        )
        calls = [json.loads(line) for line in self.log.read_text().splitlines()]
        return Run(result.returncode, result.stdout + result.stderr, calls)
