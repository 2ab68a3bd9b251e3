"""Over HTTP: what a student sees of the answer key before and after release, by role, item
visibility and release state; never confidence, machine points or who overrode."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import yaml

from graders.rubric import BUNDLED_RUBRICS, bundled_rubric_paths
from tests.app.clocked import START, ClockedApi, capi, problem

__all__ = ["capi"]

BUNDLED = [p.stem for p in bundled_rubric_paths()]
UNDECIDED = {"needs_review", "pending", "grader_error"}
# Never in anything a student receives: staff-only fields of the instructor's view.
STAFF_KEYS = {"confidence", "machine_points", "machine_status", "override", "user_id",
              "evidence", "grader", "grader_version", "student_feedback", "rubric_hash",
              "student_sees"}


def _spellings(value: Any) -> set[str]:
    """The ways a value may be written in feedback: 589824, 589,824; 0.09, 0.090."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {str(value), f"{value:,}"}
    if isinstance(value, float):
        return {repr(value), f"{value:g}", f"{value:.3f}"}
    if isinstance(value, list):
        return set().union(*(_spellings(v) for v in value)) if value else set()
    return set()


def answer_key(path_stem: str) -> tuple[set[str], set[str]]:
    """From the rubric file itself: (answer values, answer texts) a student must not see before
    release: expected values, known-mistake values, reference statements, element statements,
    expected expressions, solutions and every title not marked public."""
    data = yaml.safe_load((BUNDLED_RUBRICS / f"{path_stem}.yaml").read_text())
    values: set[str] = set()
    texts: set[str] = set()
    for question in data["questions"]:
        for item in question["items"]:
            config = item.get("config", {})
            if item.get("title") and not item.get("title_public"):
                texts.add(item["title"])
            if item.get("solution"):
                texts.add(item["solution"])
            texts.update(config.get("reference", ()))
            texts.update(e["statement"] for e in config.get("elements", ()) if "statement" in e)
            if item["grader"] == "numeric" and config.get("mode", "exact") == "exact":
                values |= _spellings(config.get("expected"))
                for mistake in config.get("known_mistakes", ()):
                    values |= _spellings(mistake["value"])
            if item["grader"] == "symbolic":
                expected = config.get("expected")
                texts.update([expected] if isinstance(expected, str) else expected or ())
    return values, texts


def _statements(slug: str) -> list[str]:
    data = yaml.safe_load((BUNDLED_RUBRICS / f"{slug}.yaml").read_text())
    return [
        e["statement"]
        for q in data["questions"]
        for i in q["items"]
        for e in i.get("config", {}).get("elements", ())
        if "statement" in e and e["statement"] not in i.get("config", {}).get("reference", ())
    ]


def _strings(body: Any) -> Iterator[str]:
    if isinstance(body, str):
        yield body
    elif isinstance(body, dict):
        for key, value in body.items():
            yield str(key)
            yield from _strings(value)
    elif isinstance(body, list):
        for value in body:
            yield from _strings(value)


def leaks(body: Any, values: set[str], texts: set[str]) -> list[str]:
    found: list[str] = []
    strings = list(_strings(body))
    for value in values:
        pattern = re.compile(rf"(?<![\w.,]){re.escape(value)}(?![\w]|[.,]\d)")
        found += [f"{value!r} in {s[:80]!r}" for s in strings if pattern.search(s)]
    for text in texts:
        found += [f"{text[:40]!r} in {s[:80]!r}" for s in strings if text.lower() in s.lower()]
    return found


def _keys(body: Any) -> set[str]:
    if isinstance(body, dict):
        return set(body) | set().union(*(_keys(v) for v in body.values()))
    if isinstance(body, list):
        return set().union(*(_keys(v) for v in body)) if body else set()
    return set()


def _idk(slug: str) -> dict[str, str]:
    data = yaml.safe_load((BUNDLED_RUBRICS / f"{slug}.yaml").read_text())
    return {q["id"]: "idk" for q in data["questions"]}


def test_the_answer_key_is_derived_from_the_rubric() -> None:
    values, texts = answer_key("transformer-basics")
    assert {"64", "589824", "589,824", "1,769,472", "11.107", "0.665", "49152"} <= values
    assert "d_head = 64" in texts and "Roles of Q, K and V" not in texts
    assert any(t.startswith("XOR's positive and negative points") for t in texts)
    assert leaks({"a": ["d_head = 64"]}, values, texts)
    assert leaks({"feedback": "Expected: 1,769,472."}, values, texts)
    assert not leaks({"id": 64, "hash": "ab64cd", "at": "2026-09-01T12:00:00"}, values, texts)


@pytest.mark.parametrize("slug", BUNDLED)
def test_near_blank_submission_shows_no_answer_until_published(
    capi: ClockedApi, slug: str
) -> None:
    values, texts = answer_key(slug)
    assignment = capi.get(f"/api/v1/assignments/{slug}", "alice")
    assert not leaks(assignment, values, texts)
    assert assignment["questions"] and all(q["prompt"] for q in assignment["questions"])
    assert sum(q["points"] for q in assignment["questions"]) == assignment["max_points"]

    response = capi.submit(slug, "alice", _idk(slug))
    assert response.status_code == 201, response.text
    sid = response.json()["id"]
    received = [
        response.json(),
        capi.get(f"/api/v1/submissions/{sid}", "alice"),
        capi.get(f"/api/v1/assignments/{slug}/submissions", "alice"),
        capi.get(f"/api/v1/submissions/{sid}/results.json", "alice"),
    ]
    for body in received:
        assert not leaks(body, values, texts), json.dumps(body)[:2000]
        assert not _keys(body) & STAFF_KEYS
    mine = received[1]
    data = yaml.safe_load((BUNDLED_RUBRICS / f"{slug}.yaml").read_text())
    visible = {i["id"] for q in data["questions"] for i in q["items"]
               if i.get("visibility") == "visible"}
    assert {i["id"] for i in mine["items"] if i["released"]} == visible
    assert mine["total"] is None
    assert all(i["points"] is None for i in mine["items"] if i["id"] not in visible)
    assert all(i["feedback"] and i["status"] for i in mine["items"])
    # Staff see the machine's own words, where the answer key may appear.
    staff = capi.get(f"/api/v1/submissions/{sid}", "prof")
    assert "confidence" in staff["items"][0] and staff["total"] is not None

    published = capi.client.post(
        f"/api/v1/assignments/{slug}/publish", headers=capi.auth("prof")
    )
    try:
        assert published.status_code == 200 and published.json()["grades_published_at"]
        after = capi.get(f"/api/v1/submissions/{sid}", "alice")
        undecided = {i["id"] for i in staff["items"] if i["status"] in UNDECIDED}
        # A total once published, unless staff still have an item to decide.
        assert after["total"] == (None if undecided else staff["total"])
        assert all((i["points"] is None) == (i["id"] in undecided) for i in after["items"])
        assert all(i["released"] for i in after["items"])
        assert not _keys(after) & STAFF_KEYS
        handout = capi.get(f"/api/v1/assignments/{slug}", "alice")
        released = {i["id"]: i for q in handout["questions"] for i in q["items"]}
        shown = "\n".join(_strings([after, handout]))
        # What the rubric releases (its solutions: references, expected values) is now there.
        assert leaks([after, handout], values, texts)
        statements = {s for s in texts if any(s == e for e in _statements(slug))}
        for text in texts - statements:  # element statements are grading aids, not released
            assert text in shown
        if slug == "transformer-basics":
            assert released["b1.d_head"]["solution"] == "64"
            assert released["b1.d_head"]["title"] == "d_head = 64"
    finally:
        capi.client.delete(f"/api/v1/assignments/{slug}/publish", headers=capi.auth("prof"))
    assert not leaks(capi.get(f"/api/v1/assignments/{slug}", "alice"), values, texts)


MATRIX = """
slug: vis-matrix
title: Visibility matrix
release: {visibility: after_published, solutions: after_published}
questions:
  - id: P1
    prompt: Give the first value.
    items:
      - {id: p1.visible, points: 2, grader: numeric, title: "value = 4242", visibility: visible,
         config: {expected: 4242, kind: integer}}
  - id: P2
    prompt: Give the second value.
    items:
      - {id: p2.hidden, points: 2, grader: numeric, title: "value = 5151", visibility: hidden,
         config: {expected: 5151, kind: integer}}
  - id: P3
    prompt: Give the third value.
    items:
      - {id: p3.due, points: 2, grader: numeric, title: "value = 6363",
         visibility: after_due_date, config: {expected: 6363, kind: integer}}
  - id: P4
    prompt: Give the fourth value.
    items:
      - {id: p4.published, points: 2, grader: numeric, title: "value = 7474",
         config: {expected: 7474, kind: integer}}
"""
ITEM_IDS = ["p1.visible", "p2.hidden", "p3.due", "p4.published"]
STATES = {
    # state: (clock offset from the start, published, items a student sees)
    "before_due": (timedelta(0), False, {"p1.visible"}),
    "after_due": (timedelta(days=3), False, {"p1.visible", "p3.due"}),
    "published": (timedelta(days=3), True, {"p1.visible", "p3.due", "p4.published"}),
}


@pytest.fixture(scope="module")
def matrix(capi: ClockedApi) -> int:
    capi.load(MATRIX)
    capi.clock.now = START
    due = (START + timedelta(days=1)).isoformat()
    response = capi.client.patch(
        "/api/v1/assignments/vis-matrix/schedule",
        json={"due_at": due, "late_until": due},
        headers=capi.auth("prof"),
    )
    assert response.status_code == 200, response.text
    answers = {"P1": "4242", "P2": "5151", "P3": "6363", "P4": "1"}
    submitted = capi.submit("vis-matrix", "alice", answers)
    assert submitted.status_code == 201, submitted.text
    return int(submitted.json()["id"])


@pytest.mark.parametrize("state", list(STATES))
@pytest.mark.parametrize("who", ["alice", "bob", "prof", "root"])
def test_role_visibility_release_matrix(
    capi: ClockedApi, matrix: int, state: str, who: str
) -> None:
    offset, published, shown = STATES[state]
    capi.clock.now = START + offset
    method = capi.client.post if published else capi.client.delete
    assert method("/api/v1/assignments/vis-matrix/publish", headers=capi.auth("prof")).is_success
    url = f"/api/v1/submissions/{matrix}"
    if who == "bob":  # another student's submission does not exist for them
        problem(capi.client.get(url, headers=capi.auth("bob")), 404)
        problem(capi.client.get(f"{url}/results.json", headers=capi.auth("bob")), 404)
        return
    body = capi.get(url, who)
    items = dict(zip(ITEM_IDS, body["items"], strict=True))
    # A student reads an item's id once it is released; before, only its question (P2).
    named = ITEM_IDS if who in ("prof", "root") else [
        i if i in shown else i.split(".")[0].upper() for i in ITEM_IDS]
    assert [i["id"] for i in body["items"]] == named
    results = capi.get(f"{url}/results.json", who)
    if who in ("prof", "root"):  # staff see everything, in every state
        assert body["total"] == 6 and items["p4.published"]["points"] == 0
        assert 0 < items["p2.hidden"]["confidence"] <= 1 and "machine_points" in items["p2.hidden"]
        assert [t["visibility"] for t in results["tests"]] == [
            "visible", "hidden", "after_due_date", "after_published"
        ]
        assert results["score"] == 6
        rubric = capi.get("/api/v1/assignments/vis-matrix", who)
        assert [i["title"] for i in rubric["items"]] == [
            "value = 4242", "value = 5151", "value = 6363", "value = 7474"
        ]
        assert (rubric["schedule"]["grades_published_at"] is not None) == published
        return
    assert not _keys(body) & STAFF_KEYS
    assert {i for i, v in items.items() if v["released"]} == shown
    for item_id, item in items.items():
        if item_id in shown:
            assert item["points"] == (0 if item_id == "p4.published" else 2)
            assert item["feedback"]
        else:
            assert item["points"] is None
            assert item["feedback"] == "Graded; the score is released later."
    assert body["total"] == (6 if published else None)
    assert [t["name"].split()[1] for t in results["tests"]] == [
        i for i in ITEM_IDS if i in shown
    ]
    assert ("score" in results) == published
    # Titles state the answers: private until the solutions are released with the grades.
    handout = capi.get("/api/v1/assignments/vis-matrix", "alice")
    titles = dict(zip(ITEM_IDS, [(i["title"], i["solution"]) for q in handout["questions"]
                                 for i in q["items"]], strict=True))
    if published:
        assert titles["p4.published"] == ("value = 7474", "7,474")
        assert titles["p2.hidden"] == (None, None)  # a hidden item stays hidden
    else:
        assert all(t == (None, None) for t in titles.values())
        assert not leaks([handout, body, results], {"5151", "6363", "7474"}, set())


def test_override_and_review_are_invisible_to_students(capi: ClockedApi, matrix: int) -> None:
    from decimal import Decimal

    from sqlalchemy import select

    from app.db.models import GradingRun
    from app.db.session import unit_of_work
    from app.grading.repository import store_outcomes
    from app.grading.worker import WorkerOutcome
    from graders.results import ItemResult, Status

    capi.clock.now = START  # before the cut-off
    sid = capi.submit("vis-matrix", "alice", {"P1": "4242"}).json()["id"]
    capi.clock.now = START + timedelta(days=3)
    capi.client.post("/api/v1/assignments/vis-matrix/publish", headers=capi.auth("prof"))
    unsure = ItemResult(
        item_id="p4.published", question="P4", points=Decimal(1), max_points=Decimal(2),
        status=Status.NEEDS_REVIEW, feedback="The machine suggests 1 of 2: expected 7474.",
        confidence=0.4, grader="numeric", grader_version="t",
    )
    with unit_of_work(capi.sessions) as session:
        version = session.scalars(
            select(GradingRun.rubric_version_id).where(GradingRun.submission_id == sid)
        ).first()
        assert version is not None
        store_outcomes(session, [(sid, version, WorkerOutcome(
            status="needs_review", rubric_hash="x", items=(unsure,)))])
    url = f"/api/v1/submissions/{sid}"
    item = capi.get(url, "alice")["items"][0]
    assert item["points"] is None and item["feedback"] == "Being reviewed by course staff."
    assert capi.get(url, "alice")["total"] is None
    assert "suggests" not in json.dumps(capi.get(f"{url}/results.json", "alice"))

    override = capi.client.put(
        f"{url}/items/p4.published/override",
        json={"points": 2, "comment": "Accepted after review."},
        headers=capi.auth("prof"),
    )
    assert override.status_code == 200 and override.json()["user_id"] is not None
    mine = capi.get(url, "alice")
    item = mine["items"][0]
    assert item["points"] == 2 and item["feedback"] == "Accepted after review."
    assert item["status"] == "graded" and mine["total"] == 2
    text = json.dumps([mine, capi.get(f"{url}/results.json", "alice")])
    assert not _keys(mine) & STAFF_KEYS
    assert "suggests" not in text and "instructor" not in text.lower()
    staff = capi.get(url, "prof")["items"][0]
    assert staff["override"]["user_id"] is not None and staff["machine_points"] == 1
    capi.client.delete("/api/v1/assignments/vis-matrix/publish", headers=capi.auth("prof"))


def test_our_failures_are_not_explained_to_students(capi: ClockedApi, matrix: int) -> None:
    from app.db.session import unit_of_work
    from app.grading.repository import mark_failed

    capi.clock.now = START
    sid = capi.submit("vis-matrix", "alice", {"P1": "4242"}).json()["id"]
    with unit_of_work(capi.sessions) as session:
        mark_failed(session, [sid], "Internal error (KeyError in _locate_parts); see the log.")
    url = f"/api/v1/submissions/{sid}"
    assert "KeyError" in capi.get(url, "prof")["error"]
    mine = capi.get(url, "alice")
    assert "KeyError" not in mine["error"]
    assert "course staff" in mine["error"]
    assert "KeyError" not in json.dumps(capi.get(f"{url}/results.json", "alice"))
    assert "KeyError" in capi.get(f"{url}/results.json", "prof")["output"]
