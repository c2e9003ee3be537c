"""capa-drift step 7: drift-root, an app of apps; its children drift-svc-a and drift-svc-b come
from git (tracked by the root's mark, obs §7) and a new service is one commit."""

from __future__ import annotations

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.argocd import (
    DEFAULT_TRACKING_METHOD,
    INSTANCE_LABEL,
    TRACKING_ANNOTATION,
    TRACKING_METHOD_KEY,
    live_status,
    spec_judge,
    spec_problems,
    synced_healthy,
    tracking_id,
    tracking_marks,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.evidence import evidence_field, same_value
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.git import named_commit, repo_blocked, repo_url
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.checks.require import require, stop_if
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.json_values import dig
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.kube_objects import managed_entries
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.application import (
    TWINS,
    adding_commit,
    live,
    live_child,
    not_full_sha,
    still_syncing,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.definition import lab
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.labs.capa_drift.spec import (
    CHILD_FILES,
    CHILDREN,
    ROOT,
    SVC_B,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.verdict import failed, passed


def root_problems(state, app, where):
    """The shared spec with path apps and the Argo CD namespace as destination; no
    CreateNamespace (the namespace exists); project default (a root in drift could not deploy to
    the Argo CD namespace)."""
    ns = state.site.argocd_namespace
    problems = [p for p in spec_problems(app, state.site, repo_url(state), "apps", ns, where.live)
                if p[0] != "spec.syncPolicy.syncOptions"]
    project = dig(app, "spec", "project")
    if project != "default":
        problems.append(("spec.project", "default", project))
    return problems


TWINS[ROOT].checks(lab, 7, spec_judge(root_problems), hint="drift_root_app")


def marks(state, child):
    """The marks drift-root writes on a child under the tracking method in force."""
    method = dig(state.cluster.get("argocd_cm"), "data", TRACKING_METHOD_KEY) or DEFAULT_TRACKING_METHOD
    return tracking_marks(method, ROOT, tracking_id(ROOT, "argoproj.io", "Application", state.site.argocd_namespace, child))


def found_marks(app, wanted):
    found = {}
    if "annotation" in wanted:
        found["annotation"] = dig(app, "metadata", "annotations", TRACKING_ANNOTATION)
    if "label" in wanted:
        found["label"] = dig(app, "metadata", "labels", INSTANCE_LABEL)
    return found


def tracked_by_root(state, names, step):
    """{child: (expected marks, found marks)} of the children whose marks are not the root's."""
    wrong = {}
    for name in names:
        child = live_child(state, name, step)
        wanted = marks(state, name)
        found = found_marks(child, wanted)
        if found != wanted:
            wrong[name] = (wanted, found)
    return wrong


@lab.check(7, "children-tracked", hint="drift_root_children")
def children_tracked(state):
    wrong = tracked_by_root(state, CHILDREN, 7)
    if wrong:
        return failed("apps_not_tracked", expected={n: w for n, (w, _) in wrong.items()},
                      found={n: f for n, (_, f) in wrong.items()}, names=", ".join(wrong))
    return passed("apps_tracked", expected=ROOT, found=list(CHILDREN), names=", ".join(CHILDREN))


@lab.check(7, "children-not-by-hand", hint="drift_root_children")
def children_not_by_hand(state):
    by_hand = {}
    for name in CHILDREN:
        managers = sorted({str(e.get("manager")) for e in managed_entries(live_child(state, name, 7))
                           if str(e.get("manager") or "").startswith("kubectl")})
        if managers:
            by_hand[name] = managers
    if by_hand:
        return failed("apps_by_hand", expected=None, found=by_hand, names=", ".join(by_hand))
    return passed("apps_not_by_hand", expected=None, found=None, names=", ".join(CHILDREN))


@lab.check(7, "one-commit-service", hint="drift_root_one_commit")
def one_commit_service(state):
    sha = require(named_commit(state, "apps.json", lambda found: not_full_sha("apps.json service_commit", found),
                               key="service_commit", hint="drift_root_one_commit"))
    added = adding_commit(state, CHILD_FILES[SVC_B])
    changed = list(state.repo.changed.get(sha, ()))
    others = [p for p in changed if p != CHILD_FILES[SVC_B] and not p.startswith("services/b/")]
    expected = {"adds": CHILD_FILES[SVC_B], "also": "services/b/", "nothing_else": True}
    found = {"adds": CHILD_FILES[SVC_B] if added == sha else None,
             "also": any(p.startswith("services/b/") for p in changed), "other_paths": others or None}
    if added == sha and found["also"] and not others:
        return passed("apps_one_commit", expected=expected, found=found, sha=sha[:7])
    return failed("apps_not_one_commit", expected=expected, found=found, sha=sha[:7])


def root_resources(app):
    return {r.get("name"): r for r in dig(app, "status", "resources", default=[]) or []
            if isinstance(r, dict) and (r.get("group"), r.get("kind")) == ("argoproj.io", "Application")}


@lab.check(7, "root-resources", hint="drift_root_children")
def root_resources_check(state):
    app = live(state, ROOT, 7)
    sync = live_status(app)[0]
    listed = root_resources(app)
    found = {"sync": sync, **{n: dig(listed.get(n), "status") for n in CHILDREN}}
    expected = {"sync": "Synced", **dict.fromkeys(CHILDREN, "Synced")}
    if found == expected:
        return passed("apps_root_ok", expected=expected, found=found, name=ROOT)
    if repo_blocked(state) is None:
        stop_if(still_syncing(state, app, ROOT, expected, found))
    return failed("apps_root_wrong", expected=expected, found=found, name=ROOT)


@lab.check(7, "children-synced-healthy", hint="app_sync_health")
def children_synced_healthy(state):
    verdicts = [synced_healthy(live_child(state, name, 7), name) for name in CHILDREN]
    for verdict in verdicts:
        stop_if(verdict if verdict.status != "PASS" else None)
    return verdicts[-1]


@lab.check(7, "apps-evidence", hint="drift_root_children")
def apps_evidence(state):
    recorded = require(evidence_field(state, "apps.json", "tracking_id", "string"))
    child = live_child(state, SVC_B, 7)
    annotation = dig(child, "metadata", "annotations", TRACKING_ANNOTATION)
    if annotation is None:
        return failed("apps_not_tracked", expected={SVC_B: marks(state, SVC_B)}, found={SVC_B: None}, names=SVC_B)
    return same_value(recorded, annotation, "apps.json tracking_id")

