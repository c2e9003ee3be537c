"""index.html: the self-contained class report page (no external resources, every record value
escaped), rendered from the Jinja2 template html/index.html.j2 with its CSS and JS files.

The matrix is plain HTML; a cell's checks are rendered next to it by the page's script from the
JSON of page_data, with DOM text nodes only (never innerHTML). The template, CSS and JS reach
the module through html_assets.py, generated from the files (docs/report-format.md says why).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats import html_assets, page_data
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.formats.page_data import script_json
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.history import SCHEMA
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.labels import LABELS, label
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import xml_safe
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.views import (
    NOT_STARTED,
    class_rates,
    host_score,
    lab_not_started,
    most_failed,
    step_title,
)
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import (
    ERROR,
    FAIL,
    LANGUAGE_NAMES,
    PASS,
    SEVERITY,
    STATUSES,
    SYMBOLS,
    worst,
)
from jinja2 import Environment, StrictUndefined
from markupsafe import Markup

NAME = "html"
FILE = "index.html"
FILTERS = ("f_all", "f_attention", "f_errors", "f_failing", "f_not_started", "f_pending", "f_progressed",
           "f_regressed", "f_complete")
SORTS = ("s_name", "s_errors", "s_stuck", "s_score_asc", "s_score_desc", "s_progress")
SYMBOLS_SHOWN = {**SYMBOLS, NOT_STARTED: "\u25cb"}  # a lab not started: an empty circle
HOST_ERROR_RANK = len(SEVERITY)  # a host that could not be graded sorts above an ERROR check
# The text of the page's <style> and <script> elements; the CSP allows exactly this script.
STYLE = "\n" + html_assets.CSS
SCRIPT = "\n" + html_assets.JS
SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
CSP = (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{SCRIPT_HASH}'; "
       "img-src data:; base-uri 'none'; form-action 'none'")


def escaped(value):
    """What the template writes for {{ value }}: markup (the macros', Markup) as it is, anything
    else as text XML can hold (xml_safe: control characters become visible \\xNN escapes),
    HTML-escaped."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(xml_safe(value), quote=True))


@functools.cache
def _template():
    env = Environment(autoescape=True, finalize=escaped, keep_trailing_newline=True, undefined=StrictUndefined)
    env.filters["json_text"] = lambda value: json.dumps(value, ensure_ascii=False)
    return env.from_string(html_assets.TEMPLATE)


def _labels(lang):
    return lambda key, **params: label(lang, key, **params)


@functools.cache
def _macros(lang):
    """The template's macros in `lang` (the template with page=False renders nothing else)."""
    return _template().make_module({"page": False, "label": _labels(lang), "sym": SYMBOLS_SHOWN})


def pass_rates(hosts, columns):
    """{(lab index, step index): (passed, graded)} over graded hosts whose lab result has the step."""
    rates = class_rates(hosts)
    return {(li, si): tuple(rates.get(f"{lab['id']}.{column['step']}", (0, 0)))
            for li, lab in enumerate(columns) for si, column in enumerate(lab["steps"])}


def _row_facts(host, columns):
    """Sorting and filtering attributes of a matrix row: severity, what is present (the statuses
    of its steps and of their checks; NOT_STARTED for a lab not started, which ranks as a FAIL
    and adds no status), non-passing steps."""
    if host["state"] == "error":
        return HOST_ERROR_RANK, "HOST", ""
    statuses, not_passing, not_started = set(), [], False
    for li, lab in enumerate(columns):
        result = host["labs"].get(lab["id"])
        if result is None:
            continue
        idle = lab_not_started(result)
        not_started = not_started or idle
        by_step = {s["step"]: s for s in result["steps"]}
        for si, column in enumerate(lab["steps"]):
            step = by_step.get(column["step"])
            status = ERROR if result["error"] else step and step["status"]
            if status is None:
                continue
            if not idle:
                statuses.add(status)
                statuses.update(c["status"] for c in (step["checks"] if step else []))
            if status != PASS:
                not_passing.append(f"{li}-{si}")
    present = [s for s in STATUSES if s in statuses] + ([NOT_STARTED] if not_started else [])
    rank = SEVERITY[worst(statuses | ({FAIL} if not_started else set()))]
    return rank, " ".join(present), " ".join(not_passing)


CHANGE_TEXTS = {"progressed": "+{up}", "regressed": "\u2212{down}", "mixed": "+{up} \u2212{down}", "unchanged": "=",
                "new": "\u2022", "not_graded": "?", "carried": "\u00b7"}


def _change_cell(change, lang):
    """{kind, text, tip} of a row's change cell; None without a previous run."""
    if change is None:
        return None
    kind = change["change"]
    tips = []
    if change["up"]:
        tips.append(label(lang, "c_progressed", up=", ".join(change["up"])))
    if change["down"]:
        tips.append(label(lang, "c_regressed", down=", ".join(change["down"])))
    if not tips:
        tips.append(label(lang, f"c_{kind}"))
    return {"kind": kind, "text": CHANGE_TEXTS[kind].format(up=len(change["up"]), down=len(change["down"])),
            "tip": "; ".join(tips)}


def _lab_cell(result, lab, li, up):
    """One lab's cells of a graded host's row: not graded, in error, or one per step column."""
    span = max(1, len(lab["steps"]))
    if result is None:
        return {"state": "none", "span": span}
    if result["error"]:
        return {"state": "error", "span": span, "li": li, "message": result["error"]["message"]}
    if lab_not_started(result):
        return {"state": "not_started", "span": span, "li": li, "total": result["summary"]["total"]}
    by_step = {s["step"]: s for s in result["steps"]}
    steps = []
    for si, column in enumerate(lab["steps"]):
        step = by_step.get(column["step"])
        steps.append(step and {"si": si, "status": step["status"], "up": f"{lab['id']}.{column['step']}" in up,
                               "passed": step["summary"][PASS], "total": step["summary"]["total"]})
    return {"state": "steps", "li": li, "steps": steps}


def _row(row_index, host, columns, lang):
    """What a host's row of the matrix shows, and the attributes the page sorts and filters by."""
    change = host.get("change") or {}
    carried = change.get("change") == "carried"
    sev, present, not_passing = _row_facts(host, columns)
    score = host_score(host)
    row = {
        "i": row_index, "name": host["host"], "lang": host["lang"], "sev": sev, "present": present,
        "ratio": "" if host["state"] == "error" else round(1000 * score["passed"] / score["total"]) if score["total"] else 0,
        "not_passing": not_passing, "chg": change.get("change", ""), "up": len(change.get("up", [])),
        "classes": " ".join(c for c in ("host-error" if host["state"] == "error" else "", "carried" if carried else "",
                                        "kept" if host.get("failed_attempt") else "") if c),
        "kept": host.get("failed_attempt"),
        "carried": carried, "graded_at": host.get("graded_at", ""), "error": host["error"] if host["state"] == "error" else None,
        "passed": score["passed"], "total": score["total"], "change": _change_cell(host.get("change"), lang),
    }
    if row["error"] is None:
        up = set(change.get("up", []))
        row["labs"] = [_lab_cell(host["labs"].get(lab["id"]), lab, li, up) for li, lab in enumerate(columns)]
    return row


def _columns(hosts, columns, lang):
    """The lab columns as the header, the step filter and the pass-rate row show them."""
    rates = pass_rates(hosts, columns)
    out = []
    for li, lab in enumerate(columns):
        steps = []
        for si, step in enumerate(lab["steps"]):
            passed, graded = rates[(li, si)]
            steps.append({"key": f"{li}-{si}", "step": step["step"], "title": step_title(step, lang), "passed": passed,
                          "graded": graded, "percent": round(100 * passed / graded) if graded else 0})
        out.append({"id": lab["id"], "span": max(1, len(lab["steps"])), "steps": steps})
    return out


def _teach(hosts, columns, lang):
    """What to teach now (views.most_failed) as the page lists it: per step its most failed
    checks, each with the count and the matrix rows (data-i) of the learners concerned."""
    rows = {host["host"]: str(index) for index, host in enumerate(hosts)}
    titles = {(lab["id"], s["step"]): step_title(s, lang) for lab in columns for s in lab["steps"]}
    return [{"lab": item["lab"], "step": item["step"], "title": titles[(item["lab"], item["step"])],
             "checks": [{"id": c["check"], "name": c["check"].removeprefix(f"{item['lab']}.{item['step']}."),
                         "count": len(c["hosts"]), "rows": " ".join(rows[h] for h in c["hosts"])}
                        for c in item["checks"]]}
            for item in most_failed(hosts, columns)]


SPARK_WIDTH, SPARK_HEIGHT, SPARK_PAD = 96, 34, 3  # one step's chart of its pass rate over the runs


def _progress(history, columns, lang):
    """The class's pass rate per step over the runs of `history` (grades.json), as the page draws
    it: per lab, per step an SVG polyline (oldest run left, 0 % bottom, 100 % top) and the
    first and last rates; None with fewer than two runs (nothing to follow yet)."""
    if len(history) < 2:
        return None
    span_x, span_y = SPARK_WIDTH - 2 * SPARK_PAD, SPARK_HEIGHT - 2 * SPARK_PAD
    out = []
    for lab in columns:
        steps = []
        for column in lab["steps"]:
            key = f"{lab['id']}.{column['step']}"
            points = []
            for index, run in enumerate(history):
                passed, graded = run["rates"].get(key, (0, 0))
                if graded:
                    x = SPARK_PAD + span_x * index / (len(history) - 1)
                    y = SPARK_PAD + span_y * (1 - passed / graded)
                    points.append((round(x, 1), round(y, 1), round(100 * passed / graded)))
            steps.append({"step": column["step"], "title": step_title(column, lang),
                          "points": " ".join(f"{x},{y}" for x, y, _ in points),
                          "last": points[-1] if points else None, "first": points[0] if points else None})
        out.append({"id": lab["id"], "steps": steps})
    return {"runs": len(history), "since": history[0]["at"], "labs": out}


def _partial(run):
    """What the page says about a partial run (None for a run of the whole class)."""
    if not run or run["scope"] != "partial":
        return None
    previous = run["previous"]
    return {"graded": ", ".join(run["graded"]), "carried": len(run["carried"]),
            "previous": previous is not None, "time": previous["generated_at"] if previous else ""}


def _ncols(columns):
    return sum(max(1, len(lab["steps"])) for lab in columns)


def host_part(host, ctx):
    """A host's row of the matrix (HTML) and its part of the page's JSON (page_data)."""
    lang = ctx.lang if ctx.lang in LABELS else "en"
    return {"row": _macros(lang).matrix_row(_row(ctx.row, host, ctx.columns, lang), _ncols(ctx.columns)),
            "data": page_data.host_part(host, ctx.columns)}


def assemble(view, parts):
    """The page of the class view (one run), its rows and JSON from the hosts' parts."""
    hosts, columns, run = view.hosts, view.columns, view.run
    lang = view.lang if view.lang in LABELS else "en"
    counts = view.grades["counts"]
    previous = (run or {}).get("previous")
    return _template().render(
        page=True, lang=lang, csp=Markup(CSP), schema=SCHEMA, title=view.title,
        page_title=view.title or LABELS[lang]["title"], generated_at=view.generated_at, css=Markup(STYLE),
        script=Markup(SCRIPT), label=_labels(lang), languages=LANGUAGE_NAMES,
        statuses=STATUSES, sym=SYMBOLS_SHOWN, filters=FILTERS, sorts=SORTS, counts=counts,
        partial=_partial(run), columns=_columns(hosts, columns, lang), teach=_teach(hosts, columns, lang),
        progress=_progress(view.grades["history"], columns, lang), spark=(SPARK_WIDTH, SPARK_HEIGHT),
        ncols=_ncols(columns),
        pass_percent=round(100 * counts[PASS] / counts["total"]) if counts["total"] else 0,
        with_change=previous is not None, previous_time=previous["generated_at"] if previous is not None else "",
        progressed=sum(1 for h in hosts if (h.get("change") or {}).get("change") in ("progressed", "mixed")),
        rows=[part["row"] for part in parts],
        data_json=Markup(page_data.assemble([part["data"] for part in parts], columns)),
        labels_json=Markup(script_json(LABELS)))
