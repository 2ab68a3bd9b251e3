"""The one way grading results are stored: a batch per transaction (commits are the cost on
SQLite), retried after a backoff when asked; if it still fails, each item in a transaction of
its own, so one bad row never takes the others down. What still cannot be stored is handed to
the caller's failure policy:

- the bulk paths (CLI import/submit, regrades: `store_results`) mark the submission
  `grader_error` in yet another transaction, so it is neither lost as `queued` forever nor able
  to abort a batch or a regrade of a whole assignment;
- the local executor (app/grading/local.py) leaves it queued: its lease runs out and the
  sweeper grades it again once the database takes writes again;
- a Celery task (app/worker/tasks.py) raises: the broker's redelivery and the sweeper retry it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from sqlalchemy.orm import Session, sessionmaker

from app.db.session import unit_of_work
from app.grading.jobs import store_if_unfinished
from app.grading.repository import mark_failed, store_outcomes
from app.grading.retry import GradingProcessDied
from app.grading.worker import WorkerOutcome

log = logging.getLogger(__name__)

T = TypeVar("T")
# (submission id, rubric version id, the outcome or why the grading process failed)
Result = tuple[int, int, WorkerOutcome | BaseException]
AfterStore = Callable[[Session, Sequence[Result]], None]
UNSTORABLE = ("The grading result could not be stored; a human needs to look at this "
              "submission (a regrade retries it).")


def store_batch(factory: sessionmaker[Session], batch: Sequence[T],
                write: Callable[[Session, Sequence[T]], None], delays: Sequence[float] = ()
                ) -> list[tuple[T, Exception]]:
    """`write` the batch in one transaction, tried again after each of `delays` (a locked or
    full database); if it still fails, each item in its own transaction. Returns the items
    that could not be stored, with why."""
    error = _attempt(factory, batch, write) if batch else None
    for delay in delays:
        if error is None:
            break
        log.warning("storing %d grading results failed (%s); retrying in %.2f s",
                    len(batch), type(error).__name__, delay)
        time.sleep(delay)
        error = _attempt(factory, batch, write)
    if error is None:
        return []
    log.error("storing %d grading result(s) failed: %s", len(batch), error)
    if len(batch) == 1:
        return [(batch[0], error)]
    # One bad row must not take down the results that shared its transaction.
    failed = [(item, _attempt(factory, [item], write)) for item in batch]
    return [(item, exc) for item, exc in failed if exc is not None]


def _attempt(factory: sessionmaker[Session], batch: Sequence[T],
             write: Callable[[Session, Sequence[T]], None]) -> Exception | None:
    try:
        with unit_of_work(factory) as session:
            write(session, batch)
    except Exception as exc:
        return exc
    return None


def failure_message(exc: BaseException) -> str:
    if isinstance(exc, GradingProcessDied):
        return str(exc)
    return (f"The grading process failed ({type(exc).__name__}); the submission is stored and "
            "will be graded again by a regrade.")


def write_results(session: Session, results: Sequence[Result], *, unfinished: bool = False,
                  regrade_job_id: int | None = None) -> None:
    """Each outcome becomes its submission's current run (`unfinished`: only for submissions
    still waiting for one); a failure marks its submission `grader_error` with why."""
    outcomes = [(s, v, r) for s, v, r in results if isinstance(r, WorkerOutcome)]
    if unfinished:
        store_if_unfinished(session, outcomes)
    else:
        store_outcomes(session, outcomes, regrade_job_id=regrade_job_id)
    for submission_id, _, result in results:
        if isinstance(result, BaseException):
            mark_failed(session, [submission_id], failure_message(result))


def store_results(factory: sessionmaker[Session], results: Sequence[Result], *,
                  regrade_job_id: int | None = None, after: AfterStore | None = None
                  ) -> list[int]:
    """Store every result; `after` runs in each storing transaction with what it stored.
    Returns the submissions whose result could not be stored (marked grader_error instead)."""

    def write(session: Session, batch: Sequence[Result]) -> None:
        write_results(session, batch, regrade_job_id=regrade_job_id)
        if after is not None:
            after(session, batch)

    unstored = [result[0] for result, _ in store_batch(factory, results, write)]
    marked = store_batch(factory, unstored, lambda s, ids: mark_failed(s, ids, UNSTORABLE))
    for submission_id, exc in marked:  # the database itself is failing: nothing more here
        log.error("marking submission %d as grader_error failed too: %s", submission_id, exc)
    return unstored
