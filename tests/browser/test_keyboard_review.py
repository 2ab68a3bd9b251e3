"""A whole review task with the keyboard alone (issue #31, scope 7), in Chromium: sign in, go from
the assignment list to the review queue with Tab and Enter, write a comment and type points for
the first item (Enter sets them), read the stored value back, undo it, decide it again, then
accept the machine's suggestion for every other item until the queue is empty. The mouse is
never used; the page's own list of shortcuts is checked against what the keys do."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.conftest import LiveServer

SLUG = "transformer-basics"
REVIEW = f"/assignments/{SLUG}/review"
MAX_STEPS = 200


def _upload(server: LiveServer, student: str, b1: str) -> int:
    response = httpx.post(
        f"{server.base}/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", "student": student}, json={"answers": {"B1": b1}},
        headers={"Authorization": f"Bearer {server.tokens['prof']}"}, timeout=120)
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _api(server: LiveServer, path: str) -> Any:
    response = httpx.get(f"{server.base}{path}", timeout=60,
                         headers={"Authorization": f"Bearer {server.tokens['prof']}"})
    assert response.status_code == 200, response.text
    return response.json()


def _tab_to(page: Any, selector: str) -> None:
    """Press Tab until `selector` has the focus (as a person would, counting the stops)."""
    for _ in range(MAX_STEPS):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_a_review_task_with_the_keyboard_alone(page: Any, live_server: LiveServer) -> None:
    for student, b1 in [("kim", "d_head = 12 maybe 64"), ("lee", "d_head = 64 maybe 12"),
                        ("mia", "d_head = 12, or 64?")]:
        _upload(live_server, student, b1)
    waiting = len(_api(live_server, f"/api/v1/assignments/{SLUG}/review"))
    assert waiting >= 2  # kim's and mia's two readings of d_head
    page.goto("/")
    # Sign in: Tab to the token box, type, Enter.
    _tab_to(page, "input[name=token]")
    page.keyboard.type(live_server.tokens["prof"])
    with page.expect_navigation():
        page.keyboard.press("Enter")
    # The first stop skips the navigation; then on to the assignment's review queue.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    assert page.url.endswith("#main")
    _tab_to(page, f"a[href='{REVIEW}']")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_selector("#decide-form")
    keys = page.inner_text(".keys")
    for said in ("a accept", "p type points", "Enter sets them", "c write a comment",
                 "u undo", "n next item", "Esc leave a text box"):
        assert said in " ".join(keys.split()), said
    # The first item: a comment, typed points, Enter.
    sid = int(page.get_attribute("input[name=submission_id]", "value"))
    item = str(page.get_attribute("input[name=item_id]", "value"))
    page.keyboard.press("c")
    page.keyboard.type("Two values given; 64 was meant.")
    page.keyboard.press("Escape")
    page.keyboard.press("p")
    page.keyboard.type("1.5")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.inner_text("#stored-points") in {"1.5", "1.50"}
    stored = next(i for i in _api(live_server, f"/api/v1/submissions/{sid}")["items"]
                  if i["id"] == item)
    assert stored["points"] == 1.5
    assert stored["override"]["comment"] == "Two values given; 64 was meant."
    # u undoes it; the item is back in the queue and is decided again with a digit key.
    with page.expect_navigation():
        page.keyboard.press("u")
    assert "Undone" in page.inner_text("#undone")
    page.wait_for_selector("#decide-form")
    assert page.get_attribute("input[name=submission_id]", "value") == str(sid)
    with page.expect_navigation():
        page.keyboard.press("2")
    assert page.inner_text("#stored-points") == "2"
    # The rest: the machine's suggestion accepted with a, item after item, until none waits.
    decided = 0
    while page.locator("#decide-form").count() and decided < MAX_STEPS:
        with page.expect_navigation():
            page.keyboard.press("a")
        page.wait_for_selector("#saved")
        decided += 1
    assert "Nothing is waiting for review." in page.inner_text("main")
    assert _api(live_server, f"/api/v1/assignments/{SLUG}/review") == []
    assert decided == waiting - 1  # each of the others, once
    again = next(i for i in _api(live_server, f"/api/v1/submissions/{sid}")["items"]
                 if i["id"] == item)
    assert again["points"] == 2
