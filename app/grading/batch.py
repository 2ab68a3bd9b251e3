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
) -> list[WorkerOutcome | None]:
    """Outcomes in job order (None where grading failed: stored as grader_error). `pool` is a
    pool source (replaced when broken, retries alone) or one executor used as it is; `grade`
    is a module-level function (pickled to the processes)."""
    windowed = WindowedPool(as_pools(pool))
    futures = {windowed.retrying(None, grade, *job_arguments(j)): i for i, j in enumerate(jobs)}
    results: list[WorkerOutcome | None] = [None] * len(jobs)
    pending: list[Result] = []
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
            if len(pending) >= batch:
                # A result that cannot be stored marks its own submission; the others are kept.
                store_results(factory, pending)
                pending = []
        store_results(factory, pending)
    finally:
        windowed.shutdown(cancel_futures=True)
        windowed.close()
    return results
