"""The local executor: a process pool grades, one writer thread stores results in batches."""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import threading
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.grading.jobs import GradingJob
from app.grading.store import store_results
from app.grading.worker import WorkerOutcome, grade_document, init_worker

log = logging.getLogger(__name__)

WRITE_BATCH = 100
_STOP = object()


# One BLAS thread per grading process: N processes on N cores, each spinning extra BLAS threads,
# measured 2-3x slower than single-threaded workers on the 2-core target machine.
_SINGLE_THREADED = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def process_pool(workers: int, options: Mapping[str, Any]) -> ProcessPoolExecutor:
    for name in _SINGLE_THREADED:
        # Inherited by the fork server when it starts (the first pool), hence by every worker.
        os.environ.setdefault(name, "1")
    # forkserver: workers fork from a clean server that has the graders imported already, not
    # from a parent that runs threads (uvicorn, the writer) whose locks a fork would copy.
    context = multiprocessing.get_context("forkserver")
    # The upload checks' document reader forks from the same server: its PDF library too.
    context.set_forkserver_preload(["app.grading.worker", "app.submissions.decoding", "pypdf"])
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=init_worker, initargs=(options,)
    )


class _Done:
    __slots__ = ("done", "job", "result")

    def __init__(
        self, job: GradingJob, result: WorkerOutcome | BaseException, done: Future[None]
    ) -> None:
        self.job = job
        self.result = result
        self.done = done


class LocalExecutor:
    def __init__(
        self, factory: sessionmaker[Session], workers: int, options: Mapping[str, Any]
    ) -> None:
        self._factory = factory
        self._workers = workers
        self._options = dict(options)
        self._lock = threading.Lock()
        self._pool = process_pool(workers, self._options)
        self._results: queue.Queue[_Done | object] = queue.Queue()
        self._writer = threading.Thread(target=self._write_loop, name="grading-writer", daemon=True)
        self._writer.start()

    def enqueue(self, job: GradingJob, *, track: bool = False) -> Future[None]:
        done: Future[None] = Future()
        with self._lock:
            pool = self._pool
        try:
            future = pool.submit(
                grade_document, job.rubric_text, job.raw, job.filename, job.content_type
            )
        except BrokenProcessPool as exc:
            self._replace_pool(pool)
            self._results.put(_Done(job, exc, done))
            return done

        def _finished(f: Future[WorkerOutcome]) -> None:
            exc = f.exception()
            if isinstance(exc, BrokenProcessPool):
                self._replace_pool(pool)
            self._results.put(_Done(job, exc if exc is not None else f.result(), done))

        future.add_done_callback(_finished)
        return done

    def local_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            return self._pool

    def _replace_pool(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is broken:
                log.error("a grading process died; starting a new pool")
                self._pool = process_pool(self._workers, self._options)
        broken.shutdown(wait=False, cancel_futures=False)

    def _write_loop(self) -> None:
        while True:
            first = self._results.get()
            if first is _STOP:
                return
            batch = [first]
            while len(batch) < WRITE_BATCH:
                try:
                    nxt = self._results.get_nowait()
                except queue.Empty:
                    break
                if nxt is _STOP:
                    self._results.put(_STOP)
                    break
                batch.append(nxt)
            self._write([b for b in batch if isinstance(b, _Done)])

    def _write(self, batch: list[_Done]) -> None:
        # store_results never raises: a result it cannot store marks its submission instead.
        try:
            store_results(
                self._factory,
                [(e.job.submission_id, e.job.rubric_version_id, e.result) for e in batch],
            )
        except Exception as exc:  # only a bug in store_results itself could land here
            log.exception("storing a batch of %d results failed", len(batch))
            for entry in batch:
                entry.done.set_exception(exc)
            return
        for entry in batch:
            entry.done.set_result(None)

    def shutdown(self) -> None:
        with self._lock:
            pool = self._pool
        pool.shutdown(wait=True, cancel_futures=False)
        self._results.put(_STOP)
        self._writer.join()
