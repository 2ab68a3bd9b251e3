"""The Celery app and its one task: grade a stored submission and store the run.

Start a worker with `gradeformer worker` (app/cli/worker.py); it reads GRADEFORMER_DATABASE_URL and
GRADEFORMER_CELERY_BROKER_URL like the API does.

Delivery is at least once, grading exactly once per rubric version: the message is acknowledged
only after the run is stored (late ack), and given back to the broker when the worker process
dies (reject on worker loss). The broker redelivers a message nobody acknowledged after a little
more than the job deadline (the visibility timeout), not after an hour. Every task first claims
its submission in the database: a duplicate message (redelivered, or published again by the
sweeper) finds it graded or held by a live task and does nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from celery import Celery, Task
from celery.signals import worker_process_init
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.repository import get_version
from app.assignments.service import parsed_version
from app.calibration.service import context_text
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading.jobs import claim, job_for, store_if_unfinished
from app.grading.store import store_batch
from app.grading.worker import WorkerOutcome, grade_document, init_worker
from app.settings import Settings, get_settings
from app.worker.fair_redis import PRIORITIES, TRANSPORT

log = logging.getLogger(__name__)

GRADE_TASK = "gradeformer.grade"
# A claim outlives the task's hard time limit by this much (at most): only a dead task loses it.
LEASE_MARGIN_SECONDS = 60


def claim_seconds(deadline: int) -> int:
    return deadline + min(LEASE_MARGIN_SECONDS, deadline)


STORE_RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0)


def celery_config(settings: Settings) -> dict[str, Any]:
    """The broker and task options that make delivery safe; the API and workers share them."""
    deadline = settings.grading_deadline_seconds
    timeout = settings.publish_timeout_seconds
    return {
        "broker_url": settings.celery_broker_url,
        "broker_transport": TRANSPORT,  # Redis with PRIORITIES levels (app/worker/fair_redis.py)
        "result_backend": settings.celery_broker_url,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "task_acks_late": True,  # a worker that dies mid-grade leaves the task for another one
        "task_reject_on_worker_lost": True,  # ...also when only its pool process died
        "task_time_limit": deadline,
        "worker_prefetch_multiplier": 1,
        "result_expires": 3600,
        "broker_connection_timeout": timeout,
        "broker_connection_retry_on_startup": True,
        "broker_transport_options": {
            # Fair share (app/worker/executor.py): a student's k-th outstanding job is sent
            # with priority k (0 first, PRIORITIES - 1 at most), and workers take 0 first.
            "priority_steps": list(range(PRIORITIES)),
            "sep": ":",
            "visibility_timeout": claim_seconds(deadline),
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
        },
        "redis_socket_timeout": timeout,
        "redis_socket_connect_timeout": timeout,
        # Sending a task subscribes to its result: with the broker down that retried for 19 s
        # per task. Fail at once; the outbox (the sweeper) publishes it later.
        "result_backend_transport_options": {
            "retry_policy": {"max_retries": 0, "interval_start": 0, "interval_step": 0}
        },
    }


_settings = get_settings()
celery_app = Celery("gradeformer")
celery_app.conf.update(celery_config(_settings))

_sessions: sessionmaker[Session] | None = None


def configure(database_url: str) -> None:
    """Point this process's tasks at a database (workers do it from settings on first use)."""
    global _sessions
    _sessions = make_sessionmaker(make_engine(database_url))


def _factory() -> sessionmaker[Session]:
    if _sessions is None:
        configure(get_settings().database_url)
    assert _sessions is not None
    return _sessions


@worker_process_init.connect  # type: ignore[untyped-decorator]
def _init_process(**_: Any) -> None:
    init_worker(get_settings().grading_options())


def _store(
    factory: sessionmaker[Session], triple: tuple[int, int, WorkerOutcome], holder: str
) -> int:
    """Store the run if the claim is still ours (app.grading.store: retried with backoff, a
    locked or full database), else raise: the sweeper hands it out once the claim runs out."""
    stored: list[int] = []

    def write(session: Session, batch: Sequence[tuple[int, int, WorkerOutcome]]) -> None:
        stored.append(store_if_unfinished(session, batch, holder=holder))

    for _, error in store_batch(factory, [triple], write, STORE_RETRY_DELAYS):
        raise error
    return stored[-1]


# No result in the result store: the database is where a grade lives and where a caller
# waiting for it looks; sending a task then never touches the result store either.
@celery_app.task(name=GRADE_TASK, bind=True, ignore_result=True)  # type: ignore[untyped-decorator]
def grade_stored(self: Task[Any, Any], submission_id: int, rubric_version_id: int) -> str:
    settings = get_settings()
    factory = _factory()
    holder = str(self.request.id)
    with unit_of_work(factory) as session:
        version = get_version(session, rubric_version_id)
        if version is None:
            return "gone"
        parsed_version(version)  # a version without battery files: remembers its file's folder
        taken = claim(
            session,
            submission_id,
            holder,
            claim_seconds(settings.grading_deadline_seconds),
            settings.max_grading_attempts,
        )
        if isinstance(taken, str):
            return taken
        job = job_for(taken, version, context_text(session, version.assignment_id))
    outcome = grade_document(*job.arguments())
    stored = _store(factory, (submission_id, rubric_version_id, outcome), holder)
    return outcome.status if stored else "superseded"
