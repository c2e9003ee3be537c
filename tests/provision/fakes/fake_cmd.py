#!/usr/bin/env python3
"""Stand-in for kubectl, ctr, modprobe, sysctl, ufw, firewall-cmd in the role tests.

Usage: fake_cmd.py NAME ARG...  Appends {"name": NAME, "argv": [ARG...]} to $FAKE_LOG and
answers with the first rule of $FAKE_RULES (a JSON list) whose name matches and whose
"args" all appear in ARG..., as {"stdout": str, "stderr": str, "rc": int}; no rule: rc 0, no output.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    name, argv = sys.argv[1], sys.argv[2:]
    with open(os.environ["FAKE_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"name": name, "argv": argv}) + "\n")
    for rule in json.loads(os.environ.get("FAKE_RULES", "[]")):
        if rule["name"] == name and all(a in argv for a in rule.get("args", [])):
            sys.stdout.write(rule.get("stdout", ""))
            sys.stderr.write(rule.get("stderr", ""))
            return int(rule.get("rc", 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
