"""The page's template, CSS and JS are files; html_assets.py carries them to the module (AnsiballZ
ships Python module_utils only) and must be what scripts/generate-report-assets makes of them."""

from __future__ import annotations

import base64
import hashlib
import re
import runpy

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import html_assets

from tests.conftest import REPO_ROOT

HTML_DIR = REPO_ROOT / "plugins/module_utils/labgrader/report/formats/html"


def test_the_generated_module_is_the_files():
    generator = runpy.run_path(str(REPO_ROOT / "scripts/generate-report-assets"))
    current = (REPO_ROOT / "plugins/module_utils/labgrader/report/formats/html_assets.py").read_text(encoding="utf-8")
    assert current == generator["assets_module"](), "stale: run scripts/generate-report-assets"
    assert (HTML_DIR / "report.js").read_text(encoding="utf-8") == html_assets.JS
    assert (HTML_DIR / "report.css").read_text(encoding="utf-8") == html_assets.CSS
    assert (HTML_DIR / "index.html.j2").read_text(encoding="utf-8") == html_assets.TEMPLATE


def test_the_csp_allows_exactly_the_script_file():
    page = build.build_report([])["contents"]["index.html"]
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    assert script == "\n" + (HTML_DIR / "report.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    assert f"script-src 'sha256-{digest}'" in page
