"""What Argo CD does with an Application, shared by the labs: its manifest (file and live object
alike: ApplicationTwin), its live status and its operation (Operation, Progress)."""

from __future__ import annotations

import enum
import posixpath
from typing import NamedTuple

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.appproject import glob_match
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import blocked, file_problem
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.waves_hooks import annotation_csv
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.i18n import show
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig, json_type, parse_time
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed, pending


def find_application(documents, name):
    """(app, None) or (None, failing Verdict) from the parsed documents of a YAML file."""
    apps = [d for d in documents if isinstance(d, dict) and d.get("kind") == "Application"]
    for app in apps:
        if dig(app, "metadata", "name") == name:
            return app, None
    found = [dig(a, "metadata", "name") for a in apps]
    return None, failed("no_application_in_file", expected=name, found=found or None, name=name,
                        hint="application_manifest")


def application_file(read, name):
    """The Application `name` from a FileRead of a YAML file, or a failing Verdict."""
    if not read.ok:
        return None, file_problem(read, hint="application_manifest")
    return find_application(read.data, name)


def app_path(value):
    """spec.source.path as Argo CD resolves it inside the repository, or None when Argo CD refuses
    it. util/app/path/path.go Path(): an absolute path is an error, otherwise
    filepath.Join(repoRoot, path) (Clean: "./", "//", "a/../" and a trailing "/" vanish) must stay
    under the root; no other trimming (a space is part of the directory name)."""
    if not isinstance(value, str):
        return None
    cleaned = posixpath.normpath(value) if value else "."
    if cleaned.startswith("/") or cleaned == ".." or cleaned.startswith("../"):
        return None  # absolute, or outside the repository (its checkout directory name is random)
    return cleaned


def automated_enabled(app):
    automated = dig(app, "spec", "syncPolicy", "automated")
    # v3 has automated.enabled; an absent flag with the block present means enabled.
    return isinstance(automated, dict) and automated.get("enabled", True) is not False


def sync_options(app):
    """spec.syncPolicy.syncOptions as written. Argo CD matches them as exact strings
    (pkg/apis/application/v1alpha1/types.go SyncOptions.HasOption = slices.Contains; used by
    controller/sync.go for CreateNamespace=true and RespectIgnoreDifferences=true): no trimming,
    no case folding, so "CreateNamespace = true" is not recognised."""
    options = dig(app, "spec", "syncPolicy", "syncOptions", default=[])
    return [o for o in options if isinstance(o, str)] if isinstance(options, list) else []


def spec_problems(app, site, repo_url, path, destination, namespace_required):
    """Differences between an Application and what the lab asks for, as (field, expected, found)."""
    problems = []
    namespace = dig(app, "metadata", "namespace")
    if namespace != site.argocd_namespace and (namespace_required or namespace is not None):
        problems.append(("metadata.namespace", site.argocd_namespace, namespace))
    source = dig(app, "spec", "source")
    if not isinstance(source, dict):
        found = "spec.sources" if dig(app, "spec", "sources") is not None else json_type(source)
        problems.append(("spec.source", "object", found))
        source = {}
    found_url = source.get("repoURL")
    if not isinstance(found_url, str) or found_url.rstrip("/") != repo_url:
        problems.append(("spec.source.repoURL", repo_url, found_url))
    revision = source.get("targetRevision")
    if revision not in ("main", "refs/heads/main"):
        problems.append(("spec.source.targetRevision", "main", revision))
    if app_path(source.get("path")) != path:
        problems.append(("spec.source.path", path, source.get("path")))
    dest_ns = dig(app, "spec", "destination", "namespace")
    if dest_ns != destination:
        problems.append(("spec.destination.namespace", destination, dest_ns))
    if not automated_enabled(app):
        problems.append(("spec.syncPolicy.automated", "{}", dig(app, "spec", "syncPolicy", "automated")))
    if "CreateNamespace=true" not in sync_options(app):
        problems.append(("spec.syncPolicy.syncOptions", "CreateNamespace=true",
                         dig(app, "spec", "syncPolicy", "syncOptions")))
    return problems


def verdict_from_problems(problems, what, hint):
    if not problems:
        return passed("spec_ok", what=what)
    details = "; ".join(f"{field}: {show(exp)} / {show(found)}" for field, exp, found in problems)
    return failed("spec_mismatch", expected={f: e for f, e, _ in problems},
                  found={f: x for f, _, x in problems}, what=what, details=details, hint=hint)


def tracking_marks(method, app_name, tracking_id):
    """{"annotation": tracking id, "label": app name}, the marks Argo CD writes on the objects it
    manages with tracking `method` (argocd-cm application.resourceTrackingMethod).
    util/argo/resource_tracking.go SetAppInstance switches on the exact string (util/settings
    GetTrackingMethod passes argocd-cm's value as is): "label" writes only the label,
    "annotation+label" both, anything else (also "Label" or " label") only the annotation."""
    marks = {}
    if method != "label":
        marks["annotation"] = tracking_id
    if method in ("label", "annotation+label"):
        marks["label"] = app_name
    return marks


def ignore_rule_covers(rule, group, kind, name, namespace, pointer):
    """An ignoreDifferences rule hides `pointer` of the object (group, kind, namespace/name): its
    jsonPointers list it (or its jqPathExpressions the same path, `.spec.replicas`), group and
    kind match as util/glob.Match matches them (case-sensitive; `*` a wildcard), and a name or
    namespace, when set, is compared exactly (util/argo/normalizers/diff_normalizer.go
    Normalize). A rule naming another object leaves the field in the diff, and selfHeal syncs it
    back."""
    if not isinstance(rule, dict):
        return False
    pointers = rule.get("jsonPointers") if isinstance(rule.get("jsonPointers"), list) else []
    paths = rule.get("jqPathExpressions") if isinstance(rule.get("jqPathExpressions"), list) else []
    listed = pointer in pointers or "." + pointer[1:].replace("/", ".") in paths
    return (listed and glob_match(str(rule.get("group") or ""), group) and glob_match(str(rule.get("kind") or ""), kind)
            and rule.get("name") in (None, "", name) and rule.get("namespace") in (None, "", namespace))


def ignored_by(app, group, kind, name, namespace, pointer):
    """The Application's ignoreDifferences rules that hide `pointer` of that object."""
    rules = dig(app, "spec", "ignoreDifferences", default=[])
    return [r for r in rules if ignore_rule_covers(r, group, kind, name, namespace, pointer)] if isinstance(rules, list) else []


def live_status(app):
    """(sync, health, operation phase) of a live Application."""
    return (dig(app, "status", "sync", "status"), dig(app, "status", "health", "status"),
            dig(app, "status", "operationState", "phase"))


def self_heal_due(app):
    """Argo CD will sync a live change back by itself (controller/appcontroller.go autoSync,
    v3.5.2): automated with selfHeal, OutOfSync, no operation running and the last one Succeeded,
    and more than pruning left or prune on. At the revision it last synced it first waits out the
    self-heal backoff: 2 s x 3^(attempts-1), at most 300 s, less the time since that operation
    finished (observed on the plane after repeated `kubectl set image` on cgoa-ci: 0.7 s, 17 s,
    54 s, 162 s); at a later revision of main it syncs too (observed: src-helm at 2e0b45c, last
    synced 39fb964, a `kubectl patch` of its ConfigMap was reverted within 2 s). A failed last
    attempt is never retried at the same revision (a SyncError instead)."""
    status = dig(app, "status", default={}) or {}
    operation = status.get("operationState") or {}
    automated = dig(app, "spec", "syncPolicy", "automated")
    if not (automated_enabled(app) and dig(automated, "selfHeal") is True
            and dig(status, "sync", "status") == "OutOfSync" and operation.get("phase") == "Succeeded"):
        return False
    drifted = [r for r in status.get("resources") or [] if isinstance(r, dict) and r.get("status") != "Synced"]
    return dig(automated, "prune") is True or any(not r.get("requiresPruning") for r in drifted)


# How long a commit pushed to the branch an automated Application tracks can stay unread by Argo
# CD v3.5.2 when nobody asks for a refresh (the cgoa-ci seed asks for a hard refresh; a learner
# may not have, yet):
# - controller/appcontroller.go: the Application informer resyncs every timeout.reconciliation
#   (argocd-cm, default 120 s; newApplicationInformerAndLister); each resync queues the app after a
#   random delay of up to timeout.reconciliation.jitter (60 s; the UpdateFunc's `jitter`), and
#   needRefreshAppStatus soft-refreshes it only once status.reconciledAt plus 120 s has passed.
#   reconciledAt is taken when the previous refresh started (processAppRefreshQueueItem `now`),
#   i.e. after that resync's own jitter, so a resync whose jitter is shorter finds the comparison
#   not yet expired and does nothing: two soft refreshes can be up to 2 x 120 + 60 s apart
#   (observed on the plane: 243, 251, 120 and 279 s; docs/argocd-observations.md);
# - reposerver/repository/repository.go: a soft refresh resolves the branch through the revision
#   cache (git.WithCache(s.cache, !q.NoRevisionCache && !q.NoCache)); reposerver/cache/cache.go
#   --revision-cache-expiration: ARGOCD_RECONCILIATION_TIMEOUT or 3 min. A resolution cached just
#   before the push hides the commit until it expires, then the next soft refresh reads it.
# Observed on the plane (tests/controlplane/mutations_cgoa_ci.py "a commit pushed before Argo CD
# polls it"): a commit pushed right after a hard refresh was read, without a refresh, 182 s later
# in one run and 405 s later in another (CI, stop 27: more than 120 + 60 + 180).
POLL_SECONDS = 2 * 120 + 60
REVISION_CACHE_SECONDS = 180
UNREAD_SECONDS = REVISION_CACHE_SECONDS + POLL_SECONDS  # a commit older than this has been read
CLOCK_SKEW_SECONDS = 60  # a commit "from the future" by more than this is not a fresh push


def commit_unread(commit_time, now):
    """Argo CD may not have read a commit made at `commit_time` (unix seconds) yet: it is younger
    than UNREAD_SECONDS. The commit's time is git's (the committer date); a push comes after it,
    so the window never closes before Argo CD can have read the push."""
    return isinstance(commit_time, (int, float)) and -CLOCK_SKEW_SECONDS <= now - commit_time < UNREAD_SECONDS


def unread_commit(state, app, anchor):
    """The message parameters when Argo CD compared an older commit of main than `anchor` and may
    not have read `anchor` yet (commit_unread: younger than UNREAD_SECONDS; status.reconciledAt
    says when it last compared), else None. Decided from git's commit time, the grader's clock and
    the live status.sync.revision, never from a condition's transition time (it moves when the
    controller restarts)."""
    revision = dig(app, "status", "sync", "revision")
    if not (isinstance(revision, str) and revision != anchor and revision in state.repo.commits
            and anchor in state.repo.commits and state.repo.is_ancestor(revision, anchor)):
        return None
    made = state.repo.commits[anchor]["time"]
    if not commit_unread(made, state.now):
        return None
    return {"revision": revision[:7], "sha": anchor[:7], "age": max(0, int(state.now - made)), "window": UNREAD_SECONDS,
            "reconciled": str(dig(app, "status", "reconciledAt") or "-")}


def self_heal_pending(app, name, expected, found):
    """PENDING: what was checked is about to be synced back by Argo CD's selfHeal."""
    sync, health, _ = live_status(app)
    return pending("self_heal_due", expected=expected, found=found, name=name, sync=sync, health=health)


def synced_healthy(app, name):
    """PASS when Synced and Healthy; PENDING while Argo CD is still working or its selfHeal is
    about to sync a live change back; FAIL otherwise."""
    sync, health, phase = live_status(app)
    found = {"sync": sync, "health": health, "operation": phase}
    expected = {"sync": "Synced", "health": "Healthy"}
    if sync == "Synced" and health == "Healthy":
        return passed("app_synced_healthy", expected=expected, found=found, name=name)
    if phase in ("Running", "Terminating") or health == "Progressing":
        return pending("app_converging", expected=expected, found=found, name=name, sync=sync, health=health)
    if self_heal_due(app):
        return self_heal_pending(app, name, expected, found)
    return failed("app_not_synced_healthy", expected=expected, found=found, name=name, sync=sync,
                  health=health, hint="app_sync_health")


COMPARE_OPTIONS = "argocd.argoproj.io/compare-options"  # common.AnnotationCompareOptions


def diffs_on_server(app):
    """Whether Argo CD v3.5.2 compares this Application with a server-side diff: the
    controller's --server-side-diff-enabled (controller.diff.server.side in argocd-cmd-params-cm,
    false unless set; the lab's provisioning never sets it) or the Application's compare-options
    holding ServerSideDiff=true, and never when they hold ServerSideDiff=false (controller/state.go
    CompareAppState; options read as gitops-engine's HasAnnotationOption reads them)."""
    options = annotation_csv(app or {}, COMPARE_OPTIONS)
    return "ServerSideDiff=true" in options and "ServerSideDiff=false" not in options


ARGOCD_MANAGER = "argocd-controller"  # common.ArgoCDSSAManager: the field manager of Argo CD's applies
REVISION_HISTORY_LIMIT = 10  # common.RevisionHistoryLimit: status.history keeps the last 10 syncs


def operations_started(app):
    """{(revision, start unix time)} of the syncs Argo CD recorded for an Application: its
    status.history (deployStartedAt = the operation's startedAt, controller/sync.go
    persistRevisionHistory) and its current operationState."""
    entries = dig(app, "status", "history", default=[])
    entries = entries if isinstance(entries, list) else []
    started = set()
    for entry in entries:
        when = parse_time(dig(entry, "deployStartedAt"))
        if when is not None:
            started.add((dig(entry, "revision"), int(when.timestamp())))
    operation = dig(app, "status", "operationState")
    when = parse_time(dig(operation, "startedAt"))
    if when is not None:
        for revision in (dig(operation, "operation", "sync", "revision"), dig(operation, "syncResult", "revision")):
            started.add((revision, int(when.timestamp())))
    return started, len(entries)


def history_limit(app):
    """How many syncs status.history keeps: spec.revisionHistoryLimit, else the default."""
    limit = dig(app, "spec", "revisionHistoryLimit")
    return limit if isinstance(limit, int) and not isinstance(limit, bool) else REVISION_HISTORY_LIMIT


def live_app(app, name, blocked_by=None, **params):
    """(app, None) for a live Application (`app` as the lab read it, None when it does not exist),
    else (None, failing Verdict). With `blocked_by` (a step), a missing Application is 'blocked by
    step N', not a new mistake: the step that applies it fails for it. `params` go into the
    failing Verdict of a missing Application."""
    if app is not None:
        return app, None
    if blocked_by is not None:
        return None, blocked(blocked_by, "live_app_missing", name=name)
    return None, failed("live_app_missing", expected=name, found=None, name=name, hint="application_apply", **params)


class Where(NamedTuple):
    """Where an ApplicationTwin is being judged: its workspace file (live False, `what` the file
    name, `hint` the file check's) or the live object (`what` "Application <name>", `hint`
    application_apply). `live` also says whether metadata.namespace is required."""
    live: bool
    what: str
    hint: str


class ApplicationTwin:
    """An Application the learner writes to a workspace file and applies: one judge for the file
    and for its live twin. `read(state)` is the live object as the lab declared it (default: the
    item `name` of its `applications` list), None when it does not exist. `step_param`: the
    verdict of a missing live twin carries the step of the check (capa-src's params do).

    A judge is judge(state, app, where) -> Verdict; `file_check` and `live_check` register it as
    a check of the lab (each returns the check function, so the lab keeps its checks' order)."""

    def __init__(self, name, file, read=None, step_param=True):
        self.name = name
        self.file = file
        self.read = read or (lambda state: state.app(name))
        self.step_param = step_param

    def in_file(self, state):
        """The Application written in the workspace file, or the check ends with why not."""
        return require(application_file(state.files[self.file], self.name))

    def live(self, state, step, blocked_by=None):
        """The live Application, or the check (of `step`) ends: missing, or blocked by step `blocked_by`."""
        params = {"step": step} if self.step_param and blocked_by is None else {}
        return require(live_app(self.read(state), self.name, blocked_by, **params))

    def file_check(self, lab, step, check_name, judge, hint):
        where = Where(False, self.file, hint)
        return lab.check(step, check_name, hint=hint)(lambda state: judge(state, self.in_file(state), where))

    def live_check(self, lab, step, check_name, judge, hint, blocked_by=None):
        where = Where(True, f"Application {self.name}", "application_apply")
        return lab.check(step, check_name, hint=hint)(
            lambda state: judge(state, self.live(state, step, blocked_by), where))

    def checks(self, lab, step, judge, hint, live_hint=None, names=("app-file", "live-app"), blocked_by=None):
        """Both checks, the file's first; the live one's hint is `live_hint` (default `hint`)."""
        self.file_check(lab, step, names[0], judge, hint)
        self.live_check(lab, step, names[1], judge, live_hint or hint, blocked_by)


def spec_judge(problems):
    """A judge from problems(state, app, where) -> [(field, expected, found)]: PASS spec_ok or
    FAIL spec_mismatch naming every field (verdict_from_problems)."""
    return lambda state, app, where: verdict_from_problems(problems(state, app, where), where.what, where.hint)


class Progress(enum.Enum):
    """How an Application's operation stands, given the revisions the lab knows to fail."""
    RETRYING = "retrying"  # Running on a failing revision: auto-sync retries it, a new commit waits
    ENDING_FAILED = "ending_failed"  # Terminating on a failing revision (terminate-op under way)
    RUNNING = "running"  # any other operation Running or Terminating
    SYNC_DUE = "sync_due"  # ended Failed/Error and auto-sync is about to start the desired revision
    SETTLED = "settled"  # nothing runs and nothing is about to start

    @property
    def on_failing_revision(self):
        return self in (Progress.RETRYING, Progress.ENDING_FAILED)

    @property
    def in_flight(self):
        """An operation runs or is being terminated: the live objects may still change."""
        return self in (Progress.RETRYING, Progress.ENDING_FAILED, Progress.RUNNING)


class Operation(NamedTuple):
    """status.operationState of a live Application as one value (Operation.of(app)).

    `revision` is operation.sync.revision (what the operation applies), `result_revision`
    syncResult.revision (what it last applied), `desired` status.sync.revision (what git's
    target resolves to), `sync` status.sync.status, `automated` whether auto-sync is on."""
    phase: object
    revision: object
    result_revision: object
    desired: object
    sync: object
    automated: bool

    @classmethod
    def of(cls, app):
        return cls(dig(app, "status", "operationState", "phase"),
                   dig(app, "status", "operationState", "operation", "sync", "revision"),
                   dig(app, "status", "operationState", "syncResult", "revision"),
                   dig(app, "status", "sync", "revision"), dig(app, "status", "sync", "status"),
                   automated_enabled(app) if isinstance(app, dict) else False)

    @property
    def active(self):
        """Running or being terminated (controller/appcontroller.go autoSync starts no new sync
        while an operation is in progress)."""
        return self.phase in ("Running", "Terminating")

    def progress(self, failing=()):
        """The Progress of this operation; `failing` are the revisions the lab knows to fail (an
        automated sync retries such a revision, and a new commit waits: controller/
        appcontroller.go autoSync does not start a new sync while an operation runs)."""
        on_failing = self.revision is not None and any(self.revision == sha for sha in failing)
        if self.phase == "Running" and on_failing:
            return Progress.RETRYING
        if self.phase == "Terminating" and on_failing:
            return Progress.ENDING_FAILED
        if self.active:
            return Progress.RUNNING
        # After a Failed/Error operation, auto-sync starts the desired revision at once when it differs
        # from the last attempted one (controller/appcontroller.go autoSync, alreadyAttemptedSync; observed
        # after terminate-op and after exhausted retries, docs/argocd-observations.md tests 5 and 5b).
        if self.phase in ("Failed", "Error") and self.automated and self.sync == "OutOfSync" \
                and isinstance(self.desired, str) and isinstance(self.result_revision, str) \
                and self.desired != self.result_revision:
            return Progress.SYNC_DUE
        return Progress.SETTLED

    def applying(self, progress):
        """The revision being applied, or about to be when auto-sync is due."""
        return self.desired if progress is Progress.SYNC_DUE else self.revision


# Argo CD v3 writes this annotation under the default (annotation) tracking method.
# util/argo/resource_tracking.go BuildAppInstanceValue: "%s:%s/%s:%s/%s"
# (app, group, kind, namespace, name); the core group is the empty string.
TRACKING_ANNOTATION = "argocd.argoproj.io/tracking-id"
INSTANCE_LABEL = "app.kubernetes.io/instance"
TRACKING_METHOD_KEY = "application.resourceTrackingMethod"
# Default since v3.0 (docs/operator-manual/upgrading/2.14-3.0.md; resource_tracking.go default branch).
DEFAULT_TRACKING_METHOD = "annotation"


def tracking_id(app, group, kind, namespace, name):
    return f"{app}:{group}/{kind}:{namespace}/{name}"


def history(app):
    """status.history of a live Application, oldest first (entries that are objects)."""
    entries = dig(app, "status", "history", default=[])
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def unix_time(value):
    """Unix seconds of an RFC 3339 time Argo CD or Kubernetes wrote, or None."""
    when = parse_time(value)
    return int(when.timestamp()) if when is not None else None


# The self-heal backoff of argo-cd v3.5.2: cmd/argocd-application-controller/commands/
# argocd_application_controller.go flags --self-heal-backoff-timeout-seconds 2, -factor 3,
# -cap-seconds 300; controller/appcontroller.go autoSync waits delay(attempts) after the previous
# operation finished, `attempts` being the previous operation's autoHealAttemptsCount (carried
# over while the revision stays, incremented for the new heal). Observed on the plane
# (docs/argocd-observations.md capa-drift §2): 0, 2, 6, 18, 54, 162, 300 s for counts 1..7.
SELF_HEAL_BACKOFF = (2, 3, 300)


def self_heal_wait(count):
    """The most a heal with `autoHealAttemptsCount` = count waited after the previous one."""
    timeout, factor, cap = SELF_HEAL_BACKOFF
    if not isinstance(count, int) or count <= 1:
        return 0
    return min(timeout * factor ** (count - 2), cap)
