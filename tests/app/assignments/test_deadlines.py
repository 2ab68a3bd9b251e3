"""Over HTTP with the clock injected: opening, due date, late penalty, hard cut-off, submission
limit, which submission counts, and the gradebook's late and unpublished marks."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from app.db.models import Submission
from app.db.session import unit_of_work
from tests.app.clocked import START, ClockedApi, capi, problem

__all__ = ["capi"]

SLUG = "deadline-demo"
RUBRIC = f"""
slug: {SLUG}
title: Deadlines
release: {{visibility: visible}}
questions:
  - id: Q1
    prompt: Give the value.
    items:
      - {{id: q1.value, points: 10, grader: numeric, config: {{expected: 4242, kind: integer}}}}
"""
OPENS = START + timedelta(days=1)
DUE = START + timedelta(days=3)
LATE_UNTIL = DUE + timedelta(days=2)
RIGHT = {"Q1": "4242"}
URL = f"/api/v1/assignments/{SLUG}"


def _count(api: ClockedApi) -> int:
    with unit_of_work(api.sessions) as session:
        return int(session.scalar(select(func.count(Submission.id))) or 0)


def _schedule(api: ClockedApi, who: str = "prof", **fields: Any) -> Any:
    body = {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in fields.items()}
    return api.client.patch(f"{URL}/schedule", json=body, headers=api.auth(who))


@pytest.fixture(scope="module")
def course(capi: ClockedApi) -> ClockedApi:
    capi.load(RUBRIC)
    response = _schedule(
        capi, opens_at=OPENS, due_at=DUE, late_until=LATE_UNTIL,
        late_penalty_percent="10", max_submissions=3,
    )
    assert response.status_code == 200, response.text
    return capi


def _submit_at(api: ClockedApi, who: str, moment: Any, answers: dict[str, str] = RIGHT) -> Any:
    api.clock.now = moment
    return api.submit(SLUG, who, answers)


def test_schedule_is_set_by_instructors_and_validated(course: ClockedApi) -> None:
    problem(_schedule(course, "alice", max_submissions=100), 403)
    problem(_schedule(course, due_at=OPENS - timedelta(days=1)), 422)  # due before it opens
    problem(_schedule(course, max_submissions=0), 422)
    # beyond the database's integer (and any course's need): refused as input, never a 500
    for huge in (100_001, 2**31, 2**63, 10**40):
        problem(_schedule(course, max_submissions=huge), 422)
    naive = course.client.patch(
        f"{URL}/schedule", json={"due_at": "2026-09-04T12:00:00"}, headers=course.auth("prof")
    )
    problem(naive, 422)
    schedule = course.get(URL, "alice")["schedule"]
    assert schedule["max_submissions"] == 3 and schedule["late_penalty_percent"] == 10
    assert schedule["counts"] == "latest" and schedule["grades_published_at"] is None


def test_deadlines_penalties_and_limits(course: ClockedApi) -> None:
    before = _count(course)
    early = problem(_submit_at(course, "alice", START), 403)
    assert early["type"].endswith("/not-open-yet") and "open at" in early["detail"]
    assert early["opens_at"] == OPENS.isoformat() and early["action"]
    assert _count(course) == before  # a refused upload stores nothing

    on_time = _submit_at(course, "alice", DUE - timedelta(hours=1))
    assert on_time.status_code == 201, on_time.text
    one_day = _submit_at(course, "alice", DUE + timedelta(minutes=1))
    two_days = _submit_at(course, "alice", DUE + timedelta(days=1, minutes=1))
    ids = [r.json()["id"] for r in (on_time, one_day, two_days)]
    views = [course.get(f"/api/v1/submissions/{i}", "alice") for i in ids]
    assert [v["days_late"] for v in views] == [0, 1, 2]
    assert [v["penalty_percent"] for v in views] == [0, 10, 20]
    assert [v["total"] for v in views] == [10, 9, 8]  # every item is visible at once

    over = problem(_submit_at(course, "alice", DUE + timedelta(days=1, hours=2)), 409)
    assert over["type"].endswith("/submission-limit-reached")
    assert over["max_submissions"] == 3 and over["used"] == 3
    assert "instructor" in over["detail"] and over["action"]
    # Staff are not limited: an instructor files a fourth for alice by arrangement.
    course.clock.now = DUE + timedelta(days=1, hours=3)
    filed = course.submit(SLUG, "prof", RIGHT, student="alice")
    assert filed.status_code == 201, filed.text

    late = problem(_submit_at(course, "bob", LATE_UNTIL + timedelta(seconds=1)), 403)
    assert late["type"].endswith("/past-cut-off") and "extension" in late["detail"]
    assert late["late_until"] == LATE_UNTIL.isoformat()
    assert _count(course) == before + 4

    # The student's list says which one counts: the latest by default.
    listed = course.get(f"{URL}/submissions", "alice")
    assert [s["counts"] for s in listed] == [False, False, False, True]

    # The gradebook: one row per student, late days and the penalty, not yet published.
    def row() -> dict[str, str]:
        text = course.client.get(f"{URL}/export.csv", headers=course.auth("prof")).text
        return next(r for r in csv.DictReader(io.StringIO(text)) if r["student"] == "alice")

    latest = row()
    assert int(latest["submission_id"]) == filed.json()["id"]
    assert latest["days_late"] == "2" and latest["penalty_percent"] == "20.00"
    assert latest["total"] == "10.00" and latest["final_total"] == "8.00"
    assert latest["published"] == "no"

    assert _schedule(course, counts="best").status_code == 200
    assert row()["submission_id"] == str(ids[0]) and row()["final_total"] == "10.00"
    # Before publication the student is not told which one is best: that compares scores.
    assert [s["counts"] for s in course.get(f"{URL}/submissions", "alice")] == [None] * 4

    assert _schedule(course, counts="chosen").status_code == 200
    assert row()["submission_id"] == str(filed.json()["id"])  # none chosen yet: the latest
    problem(course.client.put(f"/api/v1/submissions/{ids[1]}/chosen",
                              headers=course.auth("alice")), 403)
    chosen = course.client.put(f"/api/v1/submissions/{ids[1]}/chosen", headers=course.auth("prof"))
    assert chosen.status_code == 200, chosen.text
    assert row()["submission_id"] == str(ids[1]) and row()["final_total"] == "9.00"

    course.clock.now = LATE_UNTIL + timedelta(days=1)
    assert course.client.post(f"{URL}/publish", headers=course.auth("prof")).status_code == 200
    assert row()["published"] == "yes"
    assert [s["counts"] for s in course.get(f"{URL}/submissions", "alice")] == [
        False, True, False, False
    ]
    results = course.get(f"/api/v1/submissions/{ids[1]}/results.json", "alice")
    assert results["score"] == 9 and results["extra_data"]["days_late"] == 1
    assert results["execution_time"] is None  # a program can time itself to its inputs

    # An extension: clearing the limit and moving the cut-off lets bob in again.
    assert _schedule(course, late_until=LATE_UNTIL + timedelta(days=5)).status_code == 200
    assert _submit_at(course, "bob", LATE_UNTIL + timedelta(days=1)).status_code == 201
