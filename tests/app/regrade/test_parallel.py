"""A regrade's fast path in forked workers (app.regrade.batches) stores exactly what the
sequential path and an uncached regrade store, counts its job exactly, resumes, and loses no
submission when a worker fails or dies.

The databases are real SQLite files (and PostgreSQL where marked); the workers are real forks
of the test process, each with its own connections. Batches of two submissions make the mixed
set of `test_regrade_fast` four batches.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import sync_rubric_dir
from app.db.models import RegradeJob, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading import worker
from app.regrade import batches, jobs
from app.regrade.runner import RegradeReport, run_regrade
from graders.rubric import BUNDLED_RUBRICS
from tests.app.regrade.test_cache import KNOWN_MISTAKE, POINTS_AND_FEEDBACK, SLUG
from tests.app.regrade.test_fast import (  # noqa: F401  (battery: a fixture used here)
    ALL,
    RUBRIC,
    Setup,
    _edited,
    _options,
    _same_reports,
    battery,
    on_postgres,
    same_as_uncached,
    stored,
)

FORKED = {"fast_batch": 2, "batch_size": 2, "fast_workers": 2}


@pytest.fixture
def setup(
    regrade_graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Setup]:
    built = Setup(tmp_path, monkeypatch, regrade_graded)
    yield built
    built.close()


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The workers this process forks (their pids)."""
    started: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            started.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return started


def _job(sessions: sessionmaker[Session], report: RegradeReport) -> RegradeJob:
    assert report.job_id is not None
    with unit_of_work(sessions) as session:
        job = session.get(RegradeJob, report.job_id)
        assert job is not None
        return job


@pytest.mark.parametrize("edits", [POINTS_AND_FEEDBACK, KNOWN_MISTAKE])
def test_forked_workers_store_what_an_uncached_regrade_stores(
    setup: Setup, forks: list[int], edits: tuple[tuple[str, str], ...]
) -> None:
    setup.edit(_edited(edits))
    fast, slow = setup.regrade_both(**FORKED)
    assert len(forks) == 2
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    assert fast.changed > 0
    counts = fast.fast
    assert counts is not None and counts.reused + counts.rescored + counts.sent == len(ALL)
    assert counts.rescored >= 5 and counts.sent == 1  # the hostile document's endless loop
    job = _job(setup.fast, fast)
    assert (job.status, job.done, job.changed) == ("done", len(ALL), fast.changed)


def test_a_forked_dry_run_stores_nothing_and_reports_the_same(
    setup: Setup, forks: list[int]
) -> None:
    before = stored(setup.fast)
    setup.edit(_edited(POINTS_AND_FEEDBACK + KNOWN_MISTAKE))
    fast, slow = setup.regrade_both(dry_run=True, **FORKED)
    assert len(forks) == 2
    assert stored(setup.fast) == before
    _same_reports(fast, slow)
    assert fast.changed > 0 and fast.job_id is None


@pytest.mark.parametrize("how", ["raises", "dies before storing", "dies after storing"])
def test_a_worker_that_fails_loses_no_submission(
    setup: Setup, forks: list[int], how: str, caplog: pytest.LogCaptureFixture
) -> None:
    parent = os.getpid()
    real = batches.rescore
    victim = sorted(_ids(setup))[2]  # in the second batch

    def failing(*args: Any, **kwargs: Any) -> batches.Rescoring:
        chunk = args[3]
        if os.getpid() == parent or victim not in chunk:
            return real(*args, **kwargs)
        if how == "raises":
            raise RuntimeError("a bug of ours in a worker")
        if how == "dies before storing":
            os.kill(os.getpid(), signal.SIGKILL)
        found = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)
        return found

    setup.monkeypatch.setattr(batches, "rescore", failing)  # what the workers call
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    fast, slow = setup.regrade_both(**FORKED)
    assert forks
    said = [r.getMessage() for r in caplog.records if r.name == "app.regrade.batches"]
    assert len(said) == 1
    assert ("failed a batch" if how == "raises" else "died") in said[0], said
    # Every submission stored once (the run counts per submission are compared too).
    assert stored(setup.fast) == stored(setup.slow)
    job = _job(setup.fast, fast)
    assert (job.status, job.done) == ("done", len(ALL))
    # What a worker stored before it died is read back: the report is the same either way.
    _same_reports(fast, slow)


def test_a_worker_still_storing_when_another_dies_is_stopped_before_its_batch_is_redone(
    setup: Setup, forks: list[int], tmp_path: Path
) -> None:
    """The pool fails every running call as soon as one worker dies, and only then stops the
    others: a worker slow to stop (a loaded machine; here it ignores SIGTERM) could store its
    batch after this process had read back what it stored and started the batch again. Every
    worker is killed and waited for before a batch is read back."""
    parent = os.getpid()
    real = batches.rescore
    ids = sorted(_ids(setup))
    victim, sibling = ids[2], ids[4]  # in the second and third batches
    began, died = tmp_path / "began", tmp_path / "died"

    def until(flag: Path) -> None:
        deadline = time.monotonic() + 5
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.01)

    def racing(*args: Any, **kwargs: Any) -> batches.Rescoring:
        chunk = args[3]
        if os.getpid() == parent:
            return real(*args, **kwargs)
        if victim in chunk:  # dies once the other worker is busy with its batch
            until(began)
            died.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        if sibling in chunk:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            began.touch()
            until(died)
            time.sleep(1.0)  # this process reads back and redoes the batch meanwhile
            real(*args, **kwargs)  # stored late, then gone
            os._exit(0)
        return real(*args, **kwargs)

    setup.monkeypatch.setattr(batches, "rescore", racing)
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    fast, slow = setup.regrade_both(**FORKED)
    assert forks and began.exists() and died.exists()
    assert stored(setup.fast) == stored(setup.slow)
    job = _job(setup.fast, fast)
    assert (job.status, job.done) == ("done", len(ALL))
    _same_reports(fast, slow)


def _ids(setup: Setup) -> list[int]:
    with unit_of_work(setup.fast) as session:
        return list(session.scalars(select(Submission.id)))


def test_a_stopped_forked_regrade_keeps_its_batches_and_resumes(
    setup: Setup, forks: list[int]
) -> None:
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    stopping = threading.Event()
    reported: list[int] = []

    def stop_at_first(done: int, total: int) -> None:
        reported.append(done)
        stopping.set()

    setup.use(setup.cached)
    # A batch each: more than the workers hold at once, so some are never handed out.
    first = run_regrade(setup.fast, SLUG, setup.pool, options=setup.options, stopping=stopping,
                        progress=stop_at_first, fast_batch=1, batch_size=1, fast_workers=2)
    assert forks and 0 < sum(reported) < len(ALL)
    job = _job(setup.fast, first)
    assert job.status == "running" and job.done == sum(reported)
    with unit_of_work(setup.fast) as session:
        jobs.release(session, job.id)
    second = run_regrade(setup.fast, SLUG, setup.pool, options=setup.options, **FORKED)
    assert second.resumed and second.total == len(ALL) - sum(reported)
    setup.use(setup.plain)
    run_regrade(setup.slow, SLUG, setup.pool)
    runs = len(ALL)  # the job ids differ: the interrupted job is the fast database's own
    fast_rows, slow_rows = stored(setup.fast), stored(setup.slow)
    assert [r[:10] for r in fast_rows[:runs]] == [r[:10] for r in slow_rows[:runs]]
    assert fast_rows[runs:] == slow_rows[runs:]
    job = _job(setup.fast, first)
    assert (job.status, job.done) == ("done", len(ALL))


def test_one_batch_stays_in_this_process(setup: Setup, forks: list[int]) -> None:
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    fast, slow = setup.regrade_both(fast_batch=len(ALL), batch_size=len(ALL), fast_workers=2)
    assert forks == []
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)


def test_a_battery_change_stays_with_the_grading_processes(
    setup: Setup, forks: list[int], request: pytest.FixtureRequest
) -> None:
    """Nearly every submission needs the grading processes: no worker is forked for the few
    left, and the grading goes on as without workers."""
    copy = request.getfixturevalue("battery")  # a changed copy (test_regrade_fast)
    setup.edit(RUBRIC.replace("battery: transformer-basics/b3.yaml",
                              f"battery: transformer-basics/{copy}"))
    fast, slow = setup.regrade_both(**FORKED)
    assert forks == []
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    # Half or more are sent without trying. The program that imports `os` keeps no group
    # result (its results may depend on more than its inputs, graders.code.determinism), so the
    # fast path has no recorded key to rule it out by and looks at it itself.
    assert fast.fast is not None and fast.fast.sent_untried >= len(ALL) // 2


def test_an_in_memory_database_is_never_forked(
    forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each fork would write to its own copy of it: the batches stay in this process."""
    ran: list[list[int]] = []

    def here(factory: Any, fast: Any, chunk: list[int], target: Any, send: Any) -> Any:
        ran.append(chunk)
        return batches.Rescoring()

    monkeypatch.setattr(batches, "here", here)
    for url in ("sqlite://", "sqlite:///file:g?mode=memory&cache=shared&uri=true"):
        engine = make_engine(url)
        ran.clear()
        monkeypatch.setattr(batches, "triage", lambda *_: pytest.fail("triaged to fork"))
        target = batches.Target(1, None, dry_run=True)
        batches.run_batches(make_sessionmaker(engine), None,  # type: ignore[arg-type]
                            [[1], [2], [3]], target, 2, lambda: False, *(lambda *_: None,) * 2)
        assert ran == [[1], [2], [3]]
        engine.dispose()
    assert forks == []


def test_the_server_threads_never_fork() -> None:
    assert batches.worker_count(None, 2) == min(2, len(os.sched_getaffinity(0)))
    with ThreadPoolExecutor(1) as thread:
        assert thread.submit(batches.worker_count, None, 2).result() == 1
    assert batches.worker_count(3, 2) == 3


def test_concurrent_batches_count_the_job_exactly(sessions: sessionmaker[Session]) -> None:
    """Two transactions each add a stored batch to the job at the same time: neither count is
    lost (a count read and written back by each would lose the first)."""
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        lease = jobs.claim(session, SLUG, None)
    entered = threading.Event()

    def second() -> None:
        with unit_of_work(sessions) as session:
            entered.set()
            jobs.count_done(session, lease.job_id, 4, 1)

    with unit_of_work(sessions) as session:
        jobs.count_done(session, lease.job_id, 3, 2)
        with ThreadPoolExecutor(1) as thread:
            other = thread.submit(second)
            time.sleep(0.5)  # the other transaction has read, and waits for this one's lock
            session.commit()
            other.result(timeout=60)
    assert entered.is_set()
    with unit_of_work(sessions) as session:
        job = session.get(RegradeJob, lease.job_id)
        assert job is not None and (job.done, job.changed) == (7, 3)


@pytest.mark.postgres
def test_forked_workers_on_postgresql(
    postgres_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    sessions, options, cached, plain, folder = on_postgres(postgres_db, tmp_path)
    try:
        with ThreadPoolExecutor(1) as pool:
            monkeypatch.setattr(worker, "_resources", cached)
            run_regrade(sessions, SLUG, pool)
            with unit_of_work(sessions) as session:
                sync_rubric_dir(session, folder)
            fast = run_regrade(sessions, SLUG, pool, options=options, **FORKED)
            assert len(forks) == 2
            assert fast.fast is not None and fast.fast.rescored >= 5 and fast.changed > 0
            job = _job(sessions, fast)
            assert (job.status, job.done, job.changed) == ("done", len(ALL), fast.changed)
            same_as_uncached(sessions, pool, plain, monkeypatch)
    finally:
        cached.close()
        plain.close()
        sessions.kw["bind"].dispose()
