"""What the API says about submissions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from app.points import JsonPoints
from app.submissions.preview import StudentPreview, published_view, student_preview
from app.submissions.scoring import EffectiveItem
from app.submissions.service import ScoredSubmission
from app.submissions.visibility import AssignmentView, StudentItem, StudentScore, student_error


class Accepted(BaseModel):
    id: int
    status: str
    # Graded before answering (`wait=true`) and most questions were not found: "does this
    # answer this assignment? 1 of 4 questions found; ..." (its items are all sent to review).
    message: str | None = None


class OverrideOut(BaseModel):
    points: JsonPoints
    comment: str
    user_id: int | None
    at: datetime


class StudentSeesOut(BaseModel):
    """What the item's student reads of it now (their pages, their API answer and their
    exports), and once the grades are published: the staff pages' "Student sees:" preview.
    `student_feedback` is the text of the decision once released; an item still in review
    reads "Being reviewed by course staff." to its student instead."""

    points: JsonPoints | None
    feedback: str
    published_points: JsonPoints | None
    published_feedback: str

    @classmethod
    def of(cls, preview: StudentPreview) -> StudentSeesOut:
        return cls(points=preview.now.points, feedback=preview.now.feedback,
                   published_points=preview.published.points,
                   published_feedback=preview.published.feedback)


class ItemOut(BaseModel):
    id: str
    question: str
    points: JsonPoints
    max_points: JsonPoints
    status: str
    feedback: str
    student_feedback: str | None
    confidence: float
    evidence: list[dict[str, Any]]
    grader: str
    grader_version: str
    machine_points: JsonPoints
    machine_status: str
    override: OverrideOut | None
    student_sees: StudentSeesOut | None = None

    @classmethod
    def of(cls, item: EffectiveItem, preview: StudentPreview | None = None) -> ItemOut:
        override = item.override
        return cls(
            id=item.item_id,
            question=item.question,
            points=item.points,
            max_points=item.max_points,
            status=item.status,
            feedback=item.feedback,
            student_feedback=item.student_feedback,
            confidence=item.confidence,
            evidence=item.evidence,
            grader=item.grader,
            grader_version=item.grader_version,
            machine_points=item.machine_points,
            machine_status=item.machine_status,
            override=None
            if override is None
            else OverrideOut(
                points=override.points,
                comment=override.comment,
                user_id=override.user_id,
                at=override.at,
            ),
            student_sees=None if preview is None else StudentSeesOut.of(preview),
        )


class SubmissionSummary(BaseModel):
    id: int
    assignment: str
    student: str | None
    filename: str | None
    # The handout edition graded: staff's when they set one (app/editions), else the one
    # declared with the upload or in the document; None: neither.
    handout: str | None = None
    status: str
    total: JsonPoints | None
    max_points: JsonPoints | None
    created_at: datetime

    @classmethod
    def of(cls, s: ScoredSubmission) -> SubmissionSummary:
        return cls(
            id=s.submission.id,
            assignment=s.assignment_slug,
            student=s.submission.student,
            filename=s.submission.filename,
            handout=s.submission.handout,
            status=s.score.status,
            total=s.score.total,
            max_points=s.score.max_points,
            created_at=s.submission.created_at,
        )


class SubmissionOut(SubmissionSummary):
    # What the upload itself declared; differs from `handout` when staff set another edition
    # for the student or the assignment (graded as staff's, app/editions).
    declared_handout: str | None = None
    content_type: str | None
    size: int
    sha256: str
    error: str | None
    rubric_hash: str | None
    graded_at: datetime | None
    items: list[ItemOut]

    @classmethod
    def of(cls, s: ScoredSubmission, view: AssignmentView | None = None) -> SubmissionOut:
        """`view`: the assignment now, for each item's `student_sees`."""
        summary = SubmissionSummary.of(s)
        declared = s.submission.handout is not None
        later = None if view is None else published_view(view)
        return cls(
            **summary.model_dump(),
            declared_handout=s.submission.declared_handout,
            content_type=s.submission.content_type,
            size=s.submission.size,
            sha256=s.submission.sha256,
            error=s.submission.error,
            rubric_hash=None if s.run is None else s.run.rubric_hash,
            graded_at=None if s.run is None else s.run.created_at,
            items=[ItemOut.of(i, None if view is None else
                              student_preview(i, view, declared, later))
                   for i in s.score.items],
        )


class StudentItemOut(BaseModel):
    """One item as its student sees it: no staff feedback, evidence, confidence, machine
    points or overrides."""

    id: str
    question: str
    status: str
    max_points: JsonPoints
    points: JsonPoints | None
    feedback: str
    released: bool
    title: str | None
    solution: str | None

    @classmethod
    def of(cls, item: StudentItem) -> StudentItemOut:
        return cls(**vars(item))


class StudentSubmissionSummary(BaseModel):
    id: int
    assignment: str
    student: str | None
    filename: str | None
    handout: str | None = None  # the handout edition they declared
    status: str
    total: JsonPoints | None
    max_points: JsonPoints | None
    days_late: int
    penalty_percent: JsonPoints
    counts: bool | None = None  # the submission that is the grade (in listings)
    created_at: datetime

    @classmethod
    def of(
        cls, s: ScoredSubmission, score: StudentScore, counts: bool | None = None
    ) -> StudentSubmissionSummary:
        return cls(
            id=s.submission.id,
            assignment=s.assignment_slug,
            student=s.submission.student,
            filename=s.submission.filename,
            handout=s.submission.handout,
            status=score.status,
            total=score.total,
            max_points=score.max_points,
            days_late=score.days_late,
            penalty_percent=score.penalty_percent,
            counts=counts,
            created_at=s.submission.created_at,
        )


class StudentSubmissionOut(StudentSubmissionSummary):
    content_type: str | None
    size: int
    sha256: str
    error: str | None
    items: list[StudentItemOut]

    @classmethod
    def of_student(cls, s: ScoredSubmission, score: StudentScore) -> StudentSubmissionOut:
        summary = StudentSubmissionSummary.of(s, score)
        return cls(
            **summary.model_dump(),
            content_type=s.submission.content_type,
            size=s.submission.size,
            sha256=s.submission.sha256,
            error=student_error(s),
            items=[StudentItemOut.of(i) for i in score.items],
        )
