"""The local executor: a process pool grades, one writer thread stores results in batches.

Fairness. The next job to start is the waiting job of the student with the fewest jobs running,
in turns among equals (app/grading/fair.py): a student who uploads fifty slow programs delays
another student's next job by at most the jobs already started.

Reliability. Jobs wait here, not inside the pool, and at most `workers + 1` are in the pool at a
time: when a grading process dies (killed, out of memory) the pool fails only those, not every
queued job. Each of them is retried after a backoff in a one-process quarantine pool, where a
death is the job's own: a job that kills `max_attempts` processes becomes `grader_error` with
the reason (app/grading/retry.py applies the same policy to the bulk paths). On shutdown, jobs
not started are given back (queued, for the next start) and running ones get `grace` seconds
to finish.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.grading.fair import FairQueue
from app.grading.jobs import GradingJob
from app.grading.leases import died_message
from app.grading.retry import backoff, end_broken, kill_processes, process_pool, stop_pool
from app.grading.worker import WorkerOutcome, grade_document
from app.grading.writer import Died, Finished, ResultWriter
from graders.context import GradingResources

log = logging.getLogger(__name__)

# (rubric text, document, filename, content type, resources, learned context, submission id,
# declared handout edition)
Grade = Callable[
    [str, bytes, str | None, str | None, GradingResources | None, str | None, int | None,
     str | None],
    WorkerOutcome,
]


class _Job:
    __slots__ = ("attempts", "done", "job")

    def __init__(self, job: GradingJob, done: Future[None]) -> None:
        self.job = job
        self.done = done
        self.attempts = job.attempts


class LocalExecutor:
    def __init__(
        self,
        factory: sessionmaker[Session],
        workers: int,
        options: Mapping[str, Any],
        max_attempts: int = 3,
        grade: Grade = grade_document,
    ) -> None:
        self._grade = grade  # a module-level function: it is pickled to the processes
        self._workers = workers
        self._options = dict(options)
        self._max_attempts = max_attempts
        self._window = workers + 1
        self._lock = threading.Condition()
        self._pool = process_pool(workers, self._options)
        self._solo: ProcessPoolExecutor | None = None  # the quarantine, started on first need
        self._waiting: FairQueue[_Job] = FairQueue()  # one job per student per turn
        self._retries: deque[_Job] = deque()  # backoff over: for the quarantine, in order
        self._running: dict[int, _Job] = {}
        self._solo_running: _Job | None = None
        self._held: dict[int, _Job] = {}
        self._timers: list[threading.Timer] = []
        self._accepting = True
        self._stopping = False
        self._writer = ResultWriter(factory, self._stored)

    # -- the Executor interface ---------------------------------------------------------------

    def enqueue(self, job: GradingJob, *, track: bool = False) -> Future[None]:
        with self._lock:
            known = self._held.get(job.submission_id)
            if known is not None:  # handed out twice (sweeper, restart): one job is enough
                return known.done
            entry = _Job(job, Future())
            if not self._accepting:
                # Shutting down: the row is stored and queued; the next start grades it.
                entry.done.set_result(None)
                return entry.done
            self._held[job.submission_id] = entry
            if entry.attempts > 0:
                self._schedule_retry(entry)
            else:
                self._waiting.push(entry.job.owner, entry)
            self._dispatch()
        return entry.done

    def local_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            return self._pool

    def held(self) -> frozenset[int]:
        with self._lock:
            return frozenset(self._held)

    def replace_pool(self, broken: ProcessPoolExecutor) -> None:
        """Bulk work sharing the pool (a regrade) found it broken: a new one, unless this
        executor replaced it already or is shutting down."""
        with self._lock:
            if self._accepting:
                self._replace_pool(broken)

    # -- dispatching --------------------------------------------------------------------------

    def _dispatch(self) -> None:
        """Move jobs into the pools while they have room (called with the lock held)."""
        while self._accepting and self._waiting and len(self._running) < self._window:
            busy: Counter[Hashable] = Counter(e.job.owner for e in self._running.values())
            _, entry = self._waiting.pop(busy.__getitem__)
            pool = self._pool
            try:
                future = pool.submit(self._grade, *_arguments(entry.job))
            except (BrokenProcessPool, RuntimeError):
                # The pool broke before this job reached it: not the job's fault.
                self._waiting.push_front(entry.job.owner, entry)
                self._replace_pool(pool)
                continue
            self._running[entry.job.submission_id] = entry
            future.add_done_callback(functools.partial(self._finished, entry, pool, solo=False))
        if self._accepting and self._retries and self._solo_running is None:
            entry = self._retries.popleft()
            if self._solo is None:
                self._solo = process_pool(1, self._options)
            solo = self._solo
            try:
                future = solo.submit(self._grade, *_arguments(entry.job))
            except (BrokenProcessPool, RuntimeError):
                self._retries.appendleft(entry)
                self._solo = None
                kill_processes(solo)
                return
            self._solo_running = entry
            future.add_done_callback(functools.partial(self._finished, entry, solo, solo=True))

    def _replace_pool(self, broken: ProcessPoolExecutor) -> None:
        if self._pool is broken:
            log.error("a grading process died; starting a new pool")
            self._pool = process_pool(self._workers, self._options)
        end_broken(broken)

    def _schedule_retry(self, entry: _Job) -> None:
        def due() -> None:
            with self._lock:
                if timer not in self._timers:  # cancelled by shutdown meanwhile
                    return
                self._timers.remove(timer)
                self._retries.append(entry)
                self._dispatch()

        timer = threading.Timer(backoff(entry.attempts), due)
        timer.daemon = True
        self._timers.append(timer)
        timer.start()

    def _finished(
        self, entry: _Job, pool: ProcessPoolExecutor, future: Future[WorkerOutcome], *, solo: bool
    ) -> None:
        exc = future.exception()
        with self._lock:
            if solo:
                self._solo_running = None
            else:
                self._running.pop(entry.job.submission_id, None)
            if isinstance(exc, BrokenProcessPool) and self._stopping:
                self._lock.notify_all()
                return  # killed by our own shutdown: given back, not the job's fault
            if isinstance(exc, BrokenProcessPool):
                if solo:
                    self._solo = None
                    pool.shutdown(wait=False, cancel_futures=False)
                else:
                    self._replace_pool(pool)
                entry.attempts += 1
                self._writer.put(Died(entry.job.submission_id))
                if entry.attempts < self._max_attempts:
                    log.warning(
                        "grading process died with submission %d in flight (attempt %d); "
                        "retrying it alone",
                        entry.job.submission_id,
                        entry.attempts,
                    )
                    self._schedule_retry(entry)
                    self._dispatch()
                    self._lock.notify_all()
                    return
                log.error(
                    "submission %d killed %d grading processes; giving up",
                    entry.job.submission_id,
                    entry.attempts,
                )
                result: WorkerOutcome | BaseException | str = died_message(entry.attempts)
            elif exc is not None:
                result = exc
            else:
                result = future.result()
            self._dispatch()
            if solo and self._solo is pool and self._solo_running is None and not self._timers:
                # Retries are rare: the quarantine's process (and its models) goes until needed.
                self._solo = None
                pool.shutdown(wait=False, cancel_futures=False)
            self._lock.notify_all()
        self._writer.put(Finished(entry.job, result, entry.done))

    def _stored(self, job: GradingJob) -> None:
        """The writer is done with a job (stored, or gave up: then the lease runs out and the
        sweeper hands it out again)."""
        with self._lock:
            self._held.pop(job.submission_id, None)

    # -- shutdown -----------------------------------------------------------------------------

    def shutdown(self, grace: float | None = None) -> None:
        """Stop taking jobs; give back those not started; let running ones finish for `grace`
        seconds (None: however long they take), then give those back too."""
        with self._lock:
            self._accepting = False
            for timer in self._timers:
                timer.cancel()
            self._timers.clear()
            self._waiting.clear()
            self._retries.clear()
            deadline = None if grace is None else time.monotonic() + grace
            while self._running or self._solo_running is not None:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._lock.wait(left)
            self._stopping = True
            interrupted = bool(self._running) or self._solo_running is not None
            # Everything still held goes back to the queue; results already with the writer
            # are stored first (giving back leaves a graded submission alone).
            returned = list(self._held.values())
            pools = [self._pool, *([self._solo] if self._solo is not None else [])]
        if interrupted:
            log.warning("shutting down: jobs still grading after %.0f s are given back", grace)
        for pool in pools:
            if interrupted:
                kill_processes(pool)
            else:
                stop_pool(pool)
        self._writer.close([e.job.submission_id for e in returned])
        for entry in returned:
            if not entry.done.done():
                entry.done.set_result(None)


def _arguments(
    job: GradingJob,
) -> tuple[str, bytes, str | None, str | None, None, str | None, int, str | None]:
    return (job.rubric_text, job.raw, job.filename, job.content_type, None, job.context,
            job.submission_id, job.handout)
