"""`lab check [LAB] [STEP]`: the learner runs the instructor's checks on their own VM.

The same path as the lab_grade module (runner.grade_host: the health gate, then each enrolled
lab's collector and checks), so the same verdicts and messages as the instructor's report, in
the learner's language. Printed: one line per step; the messages and hints of the first step
that does not pass (`lab check N`: of step N). Nothing is written: grading is read-only (GET,
plus the review APIs' POSTs, which store nothing) and this program only prints.

Identity: the VM's admin kubeconfig (root's, /etc/rancher/k3s/k3s.yaml), the one the learner's
own kubectl uses; the VM is the learner's, so it shows them nothing they cannot already read. The
instructor's grader ServiceAccount and its kubeconfig are not used, and the class report lives on
the instructor's controller: nothing here can read or change it.

Provisioning (roles/grader_runtime, learner_check.yml) writes the VM's settings to a JSON file
(--config) and installs /usr/local/bin/lab, which runs this module in the grader's venv.
Exit codes: 0 every check shown passed, 1 something did not (or could not be checked), 2 usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.i18n import pick
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import LABELS, kind_label
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import term_safe
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import ARGUMENT_SPEC, grade_host, option_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import enrolled
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import DEFAULT_LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import ERROR, LANGUAGES, PASS, SYMBOLS

DEFAULT_CONFIG = "/opt/lab-grader/lab-check.json"
CONFIG_MAX_BYTES = 64 * 1024
# Settings the provisioning may write; the rest of lab_grade's options keep their defaults.
CONFIG_KEYS = ("labs", "lang", "kubeconfig", "k3s_kubeconfig", "argocd_namespace", "gitd_namespace", "bare_root",
               "workspace_root", "settle_timeout", "time_budget", "probe_replay", "helm_binary", "kustomize_binary")

USAGE = {
    "en": "usage: lab check [LAB] [STEP] [--lang en|ja|ko]",
    "ja": "使い方: lab check [ラボ] [ステップ] [--lang en|ja|ko]",
    "ko": "사용법: lab check [랩] [단계] [--lang en|ja|ko]",
}
PROBLEMS = {
    "unknown_target": {"en": "{value} is neither a step number nor a lab ({labs})",
                       "ja": "{value} はステップ番号でもラボ({labs})でもありません",
                       "ko": "다음 값은 단계 번호도 랩({labs})도 아닙니다: {value}"},
    "no_such_step": {"en": "{lab} has no step {step} (steps {first} to {last})",
                     "ja": "{lab} にステップ {step} はありません(ステップは {first} から {last} までです)",
                     "ko": "{lab} 랩에 {step}단계는 없습니다({first}단계부터 {last}단계까지 있습니다)"},
    "not_enrolled": {"en": "this VM is not set up for {lab} (labs here: {labs})",
                     "ja": "この VM は {lab} 用に準備されていません(この VM のラボ: {labs})",
                     "ko": "이 VM은 다음 랩용으로 준비되지 않았습니다: {lab} (이 VM의 랩: {labs})"},
    "details": {"en": "details of another step: lab check <step>", "ja": "ほかのステップの詳細: lab check <ステップ>",
                "ko": "다른 단계의 자세한 내용: lab check <단계>"},
    "bad_config": {"en": "the settings file {path} cannot be used: {detail}",
                   "ja": "設定ファイル {path} を使えません: {detail}",
                   "ko": "설정 파일을 쓸 수 없습니다: {path} ({detail})"},
}


class UsageError(Exception):
    def __init__(self, key, **params):
        super().__init__(key)
        self.key = key
        self.params = params

    def text(self, lang):
        return PROBLEMS[self.key][lang].format(**self.params)


def read_config(path):
    """The provisioned settings ({} when the file does not exist); UsageError when it is unusable."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(CONFIG_MAX_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError("bad_config", path=path, detail=exc.strerror or str(exc)) from None
    if len(data) > CONFIG_MAX_BYTES:
        raise UsageError("bad_config", path=path, detail=f"larger than {CONFIG_MAX_BYTES} bytes")
    try:
        config = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise UsageError("bad_config", path=path, detail=f"not JSON: {exc}") from None
    if not isinstance(config, dict):
        raise UsageError("bad_config", path=path, detail="not a JSON object")
    unknown = sorted(set(config) - set(CONFIG_KEYS))
    if unknown:
        raise UsageError("bad_config", path=path, detail=f"unknown settings {', '.join(unknown)}")
    return config


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="lab", add_help=True,
                                     description="Check your lab work on this VM (read-only).")
    parser.add_argument("command", choices=["check"])
    parser.add_argument("targets", nargs="*", metavar="LAB|STEP", help="a lab id and/or a step number")
    parser.add_argument("--lang", choices=LANGUAGES, help="language of the messages (default: LAB_LANG, then the VM's)")
    parser.add_argument("--config", default=DEFAULT_CONFIG, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def choose(targets, vm_labs):
    """(labs, step or None) from `lab check [LAB] [STEP]`, in either order."""
    lab, step = None, None
    known = ", ".join(vm_labs)
    for target in targets:
        if target.isdigit() and step is None:
            step = int(target)
        elif target in LABS and lab is None:
            if target not in vm_labs:
                raise UsageError("not_enrolled", lab=target, labs=known)
            lab = target
        else:
            raise UsageError("unknown_target", value=target, labs=known)
    labs = [lab] if lab else list(vm_labs)
    if step is not None and not any(step in LABS[lab_id].step_titles for lab_id in labs):
        steps = sorted(LABS[labs[0]].step_titles)
        raise UsageError("no_such_step", lab=labs[0], step=step, first=steps[0], last=steps[-1])
    return labs, step


def module_params(config, labs, lang):
    """lab_grade's options: its defaults, the provisioned settings, this run's labs and language."""
    params = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}
    params.update({key: value for key, value in config.items() if key in CONFIG_KEYS})
    params.update(labs=labs, lang=lang)
    return params


def step_lines(step, lang):
    """The step's line, then each distinct problem once (with its count) and each hint once."""
    labels = LABELS[lang]
    lines = [f"{SYMBOLS[step['status']]} {labels['step']} {step['step']}: {term_safe(step['title'])}"]
    problems, hints = {}, []
    for check in step["checks"]:
        if check["status"] != PASS:
            problems.setdefault((check["status"], check["message"]), []).append(check)
    for (status, message), checks in problems.items():
        times = f" (\u00d7{len(checks)})" if len(checks) > 1 else ""
        lines.append(f"    {SYMBOLS[status]} {term_safe(message)}{times}")
        hint = next((c["hint"] for c in checks if c.get("hint")), "")
        if hint and hint not in hints:
            hints.append(hint)
            lines.append(f"      {labels['hint']}: {term_safe(hint)}")
    return lines


def lab_lines(lab_id, result, step, lang):
    """One lab: a heading with its score, one line per step, details where the learner is."""
    checks = [c for s in result["steps"] for c in s["checks"]]
    passed = sum(1 for c in checks if c["status"] == PASS)
    lines = [f"{lab_id}  {term_safe(pick(LABS[lab_id].title, lang))}  {passed}/{len(checks)}"]
    if result.get("error"):
        lines.append(f"{SYMBOLS[ERROR]} {LABELS[lang]['lab_error']}: {kind_label(result['error'].get('kind'), lang)}: "
                     f"{term_safe(result['error'].get('detail') or result['error'].get('message') or '')}")
    if step is not None:
        return lines + [line for s in result["steps"] if s["step"] == step for line in step_lines(s, lang)]
    current = next((s["step"] for s in result["steps"] if s["status"] != PASS), None)
    for each in result["steps"]:
        lines += step_lines(each, lang) if each["step"] == current else step_lines(each, lang)[:1]
    if current is not None and len(result["steps"]) > 1:
        lines.append(PROBLEMS["details"][lang])
    return lines


def error_text(error, lang):
    """Why the VM cannot be graded, in `lang` when the reasons are catalogue entries."""
    if error.get("reasons"):
        return "; ".join(i18n.message(reason["key"], reason["params"], lang) for reason in error["reasons"])
    return error["message"]


def run(argv, environ=os.environ, out=sys.stdout):
    """Grade and print; returns the exit code."""
    args = parse_args(argv)
    lang = next((value for value in (args.lang, environ.get("LAB_LANG")) if value in LANGUAGES), None)
    try:
        config = read_config(args.config)
        lang = lang or (config.get("lang") if config.get("lang") in LANGUAGES else "en")
        vm_labs = [lab_id for lab_id in enrolled(config.get("labs")) or list(DEFAULT_LABS) if lab_id in LABS]
        labs, step = choose(args.targets, vm_labs)
    except UsageError as exc:
        lang = lang or "en"
        print(exc.text(lang), file=out)
        print(USAGE[lang], file=out)
        return 2
    params = module_params(config, labs, lang)
    problem = option_problem(params)
    if problem:
        print(PROBLEMS["bad_config"][lang].format(path=args.config, detail=problem), file=out)
        return 2
    host = grade_host(params)
    if host["state"] != "graded":
        error = host["error"]
        print(f"{SYMBOLS[ERROR]} {LABELS[lang]['env_error']}: {kind_label(error['kind'], lang)}: "
              f"{term_safe(error_text(error, lang))}", file=out)
        return 1
    shown, blocks = [], []
    for lab_id, result in host["labs"].items():
        if step is None or step in LABS[lab_id].step_titles:
            blocks.append("\n".join(lab_lines(lab_id, result, step, lang)))
            shown += [c for s in result["steps"] if step in (None, s["step"]) for c in s["checks"]]
    print("\n\n".join(blocks), file=out)
    return 0 if shown and all(c["status"] == PASS for c in shown) else 1


def main(argv=None):
    sys.exit(run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
