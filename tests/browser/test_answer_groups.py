"""Answer groups in Chromium: an instructor grades a group on the page, with one member
excluded, then decides the next group from the keyboard."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.conftest import LiveServer, screenshot, sign_in

SLUG = "transformer-basics"
ITEM = "b1.d_head"
PAGE = f"/assignments/{SLUG}/groups/{ITEM}"


def _upload(server: LiveServer, student: str, b1: str) -> int:
    response = httpx.post(
        f"{server.base}/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", "student": student},
        json={"answers": {"B1": b1}},
        headers={"Authorization": f"Bearer {server.tokens['prof']}"},
        timeout=60,
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _item(server: LiveServer, submission_id: int) -> dict[str, Any]:
    body = httpx.get(f"{server.base}/api/v1/submissions/{submission_id}",
                     headers={"Authorization": f"Bearer {server.tokens['prof']}"}).json()
    return dict(next(i for i in body["items"] if i["id"] == ITEM))


def test_an_instructor_grades_a_group_in_the_page(page: Any, live_server: LiveServer) -> None:
    twelves = [_upload(live_server, f"t{n}", "d_head = 12 <b>bold</b>") for n in range(3)]
    sixty_fours = [_upload(live_server, f"s{n}", f"d_head = {v}") for n, v in
                   enumerate(["64", "768/12 = 64"])]
    sign_in(page, live_server, "prof", PAGE)
    assert page.url.endswith(PAGE)
    group = page.locator("section.group", has=page.locator(f'tr[data-submission="{twelves[0]}"]'))
    assert "3 answers" in group.locator("h2").inner_text()
    assert "<b>bold</b>" in group.locator("pre.answer").inner_text()  # shown as text, not HTML
    assert page.locator("pre.answer b").count() == 0
    group.locator("summary").click()
    group.locator(f'input[name=exclude][value="{twelves[2]}"]').check()
    group.locator("form.decide input[name=points]").fill("1.5")
    group.locator("form.decide input[name=comment]").fill("Used h instead of d_model / h.")
    with page.expect_navigation():
        group.locator("button.set").click()
    assert "Decided 2 answers" in page.locator(".flash").inner_text()
    assert "1 excluded" in page.locator(".flash").inner_text()
    for sid in twelves[:2]:
        item = _item(live_server, sid)
        assert item["points"] == 1.5 and item["override"]["comment"].startswith("Used h")
    assert _item(live_server, twelves[2])["override"] is None
    screenshot(page, "answer-groups-decided")

    # The keyboard: `a` accepts the machine's suggestion for the page's first group (most
    # answers to review, then the largest); members decided before keep their decision.
    first = page.locator("section.group").first
    members = [int(x) for x in first.locator("tr[data-submission]").evaluate_all(
        "rows => rows.map(r => r.dataset.submission)")]
    assert set(sixty_fours) <= set(members) or twelves[2] in members
    with page.expect_navigation():
        page.keyboard.press("a")
    assert "Decided" in page.locator(".flash").inner_text()
    for sid in members:
        item = _item(live_server, sid)
        assert item["override"] is not None
        if sid in twelves[:2]:  # decided before: kept, not replaced by the group decision
            assert item["points"] == 1.5
        else:
            assert item["points"] == item["machine_points"]


def test_a_student_is_refused_the_page(page: Any, live_server: LiveServer) -> None:
    page.goto(PAGE)
    page.fill("input[name=token]", live_server.tokens["alice"])
    page.click("button[type=submit]")
    # students sign in to see their own work; the groups page is staff-only
    response = page.goto(PAGE)
    assert response is not None and response.status == 403
    assert page.locator("section.group").count() == 0
    assert "d_head = 64" not in page.content()
