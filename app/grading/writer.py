"""The local executor's writer: one thread stores results in batches, retrying failed writes.

A write fails when the database is locked past its timeout or the disk is full. The batch is
tried again after a backoff; a result that still cannot be stored is dropped from memory and
its submission stays queued: its lease runs out and the sweeper grades it again once the
database takes writes again. Nothing is marked as the student's fault.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from app.batches import STOP, drain
from app.db.session import unit_of_work
from app.grading.jobs import GradingJob
from app.grading.leases import record_deaths, release, store_if_unfinished
from app.grading.repository import mark_failed
from app.grading.worker import WorkerOutcome

log = logging.getLogger(__name__)

WRITE_BATCH = 100
RETRY_DELAYS = (0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True, slots=True)
class Finished:
    job: GradingJob
    # An outcome; an exception from the grading call; or why the job was given up (a string).
    result: WorkerOutcome | BaseException | str
    done: Future[None]


@dataclass(frozen=True, slots=True)
class Died:
    """A grading process died with this submission in flight."""

    submission_id: int


@dataclass(frozen=True, slots=True)
class _Release:
    ids: Sequence[int]


_Item = Finished | Died | _Release


def _failure(result: BaseException | str) -> str:
    if isinstance(result, str):
        return result
    return (
        f"The grading process failed ({type(result).__name__}); the submission is stored and "
        "will be graded again by a regrade."
    )


class ResultWriter:
    def __init__(
        self,
        factory: sessionmaker[Session],
        stored: Callable[[GradingJob], None],
        delays: Sequence[float] = RETRY_DELAYS,
    ) -> None:
        self._factory = factory
        self._stored = stored
        self._delays = tuple(delays)
        self._queue: queue.Queue[_Item | object] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="grading-writer", daemon=True)
        self._thread.start()

    def put(self, item: Finished | Died) -> None:
        self._queue.put(item)

    def close(self, release_ids: Sequence[int] = ()) -> None:
        """Store what is queued, give `release_ids` back to the queue, stop."""
        if release_ids:
            self._queue.put(_Release(release_ids))
        self._queue.put(STOP)
        self._thread.join()

    def _loop(self) -> None:
        drain(self._queue, WRITE_BATCH, lambda batch: self._write(
            [b for b in batch if isinstance(b, Finished | Died | _Release)]))

    def _write(self, batch: list[_Item]) -> None:
        error = self._with_retries(batch)
        if error is None:
            self._settle(batch, None)
            return
        if len(batch) > 1:
            # One bad row must not take down the results that shared its transaction.
            for item in batch:
                self._settle([item], self._attempt([item]))
            return
        self._settle(batch, error)

    def _with_retries(self, batch: list[_Item]) -> Exception | None:
        error = self._attempt(batch)
        for delay in self._delays:
            if error is None:
                return None
            log.warning(
                "storing %d grading results failed (%s); retrying in %.2f s",
                len(batch),
                type(error).__name__,
                delay,
            )
            time.sleep(delay)
            error = self._attempt(batch)
        return error

    def _attempt(self, batch: list[_Item]) -> Exception | None:
        try:
            with unit_of_work(self._factory) as session:
                _store(session, batch)
        except Exception as exc:
            return exc
        return None

    def _settle(self, batch: list[_Item], error: Exception | None) -> None:
        for item in batch:
            if not isinstance(item, Finished):
                continue
            if error is not None:
                log.error(
                    "the result of submission %d could not be stored (%s): it stays "
                    "queued and is graded again once its lease runs out",
                    item.job.submission_id,
                    error,
                )
            # Resolved either way: a caller waiting for the grade (`?wait=true`) reads the
            # submission's status, queued until the sweeper has it graded.
            item.done.set_result(None)
            self._stored(item.job)


def _store(session: Session, batch: list[_Item]) -> None:
    store_if_unfinished(
        session,
        [
            (i.job.submission_id, i.job.rubric_version_id, i.result)
            for i in batch
            if isinstance(i, Finished) and isinstance(i.result, WorkerOutcome)
        ],
    )
    for item in batch:
        if isinstance(item, Finished) and not isinstance(item.result, WorkerOutcome):
            mark_failed(session, [item.job.submission_id], _failure(item.result))
        elif isinstance(item, Died):
            record_deaths(session, [item.submission_id])
        elif isinstance(item, _Release):
            release(session, item.ids)
