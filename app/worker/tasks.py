"""The Celery app and its one task: grade a stored submission and store the run.

Start a worker with `celery -A app.worker.tasks worker`; it reads GRADEFORMER_DATABASE_URL and
GRADEFORMER_CELERY_BROKER_URL like the API does.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import worker_process_init
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.repository import get_version
from app.db.models import SubmissionStatus
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading.store import store_results
from app.grading.worker import WorkerOutcome, grade_document, init_worker
from app.regrade.repository import with_raw
from app.settings import get_settings

GRADE_TASK = "gradeformer.grade"

_settings = get_settings()
celery_app = Celery(
    "gradeformer", broker=_settings.celery_broker_url, backend=_settings.celery_broker_url
)
celery_app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_acks_late=True,  # a worker that dies mid-grade leaves the task for another one
    worker_prefetch_multiplier=1,
    result_expires=3600,
)

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


@celery_app.task(name=GRADE_TASK)  # type: ignore[untyped-decorator]
def grade_stored(submission_id: int, rubric_version_id: int) -> str:
    factory = _factory()
    with unit_of_work(factory) as session:
        found = with_raw(session, [submission_id])
        version = get_version(session, rubric_version_id)
        if not found or version is None:
            return "gone"
        submission = found[0]
        submission.status = SubmissionStatus.GRADING.value
        raw, filename, ctype = submission.raw, submission.filename, submission.content_type
        rubric_text = version.source_text
    outcome: WorkerOutcome = grade_document(rubric_text, raw, filename, ctype)
    # A result that cannot be stored marks the submission grader_error instead of leaving it
    # `grading` for ever.
    if store_results(factory, [(submission_id, rubric_version_id, outcome)]):
        return "grader_error"
    return outcome.status
