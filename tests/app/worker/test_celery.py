"""The scale path for real: the API only enqueues on Redis; a Celery worker grades into
PostgreSQL with the same grading function."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from fastapi.testclient import TestClient

from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.settings import Settings
from app.worker import tasks
from tests.app.conftest import make_tokens
from tests.shared_data import REPO
from tests.support.broker import BROKER, private_queue

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

UPLOAD = "/api/v1/assignments/transformer-basics/submissions"


@pytest.fixture
def celery_queue() -> Iterator[str]:
    with private_queue("gf-test") as queue:
        yield queue


def test_api_enqueues_and_a_celery_worker_grades(postgres_db: str, celery_queue: str) -> None:
    tasks.configure(postgres_db)
    settings = Settings(database_url=postgres_db, executor="celery", celery_broker_url=BROKER)
    engine = make_engine(postgres_db)
    with (
        start_worker(
            tasks.celery_app,
            pool="solo",
            perform_ping_check=False,
            queues=[celery_queue],
            shutdown_timeout=30,
        ),
        TestClient(create_app(settings)) as client,
    ):
        tokens = make_tokens(make_sessionmaker(engine))
        auth = {"Authorization": f"Bearer {tokens['alice']}"}
        # staff read the machine's points; a student sees them only once grades are published
        staff = {"Authorization": f"Bearer {tokens['prof']}"}
        accepted = client.post(UPLOAD, json={"answers": {"b1.d_head": "64"}}, headers=auth)
        assert accepted.status_code == 202 and accepted.json()["status"] == "queued"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            body = client.get(
                f"/api/v1/submissions/{accepted.json()['id']}", headers=staff
            ).json()
            if body["status"] not in ("queued", "grading"):
                break
            time.sleep(0.2)
        assert body["status"] in ("graded", "needs_review", "pending"), body
        assert len(body["items"]) == 33
        d_head = next(i for i in body["items"] if i["id"] == "b1.d_head")
        assert d_head["points"] == 4

        waited = client.post(
            f"{UPLOAD}?wait=true", json={"answers": {"b1.d_head": "12"}}, headers=auth
        )
        assert waited.status_code == 201 and waited.json()["status"] != "queued"
    engine.dispose()


def test_the_worker_command_grades_what_the_api_enqueued(
        postgres_db: str, celery_queue: str, tmp_path: Path) -> None:
    """`gradeformer worker`, as an operator starts it on another host: the same settings, its
    own process, and the API's upload is graded by it."""
    import os
    import signal
    import subprocess
    import sys

    settings = Settings(database_url=postgres_db, executor="celery", celery_broker_url=BROKER)
    env = {**os.environ, "GRADEFORMER_DATABASE_URL": postgres_db,
           "GRADEFORMER_EXECUTOR": "celery", "GRADEFORMER_CELERY_BROKER_URL": BROKER}
    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "worker", "--concurrency", "1",
         "--queue", celery_queue], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    engine = make_engine(postgres_db)
    try:
        with TestClient(create_app(settings)) as client:
            tokens = make_tokens(make_sessionmaker(engine))
            staff = {"Authorization": f"Bearer {tokens['prof']}"}
            sid = client.post(UPLOAD, json={"answers": {"b1.d_head": "64"}},
                              headers={"Authorization": f"Bearer {tokens['alice']}"}).json()["id"]
            deadline = time.monotonic() + 90
            body: dict[str, object] = {}
            while time.monotonic() < deadline:
                body = client.get(f"/api/v1/submissions/{sid}", headers=staff).json()
                if body["status"] not in ("queued", "grading"):
                    break
                time.sleep(0.3)
        assert body["status"] in ("graded", "needs_review"), (
            body, (tmp_path / "worker.log").read_text()[-2000:])
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()
        log.close()
        engine.dispose()


def test_bursts_take_turns_and_another_students_upload_waits_one_job(
        postgres_db: str, celery_queue: str) -> None:
    """Fair share on the scale path: a student's k-th outstanding job is published with
    priority k and the worker takes priority 0 first, so jobs go in turns between students:
    another student's one upload waits for at most one job of each other student, and a
    second burst's k-th job is graded before the first burst's (k+1)-th, past ten jobs too
    (kombu's own Redis transport had ten levels: the two bursts' tails went first in, first
    out)."""
    from sqlalchemy import select

    from app.auth.service import create_token
    from app.db.models import GradingRun, Submission
    from app.db.session import unit_of_work

    tasks.configure(postgres_db)
    # The bursts are bigger than a student may have waiting (uploads_in_progress, 4): lifted
    # here to test the broker's turns themselves, as if each job were another student's.
    settings = Settings(database_url=postgres_db, executor="celery", celery_broker_url=BROKER,
                        uploads_per_minute=1_000_000, upload_burst=1_000_000,
                        uploads_in_progress=1_000_000)
    engine = make_engine(postgres_db)
    sessions = make_sessionmaker(engine)
    with TestClient(create_app(settings)) as client:
        tokens = make_tokens(sessions)
        with unit_of_work(sessions) as session:
            tokens["carol"] = create_token(session, "carol", "student").token

        def upload(who: str, answer: str) -> int:
            auth = {"Authorization": f"Bearer {tokens[who]}"}
            sent = client.post(UPLOAD, json={"answers": {"b1.d_head": answer}}, headers=auth)
            assert sent.status_code == 202, sent.text
            return int(sent.json()["id"])

        bob = [upload("bob", str(n)) for n in range(30)]
        carol = [upload("carol", str(n)) for n in range(12)]
        other_id = upload("alice", "64")
        time.sleep(1.0)  # published, no worker yet
        with start_worker(tasks.celery_app, pool="solo", perform_ping_check=False,
                          queues=[celery_queue], shutdown_timeout=30):
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                with unit_of_work(sessions) as session:
                    left = session.scalars(select(Submission.id).where(
                        Submission.status.in_(("queued", "grading")))).all()
                if not left:
                    break
                time.sleep(0.2)
    with unit_of_work(sessions) as session:
        order = list(session.scalars(select(GradingRun.submission_id).order_by(GradingRun.id)))
    engine.dispose()
    assert sorted(order) == sorted([*bob, *carol, other_id]), order
    position = {submission: n for n, submission in enumerate(order)}
    assert position[other_id] <= 2, (order, other_id)  # behind bob's and carol's first
    assert all(position[carol[k]] < position[bob[k + 1]] for k in range(12)), (order, carol)
