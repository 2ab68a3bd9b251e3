"""Fault injection on the local executor: killed grading processes, shutdown mid-queue, a
locked database, and the sweeper. Every stored submission ends graded exactly once, or (a
document that kills every process grading it) grader_error with the reason."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import Future, wait
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import sync_rubric_dir
from app.db import session as db_session
from app.db.base import utcnow
from app.db.models import GradingRun, Submission, SubmissionStatus
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading.jobs import GradingJob, sweep
from app.grading.local import LocalExecutor
from app.settings import Settings
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.rubric import BUNDLED_RUBRICS
from tests.app.fault_helpers import POISON, SLOW, grade_with_faults

SLUG = "transformer-basics"
LEASE = 600.0


@dataclass
class Db:
    url: str
    sessions: sessionmaker[Session]
    settings: Settings


@pytest.fixture
def db(sqlite_db: str, tmp_path: Path) -> Iterator[Db]:
    url = sqlite_db
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
    yield Db(url, sessions, Settings(database_url=url, embedding_cache_dir=tmp_path / "emb"))
    engine.dispose()


def store(db: Db, count: int, marker: bytes = b"") -> list[GradingJob]:
    jobs: list[GradingJob] = []
    with unit_of_work(db.sessions) as session:
        for i in range(count):
            body = {"student_id": f"s{i}", "answers": {"b1.d_head": str(60 + i % 8)}}
            raw = json.dumps(body).encode() + (b" " + marker if marker else b"")
            upload = Upload(raw, "answers.txt" if marker else "a.json", None)
            jobs.append(accept(session, SLUG, upload, None, 1 << 20).job)
    return jobs


def executor(db: Db, workers: int = 2) -> LocalExecutor:
    return LocalExecutor(
        db.sessions, workers, db.settings.grading_options(), 3, grade=grade_with_faults
    )


def reading(db: Db) -> sessionmaker[Session]:
    """Read-only sessions: on SQLite they wait for no write lock."""
    bind = db.sessions.kw["bind"]
    return make_sessionmaker(bind, read_only=True)


def statuses(db: Db) -> dict[int, str]:
    with unit_of_work(reading(db)) as session:
        rows = session.execute(select(Submission.id, Submission.status)).tuples()
        return {i: s for i, s in rows}


def runs_per_submission(db: Db) -> dict[int, int]:
    with unit_of_work(reading(db)) as session:
        rows = session.execute(
            select(GradingRun.submission_id, func.count()).group_by(GradingRun.submission_id)
        )
        return {i: n for i, n in rows.tuples()}


def wait_all(futures: list[Future[None]], timeout: float = 120) -> None:
    _done, pending = wait(futures, timeout=timeout)
    assert not pending, f"{len(pending)} jobs never finished"


def graded_once(db: Db, ids: list[int]) -> None:
    found = statuses(db)
    assert all(SubmissionStatus(found[i]).is_final for i in ids), found
    assert not [i for i in ids if found[i] == "grader_error"], found
    runs = runs_per_submission(db)
    assert all(runs.get(i) == 1 for i in ids), runs


def pool_pids(ex: LocalExecutor) -> list[int]:
    processes = getattr(ex.pools.get(), "_processes", None) or {}
    return [p.pid for p in processes.values() if p.is_alive()]


def test_a_killed_grading_process_costs_no_grade(db: Db) -> None:
    jobs = store(db, 6, SLOW) + store(db, 20)
    ex = executor(db)
    try:
        futures = [ex.enqueue(j, track=True) for j in jobs]
        deadline = time.monotonic() + 60
        while len(pool_pids(ex)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the slow documents are being graded now
        os.kill(pool_pids(ex)[0], signal.SIGKILL)
        wait_all(futures)
    finally:
        ex.shutdown()
    graded_once(db, [j.submission_id for j in jobs])
    with unit_of_work(db.sessions) as session:
        retried = session.scalar(select(func.count()).where(Submission.attempts > 0))
    # Only the jobs in the pool when it broke were retried, not everything queued.
    assert retried is not None and 1 <= retried <= 3


def test_a_document_that_kills_every_worker_becomes_grader_error(db: Db) -> None:
    poison = store(db, 1, POISON)[0]
    jobs = store(db, 8)
    ex = executor(db)
    try:
        futures = [ex.enqueue(poison, track=True)] + [ex.enqueue(j, track=True) for j in jobs]
        wait_all(futures)
    finally:
        ex.shutdown()
    graded_once(db, [j.submission_id for j in jobs])
    with unit_of_work(db.sessions) as session:
        row = session.get(Submission, poison.submission_id)
        assert row is not None
        assert row.status == "grader_error" and row.attempts == 3
        assert row.error is not None and "died 3 times" in row.error


def test_shutdown_gives_back_what_it_could_not_finish_and_the_next_start_grades_it(
    db: Db,
) -> None:
    jobs = store(db, 10, SLOW)
    ex = executor(db, workers=1)
    for job in jobs:
        ex.enqueue(job)
    time.sleep(1.5)
    started = time.monotonic()
    ex.shutdown(grace=0.5)
    assert time.monotonic() - started < 5, "shutdown did not respect its grace period"
    left = statuses(db)
    assert "grader_error" not in left.values()
    queued = [i for i, s in left.items() if s == "queued"]
    assert queued, "everything finished: the test proves nothing"
    with unit_of_work(db.sessions) as session:
        leases = session.scalars(select(Submission.lease_until).where(Submission.id.in_(queued)))
        assert all(lease is None for lease in leases)  # free for the next start at once

    again = executor(db, workers=2)
    try:
        assert sweep(db.sessions, again, LEASE, everything=True) == len(queued)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and "queued" in statuses(db).values():
            time.sleep(0.2)
    finally:
        again.shutdown()
    graded_once(db, [j.submission_id for j in jobs])


def test_the_sweeper_takes_only_what_nobody_holds(db: Db) -> None:
    expired, live, done = (j.submission_id for j in store(db, 3))
    with unit_of_work(db.sessions) as session:
        past, future = utcnow() - timedelta(seconds=5), utcnow() + timedelta(seconds=600)
        session.execute(update(Submission).where(Submission.id == expired).values(lease_until=past))
        session.execute(update(Submission).where(Submission.id == live).values(lease_until=future))
        session.execute(
            update(Submission)
            .where(Submission.id == done)
            .values(status="graded", lease_until=past)
        )
    ex = executor(db)
    try:
        assert sweep(db.sessions, ex, LEASE) == 1
        assert ex.held() <= {expired}
        assert sweep(db.sessions, ex, LEASE) == 0  # held, or graded by now: never twice
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and statuses(db)[expired] == "queued":
            time.sleep(0.1)
    finally:
        ex.shutdown()
    found = statuses(db)
    assert found[live] == "queued" and found[done] == "graded"
    assert runs_per_submission(db) == {expired: 1}


def test_a_result_write_blocked_by_a_lock_is_retried(
    db: Db, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_session, "SQLITE_BUSY_TIMEOUT_MS", 100)
    engine = make_engine(db.url)  # its connections wait 0.1 s for the write lock
    db = Db(db.url, make_sessionmaker(engine), db.settings)
    jobs = store(db, 4)
    path = db.url.removeprefix("sqlite:///")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    ex = executor(db)
    try:
        futures = [ex.enqueue(j, track=True) for j in jobs]
        time.sleep(1.5)  # results are in; their writes fail and are retried
        assert set(statuses(db).values()) == {"queued"}
        blocker.execute("ROLLBACK")
        wait_all(futures)
    finally:
        blocker.close()
        ex.shutdown()
        engine.dispose()
    graded_once(db, [j.submission_id for j in jobs])
