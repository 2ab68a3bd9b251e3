"""Publishing in Chromium, as an instructor would: the settings page warns about the answers
still in review and refuses to publish until that is confirmed, the schedule is saved, the
grades are published and withdrawn; the student reads the final decision's text (an item
overridden to full points says "Full credit.", not the machine's "a grader will check"), which
upload counts, and why no total is shown once the grades are withdrawn. At 1366x900 and at
390x844 (a phone) without sideways scrolling."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.conftest import DESKTOP, PHONE, LiveServer, screenshot, sign_in

SLUG = "transformer-basics"
SETTINGS = f"/assignments/{SLUG}/settings"
# Two readings of d_head: the numeric grader leaves b1.d_head to a human (needs_review).
AMBIGUOUS = {"B1": "d_head = 12 maybe 64"}
DUE = "2099-01-20T23:59"  # after the uploads: no late penalty


def _call(server: LiveServer, method: str, path: str, who: str = "prof",
          body: dict[str, Any] | None = None) -> Any:
    response = httpx.request(method, f"{server.base}{path}", json=body, timeout=60,
                             headers={"Authorization": f"Bearer {server.tokens[who]}"})
    assert response.status_code in (200, 201), response.text
    return response.json()


def _fits(page: Any, width: int) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width + 1, scroll


def test_publish_with_the_warning_then_withdraw(page: Any, live_server: LiveServer,
                                               browser: Any) -> None:
    upload = f"/api/v1/assignments/{SLUG}/submissions?wait=true"
    alice = _call(live_server, "POST", upload, "alice", {"answers": AMBIGUOUS})["id"]
    _call(live_server, "POST", upload, "bob", {"answers": AMBIGUOUS})
    page.set_viewport_size(DESKTOP)
    sign_in(page, live_server, "prof", "/")
    page.click(f'a[href="{SETTINGS}"]')  # the "grades not published" badge
    warning = page.locator("#publish-warning")
    assert "2 answer(s) are still in review" in warning.inner_text()
    assert warning.locator(f'a[href="/assignments/{SLUG}/review?item_id=b1.d_head"]').count()
    screenshot(page, "settings-publish-warning")
    with page.expect_navigation():
        page.click("#publish")
    assert "Not published: 2 answer(s)" in page.locator("p.error").inner_text()

    # One of the two decided meanwhile (full points, no comment): the warning follows.
    _call(live_server, "PUT", f"/api/v1/submissions/{alice}/items/b1.d_head/override",
          body={"points": 4})
    page.goto(SETTINGS)
    assert "1 answer(s) are still in review" in page.locator("#publish-warning").inner_text()
    page.fill("#due_at", DUE)
    page.fill("#late_penalty_percent", "10")
    with page.expect_navigation():
        page.click("#save-schedule")
    assert page.locator("p.saved").inner_text() == "Schedule saved."
    assert page.locator(".badge.due").inner_text().startswith("due ")
    page.check("#publish-anyway")
    with page.expect_navigation():
        page.click("#publish")
    assert page.locator("p.saved").inner_text() == "Grades published."
    assert page.locator(".badge.published").count() == 1
    screenshot(page, "settings-published")
    page.goto("/")
    assert page.locator("td a.badges", has_text="grades published").count() == 1
    screenshot(page, "assignments-badges")
    page.goto(SETTINGS)
    page.set_viewport_size(PHONE)
    page.reload()
    _fits(page, PHONE["width"])
    screenshot(page, "settings-phone")
    page.set_viewport_size(DESKTOP)

    # The student reads the decision's text, the status in words and which upload counts.
    student = browser.new_context(base_url=live_server.base, viewport=PHONE).new_page()
    sign_in(student, live_server, "alice", "/")
    home = student.locator("main").inner_text()
    assert "needs_review" not in home and "Your latest upload counts." in home
    assert "4 / " in home
    assert student.locator("main .badge", has_text="counts").count() == 1
    _fits(student, PHONE["width"])
    screenshot(student, "student-home-published")
    student.goto(f"/submissions/{alice}")
    shown = student.locator("main").inner_text()
    assert "Full credit." in shown and "grader will check" not in shown.lower()
    assert "Group decision" not in shown

    page.goto(SETTINGS)
    with page.expect_navigation():
        page.click("#withdraw")
    assert page.locator("p.saved").inner_text() == "Grades withdrawn."
    assert page.locator("#publish-warning").count() == 1  # bob's answer is still waiting
    student.goto("/")
    assert "Grades are not published yet." in student.locator("main").inner_text()
    student.context.close()

    page.goto(f"/assignments/{SLUG}/exports")
    assert "1 row(s) still need review" in page.locator("#export-warnings").inner_text()
    screenshot(page, "exports-warnings")
