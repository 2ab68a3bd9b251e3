"""Which of a student's submissions is their grade: the latest, the best, or the one an
instructor chose (the latest until one is chosen)."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from sqlalchemy.orm import Session

from app.assignments.schedule import Schedule
from app.db.models import Assignment, CountedSubmission
from app.submissions import repository
from app.submissions.service import ScoredSubmission, scored_for_assignment


def student_key(s: ScoredSubmission) -> str:
    return s.submission.student or f"submission-{s.submission.id}"


def final_total(s: ScoredSubmission, schedule: Schedule) -> Decimal | None:
    """The effective total after the late penalty."""
    if s.score.total is None:
        return None
    return schedule.after_penalty(s.score.total, s.submission.created_at)


def prefer(
    kept: ScoredSubmission | None, later: ScoredSubmission, schedule: Schedule
) -> ScoredSubmission:
    """The one that counts of a student's submission so far and their next (later) one: a fold,
    so a gradebook streams submissions in id order and keeps one per student."""
    if kept is None:
        return later
    if schedule.counts == CountedSubmission.CHOSEN:
        return kept if kept.submission.chosen and not later.submission.chosen else later
    if schedule.counts == CountedSubmission.BEST:
        kept_total, later_total = final_total(kept, schedule), final_total(later, schedule)
        if later_total is None and kept_total is not None:
            return kept
        if kept_total is not None and later_total is not None and later_total < kept_total:
            return kept
    return later  # ties go to the latest


def counted_per_student(
    submissions: Iterable[ScoredSubmission], schedule: Schedule
) -> dict[str, ScoredSubmission]:
    """Student -> the submission that counts, from submissions in id order."""
    found: dict[str, ScoredSubmission] = {}
    for s in submissions:
        key = student_key(s)
        found[key] = prefer(found.get(key), s, schedule)
    return found


def counted_ids(session: Session, assignment: Assignment) -> list[int]:
    """The ids of the submissions that count (one per student), ascending: what the dashboard,
    answer groups and the review queue consider; a replaced submission's items wait for no one."""
    schedule = Schedule.of(assignment)
    if schedule.counts == CountedSubmission.LATEST:  # one cheap query, no scores loaded
        return repository.latest_per_student(session, assignment.id)
    counted = counted_per_student(scored_for_assignment(session, assignment.id), schedule)
    return sorted(s.submission.id for s in counted.values())
