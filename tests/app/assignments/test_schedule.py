"""Deadlines, late days, penalties, release rules and the counted submission as pure values."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.assignments.schedule import ReleaseState, Schedule
from app.db.models import CountedSubmission
from app.errors import NotOpenYet, PastCutOff, SubmissionLimitReached
from app.submissions.counting import counted_per_student
from app.submissions.scoring import EffectiveItem, EffectiveScore, OverrideView
from app.submissions.service import ScoredSubmission
from app.submissions.visibility import neutral_message

DUE = datetime(2026, 10, 1, 23, 59, tzinfo=UTC)
BASE = Schedule(
    slug="hw",
    opens_at=DUE - timedelta(days=7),
    due_at=DUE,
    late_until=DUE + timedelta(days=3),
    late_penalty_percent=Decimal(10),
    max_submissions=2,
    counts=CountedSubmission.LATEST,
    grades_published_at=None,
)


@pytest.mark.parametrize(
    ("after_due", "days"),
    [
        (timedelta(0), 0),
        (-timedelta(hours=5), 0),
        (timedelta(seconds=1), 1),
        (timedelta(days=1), 1),
        (timedelta(days=1, seconds=1), 2),
    ],
)
def test_a_started_day_counts_as_late(after_due: timedelta, days: int) -> None:
    assert BASE.days_late(DUE + after_due) == days
    assert BASE.penalty_percent(DUE + after_due) == Decimal(10) * days


def test_penalty_is_exact_and_capped() -> None:
    assert BASE.after_penalty(Decimal("7.35"), DUE + timedelta(hours=1)) == Decimal("6.62")
    assert BASE.penalty_percent(DUE + timedelta(days=30)) == Decimal(100)
    assert BASE.after_penalty(Decimal(10), DUE + timedelta(days=30)) == Decimal("0.00")
    assert replace(BASE, due_at=None).days_late(DUE + timedelta(days=9)) == 0


@given(
    total=st.decimals(min_value=0, max_value=1000, places=2),
    percent=st.decimals(min_value=0, max_value=100, places=2),
    late=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=60)),
)
def test_penalised_total_stays_between_zero_and_the_total(
    total: Decimal, percent: Decimal, late: timedelta
) -> None:
    schedule = replace(BASE, late_penalty_percent=percent)
    penalised = schedule.after_penalty(total, DUE + late)
    assert Decimal(0) <= penalised <= total
    assert schedule.after_penalty(total, DUE + late + timedelta(days=1)) <= penalised


def test_refusals_say_why_and_what_to_do() -> None:
    early = BASE.refusal(BASE.opens_at - timedelta(seconds=1), 0)  # type: ignore[operator]
    assert isinstance(early, NotOpenYet) and early.extra["action"]
    assert BASE.refusal(DUE, 0) is None and BASE.refusal(DUE + timedelta(days=3), 1) is None
    closed = BASE.refusal(DUE + timedelta(days=3, seconds=1), 0)
    assert isinstance(closed, PastCutOff) and "late period" in closed.detail
    no_late = replace(BASE, late_until=None).refusal(DUE + timedelta(seconds=1), 0)
    assert isinstance(no_late, PastCutOff) and "no late submissions" in no_late.detail
    limit = BASE.refusal(DUE, 2)
    assert isinstance(limit, SubmissionLimitReached) and limit.status == 409
    assert limit.extra == {"max_submissions": 2, "used": 2, "action": limit.extra["action"]}
    assert replace(BASE, opens_at=None, due_at=None, max_submissions=None).refusal(DUE, 99) is None


@pytest.mark.parametrize(
    ("published", "due_passed", "shown"),
    [
        (False, False, {"visible"}),
        (False, True, {"visible", "after_due_date"}),
        (True, False, {"visible", "after_due_date", "after_published"}),
        (True, True, {"visible", "after_due_date", "after_published"}),
    ],
)
def test_release_state_shows(published: bool, due_passed: bool, shown: set[str]) -> None:
    state = ReleaseState(published, due_passed)
    every = ("visible", "hidden", "after_due_date", "after_published")
    assert {v for v in every if state.shows(v)} == shown  # type: ignore[arg-type]
    assert not state.solutions("never")
    assert state.solutions("after_published") == published


def _item(status: str, points: str, override: bool = False) -> EffectiveItem:
    view = OverrideView(Decimal(points), "", 1, DUE) if override else None
    return EffectiveItem(
        "i", "Q", Decimal(points), Decimal(2), status, "staff words", 0.4, [], "numeric", "1",
        Decimal(points), status, view,
    )


@pytest.mark.parametrize(
    ("status", "points", "show", "message"),
    [
        ("graded", "2", True, "Full credit."),
        ("graded", "1.5", True, "1.5 of 2 points."),
        ("graded", "1", False, "Graded; the score is released later."),
        ("missing", "0", True, "No answer was found for this part (0 of 2 points)."),
        ("missing", "0", False, "No answer was found for this part."),
        ("needs_review", "1", True, "Being reviewed by course staff."),
        ("grader_error", "0", True, "Being reviewed by course staff."),
        ("pending", "0", True, "Not graded yet."),
    ],
)
def test_neutral_messages_never_use_staff_feedback(
    status: str, points: str, show: bool, message: str
) -> None:
    assert neutral_message(_item(status, points), show) == message


def test_an_overridden_review_item_is_decided() -> None:
    assert neutral_message(_item("graded", "1", override=True), True) == "1 of 2 points."


def _scored(sid: int, total: str | None, chosen: bool = False) -> ScoredSubmission:
    submission = SimpleNamespace(id=sid, student="ann", created_at=DUE, chosen=chosen)
    score = EffectiveScore("graded", None if total is None else Decimal(total), Decimal(10), ())
    return ScoredSubmission(cast(Any, submission), "hw", None, score)


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        (CountedSubmission.LATEST, 4),
        (CountedSubmission.BEST, 3),  # ties go to the later of the best
        (CountedSubmission.CHOSEN, 2),
    ],
)
def test_which_submission_counts(counts: CountedSubmission, expected: int) -> None:
    subs = [_scored(1, "9"), _scored(2, "5", chosen=True), _scored(3, "9"), _scored(4, None)]
    assert counted_per_student(subs, replace(BASE, counts=counts))["ann"].submission.id == expected
