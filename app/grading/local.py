"""The local executor: the grading pipeline's jobs from uploads and the sweeper, results stored
in batches by one writer thread.

Fairness and reliability are the bulk paths' own (app/grading/retry.py): jobs wait outside the
pool, at most `workers + 1` inside, in turns between students (the one with the fewest jobs
running first: a student who uploads fifty slow programs delays another student's next job by
at most the jobs already started), so a dying grading process (killed, out of memory) fails
only those; a broken pool is replaced, and each job it held is retried alone after a backoff
(`Quarantine`, on a thread of its own here), where a death is the job's own: one that kills
`max_attempts` processes becomes `grader_error` with the reason. On shutdown, jobs not started
are given back (queued, for the next start) and running ones get `grace` seconds to finish.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.grading.jobs import GradingJob
from app.grading.retry import ProcessPools, Quarantine, WindowedPool
from app.grading.worker import Grade, WorkerOutcome, grade_document, job_arguments
from app.grading.writer import Died, Finished, ResultWriter

log = logging.getLogger(__name__)

class _Job:
    __slots__ = ("attempts", "done", "graded", "job")

    def __init__(self, job: GradingJob, done: Future[None]) -> None:
        self.job = job
        self.done = done  # resolved once its result is stored (or it is given back)
        self.attempts = job.attempts
        self.graded: Future[WorkerOutcome] | None = None  # its call in the pool


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
        self._pools = ProcessPools(workers, options, max_attempts)
        self._pools.get()
        self._window = WindowedPool(self._pools)
        self._stopping = threading.Event()
        self._quarantine = Quarantine(self._pools, self._stopping)
        self._lock = threading.Lock()
        self._held: dict[int, _Job] = {}
        self._accepting = True
        self._writer = ResultWriter(factory, self._stored)
        self._retries: queue.Queue[_Job | None] = queue.Queue()
        self._retry_idle = threading.Event()  # clear while a job is retried
        self._retry_idle.set()
        self._retry_thread = threading.Thread(target=self._retry_loop, name="grading-retries",
                                              daemon=True)
        self._retry_thread.start()

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
                self._retries.put(entry)
            else:
                entry.graded = self._window.submit_as(job.owner, self._grade, *job_arguments(job))
        if entry.graded is not None:
            entry.graded.add_done_callback(lambda future: self._finished(entry, future))
        return entry.done

    def local_pool(self) -> ProcessPoolExecutor:
        return self._pools.get()

    def held(self) -> frozenset[int]:
        with self._lock:
            return frozenset(self._held)

    def replace_pool(self, broken: ProcessPoolExecutor) -> None:
        """Bulk work sharing the pool (a regrade) found it broken: a new one, unless this
        executor replaced it already or is shutting down."""
        if not self._stopping.is_set():
            self._pools.replace(broken)

    # -- results ------------------------------------------------------------------------------

    def _finished(self, entry: _Job, future: Future[WorkerOutcome]) -> None:
        if future.cancelled() or (self._closing() and future.exception() is not None):
            # Given back by the shutdown, or failed while the server stops: SIGTERM to the
            # process group ends the fork server and the document readers, so a pool replaced
            # or a call cancelled now fails for the shutdown's sake, not the job's. The next
            # start grades it.
            return
        exc = future.exception()
        # A process that died, or one that could not be started (the fork server gone: SIGTERM
        # to the process group reaches it before the server begins its shutdown): retried
        # alone after a backoff, never stored as the job's failure on the first try.
        if isinstance(exc, BrokenProcessPool | OSError):
            entry.attempts += 1
            self._writer.put(Died(entry.job.submission_id))
            log.warning("grading process died or could not start with submission %d in flight "
                        "(attempt %d: %s); retrying it alone", entry.job.submission_id,
                        entry.attempts, type(exc).__name__)
            self._retries.put(entry)
            return
        self._writer.put(Finished(entry.job, exc if exc is not None else future.result(),
                                  entry.done))

    def _retry_loop(self) -> None:
        while (entry := self._retries.get()) is not None:
            self._retry_idle.clear()
            result = self._retry(entry)
            self._retry_idle.set()
            if result is not None:
                self._writer.put(Finished(entry.job, result, entry.done))
            if self._retries.empty():
                # Retries are rare: the quarantine's process (and its models) goes until needed.
                self._quarantine.close()

    def _retry(self, entry: _Job) -> WorkerOutcome | Exception | None:
        """The job graded alone; why it failed; None: given back (shutting down)."""
        def died() -> None:
            entry.attempts += 1
            self._writer.put(Died(entry.job.submission_id))

        if self._closing():
            return None  # the next start retries it, with the deaths counted so far
        result = self._quarantine.alone(self._grade, *job_arguments(entry.job),
                                        attempts=entry.attempts, died=died)
        if isinstance(result, Exception) and self._closing():
            return None  # failed while the server stops (see _finished)
        return result

    def _closing(self) -> bool:
        with self._lock:
            return not self._accepting

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
            entries = list(self._held.values())
        self._window.shutdown(cancel_futures=True)  # those not started yet
        deadline = None if grace is None else time.monotonic() + grace
        running = [e.graded for e in entries if e.graded is not None and not e.graded.done()]
        _, late = wait(running, timeout=grace)
        self._retry_idle.wait(None if deadline is None else max(0, deadline - time.monotonic()))
        interrupted = bool(late) or not self._retry_idle.is_set()
        self._stopping.set()  # waiting retries are given back
        if interrupted:
            log.warning("shutting down: jobs still grading after %.0f s are given back", grace)
        self._pools.close(kill=interrupted)
        self._quarantine.close(kill=interrupted)
        self._retries.put(None)
        self._retry_thread.join()
        # Everything still held goes back to the queue; results already with the writer are
        # stored first (giving back leaves a graded submission alone).
        with self._lock:
            returned = list(self._held.values())
        self._writer.close([e.job.submission_id for e in returned])
        for entry in returned:
            if not entry.done.done():
                entry.done.set_result(None)

