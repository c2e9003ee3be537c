"""The JSON index.html's script reads to show a cell's checks: labs, interned check rows (each
message in every language the catalogue renders it in), hosts."""

from __future__ import annotations

import json

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader import i18n
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.memo import first_seen
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
    """Identical detail rows are stored once in the page (most learners share most rows): each
    item once, as its JSON text, in the order first seen."""

    def __init__(self):
        self.texts, self.index = [], {}

    def add(self, item):
        return self.add_text(json.dumps(item, ensure_ascii=False, separators=(",", ":")))

    def add_text(self, text):
        if text not in self.index:
            self.index[text] = len(self.texts)
            self.texts.append(text)
        return self.index[text]


def _shown_cut(value, limit=4000):
    text = xml_safe(show_value(value))
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


def host_part(host, columns):
    """A host's part of the page's JSON: its entry of `hosts`, with the ids of its detail rows
    and first-pass times in its own lists `rows` and `times` (assemble makes them the page's)."""
    rows, times = _Interner(), _Interner()
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
                ids = [rows.add_text(_row_text(check, host["lang"])) for check in step["checks"]]
                cells.append([step["status"], ids])
            entry["s"].append(cells)
    return {"entry": entry, "rows": rows.texts, "times": times.texts}


# What a check's detail row shows: these of its fields, and the learner's language.
ROW_KEYS = ("check", "status", "message_key", "params", "message", "hint", "hint_key", "expected", "found")
# Distinct rows a collector keeps rendered (memo.first_seen): a class shares most rows (every
# learner who passes a check has the same one), so most pushes render none. A check's fields are
# ~800 characters (99 % under 1,100): those of more than ROW_MEMO_TEXT are rendered every time.
ROW_MEMO, ROW_MEMO_TEXT = 16384, 2048


def _row_text(check, host_lang):
    """The JSON text of a check's detail row (interned in the page)."""
    return _row_text_of(host_lang, json.dumps([check.get(key) for key in ROW_KEYS], ensure_ascii=False,
                                              separators=(",", ":")))


@first_seen(ROW_MEMO, ROW_MEMO_TEXT)
def _row_text_of(host_lang, fields_text):
    """_row_text of the check whose ROW_KEYS fields are the JSON list `fields_text` (a check is
    JSON data: the text is the check, and the memo's key)."""
    check = dict(zip(ROW_KEYS, json.loads(fields_text), strict=True))
    message, hint = translations(check, host_lang)
    return json.dumps([xml_safe(check["check"]), check["status"], _safe_texts(message), _shown_cut(check["expected"]),
                       _shown_cut(check["found"]), _safe_texts(hint)], ensure_ascii=False, separators=(",", ":"))


def _in_page(entry, rows, times):
    """`entry` with its own row and time ids replaced by the page's (lists: own id -> page id)."""
    first = [None if ids is None else [-1 if i == -1 else times[i] for i in ids] for ids in entry["f"]]
    cells = [lab if not isinstance(lab, list) else [None if cell is None else [cell[0], [rows[i] for i in cell[1]]]
                                                    for cell in lab] for lab in entry["s"]]
    return {**entry, "s": cells, "f": first}


def assemble(parts, columns):
    """script_json of the page's JSON (labs, detail rows interned over the class, hosts) from
    the hosts' parts, in the class view's order: what the page's script reads to show a cell."""
    rows, times, hosts = _Interner(), _Interner(), []
    for part in parts:
        entry = _in_page(part["entry"], [rows.add_text(t) for t in part["rows"]],
                         [times.add_text(t) for t in part["times"]])
        hosts.append(script_json(entry))
    head = {
        "langs": list(LANGUAGES),
        "sym": {status: SYMBOLS[status] for status in STATUSES},
        "sev": SEVERITY,
        "labs": [{"id": xml_safe(lab["id"]),
                  "steps": [{"step": s["step"], "title": xml_safe(s["title"]),
                             "titles": {k: xml_safe(v) for k, v in s["titles"].items()}} for s in lab["steps"]]}
                 for lab in columns],
    }
    texts = {key: script_json(value) for key, value in head.items()}
    texts.update(rows=_escaped_list(rows.texts), times=_escaped_list(times.texts), hosts="[" + ",".join(hosts) + "]")
    return "{" + ",".join(f"{json.dumps(key)}:{text}" for key, text in texts.items()) + "}"


def _escaped_list(texts):
    return "[" + ",".join(_script_escaped(t) for t in texts) + "]"


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
    return _script_escaped(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _script_escaped(text):
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
