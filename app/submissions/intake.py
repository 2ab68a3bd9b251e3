"""Storing API uploads: one writer thread, many uploads per transaction (group commit).

A transaction per upload makes every request queue for SQLite's write lock and pay a commit of
its own. Instead, requests hand their validated upload to one thread that stores whatever has
arrived meanwhile in a single transaction (plain INSERTs, no ORM unit of work) and answers each
request once that transaction has committed.

Durability: a request is answered 202 only after the commit that holds its row and its audit
entry. On SQLite the writer's own connection runs with `synchronous=FULL` (the service's other
connections use NORMAL, safe in WAL mode against a crash of the process but not of the machine),
so the write-ahead log is on disk before the answer: an accepted upload survives a power cut.
One fsync per batch instead of per upload keeps that cheap.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.assignments.repository import get_version
from app.assignments.service import current_rubric, parsed_version
from app.audit.repository import record_many
from app.batches import STOP, drain
from app.calibration.service import context_text
from app.clock import Clock, system_clock
from app.db.models import Submission, SubmissionStatus, User
from app.editions.policy import Edition
from app.editions.service import StaffEditions, staff_editions
from app.errors import Conflict, DomainError, Unavailable
from app.grading.jobs import GradingJob, lease_until
from app.grading.worker import RubricText
from app.submissions import repository
from app.submissions.admission import Admission
from app.submissions.service import NewSubmission, audit_detail, declared_edition

log = logging.getLogger(__name__)

MAX_BATCH = 128


@dataclass(frozen=True)
class Stored:
    submission_id: int
    job: GradingJob
    # The Idempotency-Key named an earlier upload: nothing was stored, nothing is to grade.
    replayed: bool = False
    status: str = SubmissionStatus.QUEUED.value


@dataclass(frozen=True)
class _Version:
    id: int
    source_text: str
    handouts: tuple[str, ...] = ()  # the editions it grades: what an upload may declare
    source_name: str | None = None  # the file it was loaded from
    battery_files: bytes | None = None  # its batteries as loaded (graders.rubric_files)


@dataclass(frozen=True)
class _Target:
    assignment_id: int
    version: _Version
    # What grading learned from the instructor's grades (read in the writing transaction).
    context: str | None = None


class _Pending:
    __slots__ = ("future", "new", "uploader")

    def __init__(self, new: NewSubmission, uploader: User | None) -> None:
        self.new = new
        self.uploader = uploader
        self.future: Future[Stored] = Future()


class SubmissionIntake:
    def __init__(
        self,
        engine: Engine,
        max_batch: int = MAX_BATCH,
        clock: Clock = system_clock,
        lease_seconds: float = 600.0,
        in_progress: int | None = None,
    ) -> None:
        self._engine = engine
        # A student's uploads waiting for grading or being graded, at most (app/submissions/
        # admission.py); None: not limited.
        self._in_progress = in_progress
        self._max_batch = max_batch
        self._clock = clock
        # A stored upload is leased to this process's executor for so long: if the process
        # dies before grading it, the sweeper of the next one hands it out.
        self._lease_seconds = lease_seconds
        self._queue: queue.Queue[_Pending | object] = queue.Queue()
        self._connection: Connection | None = None
        # Rubric versions are immutable: their text is read once per process, and every job of
        # a version shares one string instead of a copy per queued upload.
        self._versions: dict[int, _Version] = {}
        self._known: frozenset[str] = frozenset()
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="submission-intake", daemon=True)
        self._thread.start()

    def knows(self, slug: str) -> bool:
        """The assignment had a current rubric at the last write: no need to look it up first."""
        return slug in self._known

    def submit(self, new: NewSubmission, uploader: User | None) -> Future[Stored]:
        pending = _Pending(new, uploader)
        with self._lock:  # nothing may follow the stop mark: it would wait forever
            if not self._closed:
                self._queue.put(pending)
                return pending.future
        pending.future.set_exception(Unavailable("The server is shutting down."))
        return pending.future

    async def store(self, new: NewSubmission, uploader: User | None) -> Stored:
        """Stored and committed: the upload is durable once this returns."""
        return await asyncio.wrap_future(self.submit(new, uploader))

    def close(self) -> None:
        """Store everything already handed over, then stop."""
        with self._lock:
            self._closed = True
            self._queue.put(STOP)
        self._thread.join()
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _run(self) -> None:
        drain(self._queue, self._max_batch,
              lambda batch: self._write([p for p in batch if isinstance(p, _Pending)]))

    def _write(self, batch: list[_Pending]) -> None:
        try:
            results = self._transaction(batch)
        except OperationalError as exc:
            # Locked past the lock timeout, or the disk is full: storing the uploads one by one
            # would wait that long again for each. The whole batch gets a clear 503 at once.
            log.error("storing %d uploads failed: %s", len(batch), exc.orig)
            for pending in batch:
                pending.future.set_exception(
                    Unavailable(
                        "The database is not taking writes right now (busy or out of space); "
                        "the upload was not stored. Please retry in a few seconds."
                    )
                )
            return
        except Exception:
            if len(batch) == 1:
                log.exception("storing an upload failed")
                batch[0].future.set_exception(
                    Unavailable("The upload could not be stored; please try again.")
                )
                return
            # One bad row must not fail the uploads that shared its transaction.
            log.exception("storing a batch of %d uploads failed; storing one by one", len(batch))
            for pending in batch:
                self._write([pending])
            return
        for pending, result in zip(batch, results, strict=True):
            if isinstance(result, BaseException):
                pending.future.set_exception(result)
            else:
                pending.future.set_result(result)

    def _open(self) -> Connection:
        if self._connection is None:
            connection = self._engine.connect()
            if self._engine.dialect.name == "sqlite":
                # On the driver's connection: SQLAlchemy would open a transaction first, and
                # SQLite changes the safety level only outside one.
                cursor = connection.connection.cursor()
                cursor.execute("PRAGMA synchronous=FULL")
                cursor.close()
            self._connection = connection
        return self._connection

    def _transaction(self, batch: Sequence[_Pending]) -> list[Stored | DomainError]:
        connection = self._open()
        try:
            with Session(bind=connection) as session:
                results = self._store(session, batch)
                session.commit()
        except Exception:
            # Whatever state the connection is in, the next batch starts on a fresh one.
            self._connection = None
            connection.invalidate()
            raise
        return results

    def _store(self, session: Session, batch: Sequence[_Pending]) -> list[Stored | DomainError]:
        # The current version is read inside the writing transaction: an upload is graded with
        # the rubric that was current when it was stored.
        targets: dict[str, _Target] = {}
        errors: dict[str, DomainError] = {}
        for slug in {p.new.slug for p in batch}:
            try:
                targets[slug] = self._target(session, slug)
            except DomainError as exc:
                errors[slug] = exc
        # Replaced whole, never mutated: request threads read it without a lock.
        self._known = (self._known - errors.keys()) | targets.keys()
        storable = [p for p in batch if p.new.slug in targets]
        # An upload repeated under its Idempotency-Key is answered with the first one's
        # submission; only the others are new.
        previous = _earlier_uploads(session, storable)
        # Staff's editions, read once per assignment of the batch (not once per upload).
        staff = {slug: staff_editions(session, target.assignment_id,
                                      (p.new.student for p in storable if p.new.slug == slug))
                 for slug, target in targets.items()}
        fresh: list[_Pending] = []
        first_of: dict[tuple[int | None, str | None], _Pending] = {}
        for p in storable:
            key = _key(p)
            if key is None or (key not in previous and key not in first_of):
                fresh.append(p)
                if key is not None:
                    first_of[key] = p
        # Deadlines and limits are checked in the writing transaction, against the uploads
        # already stored and those earlier in this batch: two uploads at once cannot both
        # take a student's last attempt.
        now = self._clock()
        refused: dict[int, DomainError] = {}
        editions: dict[int, Edition] = {}
        admission = Admission(session, now, self._in_progress, (p.uploader for p in fresh))
        for pending in fresh:
            target = targets[pending.new.slug]
            try:
                editions[id(pending)] = _edition(pending.new, target, staff[pending.new.slug])
                if pending.uploader is not None:
                    admission.admit(target.assignment_id, pending.uploader)
            except DomainError as exc:
                refused[id(pending)] = exc
        fresh = [p for p in fresh if id(p) not in refused]
        until = lease_until(self._lease_seconds)
        ids = repository.insert_many(
            session,
            [_row(p.new, targets[p.new.slug].assignment_id, now, until, editions[id(p)])
             for p in fresh],
        )
        record_many(
            session,
            "submission.create",
            "submission",
            [(p.uploader, i, audit_detail(p.new, editions[id(p)]))
             for p, i in zip(fresh, ids, strict=True)],
        )
        stored: dict[int, Stored | DomainError] = {
            id(p): Stored(i, _job(i, targets[p.new.slug], p.new, editions[id(p)].graded))
            for p, i in zip(fresh, ids, strict=True)
        }
        for p in storable:
            key = _key(p)
            if key is None or id(p) in stored or id(p) in refused:
                continue
            if key in previous:
                submission_id, sha256, state, assignment_id, handout, student = previous[key]
            elif id(first_of[key]) in refused:
                refused[id(p)] = refused[id(first_of[key])]
                continue
            else:
                first = stored[id(first_of[key])]
                assert isinstance(first, Stored)
                submission_id, sha256, state = first.submission_id, first_of[key].new.sha256, (
                    SubmissionStatus.QUEUED.value
                )
                assignment_id = targets[first_of[key].new.slug].assignment_id
                handout = editions[id(first_of[key])].graded
                student = first_of[key].new.student
            stored[id(p)] = _replay(
                p, (submission_id, sha256, state, assignment_id, handout, student),
                targets[p.new.slug], staff[p.new.slug])
        out: list[Stored | DomainError] = []
        for pending in batch:
            error = errors.get(pending.new.slug) or refused.get(id(pending))
            # One exception object per request: each is raised, and annotated, on its own.
            out.append(
                stored[id(pending)] if error is None else type(error)(error.detail, **error.extra)
            )
        return out

    def _target(self, session: Session, slug: str) -> _Target:
        found = repository.current_version_ids(session, slug)
        if found is None:
            current_rubric(session, slug)  # raises the precise NotFound
            raise RuntimeError(f"assignment {slug!r} has a current rubric after all")
        assignment_id, version_id = found
        version = self._versions.get(version_id)
        if version is None:
            row = get_version(session, version_id)
            assert row is not None
            version = _Version(row.id, row.source_text, parsed_version(row).rubric.handouts,
                               row.source_name, row.battery_files)
            self._versions[version_id] = version
        return _Target(assignment_id, version, context_text(session, assignment_id))


def _key(pending: _Pending) -> tuple[int | None, str | None] | None:
    if pending.new.idempotency_key is None or pending.new.uploader_id is None:
        return None
    return (pending.new.uploader_id, pending.new.idempotency_key)


# What a replay is checked against: the first upload's (id, sha256, status, assignment,
# declared edition, student it was filed under).
_First = tuple[int, str, str, int, str | None, str | None]


def _earlier_uploads(
    session: Session, batch: Sequence[_Pending]
) -> dict[tuple[int | None, str | None], _First]:
    """(uploader, key) -> the first upload stored earlier under the same key."""
    keys = {k for k in map(_key, batch) if k is not None}
    if not keys:
        return {}
    rows = session.execute(
        select(
            Submission.uploader_id,
            Submission.idempotency_key,
            Submission.id,
            Submission.sha256,
            Submission.status,
            Submission.assignment_id,
            Submission.handout,
            Submission.student,
        ).where(
            Submission.idempotency_key.in_(sorted({k for _, k in keys if k is not None})),
            Submission.uploader_id.in_(sorted({u for u, _ in keys if u is not None})),
        )
    )
    found = {(r[0], r[1]): (r[2], r[3], r[4], r[5], r[6], r[7]) for r in rows}
    return {k: v for k, v in found.items() if k in keys}


def _edition(new: NewSubmission, target: _Target, staff: StaffEditions) -> Edition:
    """The edition graded: staff's for this student or assignment, else the declaration."""
    return staff.decide(new.student, declared_edition(new, target.version.handouts))


def _replay(pending: _Pending, first: _First, target: _Target,
            staff: StaffEditions) -> Stored | DomainError:
    """The upload stored first under this uploader's key, if this one repeats it: the same
    document to the same assignment for the same student, declaring the same handout edition.
    A key names one upload: with another document, assignment, student or edition it is a
    client's mistake (409), never an answer about a different upload."""
    submission_id, sha256, state, assignment_id, handout, student = first
    try:  # the edition graded, as for a new upload (a document's own under no editions: none)
        graded = _edition(pending.new, target, staff).graded
    except DomainError as exc:
        return exc
    if graded != handout:
        return Conflict(
            "This Idempotency-Key was already used for an upload declaring another handout "
            "edition; use a new key for a new upload.",
            submission_id=submission_id,
        )
    if assignment_id != target.assignment_id:
        return Conflict(
            "This Idempotency-Key was already used for an upload to another assignment; use a "
            "new key for a new upload.",
            submission_id=submission_id,
        )
    if student != pending.new.student:  # staff filing the same file for two students
        return Conflict(
            "This Idempotency-Key was already used for an upload filed under another student; "
            "use a new key for a new upload.",
            submission_id=submission_id,
        )
    if sha256 != pending.new.sha256:
        return Conflict(
            "This Idempotency-Key was already used for a different document; use a new key for "
            "a new upload.",
            submission_id=submission_id,
        )
    # A replay is answered with the first upload's submission and never graded again: its
    # job names no edition (the stored row has the first upload's).
    job = _job(submission_id, target, pending.new, None)
    return Stored(submission_id, job, replayed=True, status=state)


def _row(
    new: NewSubmission, assignment_id: int, now: datetime, until: datetime, edition: Edition
) -> dict[str, Any]:
    return {
        "created_at": now,
        "updated_at": now,
        "assignment_id": assignment_id,
        "uploader_id": new.uploader_id,
        "student": new.student,
        "filename": new.filename,
        "content_type": new.content_type,
        "handout": edition.graded,
        "declared_handout": edition.declared,
        "size": len(new.raw),
        "sha256": new.sha256,
        "raw": new.raw,
        "status": SubmissionStatus.QUEUED.value,
        "idempotency_key": new.idempotency_key,
        "lease_until": until,
    }


def _job(
    submission_id: int, target: _Target, new: NewSubmission, handout: str | None
) -> GradingJob:
    return GradingJob(
        submission_id=submission_id,
        rubric_version_id=target.version.id,
        rubric=RubricText.of_version(target.version),
        raw=new.raw,
        filename=new.filename,
        content_type=new.content_type,
        context=target.context,
        handout=handout,
        student=new.student,
        uploader_id=new.uploader_id,
    )
