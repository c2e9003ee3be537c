"""What cgoa-ci's specification (shared/labs/cgoa-ci.md) names: the repository, the Application,
the namespaces, the CI identity, the images and the files the learner writes."""

from __future__ import annotations

REPO_NAME = "ci"
APP = "ci-web"
PROD_NS, DRYRUN_NS, CI_NS = "ci-web", "ci-dryrun", "ci"
VALIDATOR = "system:serviceaccount:ci:validator"
VALIDATOR_GROUPS = ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"]
BASE_IMAGE, BUMP_IMAGE = "nginx:1.27-alpine", "nginx:1.28-alpine"
BUMP_MESSAGE = "ci: web nginx:1.28-alpine"
WEB_YAML = "deploy/web.yaml"
TOKEN_LIFETIME, TOKEN_SKEW = 8 * 3600, 120
HOOK = "pre-receive"
