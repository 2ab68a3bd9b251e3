"""What a student reads of a human decision (app/submissions/scoring.py `decided_feedback`),
over the decisions staff actually make: an override with a comment, one without (a typed
grade), a group "Accept" (which stores its own marker comment), on items the machine graded
confidently or sent to review with a promise that a grader will check."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from app.db.models import ItemScore, Override
from app.submissions.scoring import ACCEPTED_SUGGESTION, decided_feedback, effective_item
from app.submissions.visibility import student_status
from graders.results import Status

REVIEW_PROMISES = [
    "A grader will check this answer; the points may change.",
    "Your answer gives different values for this part (“12”, “64”); a grader will check "
    "which one you meant.",
    "Full credit. A grader will check how this value was read.",
]
MAX = Decimal(3)
hundredths = st.integers(0, 300).map(lambda n: Decimal(n) / 100)
comments = st.one_of(
    st.just(""), st.just("  \n"), st.just(ACCEPTED_SUGGESTION),
    st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=60),
)


def _score(points: Decimal, status: str, student: str | None) -> ItemScore:
    return ItemScore(item_id="q1.a", question_id="Q1", points=points, max_points=MAX,
                     status=status, feedback="staff only", student_feedback=student,
                     evidence=[], confidence=0.4, grader="numeric", grader_version="1")


def _override(points: Decimal, comment: str) -> Override:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return Override(submission_id=1, item_id="q1.a", points=points, comment=comment,
                    user_id=1, created_at=at, updated_at=at)


@given(machine=hundredths, decided=hundredths, comment=comments,
       promise=st.sampled_from(REVIEW_PROMISES),
       status=st.sampled_from([Status.NEEDS_REVIEW.value, Status.GRADER_ERROR.value]))
def test_a_decision_never_shows_the_marker_or_the_review_promise(
    machine: Decimal, decided: Decimal, comment: str, promise: str, status: str
) -> None:
    text = decided_feedback(_score(machine, status, promise), _override(decided, comment))
    assert text and ACCEPTED_SUGGESTION not in text
    if comment.strip() and comment != ACCEPTED_SUGGESTION:
        assert text == comment.strip()  # the instructor's words, as written
    else:
        assert text != promise
        assert text == ("Full credit." if decided >= MAX else
                        f"{format(decided.normalize(), 'f')} of 3 points.")


@given(points=hundredths, message=st.sampled_from(["Full credit.", "Check the sign of h."]))
def test_accepting_a_confident_grade_keeps_the_graders_words(
    points: Decimal, message: str
) -> None:
    score = _score(points, Status.GRADED.value, message)
    for marker in ["", ACCEPTED_SUGGESTION]:
        item = effective_item(score, _override(points, marker))
        assert item.student_feedback == message and item.override is not None
    changed = effective_item(score, _override(points + 1, ""))
    assert changed.student_feedback != message or message == "Full credit."


@given(st.sampled_from([s.value for s in Status]))
def test_students_never_read_a_raw_status(status: str) -> None:
    assert "_" not in student_status(status)
