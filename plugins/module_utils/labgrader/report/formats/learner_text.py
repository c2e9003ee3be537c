"""learners/<host>.txt: the report one learner reads, in the learner's language."""

from __future__ import annotations

import re

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import LABELS, LEARNER_LABELS, kind_label
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import show_value, term_safe
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import ERROR, FAIL, PASS, SYMBOLS


def learner_file_name(host):
    """learners/<host>.txt, with anything that is not safe in a file name replaced."""
    return "learners/" + (re.sub(r"[^A-Za-z0-9._-]", "_", host).lstrip(".") or "_") + ".txt"


def evidence_lines(check, labels):
    """expected/found lines a reader needs: none for null, none when the message already says it."""
    lines = []
    for key in ("expected", "found"):
        value = check[key]
        shown = show_value(value)
        if value is None or re.search(rf"(?<!\w){re.escape(shown)}(?!\w)", check["message"]):
            continue
        lines.append(f"      {labels[key]}: {term_safe(shown)}")
    return lines


def error_text(error, lang):
    """Why the VM cannot be graded, in `lang` when the reasons are catalogue entries."""
    if error.get("reasons"):  # kept by normalize only when each names a catalogue message
        return "; ".join(i18n.message(reason["key"], reason["params"], lang) for reason in error["reasons"])
    return error["message"]


def step_line(step, lang):
    """`✗ Step 5: title` (the step's number in the one form each language writes it)."""
    number = LABELS[lang]["step_n"].format(step=step["step"])
    return f"{SYMBOLS[step['status']]} {number}: {term_safe(step['title'])}"


def distinct_problems(checks):
    """{(status, message): [checks]} of the checks that do not pass, in their order."""
    problems = {}
    for check in checks:
        if check["status"] != PASS:
            problems.setdefault((check["status"], check["message"]), []).append(check)
    return problems


def problem_lines(problems, lang, hints):
    """Each problem once, with how many checks share it, the values its message does not already
    say, and its hint unless `hints` (the hints shown so far, updated) has it."""
    labels, lines = LABELS[lang], []
    for (status, message), checks in problems.items():
        shown = term_safe(message)
        if len(checks) > 1:
            shown = LEARNER_LABELS[lang]["shared_by"].format(message=shown, count=len(checks))
        lines.append(f"    {SYMBOLS[status]} {shown}")
        lines += evidence_lines(checks[0], labels)
        hint = next((c["hint"] for c in checks if c.get("hint")), "")
        if hint and hint not in hints:
            hints.add(hint)
            lines.append(f"      {labels['hint']}: {term_safe(hint)}")
    return lines


def _not_started_lines(lab, lang):
    """A lab with nothing done yet: one line per step (its first reason), and where to start."""
    lines, first_hint = [], ""
    for step in lab["steps"]:
        reasons = [c for c in step["checks"] if c["status"] != PASS]
        reason = f" \u2014 {term_safe(reasons[0]['message'])}" if reasons else ""
        lines.append(step_line(step, lang) + reason)
        first_hint = first_hint or next((c["hint"] for c in reasons if c["hint"]), "")
        if first_hint and len(lines) == 1:
            lines.append(f"      {LABELS[lang]['hint']}: {term_safe(first_hint)}")
    return lines


def _started_lines(lab, lang):
    """Every step with its outcome; each distinct problem once (a problem an earlier step showed
    is named by that step), each hint once."""
    lines, seen, hints = [], {}, set()
    for step in lab["steps"]:
        lines.append(step_line(step, lang))
        problems = distinct_problems(step["checks"])
        earlier = sorted({seen[key] for key in problems if key in seen})
        new = {key: checks for key, checks in problems.items() if key not in seen}
        seen.update(dict.fromkeys(new, step["step"]))
        lines += problem_lines(new, lang, hints)
        if earlier and not new:
            same = ", ".join(str(n) for n in earlier)
            lines.append(f"    {LEARNER_LABELS[lang]['same_cause'].format(step=same)}")
    return lines


def build_learner_text(host, generated_at):
    """The report one learner reads, in the learner's language: every step with its outcome; for
    what did not pass, each distinct message once with the values it does not already say and its
    hint once; a lab with nothing done yet gets one line per step."""
    lang = host["lang"] if host["lang"] in LABELS else "en"
    labels = LABELS[lang]
    lines = [f"{host['host']}  ({labels['graded_at']}: {host.get('graded_at') or generated_at})", ""]
    if host["state"] != "graded":
        error = host["error"]
        lines.append(f"{SYMBOLS[ERROR]} {labels['env_error']}: {kind_label(error['kind'], lang)}: "
                     f"{term_safe(error_text(error, lang))}")
        return "\n".join(lines) + "\n"
    for lab_id, lab in host["labs"].items():
        checks = [c for s in lab["steps"] for c in s["checks"]]
        passed = sum(1 for c in checks if c["status"] == PASS)
        not_started = not passed and any(c["status"] == FAIL for c in checks)
        mark = f"  ({LEARNER_LABELS[lang]['not_started']})" if not_started else ""
        lines.append(f"== {lab_id}  {passed}/{len(checks)}{mark}")
        if lab.get("error"):
            lines.append(f"   {SYMBOLS[ERROR]} {labels['lab_error']}: {kind_label(lab['error']['kind'], lang)}: "
                         f"{term_safe(lab['error'].get('message', ''))}")
        lines += _not_started_lines(lab, lang) if not_started else _started_lines(lab, lang)
        lines.append("")
    return "\n".join(lines)


def host_part(host, ctx):
    """(learners/<host>.txt, its text)."""
    return learner_file_name(host["host"]), build_learner_text(host, ctx.generated_at)


def assemble(view, parts):
    """{learners/<host>.txt: text} for every host of the class view."""
    return dict(parts)
