"""Grade many stored submissions now, in parallel, storing as they finish (CLI import/submit)."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from app.grading.jobs import GradingJob
from app.grading.store import store_results
from app.grading.worker import WorkerOutcome, grade_document


def grade_jobs(
    factory: sessionmaker[Session],
    jobs: Sequence[GradingJob],
    pool: concurrent.futures.Executor,
    progress: Callable[[int], None] | None = None,
    batch: int = 100,
) -> list[WorkerOutcome | None]:
    """Outcomes in job order (None where the grading process failed: stored as grader_error)."""
    futures = {
        pool.submit(
            grade_document, j.rubric_text, j.raw, j.filename, j.content_type, None, j.context,
            j.submission_id,
        ): index
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

    for future in concurrent.futures.as_completed(futures):
        index = futures[future]
        exc = future.exception()
        if exc is None:
            results[index] = future.result()
        pending.append((index, exc if exc is not None else future.result()))
        if progress is not None:
            progress(1)
        if len(pending) >= batch:
            flush()
    if pending:
        flush()
    return results
