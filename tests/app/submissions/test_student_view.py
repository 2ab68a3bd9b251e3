"""A student's view of any item, in any release state: never staff words, never a machine's
suggestion, points only once released (property-based over statuses, overrides, visibility)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from app.assignments.schedule import ReleaseState, Schedule
from app.db.models import CountedSubmission
from app.submissions.scoring import EffectiveItem, OverrideView
from app.submissions.visibility import AssignmentView, student_item
from graders.rubric import Rubric, parse_rubric

STAFF = "STAFF-ONLY expected 1,769,472 (machine suggests 2 of 4)"
STATUSES = ["graded", "needs_review", "missing", "submission_error", "grader_error", "pending"]
VISIBILITIES = ["visible", "hidden", "after_due_date", "after_published"]
NOW = datetime(2026, 10, 1, tzinfo=UTC)


@cache
def _rubric(visibility: str) -> Rubric:
    return parse_rubric(f"""
slug: one
title: One
release: {{solutions: after_published}}
questions:
  - id: Q
    items:
      - {{id: q.item, points: 4, grader: numeric, title: "total = 1,769,472",
         visibility: {visibility}, config: {{expected: 1769472, kind: integer}}}}
""").rubric


def _view(visibility: str, published: bool, due_passed: bool) -> AssignmentView:
    rubric = _rubric(visibility)
    schedule = Schedule("one", None, None, None, Decimal(0), None, CountedSubmission.LATEST,
                        NOW if published else None)
    return AssignmentView(schedule, rubric, ReleaseState(published, due_passed))


@settings(deadline=None)  # the machine is shared: timing says nothing here
@given(
    status=st.sampled_from(STATUSES),
    machine=st.integers(min_value=0, max_value=400).map(lambda c: Decimal(c) / 100),
    override=st.one_of(
        st.none(), st.tuples(st.integers(0, 4), st.sampled_from(["", "Well done."]))
    ),
    student_feedback=st.one_of(st.none(), st.just("Check the bias term.")),
    visibility=st.sampled_from(VISIBILITIES),
    published=st.booleans(),
    due_passed=st.booleans(),
)
def test_a_student_never_sees_staff_words_or_undecided_points(
    status: str,
    machine: Decimal,
    override: tuple[int, str] | None,
    student_feedback: str | None,
    visibility: str,
    published: bool,
    due_passed: bool,
) -> None:
    view = _view(visibility, published, due_passed)
    decided = override is not None
    points = Decimal(override[0]) if override is not None else machine
    item = EffectiveItem(
        "q.item", "Q", points, Decimal(4), "graded" if decided else status, STAFF, 0.3, [],
        "numeric", "1", machine, status,
        None if override is None else OverrideView(points, override[1], 7, NOW),
        student_feedback,
    )
    shown = student_item(item, view)
    released = ReleaseState(published, due_passed).shows(visibility)  # type: ignore[arg-type]
    assert shown.released == released
    assert "STAFF-ONLY" not in shown.feedback and "suggests" not in shown.feedback
    if not released or (not decided and status in ("needs_review", "grader_error", "pending")):
        assert shown.points is None
        assert shown.feedback != "Check the bias term."
    else:
        assert shown.points == points
    if visibility == "hidden":
        assert shown.title is None and shown.solution is None and shown.points is None
    if not published:  # the title states the answer: private until solutions are released
        assert shown.title is None and shown.solution is None
    elif visibility != "hidden":
        assert shown.title == "total = 1,769,472" and shown.solution == "1,769,472"
