"""Grade many stored submissions now, in parallel, storing as they finish (CLI import/submit).

They go through the pipeline every path shares (app/grading/retry.py `WindowedPool.retrying`):
a grading process that dies fails only the few documents in the pool with it, each is retried
alone, and only one that kills process after process is stored as `grader_error`.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool

from sqlalchemy.orm import Session, sessionmaker

from app.grading.jobs import GradingJob
from app.grading.retry import Pools, WindowedPool, as_pools
from app.grading.store import Result, store_results
from app.grading.worker import Grade, WorkerOutcome, grade_document, job_arguments


def grade_jobs(
    factory: sessionmaker[Session],
    jobs: Sequence[GradingJob],
    pool: concurrent.futures.Executor | Pools,
    progress: Callable[[int], None] | None = None,
    batch: int = 100,
    grade: Grade = grade_document,
    finished: Callable[[], None] | None = None,
) -> list[WorkerOutcome | None]:
    """Outcomes in job order (None where grading failed: stored as grader_error). `pool` is a
    pool source (replaced when broken, retries alone) or one executor used as it is; `grade`
    is a module-level function (pickled to the processes); `finished` is called once every
    outcome is in, before the last of them are stored (the CLI lets its processes go then).

    Results are stored while the others are graded, at most `batch` in a transaction and
    at most as many as are still being graded: the batches halve towards the end, so the
    last result is followed by one or two rows to store, not by up to `batch` of them."""
    windowed = WindowedPool(as_pools(pool))
    futures = {windowed.retrying(None, grade, *job_arguments(j)): i for i, j in enumerate(jobs)}
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
