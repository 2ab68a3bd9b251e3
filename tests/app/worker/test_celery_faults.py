"""The scale path under faults, on a private Redis and a real prefork Celery worker: the API
starts and takes uploads with the broker down, a killed pool process costs no grade, a Redis
restart that loses the queue loses no submission; each one is graded exactly once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import GradingRun, ItemScore, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.main import create_app
from app.settings import Settings
from tests.app.conftest import make_tokens
from tests.support.faultkit import PrivateRedis, Worker
from tests.support.synthetic import submission

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

UPLOAD = "/api/v1/assignments/transformer-basics/submissions"
FINAL = {"graded", "needs_review", "pending"}


def _statuses(url: str) -> dict[int, str]:
    engine = make_engine(url)
    try:
        with unit_of_work(make_sessionmaker(engine)) as session:
            rows = session.execute(select(Submission.id, Submission.status)).tuples()
            return {i: s for i, s in rows}
    finally:
        engine.dispose()


def _errors(url: str) -> list[tuple[int, str | None, str]]:
    """Why each grader_error run failed (its error, the feedback of its failed items)."""
    engine = make_engine(url)
    try:
        with unit_of_work(make_sessionmaker(engine)) as session:
            rows = session.execute(
                select(GradingRun.submission_id, GradingRun.error, ItemScore.feedback)
                .join(ItemScore, ItemScore.run_id == GradingRun.id)
                .where(ItemScore.status == "grader_error")).tuples()
            return sorted(set(rows), key=str)
    finally:
        engine.dispose()


def _wait_final(url: str, ids: list[int], timeout: float = 120) -> dict[int, str]:
    deadline = time.monotonic() + timeout
    while True:
        found = _statuses(url)
        if all(found.get(i) not in ("queued", "grading") for i in ids):
            return found
        assert time.monotonic() < deadline, {i: found.get(i) for i in ids}
        time.sleep(0.3)


def test_the_celery_path_loses_nothing_and_grades_once(postgres_db: str, tmp_path: Path) -> None:
    broker = PrivateRedis(tmp_path)
    deadline = 20
    worker = Worker(
        {
            "GRADEFORMER_DATABASE_URL": postgres_db,
            "GRADEFORMER_CELERY_BROKER_URL": broker.url,
            "GRADEFORMER_GRADING_DEADLINE_SECONDS": str(deadline),
            "GRADEFORMER_EMBEDDING_CACHE_DIR": str(tmp_path / "emb"),
            # Every submission's code runs in the sandbox (no result shared from an earlier
            # one): a grading lasts long enough to be caught in progress on a loaded machine.
            "GRADEFORMER_RESULT_CACHE": "false",
        },
        tmp_path / "worker.log",
    )
    settings = Settings(
        database_url=postgres_db,
        executor="celery",
        celery_broker_url=broker.url,
        grading_deadline_seconds=deadline,
        grading_lease_seconds=3,
        sweep_interval_seconds=0.5,
        publish_timeout_seconds=0.5,
        embedding_cache_dir=tmp_path / "emb",
        # bulk uploads as one student: the per-student limits are not under test here
        uploads_per_minute=1_000_000,
        upload_burst=1_000_000,
        uploads_in_progress=1_000_000,
        student_quota_bytes=1 << 40,
    )
    accepted: list[int] = []
    try:
        started = time.monotonic()
        with TestClient(create_app(settings)) as client:  # the broker is down
            # Not a speed check: what fails it is waiting for the broker, whose connection
            # retries (100 by default, growing intervals) would take minutes. The start itself
            # took 4-6 s at load 17, 19.7 s at load 18 plus two busy loops.
            assert time.monotonic() - started < 60
            token = make_tokens(make_sessionmaker(make_engine(postgres_db)))["alice"]
            auth = {"Authorization": f"Bearer {token}"}

            def upload(n: int) -> int:
                raw, _, content_type = submission(n)
                began = time.monotonic()
                answer = client.post(
                    UPLOAD, content=raw, headers={**auth, "content-type": content_type}
                )
                assert answer.status_code == 202, answer.text
                # with the broker down a publish waits for its connection to fail (0.5 s here)
                # and celery's retries for tens of seconds: the bound is that, not speed (an
                # upload alone took up to 3 s at load 22)
                assert time.monotonic() - began < 15, "an upload waited for the broker"
                return int(answer.json()["id"])

            accepted += [upload(n) for n in range(4)]
            began = time.monotonic()
            assert client.get("/healthz").status_code == 200
            assert time.monotonic() - began < 15

            broker.start()  # the outbox is published once the broker is back
            worker.start()
            _wait_final(postgres_db, accepted, timeout=180)

            killed: list[int] = []  # a pool process killed mid-grade
            for attempt in range(10):  # grading can outrun the uploads (or the kill, on a
                # loaded machine): then once more
                batch = [upload(n) for n in range(10 + 10 * attempt, 20 + 10 * attempt)]
                accepted += batch
                waited = time.monotonic() + 60
                while time.monotonic() < waited:
                    found = _statuses(postgres_db)
                    grading = [i for i in batch if found[i] == "grading"]
                    if grading or all(found[i] not in ("queued", "grading") for i in batch):
                        break
                    time.sleep(0.02)
                if grading:
                    worker.kill_child()
                    # A grading that committed between the status read and the kill was not
                    # interrupted: only what is still grading once the process is dead was.
                    after = _statuses(postgres_db)
                    killed = [i for i in grading if after[i] == "grading"]
                    if killed:
                        break
            assert killed, "no grading was ever caught in progress"
            _wait_final(postgres_db, accepted)

            worker.stop()  # a Redis restart loses whatever was queued
            lost = [upload(n) for n in range(4, 7)]
            accepted += lost
            broker.stop()
            broker.start()
            worker.start()
            _wait_final(postgres_db, accepted)
    finally:
        worker.stop()
        broker.stop()
    found = _statuses(postgres_db)
    assert {found[i] for i in accepted} <= FINAL, (found, _errors(postgres_db))
    engine = make_engine(postgres_db)
    with unit_of_work(make_sessionmaker(engine)) as session:
        runs = session.execute(
            select(GradingRun.submission_id, func.count()).group_by(GradingRun.submission_id)
        ).tuples()
        counts = {i: n for i, n in runs}
        retried = session.scalar(
            select(func.count()).where(Submission.id.in_(killed), Submission.attempts > 1)
        )
    engine.dispose()
    assert all(counts.get(i) == 1 for i in accepted), counts
    assert retried, "the killed task was not run again"
