"""index.html in a real headless Chromium (DevTools protocol over a pipe): layout at 1280 px for
2 labs x 8 steps, a header that stays visible, details next to the cell in either language,
filters, and not one network request. Screenshots go to $LAB_SCREENSHOTS_DIR when it is set
(docs/screenshots/ holds the committed ones)."""

from __future__ import annotations

import datetime
import json
import os
import shutil

import pytest
from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.report import build, files, history, views
from cdp import Browser, find_chromium
from report_sample import NOW, earlier_run, synthetic_class

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium (chromium, chromium-browser or $CHROMIUM); scripts/ensure-test-packages installs Debian's")
EARLIER = NOW - datetime.timedelta(days=1)
WIDTH, HEIGHT = 1280, 900
CLASSES = {8: {"error_every": 7, "lab_error_every": 5, "idle_every": 3}, 200: {"idle_every": 9}}
VISIBLE_ROWS = "[].filter.call(document.querySelectorAll('#rows tr'),function(r){return !r.hidden})"


def write_class(out, learners):
    """The report of a class graded twice (so it shows progress), written as grade_report does."""
    records = synthetic_class(learners, **CLASSES[learners])
    before = build.build_report(earlier_run(records), now=EARLIER)
    previous = {"report": "20261129T051200Z", "generated_at": before["generated_at"],
                "hosts": history.hosts_from_grades(json.loads(before["contents"]["grades.json"]))}
    built = build.build_report(records, now=NOW, report_dir=str(out), previous=previous)
    files.write_report(str(out), built["contents"])
    return built


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chrome = Browser(CHROMIUM, tmp_path_factory.mktemp("profile"))
    try:
        chrome.open_page(WIDTH, HEIGHT)
        yield chrome
    finally:
        chrome.close()


def save(browser, tmp_path, name):
    path = tmp_path / name
    browser.screenshot(path)
    if os.environ.get("LAB_SCREENSHOTS_DIR"):
        shutil.copy(path, os.path.join(os.environ["LAB_SCREENSHOTS_DIR"], name))


def box(browser, selector):
    return browser.evaluate(f"(function(){{var r=document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                            "return {left:r.left,top:r.top,right:r.right,bottom:r.bottom,width:r.width,height:r.height};})()")


def click(browser, selector):
    rect = box(browser, selector)
    browser.click(rect["left"] + rect["width"] / 2, rect["top"] + rect["height"] / 2)
    return rect


def details_open_next_to_the_cell(browser, tmp_path, learners, cell):
    """Details next to the cell: a FAIL cell of a learner whose language is not the page's."""
    browser.evaluate("window.scrollTo(0, 0)")
    rect = click(browser, cell)
    pop = box(browser, "#pop")
    assert browser.evaluate("!document.getElementById('pop').hidden")
    assert 0 <= pop["top"] - rect["bottom"] <= 8 or 0 <= rect["top"] - pop["bottom"] <= 8  # just below or above
    assert pop["left"] <= rect["right"] and pop["right"] >= rect["left"]  # overlaps the cell's column
    assert pop["right"] <= WIDTH
    text = browser.evaluate("document.getElementById('pop').innerText")
    assert "learner002" in text and "\u6b63\u3057\u304f" not in text
    assert "\uae30\ub313\uac12" in text  # learner002 is Korean: "기댓값" (expected) in its messages
    if learners == 8:
        save(browser, tmp_path, "report-8-details-learner.png")
    # the same details in the page's language (English), rendered from message_key + params
    browser.evaluate("var s=document.querySelector('#pop select');s.value='page';s.dispatchEvent(new Event('change'))")
    english = browser.evaluate("document.getElementById('pop').innerText")
    assert ": expected 1, found" in english and "\uae30\ub313\uac12" not in english
    if learners == 8:
        save(browser, tmp_path, "report-8-details.png")
    browser.evaluate("var s=document.querySelector('#pop select');s.value='learner';s.dispatchEvent(new Event('change'))")


def escape_closes_the_details(browser, cell):
    # Esc closes the details and gives the focus back to the cell, without scrolling
    scroll_before = browser.evaluate("window.scrollY")
    browser.key("Escape", "Escape")
    assert browser.evaluate("document.getElementById('pop').hidden")
    assert browser.evaluate(f"document.activeElement === document.querySelector({json.dumps(cell)})")
    assert browser.evaluate("window.scrollY") == scroll_before


def filters_and_sorts(browser, built):
    # errors first; then only the learners who could not be graded or have a grader error
    in_error = built["counts"]["hosts_in_error"] + sum(
        1 for h in built["hosts"] if any(lab["error"] for lab in h["labs"].values()))
    browser.evaluate("var s=document.getElementById('f-sort');s.value='s_errors';s.dispatchEvent(new Event('change'))")
    assert browser.evaluate("document.querySelector('#rows tr').getAttribute('data-sev')") == "4"
    browser.evaluate("var s=document.getElementById('f-show');s.value='f_errors';s.dispatchEvent(new Event('change'))")
    assert browser.evaluate(VISIBLE_ROWS + ".length") == in_error
    assert browser.evaluate("document.querySelector('#rows tr[hidden]').getBoundingClientRect().height") == 0
    browser.evaluate("var s=document.getElementById('f-show');s.value='f_all';s.dispatchEvent(new Event('change'))")
    # a pass-rate cell filters the learners who do not pass that step
    click(browser, "td.rate[data-step='0-2'] button")
    shown = browser.evaluate(VISIBLE_ROWS + ".map(function(r){return r.getAttribute('data-fail')})")
    assert shown and all("0-2" in fails.split() for fails in shown)
    click(browser, "td.rate[data-step='0-2'] button")
    # learners stuck earliest first: the first not-passing step never goes back
    browser.evaluate("var s=document.getElementById('f-sort');s.value='s_stuck';s.dispatchEvent(new Event('change'))")
    firsts = browser.evaluate(VISIBLE_ROWS + ".map(function(r){return r.getAttribute('data-has')==='HOST'?-1:"
                              "(r.getAttribute('data-fail')||'9-9').split(' ')[0]})")
    order = [(-1, -1) if f == -1 else tuple(map(int, f.split("-"))) for f in firsts]
    assert order == sorted(order) and order[0] == (-1, -1)
    browser.evaluate("var s=document.getElementById('f-sort');s.value='s_name';s.dispatchEvent(new Event('change'))")


def select(browser, element_id, value):
    browser.evaluate(f"var s=document.getElementById({json.dumps(element_id)});s.value={json.dumps(value)};"
                     "s.dispatchEvent(new Event('change'))")


def a_learners_history(browser, tmp_path, built, learners):
    """A learner's name opens when they first passed each step (from grades.json's first_passed)."""
    host = next(h for h in built["hosts"] if h["state"] == "graded" and h["host"] >= "learner003")
    steps = [(lab_id, s) for lab_id, lab in host["labs"].items() if not lab["error"] for s in lab["steps"]]
    browser.evaluate("window.scrollTo(0, 0)")
    click(browser, f"tr[data-name='{host['host']}'] button.hn")
    text = browser.evaluate("document.getElementById('pop').innerText")
    assert f"{host['host']} \u2014 When each step first passed" in text
    assert browser.evaluate("document.querySelectorAll('#pop table.checks tbody tr').length") == len(steps)
    cells = browser.evaluate("[].map.call(document.querySelectorAll('#pop table.checks tbody tr'),"
                             "function(r){return r.cells[2].textContent})")
    assert cells == [s["first_passed"] or "not yet" for _, s in steps]
    assert {s["first_passed"] for _, s in steps} - {None} <= {"2026-11-29T05:12:00Z", "2026-11-30T05:12:00Z"}
    if learners == 200:
        save(browser, tmp_path, "report-200-learner-history.png")
    browser.key("Escape", "Escape")


def what_to_teach_and_not_started(browser, built, tmp_path, learners):
    # the check most learners fail opens the learners concerned, and closes them again
    button = "section.teach button.fc"
    count = int(browser.evaluate(f"document.querySelector({json.dumps(button)}).querySelector('b').textContent"))
    concerned = browser.evaluate(f"document.querySelector({json.dumps(button)}).getAttribute('data-rows')").split()
    click(browser, button)
    assert browser.evaluate(VISIBLE_ROWS + ".map(function(r){return r.getAttribute('data-i')})") == sorted(concerned, key=int)
    if learners == 200:
        save(browser, tmp_path, "report-200-most-failed.png")
    assert len(concerned) == count
    assert browser.evaluate(f"document.querySelector({json.dumps(button)}).getAttribute('aria-pressed')") == "true"
    click(browser, button)
    assert browser.evaluate(VISIBLE_ROWS + ".length") == len(built["hosts"])
    # "not started" is a filter of its own, apart from "failing a step"
    idle = [h["host"] for h in built["hosts"] if any(views.lab_not_started(lab) for lab in h["labs"].values())]
    assert idle
    select(browser, "f-show", "f_not_started")
    assert browser.evaluate(VISIBLE_ROWS + ".map(function(r){return r.getAttribute('data-name')})") == idle
    assert browser.evaluate("document.querySelectorAll('#rows tr:not([hidden]) td.s-NOT_STARTED').length") == len(idle)
    select(browser, "f-show", "f_all")


def hosts_in_error_sort_apart_and_headers_sort(browser):
    # lowest score first: graded learners by score, then the hosts that have no score (in error)
    select(browser, "f-sort", "s_score_asc")
    scores = browser.evaluate(VISIBLE_ROWS + ".map(function(r){return r.getAttribute('data-score')})")
    graded = [int(s) for s in scores if s != ""]
    assert scores == [str(s) for s in graded] + [""] * (len(scores) - len(graded)) and graded == sorted(graded)
    assert "" in scores
    select(browser, "f-sort", "s_name")
    # the Score header sorts lowest first, then highest first; hosts in error stay last
    score_sort = "document.querySelector('button.sort[data-sort=s_score_asc]').parentNode.getAttribute('aria-sort')"
    click(browser, "button.sort[data-sort='s_score_asc']")
    assert browser.evaluate(score_sort) == "ascending"
    click(browser, "button.sort[data-sort='s_score_asc']")
    assert browser.evaluate(score_sort) == "descending"
    assert browser.evaluate("document.getElementById('f-sort').value") == "s_score_desc"  # the Sort list says so too
    scores = browser.evaluate(VISIBLE_ROWS + ".map(function(r){return r.getAttribute('data-score')})")
    graded = [int(s) for s in scores if s != ""]
    assert graded == sorted(graded, reverse=True) and scores[len(graded):] == [""] * (len(scores) - len(graded))
    # a step's header: the learners not passing that step first, in name order
    click(browser, "button.sort[data-sort='st:0-2']")
    fails = browser.evaluate(VISIBLE_ROWS + ".map(function(r){return (' '+r.getAttribute('data-fail')+' ').indexOf(' 0-2 ')>=0})")
    assert fails == sorted(fails, reverse=True) and True in fails and False in fails
    assert browser.evaluate("document.querySelector('th[data-st=\"0-2\"]').getAttribute('aria-sort')") == "ascending"
    # the Learner header: back to name order
    click(browser, "button.sort[data-sort='s_name']")
    names = browser.evaluate(VISIBLE_ROWS + ".map(function(r){return +r.getAttribute('data-i')})")
    assert names == sorted(names)


ACTIVE_COLUMN = ("(function(){var td=document.activeElement.closest('td,th'),c=0;"
                 "for(var x=td.parentNode.firstElementChild;x!==td;x=x.nextElementSibling)c+=x.colSpan;"
                 "return [td.parentNode.getAttribute('data-name'),c];})()")


def keyboard_and_screen_readers(browser):
    # every cell's accessible name says learner, step and result
    first = "tr[data-name='learner002'] button.c"
    role, name = browser.accessible(first)
    assert role == "button" and name.startswith("learner002, capa-src step 1 ") and "checks passed" in name
    assert any(label in name for label in (": Pass,", ": Fail,", ": Pending (Argo CD still syncing),"))
    # arrow keys move between cells: right, down (same column, next row shown), left to the name
    browser.evaluate(f"document.querySelector({json.dumps(first)}).focus()")
    browser.key("ArrowRight", "ArrowRight")
    assert browser.evaluate(ACTIVE_COLUMN) == ["learner002", 2]
    browser.key("ArrowDown", "ArrowDown")
    assert browser.evaluate(ACTIVE_COLUMN) == ["learner003", 2]
    browser.key("ArrowUp", "ArrowUp")
    browser.key("ArrowLeft", "ArrowLeft")
    browser.key("ArrowLeft", "ArrowLeft")
    assert browser.evaluate(ACTIVE_COLUMN) == ["learner002", 0]
    assert browser.accessible("tr[data-name='learner002'] button.hn") == ("button", "learner002: When each step first passed")
    browser.key("ArrowRight", "ArrowRight")
    # Enter opens the details: a labelled modal dialog with the focus, Tab stays in it
    browser.key("Enter", "Enter")
    assert browser.evaluate("!document.getElementById('pop').hidden")
    role, name = browser.accessible("#pop")
    assert role == "dialog" and name.startswith("learner002 \u2014 capa-src \u00b7 Step 1: ")
    assert browser.evaluate("document.getElementById('pop').getAttribute('aria-modal')") == "true"
    for shift in (False, False, False, True, True, True, True):
        browser.key("Tab", "Tab", shift=shift)
        assert browser.evaluate("document.getElementById('pop').contains(document.activeElement)")
    browser.key("Escape", "Escape")
    assert browser.evaluate(ACTIVE_COLUMN) == ["learner002", 1]
    # step titles are on the page, not only in tooltips
    title = browser.evaluate("JSON.parse(document.getElementById('data').textContent).labs[0].steps[2].titles.en")
    assert title and title in browser.evaluate("document.querySelector('.steps-list').innerText")


def message_language_stays_with_its_panel(browser, cell, other):
    """'Messages in' chosen in one panel does not carry over to the next one."""
    click(browser, cell)
    browser.evaluate("var s=document.querySelector('#pop select');s.value='page';s.dispatchEvent(new Event('change'))")
    browser.key("Escape", "Escape")
    click(browser, other)
    assert browser.evaluate("document.querySelector('#pop select').value") == "learner"
    browser.key("Escape", "Escape")


def details_read_as_a_list_at_390_px(browser, tmp_path, learners, cell):
    browser.resize(390, 844)
    try:
        browser.evaluate(f"window.scrollTo(0, 0);document.querySelector({json.dumps(cell)}).scrollIntoView({{block:'start'}})")
        click(browser, cell)
        pop = box(browser, "#pop")
        assert pop["left"] >= 0 and pop["right"] <= 390 and 0 <= pop["top"] <= 844
        assert browser.evaluate("getComputedStyle(document.querySelector('#pop table.checks td')).display") == "block"
        assert browser.evaluate("getComputedStyle(document.querySelector('#pop table.checks thead')).display") == "none"
        assert browser.evaluate("getComputedStyle(document.querySelector('#pop table.checks td'),'::before').content") == (
            '"Status: "')
        if learners == 8:
            save(browser, tmp_path, "report-8-details-390.png")
        browser.key("Escape", "Escape")
    finally:
        browser.resize(WIDTH, HEIGHT)
        browser.evaluate("window.scrollTo(0, 0)")


def language_switch_relabels_the_page(browser, cell):
    # the page language switch relabels the page, tooltips included, and the details follow it
    browser.evaluate("var s=document.getElementById('ui-lang');s.value='ja';s.dispatchEvent(new Event('change'))")
    assert browser.evaluate("document.querySelector('th.corner').textContent") == "\u53d7\u8b1b\u8005"  # 受講者
    assert "\u4eba\u4e2d" in browser.evaluate("document.querySelector('td.rate button').title")  # "… 人中 …"
    click(browser, cell)
    browser.evaluate("var s=document.querySelector('#pop select');s.value='page';s.dispatchEvent(new Event('change'))")
    assert "\u671f\u5f85\u5024" in browser.evaluate("document.getElementById('pop').innerText")  # 期待値
    browser.evaluate("var s=document.querySelector('#pop select');s.value='learner';s.dispatchEvent(new Event('change'))")
    browser.key("Escape", "Escape")
    browser.evaluate("var s=document.getElementById('ui-lang');s.value='en';s.dispatchEvent(new Event('change'))")


def header_and_details_far_down_the_page(browser, tmp_path):
    # the header (lab, step and pass-rate rows) stays visible after scrolling down
    browser.evaluate("window.scrollTo(0, 2500)")
    assert browser.evaluate("window.scrollY") >= 2000
    head = box(browser, "#matrix thead")
    assert abs(head["top"]) <= 1 and head["height"] > 40
    assert browser.evaluate(
        f"document.getElementById('matrix').tHead.contains(document.elementFromPoint(300, {head['height'] / 2}))")
    # details of a cell far down the page open next to it, in view
    cell_down = "tr[data-name='learner120'] td.s-FAIL button"
    rect = click(browser, cell_down)
    pop = box(browser, "#pop")
    assert 0 <= rect["top"] <= HEIGHT and (0 <= pop["top"] - rect["bottom"] <= 8 or 0 <= rect["top"] - pop["bottom"] <= 8)
    save(browser, tmp_path, "report-200-scrolled.png")
    browser.key("Escape", "Escape")


@pytest.mark.parametrize("learners", [8, 200])
def test_class_report_layout_details_and_no_network(browser, tmp_path, learners):
    out = tmp_path / "reports" / "20261130T051200Z"
    built = write_class(out, learners)
    page = (out / "index.html").as_uri()
    seconds = browser.navigate(page)
    print(f"{learners} learners: index.html {os.path.getsize(out / 'index.html')} bytes, loaded in {seconds:.2f} s")
    assert browser.evaluate("document.querySelectorAll('#rows tr').length") == learners

    # 16 step columns fit in 1280 px: no horizontal scroll
    assert browser.evaluate("document.querySelectorAll('th[data-st]').length") == 16
    assert browser.evaluate("document.documentElement.scrollWidth") <= WIDTH
    save(browser, tmp_path, f"report-{learners}.png")

    cell = "tr[data-name='learner002'] td.s-FAIL button"
    details_open_next_to_the_cell(browser, tmp_path, learners, cell)
    escape_closes_the_details(browser, cell)
    filters_and_sorts(browser, built)
    what_to_teach_and_not_started(browser, built, tmp_path, learners)
    a_learners_history(browser, tmp_path, built, learners)
    hosts_in_error_sort_apart_and_headers_sort(browser)
    keyboard_and_screen_readers(browser)
    message_language_stays_with_its_panel(browser, cell, "tr[data-name='learner004'] td.s-FAIL button")
    details_read_as_a_list_at_390_px(browser, tmp_path, learners, cell)
    language_switch_relabels_the_page(browser, cell)
    if learners == 200:
        header_and_details_far_down_the_page(browser, tmp_path)

    # not one network request: the page itself is the only URL loaded
    browser.evaluate("1")
    assert set(browser.requests()) == {page}, browser.requests()


def test_markup_in_records_requests_nothing(browser, tmp_path):
    """Record values that would load resources if they reached the DOM as markup stay text."""
    records = synthetic_class(3)
    lure = '<img src="http://127.0.0.1:9/x.png"><script src="http://127.0.0.1:9/x.js"></script>'
    step = records[1]["labs"]["capa-src"]["steps"][7]
    step["checks"][0].update(message=lure, found=lure, hint=lure, message_key="", hint_key="")
    records[2]["error"] = None
    out = tmp_path / "r"
    built = build.build_report(records, now=NOW, report_dir=str(out))
    files.write_report(str(out), built["contents"])
    page = (out / "index.html").as_uri()
    browser.navigate(page)
    click(browser, "tr[data-name='learner002'] td[class^='s-'] button[data-c='1 0 7']")
    assert lure in browser.evaluate("document.getElementById('pop').innerText")
    assert browser.evaluate("document.querySelectorAll('#pop img, #pop script').length") == 0
    browser.key("Escape", "Escape")
    browser.evaluate("1")
    assert set(browser.requests()) == {page}, browser.requests()


def test_learner_column_stays_visible_when_many_labs_scroll_sideways(browser, tmp_path):
    records = synthetic_class(80, labs=("lab-a", "lab-b", "lab-c", "lab-d"))
    out = tmp_path / "r"
    built = build.build_report(records, now=NOW, report_dir=str(out))
    files.write_report(str(out), built["contents"])
    browser.navigate((out / "index.html").as_uri())
    assert browser.evaluate("document.documentElement.scrollWidth") > WIDTH  # 32 steps do not fit
    down = browser.evaluate("document.getElementById('matrix').offsetTop") + 400  # into the matrix
    browser.evaluate(f"window.scrollTo(600, {down})")
    assert browser.evaluate("window.scrollX") >= 300 and browser.evaluate("window.scrollY") == down
    learner = box(browser, "tr[data-name='learner020'] th.host")
    assert abs(learner["left"]) <= 1
    assert browser.evaluate(f"document.elementFromPoint(20, {learner['top'] + learner['height'] / 2}).closest('th.host')"
                            " !== null")
    head = box(browser, "#matrix thead")
    assert abs(head["top"]) <= 1


def day_of(records, runs):
    """The class at each of `runs` gradings through the day: at run r a learner has done at most
    the first 8*r/runs steps of each lab of its final result (later steps FAIL)."""
    import copy

    for run in range(1, runs + 1):
        out = copy.deepcopy(records)
        for rec in out:
            for result in rec["labs"].values() if rec.get("state") == "graded" else ():
                for step in result.get("steps", []):
                    if step["step"] > 8 * run // runs:
                        step["status"] = "FAIL"
                        for chk in step["checks"]:
                            chk["status"] = "FAIL"
                if "steps" in result:
                    result["summary"] = {s: sum(c["status"] == s for st in result["steps"] for c in st["checks"])
                                         for s in ("PASS", "FAIL", "PENDING", "ERROR")}
                    result["summary"]["total"] = sum(len(st["checks"]) for st in result["steps"])
        yield out


def test_a_class_day_draws_each_steps_pass_rate_rising(browser, tmp_path):
    """200 learners graded 5 times through the day: the progress charts (inline SVG) rise."""
    out = tmp_path / "reports"
    for minute, records in enumerate(day_of(synthetic_class(200, idle_every=9), 5)):
        previous, _ = history.read_previous(str(out))
        now = NOW + datetime.timedelta(hours=minute)
        report_dir = files.plan_report_dir(str(out), now)
        built = build.build_report(records, now=now, report_dir=report_dir, previous=previous)
        files.write_report(report_dir, built["contents"])
    page = (out / "latest" / "index.html").as_uri()
    browser.navigate(page)
    assert browser.evaluate("document.querySelectorAll('section.progress polyline').length") == 16
    ys = browser.evaluate("[].map.call(document.querySelectorAll('section.progress polyline'),function(p){"
                          "return p.getAttribute('points').split(' ').map(function(xy){return +xy.split(',')[1]})})")
    assert all(len(line) == 5 and line == sorted(line, reverse=True) for line in ys)  # y down = rate up
    assert any(line[0] > line[-1] for line in ys)
    browser.evaluate("document.querySelector('section.progress').scrollIntoView()")
    save(browser, tmp_path, "report-200-progress.png")
    assert set(browser.requests()) == {page}, browser.requests()
