"""Every page of the web app in Chromium, at 1366x900 and at 390x844 (a phone), as staff and as
a student (issue #31, scope 7): axe-core finds no serious or critical violation, the page never
scrolls sideways (an answer with a 5,000-character unbroken line included), the decision panel
of the review page stays on screen, and every control is reachable with Tab. Each page's picture
at both sizes goes to docs/screenshots/pages/ when asked (tests/browser/conftest.py).

axe-core is the copy that the pinned `axe-playwright-python` wheel (dev extras) bundles, so
`make test` needs nothing but PyPI; it runs inside the page through Playwright's evaluate."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.browser.conftest import DESKTOP, PHONE, LiveServer, screenshot, sign_in

SLUG = "transformer-basics"
SIZES = {"1366": DESKTOP, "390": PHONE}
LONG = "x" * 5000  # one unbroken line: it wraps or scrolls inside its box
# Two readings of d_head (needs review), the long line in the same answer, a written A2 answer.
MATH = "$W_2 W_1 x = W x$"  # LaTeX in a located answer: rendered beside the raw text
DOCUMENT = (f"# Homework\n\n## A2\nStacked linear layers are one linear map, {MATH}.\n\n"
            f"## B1\nd_head = 12 maybe 64 {LONG}\n\n## B2\nSum = 11.107\n")
REPORTED = {"serious", "critical", "moderate", "minor"}  # every impact: none is allowed
FOCUSABLE = ("a[href], button, input:not([type=hidden]), select, textarea, summary, "
             "[tabindex]:not([tabindex='-1'])")


@dataclass(frozen=True)
class Course:
    long: int  # staff upload with the long line (needs review)
    alice: int  # alice's own upload
    bob: int  # another student's


def _upload(server: LiveServer, who: str, name: str, text: str, student: str = "") -> int:
    response = httpx.post(
        f"{server.base}/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", **({"student": student} if student else {})},
        files={"file": (name, text.encode(), "text/markdown")},
        headers={"Authorization": f"Bearer {server.tokens[who]}"}, timeout=120)
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


@pytest.fixture(scope="module")
def course(live_server: LiveServer) -> Course:
    return Course(
        long=_upload(live_server, "prof", "carol.md", DOCUMENT, student="carol"),
        alice=_upload(live_server, "alice", "alice.md", DOCUMENT.replace(LONG, "")),
        bob=_upload(live_server, "bob", "bob.md", "## B1\nd_head = 64\n"),
    )


@pytest.fixture(scope="module")
def tabs(browser: Any, live_server: LiveServer, course: Course) -> Iterator[dict[str, Any]]:
    """One signed-in tab per person (staff, a student) and one never signed in."""
    contexts = []
    found: dict[str, Any] = {}
    for who in ("prof", "alice", "nobody"):
        context = browser.new_context(base_url=live_server.base, viewport=DESKTOP)
        contexts.append(context)
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        if who != "nobody":
            sign_in(tab, live_server, who, "/")
        found[who] = tab
    yield found
    for context in contexts:
        context.close()


def _axe_problems(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options={"resultTypes": ["violations"]}).response
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(" ".join(n["target"]) for n in v["nodes"][:5])
        for v in results["violations"] if v["impact"] in REPORTED
    ]


# Run on each control Tab reaches (`el`): its focus outline is at least 2 px and contrasts 3:1
# with the background it is drawn on, the nearest opaque one outside the control (WCAG 2.4.7,
# 1.4.11): e.g. the blue ring on the dark blue top bar was 2.4:1.
FAINT_FOCUS = """
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  let under = el.parentElement, back = [255, 255, 255];
  while (under) { const c = rgb(getComputedStyle(under).backgroundColor);
    if (c.length === 3 || c[3] > 0.5) { back = c.slice(0, 3); break; }
    under = under.parentElement; }
  const st = getComputedStyle(el), ring = rgb(st.outlineColor).slice(0, 3);
  const [hi, lo] = [lum(ring), lum(back)].sort((a, b) => b - a);
  if (st.outlineStyle === 'none' || parseFloat(st.outlineWidth) < 2
      || (hi + 0.05) / (lo + 0.05) < 3)
    (window.faintFocus = window.faintFocus || []).push(el.outerHTML.slice(0, 100) + ' ring ' +
      st.outlineColor + ' on ' + back);
"""


def _unreachable(page: Any) -> list[str]:
    """Controls that Tab never reaches, pressing Tab until focus comes back to the first one (a
    date box takes several presses, one per field; a radio group is one stop, its arrow keys
    choose); and those Tab reaches whose focus ring is hard to see (FAINT_FOCUS)."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    marker = "data-tab-seen"
    first = None
    for _ in range(600):
        page.keyboard.press("Tab")
        at = page.evaluate(
            f"""() => {{ const el = document.activeElement;
              if (!el || el === document.body) return null;
              if (!el.hasAttribute('{marker}')) {{ {FAINT_FOCUS}
                el.setAttribute('{marker}', Math.random()); }}
              return el.getAttribute('{marker}'); }}""")
        if at is not None and first is None:
            first = at
        elif at is not None and at == first:
            break
    faint: list[str] = page.evaluate("window.faintFocus || []")
    missing: list[str] = page.evaluate(
        f"""() => {{
          // inside a closed <details> only its summary shows (Enter opens it)
          const folded = (el) => {{ const d = el.closest('details:not([open])');
            return d !== null && el !== d.querySelector(':scope > summary'); }};
          const seen = (el) => el.hasAttribute('{marker}') || (el.type === 'radio' &&
            Array.from(document.getElementsByName(el.name)).some(r => r.hasAttribute('{marker}')));
          return Array.from(document.querySelectorAll("{FOCUSABLE}"))
            .filter(el => !el.disabled && el.getClientRects().length > 0
                    && getComputedStyle(el).visibility !== 'hidden' && !folded(el)
                    && !seen(el))
            .map(el => el.outerHTML.slice(0, 120)); }}""")
    page.evaluate(f"document.querySelectorAll('[{marker}]')"
                  f".forEach(el => el.removeAttribute('{marker}'))")
    return ([f"not reachable with Tab: {html}" for html in missing]
            + [f"focus hard to see: {html}" for html in faint])


def check_page(page: Any, name: str, keyboard: bool = True) -> None:
    """axe-core at both sizes, no sideways scrolling at either, every control reachable by
    Tab; the pictures when asked. Back at desktop size afterwards."""
    problems: list[str] = []
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        # two frames: the resize events have run (web.js makes a box that scrolls focusable)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                      "requestAnimationFrame(r)))")
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > viewport["width"]:
            problems.append(f"{wide} px wide at {size} px")
        problems += [f"at {size} px: {p}" for p in _axe_problems(page)]
        # a figure drawn smaller than its own size (the dashboard's histogram on a phone)
        # keeps its words readable: no text under 9 px tall
        tiny = page.evaluate("""() => Array.from(document.querySelectorAll('main svg text'))
            .filter(t => t.textContent.trim() && t.getBoundingClientRect().height < 9)
            .map(t => t.textContent)""")
        if tiny:
            problems.append(f"at {size} px: text under 9 px in a figure: {tiny[:5]}")
        screenshot(page, f"pages/{name}-{size}")
    page.set_viewport_size(DESKTOP)
    if keyboard:
        problems += _unreachable(page)
    assert not problems, f"{name}:\n" + "\n".join(problems)


def _open(page: Any, path: str, status: int = 200) -> None:
    response = page.goto(path)
    assert response is not None and response.status == status, (path, response and
                                                                 response.status)
    page.wait_for_load_state("networkidle")


STAFF_PAGES = [
    ("assignments", "/"),
    ("dashboard", f"/assignments/{SLUG}/dashboard"),
    ("submissions", f"/assignments/{SLUG}/submissions"),
    ("submit-staff-view", f"/assignments/{SLUG}/submit"),
    ("review-item", f"/assignments/{SLUG}/review?item_id=b1.d_head"),
    ("answer-groups", f"/assignments/{SLUG}/groups"),
    ("answer-groups-item", f"/assignments/{SLUG}/groups/b1.d_head"),
    ("active-grading", f"/assignments/{SLUG}/active/a2.collapse"),
    ("active-grading-across", f"/assignments/{SLUG}/active"),
    ("regrade", f"/assignments/{SLUG}/regrade"),
    ("exports", f"/assignments/{SLUG}/exports"),
    ("settings", f"/assignments/{SLUG}/settings"),
]


@pytest.mark.parametrize(("name", "path"), STAFF_PAGES, ids=[n for n, _ in STAFF_PAGES])
def test_staff_pages(tabs: dict[str, Any], name: str, path: str) -> None:
    page = tabs["prof"]
    _open(page, path)
    check_page(page, name)


def test_the_submission_page_with_a_long_line(tabs: dict[str, Any], course: Course) -> None:
    page = tabs["prof"]
    _open(page, f"/submissions/{course.long}")
    assert LONG in page.inner_text("main")
    # The located answer's LaTeX is shown rendered (MathML) next to the raw text, not as $...$.
    page.wait_for_selector(".math-view:not([hidden]) math")
    assert "$" not in page.inner_text(".math-view .tex")
    check_page(page, "submission")


@pytest.mark.parametrize("path", [f"/assignments/{SLUG}/groups/a2.collapse",
                                  f"/assignments/{SLUG}/active/a2.collapse"])
def test_an_answer_s_math_is_shown_rendered(tabs: dict[str, Any], path: str) -> None:
    """Where staff read an answer (its group, active grading), its LaTeX is rendered beside the
    raw text: the MathML holds the symbols, not the dollar signs."""
    page = tabs["prof"]
    _open(page, path)
    page.wait_for_selector(".math-view:not([hidden]) math")
    rendered = page.locator(".math-view .tex").first
    assert "$" not in rendered.inner_text() and rendered.locator("math msub").count() == 2
    check_page(page, "math-" + path.split("/")[3], keyboard=False)


def test_the_review_item_keeps_its_decision_panel_on_screen(tabs: dict[str, Any],
                                                            course: Course) -> None:
    page = tabs["prof"]
    _open(page, f"/assignments/{SLUG}/review?item_id=b1.d_head")
    assert LONG[:1000] in page.inner_text("#answer")
    for viewport in SIZES.values():
        page.set_viewport_size(viewport)
        box = page.locator("#decide-form").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
        # The decision comes before the whole document (on a phone, right after the answer).
        form, document = (page.locator(s).bounding_box() for s in ("#decide-form", "#document"))
        assert form is not None and document is not None and form["y"] < document["y"]
    page.set_viewport_size(DESKTOP)
    # At desktop width the panel sits beside the answer, in the first screenful.
    box = page.locator("#decide-form").bounding_box()
    assert box is not None and box["y"] < DESKTOP["height"] and box["x"] > DESKTOP["width"] / 3


def test_the_review_item_after_a_decision(tabs: dict[str, Any]) -> None:
    page = tabs["prof"]
    _open(page, f"/assignments/{SLUG}/review?item_id=b1.d_head")
    page.fill("#points", "1")
    with page.expect_navigation():
        page.click("#set-points")
    page.wait_for_selector("#saved")
    check_page(page, "review-saved")
    with page.expect_navigation():
        page.click("#undo")
    page.wait_for_selector("#undone")


def test_the_regrade_dry_run(tabs: dict[str, Any]) -> None:
    page = tabs["prof"]
    _open(page, f"/assignments/{SLUG}/regrade")
    page.click("#dry-run")
    page.wait_for_selector("#diff-summary", timeout=120_000)
    check_page(page, "regrade-dry-run")


def test_the_staff_error_pages(tabs: dict[str, Any]) -> None:
    page = tabs["prof"]
    _open(page, "/assignments/no-such-assignment/settings", 404)
    assert "no-such-assignment" in page.inner_text("main")
    check_page(page, "error-not-found")
    _open(page, "/assignments/no-such-assignment/submissions", 404)
    assert "no-such-assignment" in page.inner_text("main")


def test_the_sign_in_pages(tabs: dict[str, Any]) -> None:
    page = tabs["nobody"]
    _open(page, "/")
    check_page(page, "sign-in")
    page.fill("input[name=token]", "not-a-token")
    page.click("button[type=submit]")
    page.wait_for_selector(".error")
    check_page(page, "sign-in-refused")


def _columns_off_screen(page: Any) -> list[str]:
    """At phone width, the tables of a student page that hide a column behind a sideways
    scroll (a student's score is the column they came for): their first row's text."""
    page.set_viewport_size(PHONE)
    hidden: list[str] = page.evaluate(
        """() => Array.from(document.querySelectorAll('main table'))
             .filter(t => t.scrollWidth > t.clientWidth + 1
                          || t.getBoundingClientRect().right > window.innerWidth + 1)
             .map(t => t.innerText.slice(0, 80))""")
    page.set_viewport_size(DESKTOP)
    return hidden


def test_student_pages(tabs: dict[str, Any], course: Course) -> None:
    page = tabs["alice"]
    _open(page, "/")
    check_page(page, "student-home")
    assert not _columns_off_screen(page)
    row = f"tr:has(a[href='/submissions/{course.alice}'])"
    said = page.inner_text(row)
    _open(page, f"/assignments/{SLUG}/submit")
    check_page(page, "student-submit")
    # One submission reads the same wherever a student sees it listed (status, score, counts).
    assert page.inner_text(row) == said and "counts" in said
    _open(page, f"/assignments/{SLUG}/submit?submission={course.alice}")
    page.wait_for_selector("#result table")
    # No number yet: the reason is its own sentence, not "Total: Grades are not ...".
    assert page.inner_text("#result-status") == ("Received and checked. Grades are not "
                                                 "published yet.")
    check_page(page, "student-submit-result")
    assert not _columns_off_screen(page)
    _open(page, f"/submissions/{course.alice}")
    check_page(page, "student-submission")
    assert not _columns_off_screen(page)
    # Back to the assignment's own page (handout, upload, the other submissions) in one click.
    with page.expect_navigation():
        page.click(f"table.facts a:text-is('{SLUG}')")
    assert page.url.endswith(f"/assignments/{SLUG}/submit")


def test_student_error_pages(tabs: dict[str, Any], course: Course) -> None:
    page = tabs["alice"]
    _open(page, f"/assignments/{SLUG}/review", 403)
    check_page(page, "error-staff-only")
    _open(page, f"/submissions/{course.bob}", 404)
    assert re.search(r"not found|no submission", page.inner_text("main"), re.I)
    check_page(page, "error-not-yours")
    # An upload refused in words: a file type the app does not read (the page's script
    # sends it and shows the refusal under the form).
    _open(page, f"/assignments/{SLUG}/submit")
    page.set_input_files("#file", files=[{"name": "notes.exe", "mimeType":
                                          "application/octet-stream", "buffer": b"MZ\x00"}])
    page.click("#upload")
    page.locator("#upload-error", has_text="Not uploaded").wait_for()
    check_page(page, "error-upload-refused")


def test_the_regrade_job_page(tabs: dict[str, Any]) -> None:
    page = tabs["prof"]
    _open(page, f"/assignments/{SLUG}/regrade")
    page.click("#dry-run")
    page.wait_for_selector("#apply", timeout=120_000)
    with page.expect_navigation():
        page.click("#apply")
    assert "/regrades/" in page.url
    page.wait_for_selector("#job-status:has-text('done')", timeout=120_000)
    check_page(page, "regrade-job")


def test_the_submissions_page_with_a_batch(tabs: dict[str, Any]) -> None:
    """Two files uploaded at once on the Submissions page, graded, the batch table filled."""
    page = tabs["prof"]
    _open(page, f"/assignments/{SLUG}/submissions")
    page.set_input_files("#file", files=[
        {"name": f"{who}.md", "mimeType": "text/markdown", "buffer": b"## B1\nd_head = 64\n"}
        for who in ("dana", "emil")])
    page.click("#upload")
    page.wait_for_selector("#batch-status:has-text('2 of 2 graded')", timeout=120_000)
    check_page(page, "submissions-batch")


def test_the_regrade_request_pages(tabs: dict[str, Any], live_server: LiveServer,
                                   course: Course) -> None:
    """A student's request (asked, then answered) and the staff pages for it: after the
    other student pages, since the grades are published here."""
    published = httpx.post(f"{live_server.base}/api/v1/assignments/{SLUG}/publish", timeout=60,
                           headers={"Authorization": f"Bearer {live_server.tokens['prof']}"})
    assert published.status_code == 200, published.text
    student, staff = tabs["alice"], tabs["prof"]
    _open(student, f"/submissions/{course.alice}")
    check_page(student, "student-submission-published")
    ask = student.locator("summary[aria-label^='Ask for a regrade of']").first
    item = str(ask.get_attribute("aria-label")).removeprefix("Ask for a regrade of ")
    ask.click()
    student.get_by_label(f"Why should {item} be regraded?").fill("Please look at my working.")
    with student.expect_navigation():
        student.keyboard.press("Enter")
    assert "waiting for course staff" in student.inner_text("main")
    check_page(student, "student-regrade-asked")
    _open(staff, f"/assignments/{SLUG}/regrade-requests")
    check_page(staff, "regrade-requests")
    with staff.expect_navigation():
        staff.locator("table.regrades tr", has_text="alice").locator("a").first.click()
    check_page(staff, "regrade-request")
    staff.fill("#reply", "Looked again: the points stay.")
    with staff.expect_navigation():
        staff.click("#send-answer")
    staff.wait_for_selector("#answered")
    check_page(staff, "regrade-request-answered")
    _open(student, f"/submissions/{course.alice}")
    assert "Looked again: the points stay." in student.inner_text("main")
    check_page(student, "student-regrade-answered")
