"""Host records of a small class, built the way the grading modules build them."""

from __future__ import annotations

import datetime

NOW = datetime.datetime(2026, 11, 30, 5, 12, 0, tzinfo=datetime.timezone.utc)  # noqa: UP017
STAMP = "20261130T051200Z"
GENERATED_AT = "2026-11-30T05:12:00Z"

SCRIPT = "<script>alert('x')</script>"
JA_MESSAGE = "precedence.json の replicas: 期待値 3、実際の値 2"
JA_HINT = "parameters が valuesObject より優先されます"
KO_MESSAGE = "ci 계정이 prod 에 쓸 수 있습니다"


def check(lab, step, name, status="PASS", expected=True, found=True, message="ok", hint="", key="ok"):
    return {
        "lab": lab, "step": step, "check": f"{lab}.{step}.{name}", "status": status,
        "expected": expected, "found": found, "message_key": key,
        "params": {"expected": expected, "found": found}, "message": message, "hint": hint,
    }


def lab(lab_id, steps, lang="en"):
    """steps: {number: [check, ...]} -> a lab result as grading.Lab.result() returns it."""
    order = {"PASS": 0, "PENDING": 1, "FAIL": 2, "ERROR": 3}
    out_steps, all_checks = [], []
    for number in sorted(steps):
        checks = steps[number]
        all_checks += checks
        status = max((c["status"] for c in checks), key=order.get, default="PASS")
        out_steps.append({"step": number, "title": f"{lab_id} step {number} title", "status": status,
                          "checks": checks})
    summary = {s: sum(1 for c in all_checks if c["status"] == s) for s in order}
    summary["total"] = len(all_checks)
    return {
        "changed": False, "lab": lab_id, "lang": lang,
        "status": max((s["status"] for s in out_steps), key=order.get, default="PASS"),
        "summary": summary, "steps": out_steps,
        "collected": {"api_requests": 3, "seconds": 0.25, "attempts": 1},
    }


def capa(lang="en", step2=None, step3=None):
    return lab("capa-src", {
        1: [check("capa-src", 1, "chart-in-git"), check("capa-src", 1, "app-source")],
        2: step2 or [check("capa-src", 2, "precedence-replicas", expected=3, found=3),
                     check("capa-src", 2, "precedence-image")],
        3: step3 or [check("capa-src", 3, "no-helm-release")],
    }, lang)


def cgoa(lang="en", step2=None):
    return lab("cgoa-ci", {
        1: [check("cgoa-ci", 1, "baseline")],
        2: step2 or [check("cgoa-ci", 2, "ci-cannot-write-prod"), check("cgoa-ci", 2, "ci-can-write-dev")],
    }, lang)


# The steps and checks of capa() and cgoa(), as a lab registry declares them.
SAMPLE_STEPS = {
    "capa-src": {1: ("chart-in-git", "app-source"), 2: ("precedence-replicas", "precedence-image"),
                 3: ("no-helm-release",)},
    "cgoa-ci": {1: ("baseline",), 2: ("ci-cannot-write-prod", "ci-can-write-dev")},
}


def sample_labs():
    """{lab id: grading.Lab} declaring SAMPLE_STEPS, titled as lab() titles the steps."""
    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.grading import Lab

    labs = {}
    for lab_id, steps in SAMPLE_STEPS.items():
        declared = Lab(lab_id, {"en": lab_id}, {n: dict.fromkeys(("en", "ja", "ko"), f"{lab_id} step {n} title")
                                                for n in steps}, reads=None)
        for number, names in steps.items():
            for name in names:
                declared.check(number, name)(None)
        labs[lab_id] = declared
    return labs


def enrolment(records):
    """{host: its labs} of the graded records among `records` (the module's `enrolled`)."""
    records = records if isinstance(records, list) else []
    return {r["host"]: list(r["labs"]) for r in records
            if isinstance(r, dict) and isinstance(r.get("host"), str) and isinstance(r.get("labs"), dict)}


def registry_result(lab, lang="en", statuses=None):
    """The result lab_grade returns for `lab` (a grading.Lab of the real registry): every declared
    check PASS, or the status `statuses` gives its id."""
    statuses = statuses or {}
    checks = []
    for declared in lab.checks:
        status = statuses.get(declared.id, "PASS")
        checks.append({"lab": lab.id, "step": declared.step, "check": declared.id, "status": status,
                       "expected": True, "found": status == "PASS", "message_key": "ok", "params": {},
                       "message": "ok" if status == "PASS" else "not yet", "hint": "", "hint_key": None})
    return lab.result(checks, lang, {"attempts": 1, "api_requests": 3, "seconds": 0.25, "cluster_error": None})


def record(host, lang, labs):
    return {"host": host, "lang": lang, "state": "graded", "error": None, "labs": labs}


def class_records():
    """learner01 all pass; 02 a FAIL and a PENDING (ja); 03 unreachable; 04 <script> found (ko)
    with control characters; 10 graded on capa-src only."""
    l02_step2 = [
        check("capa-src", 2, "precedence-replicas", "FAIL", 3, 2, JA_MESSAGE, JA_HINT, "value_mismatch"),
        check("capa-src", 2, "precedence-image"),
    ]
    l02_step3 = [check("capa-src", 3, "no-helm-release", "PENDING", "Synced", "Progressing",
                       "Argo CD はまだ同期中です", "", "still_converging")]
    l04_step2 = [
        check("cgoa-ci", 2, "ci-cannot-write-prod", "FAIL", "forbidden", SCRIPT,
              KO_MESSAGE + " \x1b[31m\x00bell\x07", "RBAC & <Role> 확인", "rbac_allows"),
        check("cgoa-ci", 2, "ci-can-write-dev"),
    ]
    return [
        record("learner01", "en", {"capa-src": capa(), "cgoa-ci": cgoa()}),
        record("learner02", "ja", {"capa-src": capa("ja", l02_step2, l02_step3), "cgoa-ci": cgoa("ja")}),
        {"host": "learner03", "lang": "en", "state": "error",
         "error": {"kind": "unreachable", "message": "ssh: connect to host 10.0.0.3 port 22: timed out",
                   "details": {"rc": 255}},
         "labs": {}},
        record("learner04", "ko", {"capa-src": capa("ko"), "cgoa-ci": cgoa("ko", l04_step2)}),
        record("learner10", "en", {"capa-src": capa()}),
    ]


def synthetic_class(learners, labs=("capa-src", "cgoa-ci"), steps=8, checks_per_step=4, seed=7,
                    error_every=25, lab_error_every=40, idle_every=None):
    """A class of `learners` hosts on `labs` x `steps`, rendered through the real catalogue so the
    report can show every message in each language. Deterministic (a seeded generator):
    most learners are part way through (earlier steps pass), some fail or are pending, every
    `error_every`th cannot be graded, every `lab_error_every`th has its second lab in error,
    every `idle_every`th has not started its second lab (each check: the file does not exist),
    languages rotate en/ja/ko."""
    import random

    from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n

    rng = random.Random(seed)
    langs = ("en", "ja", "ko")
    out = []
    for n in range(1, learners + 1):
        host, lang = f"learner{n:03d}", langs[n % 3]
        if n % error_every == 0:
            kind, message = (("unreachable", f"ssh: connect to host 10.0.0.{n % 250} port 22: Connection timed out")
                             if n % 50 else ("health", "Kubernetes API https://127.0.0.1:6443 does not answer"))
            out.append({"host": host, "lang": lang, "state": "error",
                        "error": {"kind": kind, "message": message, "details": {"rc": 255}}, "labs": {}})
            continue
        results = {}
        for lab_index, lab_id in enumerate(labs):
            if n % lab_error_every == 0 and lab_index == 1:
                results[lab_id] = {"failed": True, "msg": "timeout after 300 s"}
                continue
            reached = rng.choice([steps] * 3 + list(range(0, steps)))
            idle = bool(idle_every) and n % idle_every == 0 and lab_index == 1
            lab_steps = {}
            for step in range(1, steps + 1):
                checks = []
                for k in range(checks_per_step):
                    what = f"step{step}.json key{k}"
                    if step <= reached:
                        status = "PASS"
                    elif step == reached + 1 and k == 0 and rng.random() < 0.3:
                        status = "PENDING"
                    else:
                        status = "FAIL"
                    found = k + 1 if status == "PASS" else rng.choice([None, k, str(k + 1)])
                    params = {"what": what, "expected": k + 1, "found": found}
                    key = "value_ok" if status == "PASS" else "value_mismatch"
                    if idle:
                        status, found, key, params = "FAIL", None, "file_missing", {"path": f"/root/{lab_id}/step{step}.json"}
                    hint = i18n.hint("json_types", lang) if status != "PASS" else ""
                    chk = check(lab_id, step, f"key{k}", status, k + 1, found,
                                i18n.message(key, params, lang), hint, key)
                    chk["params"], chk["hint_key"] = params, "json_types" if hint else ""
                    checks.append(chk)
                lab_steps[step] = checks
            result = lab(lab_id, lab_steps, lang)
            for step_result in result["steps"]:
                step_result["title"] = {"en": f"Step {step_result['step']} of {lab_id}",
                                        "ja": f"{lab_id} のステップ {step_result['step']}",
                                        "ko": f"{lab_id} 의 단계 {step_result['step']}"}[lang]
            results[lab_id] = result
        out.append(record(host, lang, results))
    return out


def earlier_run(records):
    """The same class one grading earlier: every 3rd learner had not yet passed its last passed
    step of the first lab (so it progressed since), every 11th still passed a step it now fails."""
    import copy

    out = copy.deepcopy(records)
    for n, rec in enumerate(out, 1):
        if rec.get("state") != "graded":
            continue
        steps = next(iter(rec["labs"].values()))["steps"]
        passed = [s for s in steps if s["status"] == "PASS"]
        failed = [s for s in steps if s["status"] == "FAIL"]
        if n % 3 == 0 and passed:
            change, status = passed[-1], "FAIL"
        elif n % 11 == 0 and failed:
            change, status = failed[0], "PASS"
        else:
            continue
        change["status"] = status
        for chk in change["checks"]:
            chk["status"] = status
    return out
