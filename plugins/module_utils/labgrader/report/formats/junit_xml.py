"""junit.xml: one <testsuite> per host, one <testcase> per check (docs/report-format.md)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.document import Document
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report.values import show_value, xml_safe
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.vocabulary import ERROR, FAIL, PENDING

NAME = "junit"
FILE = "junit.xml"


def _check_body(check):
    lines = [f"expected: {show_value(check['expected'])}",
             f"found: {show_value(check['found'])}"]
    if check["hint"]:
        lines.append(f"hint: {check['hint']}")
    if check["message_key"]:
        lines.append(f"message_key: {check['message_key']}")
    return xml_safe("\n".join(lines))


COUNTS = ("tests", "failures", "errors", "skipped")


def host_part(host, ctx):
    """(its <testsuite> as the file has it, indented one level, and its counts)."""
    suite = ET.Element("testsuite", name=xml_safe(host["host"]), hostname=xml_safe(host["host"]),
                       timestamp=host.get("graded_at") or ctx.generated_at)
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="lang", value=host["lang"])
    ET.SubElement(props, "property", name="state", value=host["state"])
    counts = dict.fromkeys(COUNTS, 0)
    if host["state"] == "error":
        error = host["error"]
        case = ET.SubElement(suite, "testcase", classname="environment", name=error["kind"])
        node = ET.SubElement(case, "error", type=error["kind"],
                             message=xml_safe(error["message"], 1000))
        node.text = xml_safe(json.dumps(error["details"], ensure_ascii=False, sort_keys=True))
        counts["tests"] += 1
        counts["errors"] += 1
    for lab_id, lab in host["labs"].items():
        if lab["error"]:
            case = ET.SubElement(suite, "testcase", classname=xml_safe(lab_id), name=xml_safe(lab_id))
            ET.SubElement(case, "error", type=lab["error"]["kind"],
                          message=xml_safe(lab["error"]["message"], 1000))
            counts["tests"] += 1
            counts["errors"] += 1
        for step in lab["steps"]:
            for check in step["checks"]:
                counts["tests"] += 1
                case = ET.SubElement(suite, "testcase", classname=xml_safe(f"{lab_id}.step{step['step']}"),
                                     name=xml_safe(check["check"]))
                status = check["status"]
                if status == FAIL:
                    node = ET.SubElement(case, "failure", type=FAIL,
                                         message=xml_safe(check["message"], 1000))
                    counts["failures"] += 1
                elif status == ERROR:
                    node = ET.SubElement(case, "error", type=ERROR,
                                         message=xml_safe(check["message"], 1000))
                    counts["errors"] += 1
                elif status == PENDING:
                    node = ET.SubElement(case, "skipped", type=PENDING,
                                         message=xml_safe(f"PENDING (not converged): {check['message']}", 1000))
                    counts["skipped"] += 1
                else:
                    continue
                node.text = _check_body(check)
    for key, value in counts.items():
        suite.set(key, str(value))
    ET.indent(suite, level=1)  # as ET.indent indents it in the whole tree
    return {"text": ET.tostring(suite, encoding="unicode").encode("utf-8"), "counts": counts}


def assemble(view, parts):
    """One <testsuite> per host, one <testcase> per check (see docs/report-format.md):
    ET.indent's document, byte for byte, from the hosts' parts."""
    root = ET.Element("testsuites", name="lab-grades", timestamp=view.generated_at)
    for key in COUNTS:
        root.set(key, str(sum(part["counts"][key] for part in parts)))
    empty = ET.tostring(root, encoding="unicode")  # <testsuites ... />
    chunks = [b'<?xml version="1.0" encoding="UTF-8"?>\n']
    if not parts:
        return Document([*chunks, empty.encode("utf-8"), b"\n"])
    chunks.append((empty.removesuffix(" />") + ">").encode("utf-8"))
    for part in parts:
        chunks += [b"\n  ", part["text"]]
    return Document([*chunks, b"\n</testsuites>\n"])
