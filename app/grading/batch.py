"""Grade many stored submissions now, in parallel, storing as they finish (CLI import/submit).

A grading process that dies fails only the few documents in the pool with it (app/grading/
retry.py): each is retried alone, and only one that kills process after process is stored as
`grader_error`; the broken pool is replaced for the rest.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool

from sqlalchemy.orm import Session, sessionmaker

from app.grading.jobs import GradingJob
from app.grading.retry import Pools, Quarantine, WindowedPool, as_pools
from app.grading.store import store_results
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
    pools = as_pools(pool)
    windowed = WindowedPool(pools)
    quarantine = Quarantine(pools)
    futures = {
        windowed.submit(grade, *job_arguments(j)): index
        for index, j in enumerate(jobs)
    }
    results: list[WorkerOutcome | None] = [None] * len(jobs)
    pending: list[tuple[int, WorkerOutcome | BaseException]] = []

    def flush() -> None:
        # A result that cannot be stored marks its own submission; the others are kept.
        store_results(
            factory,
            [(jobs[i].submission_id, jobs[i].rubric_version_id, r) for i, r in pending],
        )
        pending.clear()

    try:
        for future in concurrent.futures.as_completed(futures):
            index = futures[future]
            result = _outcome(future, quarantine, grade, jobs[index])
            if isinstance(result, WorkerOutcome):
                results[index] = result
            pending.append((index, result))
            if progress is not None:
                progress(1)
            if len(pending) >= batch:
                flush()
        if pending:
            flush()
    finally:
        windowed.shutdown(cancel_futures=True)
        quarantine.close()
    return results


def _outcome(
    future: concurrent.futures.Future[WorkerOutcome],
    quarantine: Quarantine,
    grade: Grade,
    job: GradingJob,
) -> WorkerOutcome | BaseException:
    try:
        return future.result()
    except BrokenProcessPool:
        pass  # its process died, perhaps for another document: this one is retried alone
    except Exception as exc:
        return exc
    retried = quarantine.alone(grade, *job_arguments(job))
    # None only when stopped, and nothing stops a CLI run from outside.
    return retried if retried is not None else BrokenProcessPool("stopped")
