"""One-off observation (not a test: ~12 minutes): a failing PreSync hook Job WITHOUT backoffLimit
(Kubernetes default 6), as a learner would write it. Needs a running plane (`controlplane/cp up`).

    .venv/bin/python tests/controlplane/observe_default_backoff.py [OUT.json]

Samples the Application's operationState and the hook Job's status every 5 s until the operation
leaves the failed revision's first attempt (retryCount >= 1 or phase Failed) or 900 s pass, then
ends the operation with `argocd app terminate-op --core`. Writes the samples to OUT.json
(default fixtures/recorded/obs-default-backofflimit.json).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cpharness import Plane, wait_until
from labrepo import application, waves_files

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = "slow-waves"


def main() -> int:
    root = Path(os.environ.get("LAB_CP_ROOT", "/tmp/lab-controlplane"))
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO_ROOT / "fixtures" / "recorded" / "obs-default-backofflimit.json"
    work = Path(tempfile.mkdtemp(prefix="lab-cp-obs-"))
    plane = Plane(
        root=root,
        kubeconfig=root / "kubeconfig",
        kubeconfig_argocd=root / "kubeconfig-argocd",
        bare_root=Path(os.environ.get("LAB_CP_BARE", root / "bare")),
        bin_dir=Path((root / "bin").read_text().strip()),
        work=work,
        record_dir=None,
        env=dict(os.environ),
    )
    repo = plane.new_repo("slow")

    def files(cmd: str) -> dict[str, str]:
        f = waves_files(mode="green" if "exit 1" in cmd else "blue", migrate_cmd=cmd)
        f["waves/migrate.yaml"] = f["waves/migrate.yaml"].replace("  backoffLimit: 0\n", "")
        return f

    plane.commit_push(repo, files("echo migrate ok"), "waves")
    plane.apply(application(APP, "slow", "waves", "slow-waves"))
    plane.wait_synced_healthy(APP, timeout=240)
    bad = plane.commit_push(repo, files("echo migrate failed; exit 1"), "failing migrate, default backoffLimit")
    plane.hard_refresh(APP)
    t0 = time.time()
    samples: list[dict[str, Any]] = []
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        app = plane.app(APP)
        op = app.get("status", {}).get("operationState", {})
        jobs = [
            {
                "name": j["metadata"]["name"],
                "uid": j["metadata"]["uid"],
                "backoffLimit": j["spec"].get("backoffLimit"),
                "failed": j["status"].get("failed"),
                "active": j["status"].get("active"),
                "conditions": [(c["type"], c.get("reason")) for c in j["status"].get("conditions", []) if c["status"] == "True"],
            }
            for j in plane.list("jobs", "slow-waves")
            if j["metadata"]["name"].startswith(f"migrate-{bad[:7]}")
        ]
        sample = {
            "elapsed_s": round(time.time() - t0),
            "phase": op.get("phase"),
            "message": op.get("message"),
            "retryCount": op.get("retryCount"),
            "operation_revision": op.get("operation", {}).get("sync", {}).get("revision"),
            "hook_jobs": jobs,
        }
        if not samples or {k: v for k, v in sample.items() if k != "elapsed_s"} != {
            k: v for k, v in samples[-1].items() if k != "elapsed_s"
        }:
            samples.append(sample)
            print(json.dumps(sample), flush=True)
        if sample["operation_revision"] == bad and ((sample["retryCount"] or 0) >= 1 or sample["phase"] == "Failed"):
            break
        time.sleep(5)
    proc = plane.argocd("app", "terminate-op", APP, "--core")
    wait_until("operation ended", lambda: plane.app(APP).get("operation") is None, 120, 2)
    out.write_text(
        json.dumps({"bad_revision": bad, "samples": samples, "terminate_op_rc": proc.returncode}, indent=2) + "\n",
        encoding="utf-8",
    )
    plane.kubectl("-n", "argocd", "delete", "applications.argoproj.io", APP, "--wait=false")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
