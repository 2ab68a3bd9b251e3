"""Grading by hand in Chromium, keyboard only (issue #31): typed points with Enter are the
points stored and read back, then undone; an answer group decided then the next without the
mouse, the page staying at the group decided; an item edited in place on a submission page.
Screenshots at desktop (1366x900) and phone (390x844) width."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.browser.conftest import DESKTOP, PHONE, LiveServer, screenshot, sign_in

SLUG = "transformer-basics"
ITEM = "b1.d_head"
# A Markdown upload whose B1 sentence is wrapped over two lines: two readings of d_head, so
# b1.d_head waits for a human.
WRAPPED = ("# Homework\n\n## B1\nd_head = 12, or maybe\n64 since d_model is split: "
           "$d_{head} = \\frac{d_{model}}{h}$.\n")


def _upload(server: LiveServer, student: str, b1: str, markdown: bool = False) -> int:
    body: dict[str, Any] = (
        {"files": {"file": (f"{student}.md", WRAPPED.encode(), "text/markdown")}}
        if markdown else {"json": {"answers": {"B1": b1}}})
    response = httpx.post(
        f"{server.base}/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", "student": student},
        headers={"Authorization": f"Bearer {server.tokens['prof']}"}, timeout=60, **body)
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _item(server: LiveServer, sid: int) -> dict[str, Any]:
    body = httpx.get(f"{server.base}/api/v1/submissions/{sid}", timeout=30,
                     headers={"Authorization": f"Bearer {server.tokens['prof']}"}).json()
    return dict(next(i for i in body["items"] if i["id"] == ITEM))


def _both_widths(page: Any, name: str) -> None:
    """Screenshots at desktop and phone width; the page never scrolls sideways on a phone."""
    screenshot(page, name)
    page.set_viewport_size(PHONE)
    wide = page.evaluate("document.documentElement.scrollWidth")
    screenshot(page, f"{name}-phone")
    page.set_viewport_size(DESKTOP)
    assert wide <= PHONE["width"] + 1, f"{name} is {wide} px wide on a phone"


def test_typed_points_and_enter_are_stored_then_undone(page: Any,
                                                       live_server: LiveServer) -> None:
    sid = _upload(live_server, "wrapped", "", markdown=True)
    machine = _item(live_server, sid)["machine_points"]
    page.set_viewport_size(DESKTOP)
    sign_in(page, live_server, "prof", f"/assignments/{SLUG}/review?item_id={ITEM}")
    page.wait_for_selector("#decide-form")
    assert page.locator("#document mark").count() >= 1  # the wrapped sentence is marked
    assert page.inner_text("#item-points") == "4 points"
    assert page.inner_text("#reference") == "64"  # the reference, beside the answer
    # The answer's LaTeX, rendered by the app's own KaTeX as MathML (never as HTML).
    page.wait_for_selector("#answer-math math mfrac")
    assert "\\frac" not in page.inner_text("#answer-math")
    _both_widths(page, "review-rubric")
    page.keyboard.press("p")
    page.keyboard.type("0.5")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert _item(live_server, sid)["points"] == 0.5 != machine
    assert page.inner_text("#stored-points") in {"0.5", "0.50"}
    assert f"#{sid}" in page.inner_text("#saved")
    _both_widths(page, "review-saved")
    with page.expect_navigation():
        page.keyboard.press("u")
    assert "Undone" in page.inner_text("#undone")
    assert _item(live_server, sid)["override"] is None


def test_a_group_then_the_next_without_the_mouse(page: Any, live_server: LiveServer) -> None:
    threes = [_upload(live_server, f"three{n}", "d_head = 3 maybe 96") for n in range(3)]
    fives = [_upload(live_server, f"five{n}", "d_head = 5 maybe 48") for n in range(2)]
    page.set_viewport_size(DESKTOP)
    sign_in(page, live_server, "prof", f"/assignments/{SLUG}/groups/{ITEM}")
    ids = page.locator("section.group").evaluate_all("s => s.map(g => g.id)")

    def holding(sid: int) -> str:
        group = page.locator("section.group", has=page.locator(f'tr[data-submission="{sid}"]'))
        return str(group.get_attribute("id"))

    # Walk with j to the group of the threes, type its points, Enter.
    for _ in range(ids.index(holding(threes[0]))):
        page.keyboard.press("j")
    page.keyboard.press("s")
    page.keyboard.type("2")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert [_item(live_server, s)["points"] for s in threes] == [2, 2, 2]
    assert page.locator("section.group").evaluate_all("s => s.map(g => g.id)") == ids
    decided = page.locator("section.group.current")
    assert decided.get_attribute("id") == holding(threes[0])  # back at the group decided
    assert re.search(r"Decided: 2 points for 3 answers, by ", decided.inner_text())
    _both_widths(page, "answer-groups-decided-group")
    # The next group of the fives: j moves there from the group just decided, a accepts.
    steps = ids.index(holding(fives[0])) - ids.index(holding(threes[0]))
    for _ in range(abs(steps)):
        page.keyboard.press("j" if steps > 0 else "k")
    with page.expect_navigation():
        page.keyboard.press("a")
    for sid in fives:
        item = _item(live_server, sid)
        assert item["override"] is not None and item["points"] == item["machine_points"]
    assert [_item(live_server, s)["points"] for s in threes] == [2, 2, 2]
    # u undoes the fives' decision only.
    with page.expect_navigation():
        page.keyboard.press("u")
    assert "Group decision undone" in page.inner_text(".flash")
    assert all(_item(live_server, s)["override"] is None for s in fives)
    assert [_item(live_server, s)["points"] for s in threes] == [2, 2, 2]


def test_an_item_is_edited_in_place_on_the_submission_page(page: Any,
                                                           live_server: LiveServer) -> None:
    sid = _upload(live_server, "confident", "d_head = 64")
    assert _item(live_server, sid)["status"] == "graded"
    page.set_viewport_size(DESKTOP)
    sign_in(page, live_server, "prof", f"/submissions/{sid}")
    page.get_by_label(f"Points for {ITEM}").focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("3.5")
    page.keyboard.press("Tab")
    page.keyboard.type("Right value; the working is missing.")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert _item(live_server, sid)["points"] == 3.5
    assert page.inner_text("#stored-points") == "3.50"
    _both_widths(page, "submission-edit")
    page.focus("#undo")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "back to the machine" in page.inner_text("#undone")
    assert _item(live_server, sid)["override"] is None
