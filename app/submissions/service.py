"""Accepting uploads and reading submissions with their scores, within the caller's rules."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.assignments.schedule import Schedule
from app.assignments.service import current_rubric, require_assignment
from app.audit.repository import record
from app.auth.roles import is_staff
from app.calibration.service import context_text
from app.db.base import utcnow
from app.db.locks import hold
from app.db.models import Assignment, GradingRun, Submission, SubmissionStatus, User
from app.editions.policy import Edition
from app.editions.service import staff_decision
from app.errors import InvalidInput, NotFound, PayloadTooLarge, UnknownEdition, UnreadableUpload
from app.grading.jobs import GradingJob, job_for
from app.grading.repository import current_runs
from app.sanitize import clean, clean_optional
from app.submissions import repository
from app.submissions.scoring import EffectiveScore, effective_score
from app.submissions.upload import Upload
from graders.documents import sniff_document
from graders.documents.edition import EditionError, check_declared, clean_edition
from graders.documents.model import InvalidDocument


@dataclass(frozen=True)
class Accepted:
    submission: Submission
    job: GradingJob


@dataclass(frozen=True)
class NewSubmission:
    """An upload that passed every check needing no database: what the intake stores."""

    slug: str
    uploader_id: int | None
    student: str | None
    filename: str | None
    content_type: str | None
    raw: bytes
    sha256: str
    document_format: str
    # The client's Idempotency-Key: a retried upload returns the submission of the first.
    idempotency_key: str | None = None
    # The handout edition the upload declares (cleaned, not yet checked against the rubric)
    # and the one the document declares itself: `declared_edition` reconciles them.
    handout: str | None = None
    document_handout: str | None = None


@dataclass(frozen=True)
class ScoredSubmission:
    submission: Submission
    assignment_slug: str
    run: GradingRun | None
    score: EffectiveScore


def check_fields(upload: Upload, max_bytes: int) -> str | None:
    """The upload's size and the handout edition its field declares, cleaned (not yet checked
    against the rubric): the checks that read none of the document."""
    if len(upload.raw) > max_bytes:
        raise PayloadTooLarge(f"The upload is larger than the limit of {max_bytes} bytes.")
    if upload.handout is None or not upload.handout.strip():
        return None
    try:
        return clean_edition(upload.handout, "handout field")
    except ValueError as exc:
        raise InvalidInput(f"The {exc}.", field="handout") from exc


def prepare(
    slug: str,
    upload: Upload,
    uploader: User | None,
    max_bytes: int,
    document: tuple[str, str | None] | None = None,
) -> NewSubmission:
    """Size, format and filing rules: everything about an upload that needs no database.
    `document`: its format and the edition it declares, already established by reading the
    document elsewhere (the server's helper processes, app.submissions.decoding); without it
    the document is read here (the CLI)."""
    handout = check_fields(upload, max_bytes)
    if document is None:
        try:
            document = sniff_document(upload.raw, upload.filename, upload.content_type)
        except InvalidDocument as exc:
            raise UnreadableUpload(str(exc)) from exc
    document_format, document_handout = document
    if uploader is not None and not is_staff(uploader):
        student: str | None = uploader.name  # a student files only under their own name
    else:
        student = None if upload.student is None else clean(upload.student, 200) or None
    return NewSubmission(
        slug=slug,
        uploader_id=None if uploader is None else uploader.id,
        student=student,
        # Both come from the client: stored and shown, so cleaned like any student string.
        filename=clean_optional(upload.filename, 500),
        content_type=clean_optional(upload.content_type, 200),
        raw=upload.raw,
        sha256=hashlib.sha256(upload.raw).hexdigest(),
        document_format=document_format,
        handout=handout,
        document_handout=document_handout,
    )


def declared_edition(new: NewSubmission, handouts: Sequence[str]) -> str | None:
    """The edition the upload declares, as the rubric writes it (None: none declared);
    UnknownEdition (422, naming the rubric's editions) when the rubric does not grade it."""
    try:
        return check_declared(handouts, new.handout, new.document_handout)
    except EditionError as exc:
        message = str(exc)
        raise UnknownEdition(f"{message[:1].upper()}{message[1:]}.",
                             allowed=list(exc.allowed)) from exc


def audit_detail(new: NewSubmission, edition: Edition | None = None) -> dict[str, object]:
    detail: dict[str, object] = {"assignment": new.slug, "format": new.document_format,
                                 "size": len(new.raw)}
    if edition is not None and edition.overridden:
        # Staff read it: the student declared another edition than staff's (graded as staff's).
        detail["handout"] = {"declared": edition.declared, "graded": edition.graded}
    return detail


def check_upload_allowed(
    session: Session, assignment: Assignment, uploader: User | None, now: datetime, earlier: int = 0
) -> None:
    """A student's upload within the schedule and the submission limit (`earlier`: their
    uploads not stored yet). Staff are not limited: they file late work by arrangement."""
    if uploader is None or is_staff(uploader):
        return
    schedule = Schedule.of(assignment)
    # Counting costs a query per upload on the busiest route: only when there is a limit.
    used = 0
    if schedule.max_submissions is not None:
        used = repository.count_uploaded_by(session, assignment.id, uploader.id) + earlier
    refusal = schedule.refusal(now, used)
    if refusal is not None:
        raise refusal


def accept(
    session: Session,
    slug: str,
    upload: Upload,
    uploader: User | None,
    max_bytes: int,
    now: datetime | None = None,
) -> Accepted:
    """Validate cheaply and store the raw bytes in the caller's transaction (CLI, one at a
    time); grading happens after the commit. The API stores through `SubmissionIntake`."""
    current = current_rubric(session, slug)
    now = now or utcnow()
    check_upload_allowed(session, current.assignment, uploader, now)
    new = prepare(slug, upload, uploader, max_bytes)
    edition = staff_decision(session, current.assignment.id, new.student,
                             declared_edition(new, current.loaded.rubric.handouts))
    submission = repository.add(
        session,
        Submission(
            assignment_id=current.assignment.id,
            uploader_id=new.uploader_id,
            student=new.student,
            filename=new.filename,
            content_type=new.content_type,
            handout=edition.graded,
            declared_handout=edition.declared,
            size=len(new.raw),
            sha256=new.sha256,
            raw=new.raw,
            status=SubmissionStatus.QUEUED.value,
            created_at=now,
            updated_at=now,
        ),
    )
    record(session, uploader, "submission.create", "submission", submission.id,
           audit_detail(new, edition))
    context = context_text(session, current.assignment.id)
    return Accepted(submission, job_for(submission, current.version, context))


def _visible(session: Session, submission_id: int, user: User) -> Submission:
    submission = repository.get(session, submission_id)
    # Another student's submission is reported as absent, not forbidden: ids leak nothing.
    if submission is None or not (
        is_staff(user) or submission.uploader_id == user.id or submission.student == user.name
    ):
        raise NotFound(f"There is no submission {submission_id}.")
    return submission


def scored(session: Session, submissions: list[Submission]) -> list[ScoredSubmission]:
    ids = [s.id for s in submissions]
    runs = current_runs(session, ids)
    overrides = repository.overrides_for(session, ids)
    slugs: dict[int, str] = {}
    out: list[ScoredSubmission] = []
    for submission in submissions:
        if submission.assignment_id not in slugs:
            assignment = session.get(Assignment, submission.assignment_id)
            slugs[submission.assignment_id] = "" if assignment is None else assignment.slug
        run = runs.get(submission.id)
        score = effective_score(submission.status, run, overrides.get(submission.id, {}))
        out.append(ScoredSubmission(submission, slugs[submission.assignment_id], run, score))
    return out


SCORE_BATCH = 500


def scored_for_assignment(session: Session, assignment_id: int) -> Iterator[ScoredSubmission]:
    """Every submission of an assignment with its effective score, in id order, in batches."""
    ids = repository.ids_for_assignment(session, assignment_id)
    for start in range(0, len(ids), SCORE_BATCH):
        yield from scored(session, repository.get_many(session, ids[start : start + SCORE_BATCH]))


def get_scored(session: Session, submission_id: int, user: User) -> ScoredSubmission:
    return scored(session, [_visible(session, submission_id, user)])[0]


def get_for_staff(session: Session, submission_id: int) -> Submission:
    submission = repository.get(session, submission_id)
    if submission is None:
        raise NotFound(f"There is no submission {submission_id}.")
    return submission


def list_scored(
    session: Session, slug: str, user: User, limit: int = 100, offset: int = 0
) -> list[ScoredSubmission]:
    assignment = require_assignment(session, slug)
    owner = None if is_staff(user) else user
    return scored(
        session, repository.list_for_assignment(session, assignment.id, owner, limit, offset)
    )


def list_own_scored(session: Session, slug: str, user: User) -> list[ScoredSubmission]:
    """Every submission of one student for an assignment (to tell which one counts)."""
    assignment = require_assignment(session, slug)
    return scored(session, repository.list_owned(session, assignment.id, user))


def choose(session: Session, submission_id: int, actor: User) -> Submission:
    """An instructor marks the submission that counts for its student."""
    submission = get_for_staff(session, submission_id)
    if submission.student is None:
        raise InvalidInput(
            f"Submission {submission_id} is filed under no student; file it under one first."
        )
    # Two of one student's submissions chosen at once would update each other's rows in
    # opposite orders (a deadlock on PostgreSQL): one after the other, the later one counts.
    hold(session, "chosen", submission.assignment_id, submission.student)
    repository.set_chosen(session, submission)
    record(session, actor, "submission.choose", "submission", submission.id, {})
    return submission
