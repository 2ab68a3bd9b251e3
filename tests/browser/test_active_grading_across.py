"""Active grading across an assignment's written items in Chromium: from an item's active page
to the page across items, each proposal taken from the keyboard (Enter accepts the suggestion)
whichever item it belongs to, until every answer of every item is decided; desktop and phone
width."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.conftest import LiveServer, fits, screenshot, sign_in

SLUG = "transformer-basics"
ANSWERS = [
    ("One straight line cannot separate XOR's true points from its false ones.",
     "W2(W1x+b1)+b2 = (W2W1)x + (W2b1+b2), so stacked linear layers are one linear map."),
    ("The perceptron needs more epochs to learn XOR.",
     "ReLU is faster to compute than sigmoid <b>bold</b>."),
    ("XOR outputs 1 when the inputs differ.",
     "The product of the weight matrices is one matrix, so it is still linear."),
]


def _upload(server: LiveServer, student: str, one: str, two: str) -> None:
    response = httpx.post(
        f"{server.base}/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", "student": student}, json={"answers": {"A1": one, "A2": two}},
        headers={"Authorization": f"Bearer {server.tokens['prof']}"}, timeout=120)
    assert response.status_code == 201, response.text


def _progress(server: LiveServer) -> dict[str, Any]:
    response = httpx.get(f"{server.base}/api/v1/assignments/{SLUG}/active",
                         headers={"Authorization": f"Bearer {server.tokens['prof']}"},
                         timeout=120)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_an_instructor_grades_across_items_from_the_keyboard(page: Any,
                                                             live_server: LiveServer) -> None:
    for n, (one, two) in enumerate(ANSWERS):
        _upload(live_server, f"across{n}", one, two)
    sign_in(page, live_server, "prof", f"/assignments/{SLUG}/active/a2.collapse")
    with page.expect_navigation():
        page.click("#across-link")
    assert page.url.endswith(f"/assignments/{SLUG}/active")
    assert page.locator("#decided").inner_text() == "0"
    assert page.locator("#not-done").count() == 1
    start = _progress(live_server)
    chosen = start["next"]["item_id"]
    assert page.locator("#decide input[name=item_id]").input_value() == chosen
    assert page.locator("#next-item").inner_text().startswith(f"Next: {chosen}")
    screenshot(page, "active-grading-across")

    # Enter (the points box has the focus) accepts the suggestion for the item it belongs to.
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator(".flash").inner_text().startswith(
        f"Decided submission {start['next']['proposal']['submission_id']} of {chosen}")
    assert page.locator("#decided").inner_text() == "1"

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    fits(page)
    screenshot(page, "active-grading-across-phone")
    items = {page.locator("#decide input[name=item_id]").input_value()}
    for _ in range(start["total"] + 2):
        if page.locator("#all-decided").count():
            break
        items.add(page.locator("#decide input[name=item_id]").input_value())
        with page.expect_navigation():
            page.keyboard.press("Enter")
    assert page.locator("#all-decided").count() == 1
    assert page.locator("#done").count() == 1
    assert {"a1.nonseparable", "a2.collapse"} <= items | {chosen}
    assert page.locator("pre.answer b").count() == 0  # student text shown as text
    final = _progress(live_server)
    assert final["decided"] == final["total"] and final["estimate"]["done"]
