"""Active grading in Chromium, the whole task: from the answer-groups page to the item's
active page, each proposed answer decided from the keyboard (typed points and Enter, or Enter
alone to accept the suggestion) until every answer is decided, at desktop and phone width."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.conftest import LiveServer, screenshot, sign_in

SLUG = "transformer-basics"
ITEM = "a2.collapse"
ANSWERS = [
    "W2(W1x+b1)+b2 = (W2W1)x + (W2b1+b2), so stacked linear layers are one linear map.",
    "Linear layers compose into a linear function.",
    "ReLU is faster to compute than sigmoid, that is why it is better.",
    "ReLU is faster to compute than sigmoid, that's why it is better <b>bold</b>.",
    "The product of the weight matrices is one matrix, so it is still linear.",
]


def _upload(server: LiveServer, student: str, text: str) -> int:
    response = httpx.post(
        f"{server.base}/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", "student": student}, json={"answers": {"A2": text}},
        headers={"Authorization": f"Bearer {server.tokens['prof']}"}, timeout=120)
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _progress(server: LiveServer) -> dict[str, Any]:
    response = httpx.get(f"{server.base}/api/v1/assignments/{SLUG}/items/{ITEM}/active",
                         headers={"Authorization": f"Bearer {server.tokens['prof']}"},
                         timeout=120)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_an_instructor_grades_an_item_actively(page: Any, live_server: LiveServer) -> None:
    ids = [_upload(live_server, f"act{n}", text) for n, text in enumerate(ANSWERS)]
    sign_in(page, live_server, "prof", f"/assignments/{SLUG}/groups/{ITEM}")
    with page.expect_navigation():
        page.click("#active-link")
    assert page.url.endswith(f"/assignments/{SLUG}/active/{ITEM}")
    assert page.locator("#decided").inner_text() == "0"
    assert page.locator("#not-done").count() == 1
    assert page.locator("#least-sure").inner_text().endswith("%")
    screenshot(page, "active-grading")

    # First answer: type other points (the box has the focus), then Enter.
    first = int(page.locator("input[name=submission_id]").input_value())
    assert first in ids
    page.keyboard.press("Control+a")
    page.keyboard.type("0")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator(".flash").inner_text().startswith(f"Decided submission {first}")
    assert page.locator("#decided").inner_text() == "1"
    decided = {a["submission_id"]: a for a in _progress(live_server)["answers"]}
    assert decided[first]["decision"] == 0

    # At phone width the page fits without sideways scrolling; the rest is decided there:
    # Enter alone accepts the machine's suggestion, until nothing is proposed.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1, width
    screenshot(page, "active-grading-phone")
    for _ in range(len(ANSWERS) + 5):
        if page.locator("#all-decided").count():
            break
        with page.expect_navigation():
            page.keyboard.press("Enter")
    assert page.locator("#all-decided").count() == 1
    assert page.locator("#done").count() == 1
    assert page.locator("pre.answer b").count() == 0  # student text shown as text
    final = _progress(live_server)
    assert final["decided"] == final["total"] and final["estimate"]["done"]

