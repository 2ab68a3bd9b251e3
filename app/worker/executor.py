"""The API side of the scale path: enqueue on Redis, never grade in the API process.

Publishing never runs on the event loop: one publisher thread sends each job with a timeout. The
submissions table is the outbox: a row is committed (queued, leased for a while) before it is
published, and a row whose publish failed, or whose message the broker lost, is published again
by the sweeper once its lease runs out. The API therefore starts, and takes uploads, with the
broker down; grading resumes when it is back.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from celery.result import AsyncResult
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import Submission
from app.db.session import unit_of_work
from app.grading.jobs import UNFINISHED, GradingJob, release
from app.settings import Settings
from app.worker.fair_redis import PRIORITIES
from app.worker.tasks import celery_app, celery_config, grade_stored
from app.worker.waits import FinalWaits

log = logging.getLogger(__name__)

# After a failed publish the broker is taken for down this long: jobs meanwhile go straight
# back to the outbox instead of each waiting out its own timeout.
BROKER_DOWN_SECONDS = 2.0


class CeleryExecutor:
    def __init__(self, sessions: sessionmaker[Session], settings: Settings) -> None:
        celery_app.conf.update(celery_config(settings))
        self._broker_url = settings.celery_broker_url
        # The publisher thread's own connection to this broker: the app's pooled ones keep
        # whatever broker they were first opened on.
        self._connection: Any = None  # a kombu Connection (untyped)
        self._sessions = sessions
        self._publisher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="celery-publish")
        # `?wait=true` callers: one thread polls the status of every waited submission.
        self._waits = FinalWaits(sessions)
        self._lock = threading.Lock()
        self._publishing: set[int] = set()
        self._down_until = 0.0

    def enqueue(self, job: GradingJob, *, track: bool = False) -> Future[None] | None:
        with self._lock:
            if job.submission_id in self._publishing:
                return None
            self._publishing.add(job.submission_id)
        published = self._publisher.submit(self._publish, job)
        if not track:
            return None

        waited: Future[None] = Future()

        def then_wait(done: Future[AsyncResult[Any] | None]) -> None:
            if done.cancelled():  # shutting down
                waited.cancel()
                return
            if done.exception() is not None or done.result() is None:
                waited.set_result(None)  # not published: it stays queued for now
                return
            final = self._waits.until_final(job.submission_id)
            final.add_done_callback(lambda f: waited.cancel() if f.cancelled()
                                    else waited.set_result(None))

        published.add_done_callback(then_wait)
        return waited

    def _publish(self, job: GradingJob) -> AsyncResult[Any] | None:
        try:
            if time.monotonic() < self._down_until:
                # The broker failed a moment ago: back to the outbox without waiting again.
                self._back_to_outbox(job.submission_id)
                return None
            if self._connection is None:
                self._connection = celery_app.connection_for_write(self._broker_url)
            result: AsyncResult[Any] = grade_stored.apply_async(
                args=(job.submission_id, job.rubric_version_id),
                retry=False,
                connection=self._connection,
                priority=self._priority(job),
            )
            return result
        except Exception as exc:
            self._down_until = time.monotonic() + BROKER_DOWN_SECONDS
            if self._connection is not None:  # a fresh one next time
                self._connection.close()
                self._connection = None
            log.warning(
                "publishing submission %d failed (%s); the sweeper publishes it later",
                job.submission_id,
                type(exc).__name__,
            )
            self._back_to_outbox(job.submission_id)
            return None
        finally:
            with self._lock:
                self._publishing.discard(job.submission_id)

    def _priority(self, job: GradingJob) -> int:
        """Fair share across students: the job's turn among its owner's submissions still
        waiting or grading, the number of those older than it (0 for a student's oldest, at
        most the lowest priority, app/worker/fair_redis.py). Workers take lower numbers first,
        so a student's k-th job waits behind every other student's k-th, not behind a whole
        burst. Counted from the database, older ones only: every API process, and a publish
        however late after the upload, gives the same number."""
        if job.student:
            mine = Submission.student == job.student
        elif job.uploader_id is not None:
            mine = (Submission.uploader_id == job.uploader_id) & Submission.student.is_(None)
        else:
            return PRIORITIES - 1
        with unit_of_work(self._sessions) as session:
            older = session.scalar(
                select(func.count()).select_from(Submission).where(
                    mine, Submission.status.in_(UNFINISHED), Submission.id < job.submission_id))
        return min(PRIORITIES - 1, int(older or 0))

    def _back_to_outbox(self, submission_id: int) -> None:
        try:
            with unit_of_work(self._sessions) as session:
                release(session, [submission_id])
        except Exception:  # the lease runs out by itself; the sweeper gets it then
            log.exception("giving submission %d back to the outbox failed", submission_id)

    def held(self) -> frozenset[int]:
        with self._lock:
            return frozenset(self._publishing)

    def shutdown(self, grace: float | None = None) -> None:
        # Jobs not yet published stay in the outbox (their rows are committed and queued).
        self._publisher.shutdown(wait=True, cancel_futures=True)
        if self._connection is not None:
            self._connection.close()
        self._waits.close()
