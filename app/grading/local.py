"""Two transports that grade on this machine's processes through `WindowedPool.retrying`
(app/grading/retry.py) and store through app/grading/store.py:

- the server's `LocalExecutor`: jobs from uploads and the sweeper (each death recorded as an
  attempt), stored in batches by one writer thread, a failed batch tried again after each of
  RETRY_DELAYS. On shutdown, jobs not started are given back (queued, for the next start) and
  running ones get `grace` seconds;
- `grade_jobs`: many stored submissions graded now, stored as they finish (CLI import/submit).
"""

from __future__ import annotations

import concurrent.futures
import functools
import logging
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy.orm import Session, sessionmaker

from app.batches import STOP, drain
from app.grading.jobs import GradingJob, record_deaths, release
from app.grading.processes import ProcessPools
from app.grading.retry import Pools, WindowedPool, as_pools
from app.grading.store import Result, store_batch, store_results, write_results
from app.grading.worker import Grade, WorkerOutcome, grade_document

log = logging.getLogger(__name__)

WRITE_BATCH = 100
RETRY_DELAYS = (0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(eq=False)
class _Job:
    job: GradingJob
    graded: Future[WorkerOutcome | BaseException | None]  # the exception: why grading failed
    # Resolved once its result is stored (or it is given back).
    done: Future[None] = field(default_factory=Future)


# What the writer stores: a graded job, or a statement (a death: one more attempt; the
# submissions given back at shutdown).
_Write = _Job | Callable[[Session], None]


class LocalExecutor:
    def __init__(self, factory: sessionmaker[Session], workers: int, options: Mapping[str, Any],
                 max_attempts: int = 3, grade: Grade = grade_document) -> None:
        self._factory = factory
        self._grade = grade  # a module-level function: it is pickled to the processes
        # Shared with bulk work (regrades): a broken pool is replaced for both.
        self.pools = ProcessPools(workers, options, max_attempts)
        self.pools.get()
        self._stopping = threading.Event()
        self._window = WindowedPool(self.pools, self._stopping)
        self._lock = threading.Lock()
        self._held: dict[int, _Job] = {}
        self._accepting = True
        self._writes: queue.Queue[object] = queue.Queue()
        self._writer = threading.Thread(target=drain, name="grading-writer", daemon=True,
                                        args=(self._writes, WRITE_BATCH, self._write))
        self._writer.start()

    def enqueue(self, job: GradingJob, *, track: bool = False) -> Future[None]:
        with self._lock:
            known = self._held.get(job.submission_id)
            if known is not None:  # handed out twice (sweeper, restart): one job is enough
                return known.done
            if not self._accepting:
                # Shutting down: the row is stored and queued; the next start grades it.
                given_back: Future[None] = Future()
                given_back.set_result(None)
                return given_back
            graded = self._window.retrying(
                job.owner, self._grade, *job.arguments(), attempts=job.attempts,
                died=functools.partial(self._writes.put,
                                       lambda session: record_deaths(session, [job.submission_id])))
            entry = self._held[job.submission_id] = _Job(job, graded)
        graded.add_done_callback(functools.partial(self._finished, entry))
        return entry.done

    def held(self) -> frozenset[int]:
        with self._lock:
            return frozenset(self._held)

    def _finished(self, entry: _Job, graded: Future[WorkerOutcome | BaseException | None]
                  ) -> None:
        if graded.result() is not None:  # None: given back at shutdown; the next start grades it
            self._writes.put(entry)

    def _write(self, batch: list[object]) -> None:
        writes = cast("list[_Write]", batch)  # drain never hands STOP on
        for entry, error in store_batch(self._factory, writes, _store, RETRY_DELAYS):
            if isinstance(entry, _Job):
                log.error("the result of submission %d could not be stored (%s): it stays "
                          "queued and is graded again once its lease runs out",
                          entry.job.submission_id, error)
        # Stored or given up (the sweeper hands it out once its lease runs out), it is no
        # longer held; a caller waiting for the grade (`?wait=true`) reads its status.
        for entry in writes:
            if isinstance(entry, _Job):
                entry.done.set_result(None)
                with self._lock:
                    self._held.pop(entry.job.submission_id, None)

    def shutdown(self, grace: float | None = None) -> None:
        """Stop taking jobs; give back those not started; let running ones (and a retry) finish
        for `grace` seconds (None: however long they take), then give those back too."""
        with self._lock:
            self._accepting = False
            entries = list(self._held.values())
        self._window.shutdown(cancel_futures=True)  # those not started yet
        _, late = wait([e.graded for e in entries], timeout=grace)
        if late:
            log.warning("shutting down: jobs still grading after %.0f s are given back", grace)
        self._stopping.set()  # waiting retries are given back
        self.pools.close(kill=bool(late))
        self._window.close(kill=bool(late))
        # Everything still held goes back to the queue; results already with the writer are
        # stored first (giving back leaves a graded submission alone).
        with self._lock:
            returned = list(self._held.values())
        if returned:
            ids = [e.job.submission_id for e in returned]
            self._writes.put(lambda session: release(session, ids))
        self._writes.put(STOP)
        self._writer.join()
        for entry in returned:
            if not entry.done.done():
                entry.done.set_result(None)


def _store(session: Session, batch: Sequence[_Write]) -> None:
    write_results(session, [(i.job.submission_id, i.job.rubric_version_id, result)
                            for i in batch if isinstance(i, _Job)
                            if (result := i.graded.result()) is not None], unfinished=True)
    for item in batch:
        if not isinstance(item, _Job):
            item(session)


def grade_jobs(factory: sessionmaker[Session], jobs: Sequence[GradingJob],
               pool: concurrent.futures.Executor | Pools,
               progress: Callable[[int], None] | None = None, batch: int = 100,
               grade: Grade = grade_document, finished: Callable[[], None] | None = None
               ) -> list[WorkerOutcome | None]:
    """Outcomes in job order (None where grading failed: stored as grader_error). `pool` is a
    pool source (replaced when broken, retries alone) or one executor used as it is; `grade`
    is a module-level function (pickled to the processes); `finished` is called once every
    outcome is in, before the last of them are stored (the CLI lets its processes go then).

    Results are stored while the others are graded, at most `batch` in a transaction and
    at most as many as are still being graded: the batches halve towards the end, so the
    last result is followed by one or two rows to store, not by up to `batch` of them."""
    windowed = WindowedPool(as_pools(pool))
    futures = {windowed.retrying(None, grade, *j.arguments()): i for i, j in enumerate(jobs)}
    results: list[WorkerOutcome | None] = [None] * len(jobs)
    pending: list[Result] = []
    left = len(jobs)
    try:
        for future in concurrent.futures.as_completed(futures):
            index, result = futures[future], future.result()
            if isinstance(result, WorkerOutcome):
                results[index] = result
            # None only when stopped, and nothing stops a CLI run from outside.
            pending.append((jobs[index].submission_id, jobs[index].rubric_version_id,
                            result if result is not None else BrokenProcessPool("stopped")))
            if progress is not None:
                progress(1)
            left -= 1
            if left and len(pending) >= min(batch, left):
                # A result that cannot be stored marks its own submission; the others are kept.
                store_results(factory, pending)
                pending = []
        if finished is not None:
            finished()
        store_results(factory, pending)
    finally:
        windowed.shutdown(cancel_futures=True)
        windowed.close()
    return results
