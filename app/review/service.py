"""The review queue and instructor overrides (kept across regrades, applied on every read)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from app.assignments.repository import current_version, get_version
from app.assignments.service import parsed_version, require_assignment
from app.audit.repository import record
from app.calibration import service as calibration
from app.db.locks import hold_decisions
from app.db.models import Assignment, Override, Submission, User
from app.errors import InvalidInput, NotFound
from app.review import repository
from app.sanitize import clean
from app.submissions.counting import counted_ids
from app.submissions.service import get_for_staff
from graders.registry import kind_of
from graders.results import to_points
from graders.rubric import RubricItem


@dataclass(frozen=True)
class ReviewEntry:
    submission_id: int
    student: str | None
    submitted_at: Any
    item_id: str
    question: str
    suggested_points: Decimal
    max_points: Decimal
    confidence: float
    feedback: str
    evidence: list[Any]
    answer: str


@dataclass(frozen=True)
class Exemplar:
    item_id: str
    text: str
    points: Decimal


MAX_COMMENT = 5000  # characters of an override's comment (the forms' and the API's bound)


def review_queue(session: Session, slug: str, limit: int = 200) -> list[ReviewEntry]:
    """Unsure items without a decision, oldest first, of the submission that counts for each
    student (app/submissions/counting.py): a replaced submission's items wait for no one."""
    assignment = require_assignment(session, slug)
    counted = counted_ids(session, assignment)
    return [
        ReviewEntry(
            submission_id=sub.id,
            student=sub.student,
            submitted_at=sub.created_at,
            item_id=score.item_id,
            question=score.question_id,
            suggested_points=score.points,
            max_points=score.max_points,
            confidence=score.confidence,
            feedback=score.feedback,
            evidence=list(score.evidence),
            answer=str(run.answers.get(score.question_id, "")),
        )
        for score, run, sub in repository.queue(session, assignment.id, counted, limit)
    ]


def waiting_count(session: Session, assignment: Assignment) -> int:
    """How many items the assignment's review queue holds (the same rule, no limit)."""
    return repository.waiting_count(session, assignment.id, counted_ids(session, assignment))


def waiting_per_item(session: Session, assignment: Assignment) -> dict[tuple[str, str], int]:
    """(item id, question id) -> how many of its answers the review queue holds."""
    return repository.waiting_per_item(session, assignment.id, counted_ids(session, assignment))


def rubric_item(session: Session, submission: Submission, item_id: str) -> RubricItem:
    """The item of the assignment's current rubric (404 when it has none of that id)."""
    version = current_version(session, submission.assignment_id)
    if version is None:
        raise NotFound("The submission's assignment has no rubric loaded.")
    for item in parsed_version(version).rubric.items():
        if item.id == item_id:
            return item
    raise NotFound(f"The rubric has no item {item_id!r}.")


def set_override(
    session: Session,
    submission_id: int,
    item_id: str,
    points: Decimal,
    comment: str,
    actor: User,
) -> Override:
    submission = get_for_staff(session, submission_id)
    hold_decisions(session, submission.assignment_id)
    # Whatever door it came through (the API, a group decision, active grading, an answer to a
    # regrade request): no NUL (PostgreSQL's text refuses it: a 500), control or invisible
    # character reaches the student's page, the audit or an export.
    comment = clean(comment, MAX_COMMENT)
    item = rubric_item(session, submission, item_id)
    exact = to_points(points)
    if exact != points:
        raise InvalidInput(f"Points are kept to hundredths; {points} has more digits.")
    if not Decimal(0) <= exact <= item.points:
        raise InvalidInput(
            f"Points for {item_id} must be between 0 and {item.points}; got {points}.",
            max_points=str(item.points),
        )
    override = repository.get_override(session, submission_id, item_id)
    before = None if override is None else str(override.points)
    # The whole earlier state, so that an undo (app/review/undo.py) can restore it.
    previous = None if override is None else {
        "points": str(override.points), "comment": override.comment, "user_id": override.user_id,
    }
    if override is None:
        override = repository.add_override(
            session,
            Override(
                submission_id=submission_id,
                item_id=item_id,
                points=exact,
                comment=comment,
                user_id=actor.id,
            ),
        )
    else:
        override.points = exact
        override.comment = comment
        override.user_id = actor.id
        session.flush()
    record(
        session,
        actor,
        "override.set",
        "submission",
        submission_id,
        {"item_id": item_id, "points": str(exact), "before": before, "comment": comment,
         "previous": previous},
    )
    # The decision is an exemplar and a calibration point of its item from now on.
    calibration.refresh(session, submission.assignment_id)
    return override


def delete_override(session: Session, submission_id: int, item_id: str, actor: User) -> None:
    submission = get_for_staff(session, submission_id)
    hold_decisions(session, submission.assignment_id)
    if repository.delete_override(session, submission_id, item_id) == 0:
        raise NotFound(f"Submission {submission_id} has no override on {item_id!r}.")
    record(session, actor, "override.delete", "submission", submission_id, {"item_id": item_id})
    calibration.refresh(session, submission.assignment_id)


def exemplars(session: Session, slug: str) -> list[Exemplar]:
    """Overridden written answers, ready for a rubric item's `config.exemplars`."""
    assignment = require_assignment(session, slug)
    found: list[Exemplar] = []
    for override, score, run in repository.overridden_items(session, assignment.id):
        if not kind_of(score.grader).learns_from_overrides:
            continue
        version = get_version(session, run.rubric_version_id)
        question = score.question_id
        if version is not None:
            question = parsed_version(version).rubric.question_of(score.item_id).id
        text = str(run.answers.get(question, "")).strip()
        if text:
            found.append(Exemplar(score.item_id, text, override.points))
    return found
