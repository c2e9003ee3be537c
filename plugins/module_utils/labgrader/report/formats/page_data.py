"""The JSON index.html's script reads to show a cell's checks: labs, interned check rows (each
message in every language the catalogue renders it in), hosts."""

from __future__ import annotations

import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import show_value, xml_safe
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import LANGUAGES, SEVERITY, STATUSES, SYMBOLS


def translations(check, host_lang, render_message=None, render_hint=None):
    """(message, hint) of a check: each an [en, ja, ko] list when the catalogue renders exactly
    the text the learner got (so the instructor reads the same message in another language), else
    the learner's text alone (unknown key, a catalogue that changed since, a malformed check)."""
    render_message = render_message or i18n.message
    render_hint = render_hint or i18n.hint

    def every_language(render, stored):
        try:
            texts = [render(lang) for lang in LANGUAGES]
        except Exception:  # any failure of the catalogue means "not renderable"  # noqa: BLE001
            return stored
        if host_lang not in LANGUAGES or texts[LANGUAGES.index(host_lang)] != stored or len(set(texts)) == 1:
            return stored
        return texts

    message = check["message"]
    if check["message_key"]:
        message = every_language(lambda lang: render_message(check["message_key"], check["params"], lang),
                                 check["message"])
    hint = check["hint"]
    if check["hint"] and check.get("hint_key"):
        hint = every_language(lambda lang: render_hint(check["hint_key"], lang, check["params"]), check["hint"])
    return message, hint


class _Interner:
    """Identical detail rows are stored once in the page (most learners share most rows)."""

    def __init__(self):
        self.items, self.index = [], {}

    def add(self, item):
        key = json.dumps(item, ensure_ascii=False, sort_keys=True)
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(item)
        return self.index[key]


def _shown_cut(value, limit=4000):
    text = xml_safe(show_value(value))
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


def page_data(hosts, columns, render_message=None, render_hint=None):
    """The JSON the page's script reads to show a cell's details: labs, interned check rows, hosts."""
    rows, times = _Interner(), _Interner()
    out_hosts = []
    for host in hosts:
        entry = {"n": xml_safe(host["host"]), "l": host["lang"], "g": host.get("graded_at", ""), "e": None, "s": [],
                 "f": _first_passed(host, columns, times)}
        if host["state"] == "error":
            error = host["error"]
            entry["e"] = {"k": error["kind"], "m": xml_safe(error["message"]),
                          "d": xml_safe(json.dumps(error["details"], ensure_ascii=False, indent=2, sort_keys=True))}
        for lab in columns:
            result = host["labs"].get(lab["id"])
            if result is None:
                entry["s"].append(None)
            elif result["error"]:
                entry["s"].append({"k": result["error"]["kind"], "e": xml_safe(result["error"]["message"])})
            else:
                by_step = {s["step"]: s for s in result["steps"]}
                cells = []
                for column in lab["steps"]:
                    step = by_step.get(column["step"])
                    if step is None:
                        cells.append(None)
                        continue
                    ids = []
                    for check in step["checks"]:
                        message, hint = translations(check, host["lang"], render_message, render_hint)
                        ids.append(rows.add([xml_safe(check["check"]), check["status"], _safe_texts(message),
                                             _shown_cut(check["expected"]), _shown_cut(check["found"]),
                                             _safe_texts(hint)]))
                    cells.append([step["status"], ids])
                entry["s"].append(cells)
        out_hosts.append(entry)
    return {
        "langs": list(LANGUAGES),
        "sym": {status: SYMBOLS[status] for status in STATUSES},
        "sev": SEVERITY,
        "labs": [{"id": xml_safe(lab["id"]),
                  "steps": [{"step": s["step"], "title": xml_safe(s["title"]),
                             "titles": {k: xml_safe(v) for k, v in s["titles"].items()}} for s in lab["steps"]]}
                 for lab in columns],
        "rows": rows.items,
        "times": times.items,
        "hosts": out_hosts,
    }


def _first_passed(host, columns, times):
    """Per lab of `columns`, per step: the index in `times` of when the learner first passed it,
    -1 when never; None for a lab not graded or in error."""
    out = []
    for lab in columns:
        result = host["labs"].get(lab["id"])
        if result is None or result["error"]:
            out.append(None)
            continue
        by_step = {s["step"]: s.get("first_passed") for s in result["steps"]}
        out.append([times.add(xml_safe(by_step[c["step"]])) if by_step.get(c["step"]) else -1 for c in lab["steps"]])
    return out


def _safe_texts(texts):
    return xml_safe(texts) if isinstance(texts, str) else [xml_safe(t) for t in texts]


def script_json(value):
    """JSON for a <script type="application/json">: no record text can end the element or open a
    comment in it, because <, > and & are written as JSON escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
