"""A regrade's fast batches in the shared pool's grading processes (app.regrade.batches
`fast_batch`) store exactly what an uncached regrade stores, count the job exactly, resume, and
lose no submission when a batch fails there.

The databases are real SQLite files (and PostgreSQL where marked); the pool is a real process
pool (`ProcessPools`), its processes opening the database on their own connections. Batches of
two submissions make the mixed set of `test_regrade_fast` four batches.
"""

from __future__ import annotations

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
from app.grading.retry import ProcessPools
from app.regrade import batches, jobs, repository, runner
from app.regrade.runner import RegradeReport, run_regrade
from graders.rubric import BUNDLED_RUBRICS
from tests.app.regrade.test_cache import KNOWN_MISTAKE, POINTS_AND_FEEDBACK, SLUG
from tests.app.regrade.test_fast import (  # noqa: F401  (battery: a fixture used here)
    ALL,
    RUBRIC,
    Setup,
    _edited,
    _same_reports,
    battery,
    on_postgres,
    same_as_uncached,
    stored,
)

BATCHES = {"fast_batch": 2, "batch_size": 2}


@pytest.fixture
def setup(
    regrade_graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Setup]:
    built = Setup(tmp_path, monkeypatch, regrade_graded)
    yield built
    built.close()


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The fast batches sent to the pool's processes."""
    found: list[list[int]] = []
    real = runner.fast_batch
    original = runner.WindowedPool.submit

    def submit(self: Any, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        if fn is real:
            found.append(list(args[1]))
        return original(self, fn, *args, **kwargs)

    monkeypatch.setattr(runner.WindowedPool, "submit", submit)
    return found


def _processes(setup: Setup) -> ProcessPools:
    return ProcessPools(2, setup.options)


def _regrade_in_pool(setup: Setup, **kwargs: Any) -> tuple[RegradeReport, RegradeReport]:
    pools = _processes(setup)
    try:
        fast = run_regrade(setup.fast, SLUG, pools, **kwargs)
    finally:
        pools.close()
    setup.use(setup.plain)
    slow = run_regrade(setup.slow, SLUG, setup.pool, **kwargs)
    assert slow.fast is None and slow.cached == 0
    return fast, slow


def _job(sessions: sessionmaker[Session], report: RegradeReport) -> RegradeJob:
    assert report.job_id is not None
    with unit_of_work(sessions) as session:
        job = session.get(RegradeJob, report.job_id)
        assert job is not None
        return job


@pytest.mark.parametrize("edits", [POINTS_AND_FEEDBACK, KNOWN_MISTAKE])
def test_fast_batches_in_the_pool_store_what_an_uncached_regrade_stores(
    setup: Setup, sent: list[list[int]], edits: tuple[tuple[str, str], ...]
) -> None:
    setup.edit(_edited(edits))
    fast, slow = _regrade_in_pool(setup, **BATCHES)
    assert len(sent) == -(-len(ALL) // 2) - 1  # the first batch is done here
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    assert fast.changed > 0
    counts = fast.fast
    assert counts is not None and counts.reused + counts.rescored + counts.sent == len(ALL)
    assert counts.rescored >= 5 and counts.sent == 1  # the hostile document's endless loop
    job = _job(setup.fast, fast)
    assert (job.status, job.done, job.changed) == ("done", len(ALL), fast.changed)


def test_a_dry_run_in_the_pool_stores_nothing_and_reports_the_same(
    setup: Setup, sent: list[list[int]]
) -> None:
    before = stored(setup.fast)
    setup.edit(_edited(POINTS_AND_FEEDBACK + KNOWN_MISTAKE))
    fast, slow = _regrade_in_pool(setup, dry_run=True, **BATCHES)
    assert sent
    assert stored(setup.fast) == before
    _same_reports(fast, slow)
    assert fast.changed > 0 and fast.job_id is None


def fails_second(spec: batches.FastSpec, chunk: list[int]) -> batches.FastAnswer:
    """`fast_batch`, but the batch of the third submission fails (pickled to the pool)."""
    if 3 in chunk:
        raise RuntimeError("a bug of ours in a grading process")
    return batches.fast_batch(spec, chunk)


def test_a_batch_that_fails_in_the_pool_is_done_here(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    assert 3 in _ids(setup)
    setup.monkeypatch.setattr(runner, "fast_batch", fails_second)
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    fast, slow = _regrade_in_pool(setup, **BATCHES)
    said = [r.getMessage() for r in caplog.records if r.name == "app.regrade.runner"]
    assert len(said) == 1 and "done here" in said[0], said
    assert stored(setup.fast) == stored(setup.slow)
    job = _job(setup.fast, fast)
    assert (job.status, job.done) == ("done", len(ALL))
    _same_reports(fast, slow)


def _ids(setup: Setup) -> list[int]:
    with unit_of_work(setup.fast) as session:
        return list(session.scalars(select(Submission.id)))


def test_a_stopped_regrade_keeps_its_batches_and_resumes(setup: Setup) -> None:
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    stopping = threading.Event()
    reported: list[int] = []

    def stop_at_first(done: int, total: int) -> None:
        reported.append(done)
        stopping.set()

    pools = _processes(setup)
    try:
        first = run_regrade(setup.fast, SLUG, pools, stopping=stopping, progress=stop_at_first,
                            fast_batch=1, batch_size=1)
        assert 0 < sum(reported) < len(ALL)
        job = _job(setup.fast, first)
        assert job.status == "running" and job.done >= sum(reported)
        with unit_of_work(setup.fast) as session:
            jobs.release(session, job.id)
        second = run_regrade(setup.fast, SLUG, pools, **BATCHES)
    finally:
        pools.close()
    assert second.resumed and second.total == len(ALL) - job.done
    setup.use(setup.plain)
    run_regrade(setup.slow, SLUG, setup.pool)
    runs = len(ALL)  # the job ids differ: the interrupted job is the fast database's own
    fast_rows, slow_rows = stored(setup.fast), stored(setup.slow)
    assert [r[:10] for r in fast_rows[:runs]] == [r[:10] for r in slow_rows[:runs]]
    assert fast_rows[runs:] == slow_rows[runs:]
    job = _job(setup.fast, first)
    assert (job.status, job.done) == ("done", len(ALL))


def test_one_batch_stays_in_this_process(setup: Setup, sent: list[list[int]]) -> None:
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    fast, slow = _regrade_in_pool(setup, fast_batch=len(ALL), batch_size=len(ALL))
    assert sent == []
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)


def test_a_battery_change_in_the_pool_stores_the_same(
    setup: Setup, request: pytest.FixtureRequest
) -> None:
    copy = request.getfixturevalue("battery")  # a changed copy (test_regrade_fast)
    setup.edit(RUBRIC.replace("battery: transformer-basics/b3.yaml",
                              f"battery: transformer-basics/{copy}"))
    fast, slow = _regrade_in_pool(setup, **BATCHES)
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    # Half or more are sent without trying. The program that imports `os` keeps no group
    # result (its results may depend on more than its inputs, graders.code.determinism), so the
    # fast path has no recorded key to rule it out by and looks at it itself.
    assert fast.fast is not None and fast.fast.sent_untried >= len(ALL) // 2


def test_an_in_memory_database_stays_in_this_process() -> None:
    """Each grading process would open a database of its own."""
    target = batches.Target(1, None, dry_run=True)
    for url in ("sqlite://", "sqlite:///file:g?mode=memory&cache=shared&uri=true"):
        engine = make_engine(url)
        assert batches.fast_spec(make_sessionmaker(engine), "", "", {}, target) is None
        engine.dispose()
    engine = make_engine("sqlite:////tmp/a-file.db")
    spec = batches.fast_spec(make_sessionmaker(engine), "text", "name", {}, target)
    assert spec is not None and spec.url == "sqlite:////tmp/a-file.db"


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
            repository.count_done(session, lease.job_id, 4, 1)

    with unit_of_work(sessions) as session:
        repository.count_done(session, lease.job_id, 3, 2)
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
def test_fast_batches_in_the_pool_on_postgresql(
    postgres_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sent: list[list[int]]
) -> None:
    sessions, options, cached, plain, folder = on_postgres(postgres_db, tmp_path)
    pools = ProcessPools(2, options)
    try:
        with ThreadPoolExecutor(1) as pool:
            monkeypatch.setattr(worker, "_resources", cached)
            run_regrade(sessions, SLUG, pool)
            with unit_of_work(sessions) as session:
                sync_rubric_dir(session, folder)
            fast = run_regrade(sessions, SLUG, pools, **BATCHES)
            assert sent
            assert fast.fast is not None and fast.fast.rescored >= 5 and fast.changed > 0
            job = _job(sessions, fast)
            assert (job.status, job.done, job.changed) == ("done", len(ALL), fast.changed)
            same_as_uncached(sessions, pool, plain, monkeypatch)
    finally:
        pools.close()
        cached.close()
        plain.close()
        sessions.kw["bind"].dispose()
