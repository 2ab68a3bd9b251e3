"""The API side of the scale path: enqueue on Redis, never grade in the API process."""

from __future__ import annotations

import concurrent.futures
from concurrent.futures import Future, ThreadPoolExecutor

from sqlalchemy.orm import Session, sessionmaker

from app.grading.jobs import GradingJob
from app.settings import Settings
from app.worker.tasks import celery_app, grade_stored

WAIT_SECONDS = 300


class CeleryExecutor:
    def __init__(self, sessions: sessionmaker[Session], settings: Settings) -> None:
        celery_app.conf.broker_url = settings.celery_broker_url
        celery_app.conf.result_backend = settings.celery_broker_url
        # Only `?wait=true` callers block on a result; a few threads wait for them.
        self._waiters = ThreadPoolExecutor(max_workers=8, thread_name_prefix="celery-wait")

    def enqueue(self, job: GradingJob, *, track: bool = False) -> Future[None] | None:
        result = grade_stored.apply_async(args=(job.submission_id, job.rubric_version_id))
        if not track:
            return None

        def wait() -> None:
            result.get(timeout=WAIT_SECONDS, disable_sync_subtasks=False)

        return self._waiters.submit(wait)

    def local_pool(self) -> concurrent.futures.Executor | None:
        return None

    def shutdown(self) -> None:
        self._waiters.shutdown(wait=False, cancel_futures=True)
