"""Tables: assignments and their rubric versions, users and tokens, submissions, grading runs,
item scores, instructor overrides, regrade jobs, the audit log and the class roster."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, utcnow


class Role(StrEnum):
    STUDENT = "student"
    INSTRUCTOR = "instructor"
    ADMIN = "admin"


class SubmissionStatus(StrEnum):
    QUEUED = "queued"
    GRADING = "grading"
    GRADED = "graded"
    NEEDS_REVIEW = "needs_review"
    PENDING = "pending"  # some grader kind is not available: those items are not scored
    GRADER_ERROR = "grader_error"
    ERROR = "error"  # the document could not be read

    @property
    def is_final(self) -> bool:
        return self not in (SubmissionStatus.QUEUED, SubmissionStatus.GRADING)


class CountedSubmission(StrEnum):
    """Which of a student's submissions is their grade."""

    LATEST = "latest"
    BEST = "best"
    CHOSEN = "chosen"  # the one an instructor marked; the latest until one is marked


class Assignment(Base):
    __tablename__ = "assignments"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(100), unique=True)
    title: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The course's schedule for the assignment (not the rubric's: a deadline changes per term).
    opens_at: Mapped[datetime | None] = mapped_column(default=None)
    due_at: Mapped[datetime | None] = mapped_column(default=None)
    # The hard cut-off for late uploads; None: nothing is accepted after `due_at`.
    late_until: Mapped[datetime | None] = mapped_column(default=None)
    # Percent of the score lost per started day after `due_at`.
    late_penalty_percent: Mapped[Decimal] = mapped_column(default=Decimal(0))
    max_submissions: Mapped[int | None] = mapped_column(default=None)
    counts: Mapped[str] = mapped_column(String(20), default=CountedSubmission.LATEST.value)
    grades_published_at: Mapped[datetime | None] = mapped_column(default=None)
    # The handout edition staff fixed for everyone (app/editions); None: per student or declared.
    handout: Mapped[str | None] = mapped_column(String(40), default=None)

    versions: Mapped[list[RubricVersion]] = relationship(
        back_populates="assignment", order_by="RubricVersion.id"
    )


class RubricVersion(Base):
    __tablename__ = "rubric_versions"
    __table_args__ = (UniqueConstraint("assignment_id", "content_hash"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    label: Mapped[str] = mapped_column(String(50))  # the rubric's own `version`
    content_hash: Mapped[str] = mapped_column(String(64))
    source_text: Mapped[str] = mapped_column(Text)
    source_name: Mapped[str] = mapped_column(String(500))
    is_current: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # When the rubric directory sync last loaded this version from its file: a bundled file
    # becomes current again only when its content changed since then, so a server start never
    # reverts a version an instructor loaded.
    synced_at: Mapped[datetime | None] = mapped_column(default=None)
    # The files beside the rubric that grading reads (its code batteries and the Python in
    # their folders) as they were loaded (graders.rubric_files): graded from these, never from
    # the folder. None: the rubric names none, or a version loaded before they were kept.
    battery_files: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)

    assignment: Mapped[Assignment] = relationship(back_populates="versions")


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    role: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    @property
    def role_enum(self) -> Role:
        return Role(self.role)


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # sha256 of the token: the token itself is shown once and never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)

    user: Mapped[User] = relationship()


class Submission(Base):
    __tablename__ = "submissions"
    __table_args__ = (
        Index("ix_submissions_assignment_status", "assignment_id", "status"),
        Index("ix_submissions_assignment_student", "assignment_id", "student"),
        Index("ix_submissions_status_lease", "status", "lease_until"),
        Index("ix_submissions_uploader_idempotency", "uploader_id", "idempotency_key", unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    uploader_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    student: Mapped[str | None] = mapped_column(String(200))
    filename: Mapped[str | None] = mapped_column(String(500))
    content_type: Mapped[str | None] = mapped_column(String(200))
    # The handout edition graded (the rubric's spelling, graders.documents.edition); None:
    # neither staff nor the upload named one.
    handout: Mapped[str | None] = mapped_column(String(40), default=None)
    # What the upload itself declared (None: nothing). `handout` is the edition graded: staff's
    # when they set one for the student or the assignment (app/editions), else this.
    declared_handout: Mapped[str | None] = mapped_column(String(40), default=None)
    size: Mapped[int]
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    # Deferred: listings and dashboards never need the bytes, only grading does.
    raw: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)
    status: Mapped[str] = mapped_column(String(20), default=SubmissionStatus.QUEUED.value)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    # Marked by an instructor as the submission that counts (assignments that count `chosen`).
    chosen: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # Grading attempts started that stored no result (the worker died): bounded retries.
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")
    # A queued or grading submission belongs to whoever holds it until then; past it, the
    # sweeper hands it out again (the holder died, or the queue message was lost).
    lease_until: Mapped[datetime | None] = mapped_column(default=None)
    claimed_by: Mapped[str | None] = mapped_column(String(64), default=None)  # a Celery task id
    # A client's retry of an upload whose answer it never got: same key, same submission.
    idempotency_key: Mapped[str | None] = mapped_column(String(200), default=None)


class RegradeJob(Base):
    __tablename__ = "regrade_jobs"

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    rubric_version_id: Mapped[int] = mapped_column(ForeignKey("rubric_versions.id"))
    rubric_hash: Mapped[str] = mapped_column(String(64))
    # running | done | failed | abandoned (the rubric changed before it finished)
    status: Mapped[str] = mapped_column(String(20), default="running")
    total: Mapped[int] = mapped_column(default=0)
    done: Mapped[int] = mapped_column(default=0)
    changed: Mapped[int] = mapped_column(default=0)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # Written by the process running the job after every stored batch: a running job whose
    # heartbeat is old lost its runner and may be taken over; a fresh one must be left alone.
    heartbeat_at: Mapped[datetime | None] = mapped_column(default=None)
    error: Mapped[str | None] = mapped_column(Text, default=None)


class GradingRun(Base):
    """One grading of a submission. The current run holds every item row; a run no longer
    current holds the rows that differ from the run after it (all of them when the grading
    processes replaced it; only the superseded ones when a regrade re-scored the current run
    in place, app.grading.repository.advance_runs)."""

    __tablename__ = "grading_runs"
    __table_args__ = (Index("ix_grading_runs_submission_current", "submission_id", "is_current"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    rubric_version_id: Mapped[int] = mapped_column(ForeignKey("rubric_versions.id"))
    rubric_hash: Mapped[str] = mapped_column(String(64))
    regrade_job_id: Mapped[int | None] = mapped_column(
        ForeignKey("regrade_jobs.id", ondelete="SET NULL"), index=True, default=None
    )
    status: Mapped[str] = mapped_column(String(20))
    error: Mapped[str | None] = mapped_column(Text, default=None)
    total: Mapped[Decimal]  # machine total, before overrides
    max_points: Mapped[Decimal]
    # Question id -> the located answer text (capped): review evidence and rubric exemplars.
    answers: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # Seconds the grading process spent on this document (results.json's `execution_time`).
    execution_time: Mapped[float | None] = mapped_column(default=None)
    is_current: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # What the results were computed from (read back by graders.cache.rescore): the located
    # submission's digest and the result-cache keys of its groups; NULL when not recorded (cache
    # off, calibration context, an uncacheable group).
    located_digest: Mapped[str | None] = mapped_column(String(64), default=None)
    result_keys: Mapped[dict[str, Any] | None] = mapped_column(default=None)

    items: Mapped[list[ItemScore]] = relationship(
        back_populates="run", order_by="ItemScore.position", cascade="all, delete-orphan"
    )


class ItemScore(Base):
    __tablename__ = "item_scores"
    __table_args__ = (
        UniqueConstraint("run_id", "item_id"),
        # A regrade reads of each run only the rows whose status decides the run's
        # (app.grading.repository.run_scores): without it, every row of every run.
        Index("ix_item_scores_run_status", "run_id", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("grading_runs.id", ondelete="CASCADE"))
    position: Mapped[int]
    item_id: Mapped[str] = mapped_column(String(100))
    question_id: Mapped[str] = mapped_column(String(100))
    points: Mapped[Decimal]
    max_points: Mapped[Decimal]
    status: Mapped[str] = mapped_column(String(20))
    feedback: Mapped[str] = mapped_column(Text, default="")  # staff-facing
    # What the grader wrote for the student; None: the service builds a neutral message.
    student_feedback: Mapped[str | None] = mapped_column(Text, default=None)
    evidence: Mapped[list[Any]] = mapped_column(default=list)
    confidence: Mapped[float]  # a grader's certainty, not a score: a float is fine here
    grader: Mapped[str] = mapped_column(String(50))
    grader_version: Mapped[str] = mapped_column(String(50))

    run: Mapped[GradingRun] = relationship(back_populates="items")


class Override(Base):
    """An instructor's decision on one item; applied on top of every machine run."""

    __tablename__ = "overrides"
    __table_args__ = (UniqueConstraint("submission_id", "item_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    item_id: Mapped[str] = mapped_column(String(100))
    points: Mapped[Decimal]
    comment: Mapped[str] = mapped_column(Text, default="")
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class AuditEntry(Base):
    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    action: Mapped[str] = mapped_column(String(100))
    entity: Mapped[str] = mapped_column(String(50))
    entity_id: Mapped[str | None] = mapped_column(String(100))
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)


class RosterStudent(Base):
    """One student of a class list, with the identifiers an LMS knows them by.

    `scope` is "course" (every assignment's roster) or an assignment's slug (that assignment's
    own list, which then replaces the course's for it). `student_id` is the name submissions are
    filed under (Submission.student).
    """

    __tablename__ = "roster_students"
    __table_args__ = (UniqueConstraint("scope", "student_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    scope: Mapped[str] = mapped_column(String(100), index=True)
    student_id: Mapped[str] = mapped_column(String(200))
    name: Mapped[str] = mapped_column(String(300), default="")
    email: Mapped[str] = mapped_column(String(320), default="")
    sis_user_id: Mapped[str] = mapped_column(String(200), default="")
    sis_login_id: Mapped[str] = mapped_column(String(200), default="")
    section: Mapped[str] = mapped_column(String(200), default="")
    # Canvas's own numeric user id (its gradebook's `ID` column), when the list came from Canvas.
    canvas_user_id: Mapped[str] = mapped_column(String(50), default="")
    imported_at: Mapped[datetime] = mapped_column(default=utcnow)


class RiskTarget(Base):
    """The error an instructor allows among auto-graded answers (risk control): for one
    question, or for the whole assignment when `question_id` is empty."""

    __tablename__ = "risk_targets"
    __table_args__ = (UniqueConstraint("assignment_id", "question_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(String(100), default="")
    target: Mapped[float]  # a probability, not points: a float is fine here
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class CalibrationSnapshot(Base):
    """What grading learned from the instructor's grades of an assignment (exemplars and
    calibrated thresholds per written item), as handed to the grading processes.

    Recomputed when an instructor decision changes (an override, a target), never by grading
    itself: regrading twice with the same decisions grades the same way."""

    __tablename__ = "calibration_snapshots"

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    rubric_hash: Mapped[str] = mapped_column(String(64))
    body: Mapped[dict[str, Any]] = mapped_column(default=dict)
    computed_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class ActiveCheck(Base):
    """A decision taken through active grading, with what the machine had suggested for that
    answer just before it (a held-out check of the machine on its item, `graders.active`)."""

    __tablename__ = "active_checks"
    __table_args__ = (UniqueConstraint("submission_id", "item_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    item_id: Mapped[str] = mapped_column(String(100))
    machine_points: Mapped[Decimal]
    error_probability: Mapped[float]  # a probability, not points
    reason: Mapped[str] = mapped_column(String(20))  # why it was proposed (or "instructor")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class StudentEdition(Base):
    """The handout edition staff set for one student of one assignment: it is the edition
    graded, whatever the student's uploads declare (app/editions)."""

    __tablename__ = "student_editions"
    __table_args__ = (UniqueConstraint("assignment_id", "student"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    student: Mapped[str] = mapped_column(String(200))
    handout: Mapped[str] = mapped_column(String(40))
    set_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"),
                                               default=None)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
