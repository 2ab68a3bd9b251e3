"""Active grading over HTTP (a real SQLite file): the proposal, decisions (idempotent, audited
overrides, held-back checks), re-scoring with the decisions as exemplars, the estimate, the
page, and students and other kinds kept out."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.db.models import ActiveCheck, AuditEntry, Override
from app.db.session import unit_of_work
from graders.active import AUDIT_EVERY, NEAR_DONE
from tests.app.conftest import Api

SLUG = "transformer-basics"
ITEM = "a2.collapse"
BASE = f"/api/v1/assignments/{SLUG}/items/{ITEM}/active"
ANSWERS = [
    "W2(W1x+b1)+b2 = (W2W1)x + (W2b1+b2), so stacked linear layers are one linear map.",
    "Linear layers compose into a linear function.",
    "Linear layers compose into a linear function!",
    "ReLU is faster to compute than sigmoid, that is why it is better.",
    "ReLU is faster to compute than sigmoid, that's why it is better.",
    "Stacking linear layers makes the network non-linear and more powerful.",
    "Because the product of the weight matrices is a single matrix.",
]


def _submit(api: Api, student: str, text: str, question: str = "A2") -> int:
    response = api.client.post(
        f"/api/v1/assignments/{SLUG}/submissions?wait=true&student={student}",
        json={"answers": {question: text}}, headers=api.auth("prof"))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _get(api: Api, url: str, who: str = "prof") -> dict[str, Any]:
    response = api.client.get(url, headers=api.auth(who))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _decide(api: Api, submission: int, points: float, feedback: str = "") -> dict[str, Any]:
    response = api.client.post(f"{BASE}/decisions", headers=api.auth("prof"), json={
        "submission_id": submission, "points": points, "feedback": feedback})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_active_grading_proposes_decides_rescores_and_estimates(api: Api) -> None:
    ids = [_submit(api, f"act{n}", text) for n, text in enumerate(ANSWERS)]
    start = _get(api, BASE)
    assert start["total"] >= len(ids) and start["decided"] == 0
    assert start["rescored"] is False and start["target"] == 0.05
    assert start["estimate"]["undecided"] == start["total"]
    mine = {a["submission_id"]: a for a in start["answers"]}
    assert set(ids) <= set(mine)
    # The least sure undecided answer's error probability, for moving on to another item.
    assert start["estimate"]["least_sure"] == round(
        max(a["error_probability"] for a in start["answers"]), 4)
    # The first proposal is the answer whose neighbourhood holds the most probable error.
    proposal = _get(api, f"{BASE}/next")["proposal"]
    assert proposal["submission_id"] in mine
    assert proposal["reason"] in ("settles", "least sure")
    assert _get(api, f"{BASE}/next")["proposal"] == proposal  # stable until something changes

    wrong = ids[3]  # "ReLU is faster": no credit; its near-copy should follow
    first = _decide(api, wrong, 0, "Not about linear maps.")
    assert first["changed"] is True and first["progress"]["decided"] == 1
    assert first["progress"]["rescored"] is True
    again = _decide(api, wrong, 0, "Not about linear maps.")
    assert again["changed"] is False  # idempotent per answer
    after = _get(api, BASE)
    by_id = {a["submission_id"]: a for a in after["answers"]}
    assert by_id[wrong]["decision"] == 0 and by_id[wrong]["points"] == 0
    assert by_id[ids[4]]["suggested_points"] <= mine[ids[4]]["suggested_points"]

    with unit_of_work(api.sessions) as session:
        override = session.scalar(select(Override).where(
            Override.submission_id == wrong, Override.item_id == ITEM))
        check = session.scalar(select(ActiveCheck).where(
            ActiveCheck.submission_id == wrong, ActiveCheck.item_id == ITEM))
        audits = session.scalars(select(AuditEntry).where(
            AuditEntry.action == "active.decide")).all()
        assert override is not None and override.points == 0
        assert override.comment == "Not about linear maps."
        assert check is not None and check.machine_points == mine[wrong]["suggested_points"]
        assert len(audits) == 1  # the repeat changed nothing

    # Other points replace the decision; the held-back check stays the first one's.
    changed = _decide(api, wrong, 0.5)
    assert changed["changed"] is True
    with unit_of_work(api.sessions) as session:
        checks = session.scalars(select(ActiveCheck).where(
            ActiveCheck.submission_id == wrong)).all()
        assert len(checks) == 1

    # Deciding every answer ends in "done" with nothing proposed.
    while (proposal := _get(api, f"{BASE}/next")["proposal"]) is not None:
        _decide(api, proposal["submission_id"], float(proposal["suggested_points"]))
    final = _get(api, BASE)
    assert final["estimate"]["done"] is True and final["estimate"]["undecided"] == 0
    assert final["decided"] == final["total"] and final["estimate"]["checks"] >= 2
    assert final["estimate"]["least_sure"] == 0.0


def test_decisions_carry_over_to_near_copies_the_machine_doubts(api: Api) -> None:
    """Two near-copies decided alike, against the machine: the exemplars make it doubt a third
    copy, and the decided copies' vote (right leave-one-out) becomes that copy's suggestion;
    an unlike answer keeps the machine's."""
    # Unlike every answer the other tests decide on this item (the database is shared).
    copies = ["The learning rate was set too high, so the training loss diverged quickly.",
              "The learning rate was set too high, so the training loss diverged quickly!",
              "The learning rate was set too high; so the training loss diverged quickly."]
    ids = [_submit(api, f"cp{n}", text) for n, text in enumerate(copies)]
    other = _submit(api, "cp9", ANSWERS[0])
    before = {a["submission_id"]: a for a in _get(api, BASE)["answers"]}
    assert float(before[ids[2]]["suggested_points"]) < 2
    _decide(api, ids[0], 2)
    _decide(api, ids[1], 2)
    after = {a["submission_id"]: a for a in _get(api, BASE)["answers"]}
    assert float(after[ids[2]]["suggested_points"]) == 2
    assert after[ids[2]]["decision"] is None
    assert after[other]["suggested_points"] == before[other]["suggested_points"]


def test_a_random_check_is_proposed_only_where_done_is_within_reach(api: Api) -> None:
    """The audit turn (every AUDIT_EVERY-th decision) draws a random check only while the
    estimate is within NEAR_DONE targets; the target is the question's risk-control target."""
    item = f"/api/v1/assignments/{SLUG}/items/a1.nonseparable/active"
    target = f"/api/v1/assignments/{SLUG}/risk/questions/A1/target"
    texts = ["XOR's true points cannot be split from its false points by one straight line.",
             "A perceptron is a linear classifier and XOR is not linearly separable.",
             "The perceptron needs more training epochs to learn XOR.",
             "XOR outputs 1 when the inputs differ.",
             "Hidden layers add non-linearity, so an MLP can carve out the XOR regions.",
             "Perceptrons are too slow for XOR.",
             "One line cannot separate (0,1),(1,0) from (0,0),(1,1)."]
    for n, text in enumerate(texts):
        _submit(api, f"due{n}", text, "A1")
    while (progress := _get(api, item))["decided"] < AUDIT_EVERY - 1:
        proposal = progress["proposal"]
        _decide_on(api, item, proposal["submission_id"], 0)
    for value, due in ((0.5, True), (0.001, False)):
        response = api.client.put(target, json={"target": value}, headers=api.auth("prof"))
        assert response.status_code == 200, response.text
        state = _get(api, f"{item}/next")
        share = state["estimate"]["estimated_error"]
        assert (state["proposal"]["reason"] == "audit") == (share <= NEAR_DONE * value)
        assert (state["proposal"]["reason"] == "audit") is due, (value, share)


def _decide_on(api: Api, item: str, submission: int, points: float) -> None:
    response = api.client.post(f"{item}/decisions", headers=api.auth("prof"), json={
        "submission_id": submission, "points": points})
    assert response.status_code == 200, response.text


def test_active_grading_refuses_what_it_must(api: Api) -> None:
    submission = _submit(api, "act-refuse", ANSWERS[1])
    student = api.client.get(BASE, headers=api.auth("alice"))
    assert student.status_code == 403
    assert student.headers["content-type"].startswith("application/problem+json")
    assert api.client.get(BASE).status_code == 401
    numeric = api.client.get(f"/api/v1/assignments/{SLUG}/items/b1.d_head/active",
                             headers=api.auth("prof"))
    assert numeric.status_code == 422 and "written" in numeric.json()["detail"]
    unknown = api.client.get(f"/api/v1/assignments/{SLUG}/items/nope/active",
                             headers=api.auth("prof"))
    assert unknown.status_code == 404
    for bad in (-1, 99, 1.005):
        response = api.client.post(f"{BASE}/decisions", headers=api.auth("prof"),
                                   json={"submission_id": submission, "points": bad})
        assert response.status_code == 422, (bad, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
    stranger = api.client.post(f"{BASE}/decisions", headers=api.auth("prof"),
                               json={"submission_id": 10**9, "points": 1})
    assert stranger.status_code == 404


def test_active_page_is_linked_and_escapes(api: Api) -> None:
    hostile = '<script>alert("x")</script> linear layers compose'
    _submit(api, "act-page", hostile)
    signin = api.client.post("/sign-in", data={"token": api.tokens["prof"]},
                             follow_redirects=False)
    assert signin.status_code in (302, 303)
    groups = api.client.get(f"/assignments/{SLUG}/groups/{ITEM}")
    assert f'href="/assignments/{SLUG}/active/{ITEM}"' in groups.text
    page = api.client.get(f"/assignments/{SLUG}/active/{ITEM}")
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "&lt;script&gt;" in page.text
    assert 'id="estimate"' in page.text and "autofocus" in page.text
