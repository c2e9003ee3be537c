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
Arguments in any order (`lab check 6 --lang ja`, `lab check --lang=ja capa-src 6`); every problem
with them is said in the learner's language with the usage (argparse would say it in English and
exit). While a lab waits for Argo CD to converge, progress goes to standard error.
Exit codes: 0 every check shown passed, 1 something did not, 2 usage, 3 the VM could not be
graded (the environment: API server, Argo CD, the grader), which is never the learner's work.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.i18n import pick
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs import LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.learner_text import (
    distinct_problems,
    error_text,
    problem_lines,
    step_line,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import LABELS, kind_label
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import term_safe
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.runner import grade_host, module_params, option_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.settings import enrolled
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.site_defaults import DEFAULT_LABS
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import (
    ERROR,
    LANGUAGES,
    PASS,
    SYMBOLS,
    translations,
)

DEFAULT_CONFIG = "/opt/lab-grader/lab-check.json"
CONFIG_MAX_BYTES = 64 * 1024
# Settings the provisioning may write; the rest of lab_grade's options keep their defaults.
CONFIG_KEYS = ("labs", "lang", "kubeconfig", "k3s_kubeconfig", "argocd_namespace", "gitd_namespace", "bare_root",
               "workspace_root", "settle_timeout", "time_budget", "probe_replay", "helm_binary", "kustomize_binary")

# The settings that are seconds: numbers, or strings that are one (a setting rendered from `-e`).
SECONDS_KEYS = ("settle_timeout", "time_budget")

EXIT_PASS, EXIT_NOT_YET, EXIT_USAGE, EXIT_ENVIRONMENT = 0, 1, 2, 3

# What `lab` prints of its own; {key: {lang: text}}, as every text a person reads.
COMMAND_TEXTS = translations({
    "usage": {"en": "usage: lab check [LAB] [STEP] [--lang en|ja|ko]",
              "ja": "使い方: lab check [ラボ] [ステップ] [--lang en|ja|ko]",
              "ko": "사용법: lab check [랩] [단계] [--lang en|ja|ko]"},
    "about": {"en": "Checks your lab work on this VM (read-only) and says what to do next.",
              "ja": "この VM でのラボの作業を確認し（読み取りのみ）、次にすることを示します。",
              "ko": "이 VM에서 진행한 랩 내용을 확인하고(읽기 전용) 다음에 할 일을 알려 줍니다."},
}, "lab COMMAND_TEXTS")
PROBLEMS = translations({
    "unknown_target": {"en": "{value} is neither a step number nor a lab ({labs})",
                       "ja": "{value} はステップ番号でもラボ（{labs}）でもありません",
                       "ko": "다음 값은 단계 번호도 랩({labs})도 아닙니다: {value}"},
    "no_such_step": {"en": "{lab} has no step {step} (steps {first} to {last})",
                     "ja": "{lab} にステップ {step} はありません（ステップは {first} から {last} までです）",
                     "ko": "{lab} 랩에 {step}단계는 없습니다({first}단계부터 {last}단계까지 있습니다)"},
    "not_enrolled": {"en": "this VM is not set up for {lab} (labs here: {labs})",
                     "ja": "この VM は {lab} 用に準備されていません（この VM のラボ: {labs}）",
                     "ko": "이 VM은 다음 랩용으로 준비되지 않았습니다: {lab} (이 VM의 랩: {labs})"},
    "unknown_command": {"en": "{value} is not a command of lab (the command is check)",
                        "ja": "{value} は lab のコマンドではありません（コマンドは check です）",
                        "ko": "다음 값은 lab 명령이 아닙니다: {value} (명령은 check입니다)"},
    "unknown_option": {"en": "{value} is not an option of lab check",
                       "ja": "{value} は lab check のオプションではありません",
                       "ko": "다음 값은 lab check 옵션이 아닙니다: {value}"},
    "bad_lang": {"en": "--lang takes en, ja or ko (not {value})",
                 "ja": "--lang に指定できるのは en・ja・ko です（{value} は使えません）",
                 "ko": "--lang에는 en, ja, ko만 쓸 수 있습니다({value} 값은 쓸 수 없습니다)"},
    "option_value": {"en": "{value} needs a value", "ja": "{value} には値が必要です",
                     "ko": "다음 옵션에는 값이 필요합니다: {value}"},
    "details": {"en": "details of another step: lab check <step>",
                "ja": "ほかのステップの詳細は lab check <ステップ> で見られます",
                "ko": "다른 단계의 자세한 내용: lab check <단계>"},
    "bad_config": {"en": "the settings file {path} cannot be used: {detail}",
                   "ja": "設定ファイル {path} を使えません: {detail}",
                   "ko": "설정 파일을 쓸 수 없습니다: {path} ({detail})"},
}, "lab PROBLEMS")
# The last line of a lab: where the learner is, and where to go next.
VERDICTS = translations({
    "all_pass": {"en": "{lab}: all {total} steps pass", "ja": "{lab}: {total} ステップすべてが合格です",
                 "ko": "{lab}: {total}개 단계를 모두 통과했습니다"},
    "next": {"en": "{lab}: {passed} of {total} steps pass; next: step {step}, {title}",
             "ja": "{lab}: {total} ステップ中 {passed} ステップが合格です。次はステップ {step}「{title}」です",
             "ko": "{lab}: {total}개 단계 중 {passed}개 단계를 통과했습니다. 다음은 {step}단계({title})입니다"},
    "step_pass": {"en": "{lab}: step {step} passes", "ja": "{lab}: ステップ {step} は合格です",
                  "ko": "{lab}: {step}단계를 통과했습니다"},
    "step_not_yet": {"en": "{lab}: step {step} does not pass yet", "ja": "{lab}: ステップ {step} はまだ合格していません",
                     "ko": "{lab}: {step}단계를 아직 통과하지 못했습니다"},
}, "lab VERDICTS")
# Standard error, while grading runs (runner.grade_host progress).
PROGRESS = translations({
    "checking": {"en": "checking {lab} ...", "ja": "{lab} を確認しています...", "ko": "{lab} 랩을 확인하고 있습니다..."},
    "waiting": {"en": "waiting for Argo CD: {pending} checks pending ({waited} s of at most {limit} s)",
                "ja": "Argo CD を待っています: 保留のチェック {pending} 件（{waited} 秒経過、最大 {limit} 秒）",
                "ko": "Argo CD를 기다리고 있습니다: 보류 중인 검사 {pending}개 ({waited}초 경과, 최대 {limit}초)"},
}, "lab PROGRESS")


def command_texts():
    """Every text `lab` prints of its own, as {where: {lang: text}} (tests/grader/test_words.py and
    test_glossary.py read them with the catalogue)."""
    texts = dict(COMMAND_TEXTS)
    for name, table in (("problem", PROBLEMS), ("verdict", VERDICTS), ("progress", PROGRESS)):
        texts.update({f"{name} {key}": entry for key, entry in table.items()})
    return texts


class UsageError(Exception):
    def __init__(self, key, **params):
        super().__init__(key)
        self.key = key
        self.params = params

    def text(self, lang):
        return pick(PROBLEMS[self.key], lang).format(**self.params)


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


class Arguments:
    """What `lab` was given, in any order: the command, targets (LAB, STEP), --lang, --config;
    `problem` is the first UsageError, said once the language is known; `help` for -h/--help."""

    def __init__(self):
        self.command, self.targets, self.lang, self.config = None, [], None, DEFAULT_CONFIG
        self.problem, self.help = None, False


def parse_args(argv):
    """`lab`'s arguments; never prints or exits (run() says a problem in the learner's language)."""
    args, words = Arguments(), list(argv)
    while words:
        word = words.pop(0)
        name, has_value, value = word.partition("=")
        if word in ("-h", "--help"):
            args.help = True
        elif name in ("--lang", "--config"):
            if not has_value:
                value = words.pop(0) if words and not words[0].startswith("-") else None
            if value is None:
                args.problem = args.problem or UsageError("option_value", value=name)
            elif name == "--config":
                args.config = value
            elif value in LANGUAGES:
                args.lang = value
            else:
                args.problem = args.problem or UsageError("bad_lang", value=value)
        elif word.startswith("-") and not word.lstrip("-").isdigit():
            args.problem = args.problem or UsageError("unknown_option", value=word)
        elif args.command is None:
            args.command = word
        else:
            args.targets.append(word)
    if args.command not in (None, "check"):
        args.problem = args.problem or UsageError("unknown_command", value=args.command)
    return args


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


def check_params(config, labs, lang):
    """lab_grade's options: its defaults, the provisioned settings (seconds as numbers where they
    are one), this run's labs and language."""
    params = module_params({**{key: value for key, value in config.items() if key in CONFIG_KEYS},
                            "labs": labs, "lang": lang})
    for key in SECONDS_KEYS:
        with contextlib.suppress(TypeError, ValueError):
            params[key] = float(params[key])
    return params


def params_problem(params):
    """option_problem's message, or a setting of seconds that is not a number."""
    wrong = next((key for key in SECONDS_KEYS if not isinstance(params[key], float)), None)
    return f"{wrong} must be a number of seconds, got {params[wrong]!r}" if wrong else option_problem(params)


def step_lines(step, lang):
    """The step's line, then each distinct problem once (with how many checks share it), the
    values the message does not already say, and each hint once."""
    return [step_line(step, lang), *problem_lines(distinct_problems(step["checks"]), lang, set())]


def verdict_line(lab_id, result, step, lang):
    """Where the learner is in the lab, and the step to do next."""
    steps = result["steps"]
    if step is not None:
        key = "step_pass" if all(s["status"] == PASS for s in steps if s["step"] == step) else "step_not_yet"
        return pick(VERDICTS[key], lang).format(lab=lab_id, step=step)
    current = next((s for s in steps if s["status"] != PASS), None)
    if current is None:
        return pick(VERDICTS["all_pass"], lang).format(lab=lab_id, total=len(steps))
    passed = sum(1 for s in steps if s["status"] == PASS)
    return pick(VERDICTS["next"], lang).format(lab=lab_id, passed=passed, total=len(steps), step=current["step"],
                                         title=term_safe(current["title"]))


def lab_lines(lab_id, result, step, lang):
    """One lab: a heading with its score, one line per step, details where the learner is, and
    the verdict line."""
    checks = [c for s in result["steps"] for c in s["checks"]]
    passed = sum(1 for c in checks if c["status"] == PASS)
    lines = [f"{lab_id}  {term_safe(pick(LABS[lab_id].title, lang))}  {passed}/{len(checks)}"]
    if result.get("error"):
        lines.append(f"{SYMBOLS[ERROR]} {LABELS[lang]['lab_error']}: {kind_label(result['error'].get('kind'), lang)}: "
                     f"{term_safe(result['error'].get('detail') or result['error'].get('message') or '')}")
    if step is not None:
        lines += [line for s in result["steps"] if s["step"] == step for line in step_lines(s, lang)]
        return [*lines, verdict_line(lab_id, result, step, lang)]
    current = next((s["step"] for s in result["steps"] if s["status"] != PASS), None)
    for each in result["steps"]:
        lines += step_lines(each, lang) if each["step"] == current else step_lines(each, lang)[:1]
    if current is not None and len(result["steps"]) > 1:
        lines.append(pick(PROBLEMS["details"], lang))
    return [*lines, verdict_line(lab_id, result, step, lang)]


def progress_printer(lang, err):
    """runner.grade_host's progress, as lines on standard error: which lab, and each wait for Argo CD."""
    def progress(lab, pending=None, waited=0.0, limit=0.0):
        if pending is None:
            text = pick(PROGRESS["checking"], lang).format(lab=lab.id)
        else:
            text = pick(PROGRESS["waiting"], lang).format(pending=len(pending), waited=round(waited), limit=round(limit))
        print(text, file=err, flush=True)
    return progress


def usage_text(lang):
    return f"{pick(COMMAND_TEXTS['usage'], lang)}\n{pick(COMMAND_TEXTS['about'], lang)}"


def run(argv, environ=os.environ, out=sys.stdout, err=sys.stderr):
    """Grade and print; returns the exit code."""
    args = parse_args(argv)
    lang = next((value for value in (args.lang, environ.get("LAB_LANG")) if value in LANGUAGES), None)
    try:
        config = read_config(args.config)
        lang = lang or (config.get("lang") if config.get("lang") in LANGUAGES else "en")
        if args.problem:
            raise args.problem
        if args.help or args.command is None:
            print(usage_text(lang), file=out)
            return EXIT_PASS if args.help else EXIT_USAGE
        vm_labs = [lab_id for lab_id in enrolled(config.get("labs")) or list(DEFAULT_LABS) if lab_id in LABS]
        labs, step = choose(args.targets, vm_labs)
    except UsageError as exc:
        lang = lang or "en"
        print(exc.text(lang), file=out)
        print(pick(COMMAND_TEXTS["usage"], lang), file=out)
        return EXIT_USAGE
    params = check_params(config, labs, lang)
    problem = params_problem(params)
    if problem:
        print(pick(PROBLEMS["bad_config"], lang).format(path=args.config, detail=problem), file=out)
        return EXIT_USAGE
    host = grade_host(params, progress_printer(lang, err))
    if host["state"] != "graded":
        error = host["error"]
        print(f"{SYMBOLS[ERROR]} {LABELS[lang]['env_error']}: {kind_label(error['kind'], lang)}: "
              f"{term_safe(error_text(error, lang))}", file=out)
        return EXIT_ENVIRONMENT
    shown, blocks = [], []
    for lab_id, result in host["labs"].items():
        if step is None or step in LABS[lab_id].step_titles:
            blocks.append("\n".join(lab_lines(lab_id, result, step, lang)))
            shown += [c for s in result["steps"] if step in (None, s["step"]) for c in s["checks"]]
    print("\n\n".join(blocks), file=out)
    if any(c["status"] == ERROR for c in shown):
        return EXIT_ENVIRONMENT
    return EXIT_PASS if shown and all(c["status"] == PASS for c in shown) else EXIT_NOT_YET


def main(argv=None):
    sys.exit(run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
