"""A regrade request in Chromium, the whole task with the keyboard: a student signs in, sees
the released result, asks for a regrade of one item with a comment (Enter sends it); staff sign
in, find the request in the review queue, answer it and change the points (Tab, type, Enter);
the student sees the answer, the new points and the item's new text. At 1366x900 and 390x844
(a phone) without sideways scrolling."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.conftest import DESKTOP, LiveServer, both_sizes, sign_in

SLUG = "transformer-basics"
ITEM = "b1.d_head"
THREAD = "#regrade-b1\\.d_head"  # the item's section on the student's page
COMMENT = "I divided 768 by 12 in my notes and got 64; the 16 was a typo in the last line."
REPLY = "Agreed: the working shows 64. Three of four points, one off for the final line."


def _call(server: LiveServer, method: str, path: str, who: str = "prof",
          body: dict[str, Any] | None = None) -> Any:
    response = httpx.request(method, f"{server.base}{path}", json=body, timeout=60,
                             headers={"Authorization": f"Bearer {server.tokens[who]}"})
    assert response.status_code in (200, 201), response.text
    return response.json()



def test_a_student_asks_staff_answer_with_the_keyboard_the_student_reads_it(
    page: Any, live_server: LiveServer, browser: Any
) -> None:
    upload = f"/api/v1/assignments/{SLUG}/submissions?wait=true"
    sid = _call(live_server, "POST", upload, "alice", {"answers": {"B1": "d_head = 16"}})["id"]
    _call(live_server, "POST", f"/api/v1/assignments/{SLUG}/publish")

    # The student: the released result, then the request, sent with Enter.
    page.set_viewport_size(DESKTOP)
    sign_in(page, live_server, "alice", f"/submissions/{sid}")
    row = page.locator("table.items tr", has_text=ITEM)
    assert "0 / 4" in row.inner_text()
    page.locator(f"summary[aria-label='Ask for a regrade of {ITEM}']").focus()
    page.keyboard.press("Enter")  # opens the box
    box = page.get_by_label(f"Why should {ITEM} be regraded?")
    box.focus()
    page.keyboard.type(COMMENT)
    both_sizes(page, "regrade-request-student-ask")
    box.focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    mine = page.locator(THREAD)
    assert COMMENT in mine.inner_text() and "waiting for course staff" in mine.inner_text()
    assert "1 of 3 regrade requests used" in page.inner_text("#regrade-used")
    both_sizes(page, "regrade-request-student-asked")

    # Staff: the review queue names the request; its page has everything to decide.
    staff = browser.new_context(base_url=live_server.base, viewport=DESKTOP).new_page()
    sign_in(staff, live_server, "prof", f"/assignments/{SLUG}/review")
    section = staff.locator("#regrade-requests")
    assert section.locator("#open-regrades").inner_text() == "1"
    with staff.expect_navigation():
        section.locator("a", has_text=f"alice · {ITEM}").click()
    assert COMMENT in staff.inner_text(".thread")
    assert "d_head = 16" in staff.inner_text("#answer")
    assert staff.inner_text("#points-now") == "0"
    assert "Student sees:" in staff.inner_text("#preview")
    both_sizes(staff, "regrade-request-staff")
    staff.locator("#reply").focus()
    staff.keyboard.type(REPLY)
    staff.keyboard.press("Tab")  # to the points
    staff.keyboard.press("Control+A")
    staff.keyboard.type("3")
    with staff.expect_navigation():
        staff.keyboard.press("Enter")
    assert "points changed to 3" in staff.inner_text("#answered")
    assert "3 / 4 points" in staff.inner_text("#preview")
    assert staff.locator("#answer-form").count() == 0
    staff.goto(f"/assignments/{SLUG}/regrade-requests?state=all")
    assert "answered" in staff.inner_text("table.regrades")
    both_sizes(staff, "regrade-requests-list")
    staff.context.close()

    # The student reads the answer, the new points and the item's text.
    page.reload()
    thread = page.inner_text(THREAD)
    assert REPLY in thread and "Course staff answered" in thread
    assert "Points changed: 0 → 3 of 4." in thread and "prof" not in thread
    row = page.locator("table.items tr", has_text=ITEM)
    assert "3 / 4" in row.inner_text() and "3 of 4 points." in row.inner_text()
    both_sizes(page, "regrade-request-student-answered")
