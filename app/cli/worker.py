"""`gradeformer worker`: a Celery grading worker for the scale path (GRADEFORMER_EXECUTOR=celery).

It reads the same GRADEFORMER_* settings as the API (the database, the broker, the sandbox's
limits and layers, the code-input secret) and grades what the API enqueued, on any host that
reaches the database and Redis. Delivery and retries are app/worker/tasks.py's.
"""

from __future__ import annotations

from typing import Annotated

import typer

from app.cli.context import fail, settings


def worker(
    concurrency: Annotated[int | None, typer.Option(
        min=1, max=256, help="Grading processes (default: GRADEFORMER_WORKERS)")] = None,
    queue: Annotated[str, typer.Option(help="The Celery queue to consume")] = "celery",
    loglevel: Annotated[str, typer.Option(help="Celery's log level")] = "INFO",
) -> None:
    """Run a Celery grading worker (the API enqueues with GRADEFORMER_EXECUTOR=celery)."""
    configured = settings()
    if configured.executor != "celery":
        raise fail("GRADEFORMER_EXECUTOR is not 'celery': the API grades locally and enqueues "
                   "nothing for a worker (set GRADEFORMER_EXECUTOR=celery on the API and here)")
    from app.worker.tasks import celery_app, configure

    configure(configured.database_url)
    celery_app.worker_main([
        "worker", f"--concurrency={concurrency or configured.workers}", f"--queues={queue}",
        f"--loglevel={loglevel}", "--pool=prefork",
    ])
