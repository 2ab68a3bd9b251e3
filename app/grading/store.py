"""Storing grading results so that one bad row never takes others down with it.

Results are stored a batch per transaction (commits are the cost on SQLite). If that
transaction fails, each result is retried in its own; one that still cannot be stored marks its
submission `grader_error` in yet another transaction, so it is neither lost as `queued` forever
nor able to abort a batch, an upload burst or a regrade of a whole assignment.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from app.db.session import unit_of_work
from app.grading.repository import mark_failed, store_outcomes
from app.grading.retry import GradingProcessDied
from app.grading.worker import WorkerOutcome

log = logging.getLogger(__name__)

# (submission id, rubric version id, the outcome or why the grading process failed)
Result = tuple[int, int, WorkerOutcome | BaseException]
AfterStore = Callable[[Session, Sequence[Result]], None]


def failure_message(exc: BaseException) -> str:
    if isinstance(exc, GradingProcessDied):
        return str(exc)
    return (
        f"The grading process failed ({type(exc).__name__}); the submission is stored and "
        "will be graded again by a regrade."
    )


def _store(
    session: Session, results: Sequence[Result], regrade_job_id: int | None
) -> None:
    store_outcomes(
        session,
        [(s, v, r) for s, v, r in results if isinstance(r, WorkerOutcome)],
        regrade_job_id=regrade_job_id,
    )
    for submission_id, _, result in results:
        if isinstance(result, BaseException):
            mark_failed(session, [submission_id], failure_message(result))


def store_results(
    factory: sessionmaker[Session],
    results: Sequence[Result],
    *,
    regrade_job_id: int | None = None,
    after: AfterStore | None = None,
) -> list[int]:
    """Store every result; `after` runs in each storing transaction with what it stored.
    Returns the submissions whose result could not be stored (marked grader_error instead)."""
    if not results:
        return []
    try:
        _store_in_one(factory, results, regrade_job_id, after)
        return []
    except Exception:
        log.exception("storing %d grading result(s) failed", len(results))
    if len(results) == 1:
        unstored = [results[0][0]]
    else:
        unstored = []
        for result in results:
            try:
                _store_in_one(factory, [result], regrade_job_id, after)
            except Exception:
                log.exception("storing the result of submission %d failed", result[0])
                unstored.append(result[0])
    for submission_id in unstored:
        _mark_unstorable(factory, submission_id)
    return unstored


def _store_in_one(
    factory: sessionmaker[Session],
    results: Sequence[Result],
    regrade_job_id: int | None,
    after: AfterStore | None,
) -> None:
    with unit_of_work(factory) as session:
        _store(session, results, regrade_job_id)
        if after is not None:
            after(session, results)


def _mark_unstorable(factory: sessionmaker[Session], submission_id: int) -> None:
    try:
        with unit_of_work(factory) as session:
            mark_failed(
                session,
                [submission_id],
                "The grading result could not be stored; a human needs to look at this "
                "submission (a regrade retries it).",
            )
    except Exception:  # the database itself is failing: nothing more to do for this row here
        log.exception("marking submission %d as grader_error failed too", submission_id)
