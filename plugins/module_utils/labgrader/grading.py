"""A lab object and its runner: declared reads, checks judged as pure functions over the state
collected once, PENDING settled with a bounded wait.

Contracts that fail loudly (docs/adding-a-lab.md):
- a check may only touch what its lab declared; anything else raises `UndeclaredRead`, which
  becomes an ERROR ("grader failed on this check"), never a learner FAIL;
- a check that touches cluster data while the cluster could not be read raises
  `ClusterUnreadable` and becomes ERROR by construction: no per-check flag to forget;
- a check that touches a read or a probe run that the lab's time ran out for raises `OutOfTime`
  and becomes ERROR the same way, worded as the grader's deadline, never as the learner's doing;
- a check that reads an object nested too deep to judge (kubestate.DeepObject) raises
  `ObjectTooDeep` and FAILs: the learner made that object;
- judging and rendering run inside one guard per check: a grader bug hides no other check.
"""

from __future__ import annotations

import time

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import ends_with_verdict
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.gitstate import OUT_OF_TIME
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kubestate import (
    MAX_OBJECT_DEPTH,
    ObjectTooDeep,
    readable,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.limits import bound
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.redaction import scrub, scrub_value
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import (
    ERROR,
    FAIL,
    PENDING,
    errored,
    failed,
    summarize,
    worst,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import translation, translations


class UndeclaredRead(KeyError):
    """A check asked for state its lab did not declare: a bug in the grader, not the learner's."""

    def __str__(self):
        return f"undeclared read {self.args[0]!r}"


class ClusterUnreadable(Exception):
    """A check touched cluster data although the cluster could not be read."""


class OutOfTime(Exception):
    """A check touched a read or a probe run that the grader's own deadline cut short (the lab's
    share of the module's time budget, or its probes' part of it). `task_key` names the phrase
    (in i18n.MESSAGES) saying what the grader could not finish; `params` fill it."""

    def __init__(self, task_key, probes=False, **params):
        super().__init__(task_key)
        self.task_key = task_key
        self.probes = probes
        self.params = params


class LabBudget:
    """One lab's share of the module's time budget: `share` seconds from `started` (a
    time.monotonic() value, default now) that no other lab can spend. The lab's probes may use
    the first `probe_part` of it (its Reads declare it); the rest is kept for its reads and
    settling. `total` is the module's whole budget, for messages."""

    def __init__(self, lab, share, total, started=None):
        self.lab_id = lab.id
        self.share = share
        self.total = total
        self.probe_share = share * lab.reads.probe_part
        self.started = time.monotonic() if started is None else started
        self.deadline = self.started + share
        self.probe_deadline = self.started + self.probe_share

    def remaining(self):
        return self.deadline - time.monotonic()

    def verdict(self, cut):
        """The ERROR of a check that touched what the deadline cut (an OutOfTime)."""
        params = {"lab": self.lab_id, "share": seconds_text(self.share), "budget": seconds_text(self.total),
                  "task_key": cut.task_key, **cut.params}
        if cut.probes:
            return errored("grader_probes_out_of_time", probe_share=seconds_text(self.probe_share), **params)
        return errored("grader_out_of_time", **params)


def cut_checks(checks):
    """The ids of the rendered checks that the lab's deadline cut short."""
    return {c["check"] for c in checks if c["message_key"] in ("grader_out_of_time", "grader_probes_out_of_time")}


def seconds_text(value):
    """Seconds as a message shows them: 120, 1.5 (a tenth is the clock's useful precision here)."""
    return f"{round(value, 1):g}"


def lab_budgets(labs, total, deadline):
    """(lab, LabBudget) for each lab in turn: when a lab's turn comes it gets an even split of
    the time left until `deadline` among itself and the labs after it. A lab's unused time thus
    passes on to the labs after it, and a lab can never take theirs (its share ends first).
    A generator: the next share is computed only when the previous lab is done."""
    labs = list(labs)
    for index, lab in enumerate(labs):
        yield lab, LabBudget(lab, max(0.0, (deadline - time.monotonic()) / (len(labs) - index)), total)


class Declared(dict):
    """A mapping of declared reads; asking for another name raises UndeclaredRead."""

    def __missing__(self, name):
        raise UndeclaredRead(name)


class ClusterView:
    """The lab's API answers. `get(name)` is the object (GET) or list of items (LIST) or None (404).
    Every access checks that the name was declared and that the cluster could be read."""

    def __init__(self, snapshot, declared):
        self.snapshot = snapshot  # kubestate.ClusterState; checks use get/items/find
        self._declared = frozenset(declared)

    @property
    def ok(self):
        return self.snapshot.ok

    @property
    def problem(self):
        return self.snapshot.problem

    @property
    def detail(self):
        return self.snapshot.detail

    @property
    def reason(self):
        return self.snapshot.reason

    @property
    def requests(self):
        return self.snapshot.requests

    def _answer(self, name):
        if name not in self._declared:
            raise UndeclaredRead(name)
        if self.snapshot.problem == OUT_OF_TIME:
            raise OutOfTime("phrase_read_cluster")
        if not self.snapshot.ok:
            raise ClusterUnreadable(name)
        return self.snapshot.reads.get(name)

    def get(self, name):
        return readable(self._answer(name))

    def items(self, name):
        value = self._answer(name)
        return [readable(item) for item in value] if isinstance(value, list) else []

    def find(self, name, object_name):
        value = self._answer(name)
        for item in value if isinstance(value, list) else []:
            if isinstance(item, dict) and (item.get("metadata") or {}).get("name") == object_name:
                return readable(item)
        return None


class LabState:
    """Everything a lab's checks may look at, collected once per attempt. `budget` is the lab's
    LabBudget; `read_seconds` what this collection took besides the probes."""

    def __init__(self, site, workspace, bare_path, files, repo, clone, cluster, probes, now=None, clone_refs=None,
                 budget=None, read_seconds=0.0, evidence_keys=None):
        self.site = site
        self.workspace = workspace
        self.bare_path = bare_path
        self.files = files  # Declared: name -> workspace.FileRead
        self.evidence_keys = evidence_keys or {}  # JSON evidence file -> the keys the lab asks for
        self._repo = repo  # gitstate.RepoState of the lab's bare repository, or None
        self.clone = clone  # gitstate.CloneState of the learner's clone, or None
        self.cluster = cluster  # ClusterView
        self.probes = probes  # Declared: name -> what the lab's probe returned
        self.clone_refs = clone_refs  # {full ref name: sha or None} of the clone, or {"error": why}
        self.now = time.time() if now is None else now
        self.budget = budget
        self.read_seconds = read_seconds

    @property
    def repo(self):
        """The bare repository's RepoState; OutOfTime when the lab's time ran out reading it."""
        if self._repo is not None and self._repo.problem == OUT_OF_TIME:
            raise OutOfTime("phrase_read_repo", path=self._repo.path)
        return self._repo

    def app(self, name):
        return self.cluster.find("applications", name)


class Check:
    __slots__ = ("function", "hint", "id", "step")

    def __init__(self, step, check_id, function, hint):
        self.step = step
        self.id = check_id
        self.function = function
        self.hint = hint


class Owned:
    """What a learner creates in the cluster for a lab, besides the workspace and the bare repo:
    playbooks/reset.yml removes exactly this to let the learner start over, in this order:
    applications in the order listed (an app of apps lists its root first: once it is gone nothing
    re-creates the children, which a root still in place would do at the next commit it reads),
    then the AppProjects (`projects`, once no Application of the lab names them), then the
    namespaces."""

    def __init__(self, applications=(), namespaces=(), projects=()):
        self.applications = tuple(applications)
        self.namespaces = tuple(namespaces)
        self.projects = tuple(projects)


class Lab:
    """One lab: its id, title, step titles, declared reads, messages and checks, and what it owns.

    `reads` is a collect.Reads. `messages` and `hints` are {key: {lang: text}}; they join the
    shared catalogue of i18n when the lab is registered (labs/__init__.py). Its reference solution
    lives in its package (labs/<id>/solution.py) but not on this object: lab_grade and `lab check`
    run on the learner's VM and ship what the Lab imports (solutions/registry.py).
    """

    def __init__(self, lab_id, title, step_titles, reads, messages=None, hints=None, owns=None):
        self.id = lab_id
        self.title = translation(title, f"{lab_id} title")  # {lang: text}
        self.step_titles = translations(step_titles, f"{lab_id} step titles")  # {step: {lang: title}}
        self.reads = reads
        self.messages = messages or {}
        self.hints = hints or {}
        self.owns = owns or Owned()
        self.checks = []

    def check(self, step, name, hint=None):
        if step not in self.step_titles:
            raise ValueError(f"{self.id}: step {step} has no title")

        def register(function):
            check = ends_with_verdict(function)
            self.checks.append(Check(step, f"{self.id}.{step}.{name}", check, hint))
            return check
        return register

    def judge(self, state, lang):
        site_params = state.site.params(self)
        return [judge_one(self.id, check, state, lang, site_params) for check in self.checks]

    def result(self, checks, lang, collected):
        steps = []
        for step in sorted(self.step_titles):
            step_checks = [c for c in checks if c["step"] == step]
            steps.append({
                "step": step,
                "title": i18n.pick(self.step_titles[step], lang),
                "status": worst(c["status"] for c in step_checks),
                "checks": step_checks,
            })
        return {
            "changed": False,
            "lab": self.id,
            "lang": lang,
            "status": worst(s["status"] for s in steps),
            "summary": summarize(checks),
            "steps": steps,
            "collected": collected,
        }


def judge_one(lab_id, check, state, lang, site_params):
    """Judge and render one check; any exception becomes this check's ERROR."""
    try:
        try:
            verdict = check.function(state)
        except ClusterUnreadable:
            # the reason's own fields may share a name with this message's (its {detail}): they
            # win, as {detail} is rendered from the reason itself
            verdict = errored("cluster_unreadable", **{
                "kind": state.cluster.problem, "detail": state.cluster.detail,
                "kind_key": f"phrase_cluster_kind_{state.cluster.problem}", **i18n.phrase("detail", state.cluster.reason)})
        except OutOfTime as cut:
            verdict = state.budget.verdict(cut)
        except ObjectTooDeep as exc:
            verdict = failed("object_too_deep", what=str(exc), depth=MAX_OBJECT_DEPTH)
        return render(lab_id, check, verdict, lang, site_params)
    except Exception as exc:  # a grader bug must not hide the other checks  # noqa: BLE001
        verdict = errored("grader_bug", detail=f"{type(exc).__name__}: {exc}"[:300])
        return render(lab_id, check, verdict, lang, site_params)


def render(lab_id, check, verdict, lang, site_params):
    """A check result that is safe to leave the module: values bounded in size and depth (a
    learner's YAML can be an alias bomb or 1000 levels deep) and secrets scrubbed. `params` are
    all the message was rendered from, so the controller can render it in another language."""
    # A PASS needs no hint; an ERROR is the environment's. A PENDING state is Argo CD's, not yet the
    # learner's: the check's own advice (how to fix it) would not be true for it.
    hint_key = None
    if verdict.status == FAIL:
        hint_key = i18n.message_hint(verdict.key, verdict.params) or verdict.hint or check.hint
    elif verdict.status == PENDING:
        hint_key = verdict.hint or "pending_again"
    expected, found = scrub_value(bound(verdict.expected)), scrub_value(bound(verdict.found))
    params = scrub_value(bound({**site_params, **verdict.params}))
    params.setdefault("expected", expected)
    params.setdefault("found", found)
    if verdict.status == PENDING:
        params["check_step"] = check.step  # the step `lab check` looks at again (pending hints)
    return {
        "lab": lab_id,
        "step": check.step,
        "check": check.id,
        "status": verdict.status,
        "expected": expected,
        "found": found,
        "message_key": verdict.key,
        "params": params,
        "message": scrub(i18n.message(verdict.key, params, lang)),
        "hint_key": hint_key,
        "hint": scrub(i18n.hint(hint_key, lang, params)) if hint_key else "",
    }


def grade(lab, collect, lang="en", settle_seconds=30.0, poll_seconds=5.0, sleep=time.sleep, clock=time.monotonic,
          deadline=None, on_wait=None):
    """Collect and judge; while a check is PENDING (Argo CD still converging) and the settle
    budget allows, collect again. The wait stays inside the lab's `deadline` (a clock() value,
    its share of the module's budget): another reading starts only if, after the poll, there is
    still the time the last reading took. Reports the last state it saw whole: a re-reading that
    the deadline cut short where the reading before it was not does not replace that reading.
    `on_wait(pending, waited, settle_seconds)`, when given, hears of each wait before it starts
    (`lab check` shows the learner that it waits for Argo CD)."""
    started = clock()
    attempts = 0
    api_requests = 0
    state = checks = None
    while True:
        reading = collect()
        attempts += 1
        api_requests += reading.cluster.requests
        judged = lab.judge(reading, lang)
        if checks is not None and cut_checks(judged) - cut_checks(checks):
            break
        state, checks = reading, judged
        waiting = any(c["status"] == PENDING for c in checks)
        if not waiting or clock() - started + poll_seconds > settle_seconds:
            break
        if deadline is not None and clock() + poll_seconds + state.read_seconds >= deadline:
            break
        if on_wait is not None:
            on_wait([c for c in checks if c["status"] == PENDING], clock() - started, settle_seconds)
        sleep(poll_seconds)
    collected = {
        "attempts": attempts,
        "api_requests": api_requests,
        "seconds": round(clock() - started, 3),
        "cluster_error": None if state.cluster.ok else {"kind": state.cluster.problem, "detail": state.cluster.detail},
    }
    result = lab.result(checks, lang, collected)
    if any(c["status"] == ERROR for c in checks) and not state.cluster.ok:
        result["error"] = collected["cluster_error"]
    return result
