"""Active grading across an assignment's written items over HTTP (a real SQLite file): the next
proposal is the proposal of the item whose least sure undecided answer is the least sure of all,
the pooled estimate sums the items', decisions go to the right item, the page takes them, and
students and bad input are refused with problem+json."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy import select

from app.active.assignment import WARM, choose, pooled, priority
from app.db.models import ActiveCheck
from app.db.session import unit_of_work
from graders.active import MIN_CHECKS
from tests.app.conftest import Api

SLUG = "transformer-basics"
ACROSS = f"/api/v1/assignments/{SLUG}/active"
A1 = ["XOR's true points cannot be split from its false points by one straight line.",
      "The perceptron needs more training epochs to learn XOR.",
      "XOR outputs 1 when the inputs differ.",
      "One line cannot separate (0,1),(1,0) from (0,0),(1,1)."]
A2 = ["W2(W1x+b1)+b2 = (W2W1)x + (W2b1+b2), so stacked linear layers are one linear map.",
      "ReLU is faster to compute than sigmoid, that is why it is better.",
      "Stacking linear layers makes the network non-linear and more powerful.",
      "Because the product of the weight matrices is a single matrix."]


def _get(api: Api, url: str, who: str = "prof") -> dict[str, Any]:
    response = api.client.get(url, headers=api.auth(who))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _decide(api: Api, item: str, submission: int, points: float) -> dict[str, Any]:
    response = api.client.post(f"{ACROSS}/decisions", headers=api.auth("prof"), json={
        "item_id": item, "submission_id": submission, "points": points})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _field(page: str, name: str) -> str:
    found = re.search(f'name="{name}"[^>]*value="([^"]*)"', page)
    assert found is not None, name
    return found.group(1)


@pytest.fixture(scope="module")
def uploaded(api: Api) -> list[int]:
    ids = []
    for n, (one, two) in enumerate(zip(A1, A2, strict=True)):
        response = api.client.post(
            f"/api/v1/assignments/{SLUG}/submissions?wait=true&student=across{n}",
            json={"answers": {"A1": one, "A2": two}}, headers=api.auth("prof"))
        assert response.status_code == 201, response.text
        ids.append(int(response.json()["id"]))
    return ids


def test_the_page_across_items_takes_the_next_proposal(api: Api, uploaded: list[int]) -> None:
    signin = api.client.post("/sign-in", data={"token": api.tokens["prof"]},
                             follow_redirects=False)
    assert signin.status_code in (302, 303)
    item_page = api.client.get(f"/assignments/{SLUG}/active/a2.collapse")
    assert f'href="/assignments/{SLUG}/active" id="across-link"' in item_page.text
    page = api.client.get(f"/assignments/{SLUG}/active")
    assert page.status_code == 200 and 'id="estimate"' in page.text
    before = _get(api, ACROSS)
    assert page.text.count("<tr data-item=") == sum(1 for i in before["items"] if i["total"])
    form = {name: _field(page.text, name) for name in ("csrf", "item_id", "submission_id",
                                                        "points")}
    assert form["item_id"] == before["next"]["item_id"]
    posted = api.client.post(f"/assignments/{SLUG}/active", data=form, follow_redirects=False)
    assert posted.status_code == 303
    assert posted.headers["location"].startswith(f"/assignments/{SLUG}/active?decided=")
    assert _get(api, ACROSS)["decided"] == before["decided"] + 1


def test_the_next_proposal_across_items_is_the_least_sure_item_s(api: Api,
                                                                   uploaded: list[int]) -> None:
    start = _get(api, ACROSS)
    answered = {i["item_id"]: i for i in start["items"] if i["total"]}
    assert {"a1.nonseparable", "a2.collapse"} <= set(answered)
    assert start["decided"] == 1 and start["total"] == sum(i["total"] for i in start["items"])
    # The next item is the one whose least sure undecided answer is the highest; its proposal
    # is the item's own.
    chosen = start["next"]
    ranks = {i["item_id"]: priority(i["least_sure"], i["decided"], i["total"])
             for i in start["items"] if i["decided"] < i["total"]}
    assert ranks[chosen["item_id"]] == max(ranks.values())
    item_next = _get(api, f"/api/v1/assignments/{SLUG}/items/{chosen['item_id']}/active/next")
    assert chosen["proposal"] == item_next["proposal"]
    # The pooled estimate is the items' summed.
    e = start["estimate"]
    assert e["undecided"] == sum(i["total"] - i["decided"] for i in start["items"])
    assert e["expected_wrong"] == pytest.approx(
        sum(i["expected_wrong"] for i in start["items"]), abs=1e-3)
    assert e["target"] == 0.05 and e["done"] is False and e["checks"] == 1
    assert e["least_sure"] == max(i["least_sure"] for i in start["items"])

    # A decision goes to its item, idempotently; the answer is the assignment's progress.
    proposal = chosen["proposal"]
    first = _decide(api, chosen["item_id"], proposal["submission_id"], 0)
    assert first["changed"] is True and first["progress"]["decided"] == 2
    assert _decide(api, chosen["item_id"], proposal["submission_id"], 0)["changed"] is False
    item = _get(api, f"/api/v1/assignments/{SLUG}/items/{chosen['item_id']}/active")
    mine = {a["submission_id"]: a for a in item["answers"]}
    assert mine[proposal["submission_id"]]["decision"] == 0

    # Taking the next proposal until none is left decides every answer of every item.
    progress = first["progress"]
    for _ in range(start["total"] + 2):
        if progress["next"] is None:
            break
        chosen = progress["next"]
        progress = _decide(api, chosen["item_id"], chosen["proposal"]["submission_id"],
                           float(chosen["proposal"]["suggested_points"]))["progress"]
    assert progress["next"] is None and progress["decided"] == progress["total"]
    assert progress["estimate"]["done"] is True and progress["estimate"]["undecided"] == 0
    assert all(i["done"] for i in progress["items"])
    # Each decision took the page's proposal, so each check keeps the proposal's reason (the
    # page ranks by the doubt rescaled by the item's decisions, which the item's page does not).
    with unit_of_work(api.sessions) as session:
        reasons = {c.reason for c in session.scalars(select(ActiveCheck))}
    assert reasons and reasons <= {"settles", "least sure", "audit"}, reasons


def test_across_items_refuses_what_it_must(api: Api, uploaded: list[int]) -> None:
    api.client.cookies.clear()  # the page test signed in
    student = api.client.get(ACROSS, headers=api.auth("alice"))
    assert student.status_code == 403
    assert student.headers["content-type"].startswith("application/problem+json")
    assert api.client.get(ACROSS).status_code == 401
    assert api.client.get("/api/v1/assignments/nope/active",
                          headers=api.auth("prof")).status_code == 404
    cases = [({"item_id": "b1.d_head", "submission_id": uploaded[0], "points": 1}, 422),
             ({"item_id": "nope", "submission_id": uploaded[0], "points": 1}, 404),
             ({"item_id": "a2.collapse", "submission_id": uploaded[0], "points": 99}, 422),
             ({"item_id": "a2.collapse", "submission_id": 10**9, "points": 1}, 404),
             ({"submission_id": uploaded[0], "points": 1}, 422)]
    for body, status in cases:
        response = api.client.post(f"{ACROSS}/decisions", headers=api.auth("prof"), json=body)
        assert response.status_code == status, (body, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
    student_post = api.client.post(f"{ACROSS}/decisions", headers=api.auth("alice"), json={
        "item_id": "a2.collapse", "submission_id": uploaded[0], "points": 1})
    assert student_post.status_code == 403


def test_choose_takes_the_item_warming_up_then_the_least_sure() -> None:
    assert choose([0.2, None, 0.4, 0.4]) == 2  # ties: the earlier item
    assert choose([None, None]) is None and choose([]) is None
    # Fewer than WARM of its answers decided: first, whatever its least sure answer.
    warm = round(WARM * 100)
    assert choose([priority(0.9, warm, 100), priority(0.1, warm - 1, 100)]) == 1
    assert choose([priority(0.9, warm, 100), priority(0.1, warm, 100)]) == 0
    assert choose([priority(0.1, 0, 7), priority(0.2, 0, 7)]) == 1  # too small to warm up


def test_the_pooled_estimate_sums_the_items_and_weights_their_targets() -> None:
    e = pooled([(10, 1.0, 0.05, 2, 0.3), (30, 0.5, 0.10, 1, 0.2)], 0.05)
    assert e.undecided == 40 and e.expected_wrong == 1.5 and e.share == 1.5 / 40
    assert e.target == pytest.approx((10 * 0.05 + 30 * 0.10) / 40)
    assert e.checks == 3 and e.least_sure == 0.3 and MIN_CHECKS <= 3 and e.done is True
    assert pooled([(10, 1.0, 0.05, 0, 0.3)], 0.05).done is False  # no check yet
    assert pooled([(0, 0.0, 0.05, 0, 0.0)], 0.05).done is True  # every answer decided
