"""Every capa-src check can fail: in the empty learner world (nothing done, healthy Argo CD) each
of the 56 checks FAILs with exactly this message; the golden world passes them all
(test_capa_src.py). A later step that depends on a missing earlier one says "blocked by step N"."""

from __future__ import annotations

from tests.grader.conftest import collect_host, judge

EXPECTED = {
    "capa-src.1.bare-repo": "<host>/srv/bare/src.git does not exist",
    "capa-src.1.clone-origin": "<host>/root/capa-src/repo does not exist",
    "capa-src.1.chart-yaml": "<host>/srv/bare/src.git does not exist",
    "capa-src.1.chart-values": "<host>/srv/bare/src.git does not exist",
    "capa-src.1.chart-values-prod": "<host>/srv/bare/src.git does not exist",
    "capa-src.1.template-configmap": "<host>/srv/bare/src.git does not exist",
    "capa-src.1.template-deployment": "<host>/srv/bare/src.git does not exist",
    "capa-src.1.app-file": "<host>/root/capa-src/app-src-helm.yaml does not exist",
    "capa-src.1.app-file-value-files": "<host>/root/capa-src/app-src-helm.yaml does not exist",
    "capa-src.1.live-app": "Application src-helm does not exist in namespace argocd",
    "capa-src.1.live-app-status": "Application src-helm does not exist in namespace argocd",
    "capa-src.2.app-file-values": "<host>/root/capa-src/app-src-helm.yaml does not exist",
    "capa-src.2.live-app-values": "blocked by step 1: Application src-helm does not exist in namespace argocd",
    "capa-src.2.precedence-replicas": "<host>/root/capa-src/precedence.json does not exist",
    "capa-src.2.precedence-greeting": "<host>/root/capa-src/precedence.json does not exist",
    "capa-src.3.helm-release-secrets": "<host>/root/capa-src/tracking.json does not exist",
    "capa-src.3.tracking-annotation": "<host>/root/capa-src/tracking.json does not exist",
    "capa-src.3.instance-label": "<host>/root/capa-src/tracking.json does not exist",
    "capa-src.3.tracking-method": "<host>/root/capa-src/tracking.json does not exist",
    "capa-src.4.kust-base": "<host>/srv/bare/src.git does not exist",
    "capa-src.4.kust-overlay": "<host>/srv/bare/src.git does not exist",
    "capa-src.4.no-override-in-git": "<host>/srv/bare/src.git does not exist",
    "capa-src.4.app-file": "<host>/root/capa-src/app-src-kust.yaml does not exist",
    "capa-src.4.live-app": "Application src-kust does not exist in namespace argocd",
    "capa-src.4.live-deployment": "Application src-kust does not exist in namespace argocd",
    "capa-src.5.git-settings": "<host>/srv/bare/src.git does not exist",
    "capa-src.5.git-app": "<host>/srv/bare/src.git does not exist",
    "capa-src.5.git-smoke": "<host>/srv/bare/src.git does not exist",
    "capa-src.5.git-migrate-hook": "<host>/srv/bare/src.git does not exist",
    "capa-src.5.app-file": "<host>/root/capa-src/app-src-waves.yaml does not exist",
    "capa-src.5.live-app": "Application src-waves does not exist in namespace argocd",
    "capa-src.5.waves-hook-job": "<host>/root/capa-src/waves.json does not exist",
    "capa-src.5.waves-times": "<host>/root/capa-src/waves.json does not exist",
    "capa-src.5.waves-settings-created": "<host>/root/capa-src/waves.json does not exist",
    "capa-src.5.live-hook-job": "<host>/root/capa-src/waves.json does not exist",
    "capa-src.5.live-order": "not in namespace src-waves yet: ConfigMap settings, Deployment app, Job smoke",
    "capa-src.6.failed-commit": "<host>/root/capa-src/failed-hook.json does not exist",
    "capa-src.6.failed-phase": "<host>/root/capa-src/failed-hook.json does not exist",
    "capa-src.6.failed-live-mode": "<host>/root/capa-src/failed-hook.json does not exist",
    "capa-src.6.fix-commit": "<host>/root/capa-src/failed-hook.json does not exist",
    "capa-src.6.live-revision": "blocked by step 5: Application src-waves does not exist in namespace argocd",
    "capa-src.6.live-operation": "blocked by step 5: Application src-waves does not exist in namespace argocd",
    "capa-src.6.live-mode-green": "blocked by step 5: ConfigMap src-waves/settings does not exist in the cluster",
    "capa-src.7.app-file": "<host>/root/capa-src/app-src-kust.yaml does not exist",
    "capa-src.7.live-app": "blocked by step 4: Application src-kust does not exist in namespace argocd",
    "capa-src.7.live-replicas": "blocked by step 4: Application src-kust does not exist in namespace argocd",
    "capa-src.7.ignore-times": "<host>/root/capa-src/ignore.json does not exist",
    "capa-src.7.ignore-replicas": "<host>/root/capa-src/ignore.json does not exist",
    "capa-src.7.ignore-sync-status": "<host>/root/capa-src/ignore.json does not exist",
    "capa-src.7.replicas-owner": "blocked by step 4: Deployment src-kust/prod-api does not exist in the cluster",
    "capa-src.8.helm-winner": "<host>/root/capa-src/report.json does not exist",
    "capa-src.8.replicas-winner": "<host>/root/capa-src/report.json does not exist",
    "capa-src.8.helm-installed": "<host>/root/capa-src/report.json does not exist",
    "capa-src.8.image-source": "<host>/root/capa-src/report.json does not exist",
    "capa-src.8.hook-blocked-sync": "<host>/root/capa-src/report.json does not exist",
    "capa-src.8.replicas-owner": "<host>/root/capa-src/report.json does not exist",
}


def test_every_check_fails_in_the_empty_world_with_its_message(fake_api):
    host_dir = fake_api.world("capa-src/empty.yaml")
    results = judge(collect_host(host_dir))
    assert {c["status"] for c in results.values()} == {"FAIL"}
    assert {k: c["message"].replace(str(host_dir), "<host>") for k, c in results.items()} == EXPECTED
