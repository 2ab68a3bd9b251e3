"""Grade many stored submissions now, in parallel, storing as they finish (CLI import/submit)."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from app.db.session import unit_of_work
from app.grading.jobs import GradingJob
from app.grading.repository import mark_failed, store_outcomes
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
        pool.submit(grade_document, j.rubric_text, j.raw, j.filename, j.content_type): index
        for index, j in enumerate(jobs)
    }
    results: list[WorkerOutcome | None] = [None] * len(jobs)
    pending: list[tuple[int, WorkerOutcome | BaseException]] = []

    def flush() -> None:
        with unit_of_work(factory) as session:
            store_outcomes(
                session,
                [
                    (jobs[i].submission_id, jobs[i].rubric_version_id, r)
                    for i, r in pending
                    if isinstance(r, WorkerOutcome)
                ],
            )
            failed = [jobs[i].submission_id for i, r in pending if isinstance(r, BaseException)]
            if failed:
                mark_failed(session, failed, "The grading process failed; regrade to retry.")
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
