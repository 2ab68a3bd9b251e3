"""Fault injection on the bulk paths (CLI import/submit, CLI regrade, the API's background
regrade): a grading process killed (SIGKILL) mid-run costs no document its grade, and only a
document that kills every process grading it ends `grader_error` with the reason."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Select, func, select

from app.assignments.service import load_rubric_text
from app.auth.service import create_token
from app.db.models import GradingRun, RegradeJob, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading.local import grade_jobs
from app.grading.processes import ProcessPools
from app.regrade import runner as regrade_runner
from app.regrade.runner import run_regrade
from tests.app.fault_helpers import POISON, grade_many_with_faults, grade_with_faults
from tests.app.grading.test_local_faults import SLUG, Db, db, graded_once, statuses, store
from tests.support.faultkit import Server, kill_a_grading_process
from tests.support.proctree import children
from tests.support.synthetic import submission

__all__ = ["db"]  # the fixture, shared with the local executor's fault tests

REPO = Path(__file__).resolve().parents[3]
DOCUMENTS = 24


def _poisoned(db: Db, ids: list[int], poison: int) -> None:
    found = statuses(db)
    with unit_of_work(db.sessions) as session:
        row = session.get(Submission, poison)
        assert row is not None and row.status == "grader_error", found
        assert row.error is not None and "died 3 times" in row.error, row.error
    assert not [i for i in ids if found[i] == "grader_error"], found


def test_import_retries_the_documents_of_a_dead_process_and_gives_up_on_a_killer(
    db: Db,
) -> None:
    poison = store(db, 1, POISON)[0]
    jobs = store(db, 12)
    pools = ProcessPools(2, db.settings.grading_options(), max_attempts=3)
    try:
        outcomes = grade_jobs(db.sessions, [poison, *jobs], pools, grade=grade_with_faults)
    finally:
        pools.close()
    assert outcomes[0] is None and all(o is not None for o in outcomes[1:])
    graded_once(db, [j.submission_id for j in jobs])
    _poisoned(db, [j.submission_id for j in jobs], poison.submission_id)


def test_regrade_retries_the_documents_of_a_dead_process_and_gives_up_on_a_killer(
    db: Db, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = store(db, 6)
    poison = store(db, 1, POISON)[0]
    jobs += store(db, 10)
    monkeypatch.setattr(regrade_runner, "grade_many", grade_many_with_faults)
    pools = ProcessPools(2, db.settings.grading_options(), max_attempts=3)
    try:
        report = run_regrade(db.sessions, SLUG, pools, batch_size=5)
    finally:
        pools.close()
    assert report.total == 17 and report.job_id is not None
    ids = [j.submission_id for j in jobs]
    _poisoned(db, ids, poison.submission_id)
    with unit_of_work(db.sessions) as session:
        regraded = set(
            session.scalars(
                select(GradingRun.submission_id).where(GradingRun.regrade_job_id == report.job_id)
            )
        )
        job = session.get(RegradeJob, report.job_id)
        assert job is not None and job.status == "done" and job.done == 17
    assert regraded == set(ids)


# -- the real CLI and the real server, one grading process killed mid-run ---------------------


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "inbox"
    folder.mkdir()
    for index in range(DOCUMENTS):
        raw, name, _ = submission(index, seed=7)
        (folder / name).write_bytes(raw)
    return folder


def _env(tmp_path: Path, url: str) -> dict[str, str]:
    return {
        **os.environ,
        "GRADEFORMER_DATABASE_URL": url,
        "GRADEFORMER_EMBEDDING_CACHE_DIR": str(tmp_path / "emb"),
        "GRADEFORMER_WORKERS": "2",
        "GRADEFORMER_REGRADE_BATCH": "8",
        # the regrade must grade again, in processes that can be killed: with the result cache
        # on, it would reuse the import's results and finish before any process is touched
        "GRADEFORMER_RESULT_CACHE": "false",
    }


def _cli(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _grading(root: int, cpu_seconds: float = 0.2) -> bool:
    """A process of the pool under `root` has spent `cpu_seconds` of CPU: it is grading."""
    ticks = os.sysconf("SC_CLK_TCK")
    for worker in (g for c in children(root) for g in children(c)):
        try:
            fields = Path(f"/proc/{worker}/stat").read_bytes().rpartition(b")")[2].split()
        except OSError:
            continue
        if (int(fields[11]) + int(fields[12])) / ticks >= cpu_seconds:
            return True
    return False


def _count(url: str, query: Select[Any]) -> int:
    engine = make_engine(url)
    try:
        with unit_of_work(make_sessionmaker(engine, read_only=True)) as session:
            return int(session.scalar(query) or 0)
    finally:
        engine.dispose()


@pytest.fixture
def cli_env(sqlite_db: str, tmp_path: Path) -> dict[str, str]:
    """A migrated database with the rubric loaded as `gradeformer rubric load` loads it (in this
    process: the CLI runs under test are the import and the regrade)."""
    rubric = REPO / "rubrics" / f"{SLUG}.yaml"
    engine = make_engine(sqlite_db)
    try:
        with unit_of_work(make_sessionmaker(engine)) as session:
            load_rubric_text(session, rubric.read_text(encoding="utf-8"), str(rubric))
    finally:
        engine.dispose()
    return _env(tmp_path, sqlite_db)


def _all_graded_once(url: str, regrade_job: int | None = None) -> None:
    engine = make_engine(url)
    try:
        with unit_of_work(make_sessionmaker(engine, read_only=True)) as session:
            found = dict(session.execute(select(Submission.id, Submission.status)).tuples().all())
            runs = session.execute(
                select(GradingRun.submission_id, func.count())
                .where(GradingRun.regrade_job_id.is_(None) if regrade_job is None
                       else GradingRun.regrade_job_id == regrade_job)
                .group_by(GradingRun.submission_id)
            ).tuples().all()  # fmt: skip
    finally:
        engine.dispose()
    assert len(found) == DOCUMENTS, "a document was lost"
    assert "grader_error" not in found.values() and not {"queued", "grading"} & set(
        found.values()
    ), found
    assert dict(runs) == dict.fromkeys(found, 1), "a document was not graded exactly once"


@pytest.mark.timeout(900)  # two CLI runs with a retry each; minutes on a loaded 2-core machine
def test_a_grading_process_killed_during_a_cli_import_and_regrade_costs_no_grade(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    url = cli_env["GRADEFORMER_DATABASE_URL"]
    folder = _folder(tmp_path)
    run = _cli(cli_env, "import", str(folder), "--assignment", SLUG)
    # The import stores its results in batches (all 24 at the end here): "grading has begun"
    # is a pool process that has spent CPU time, not a stored row.
    kill_a_grading_process(run.pid, lambda: run.poll() is None, lambda: _grading(run.pid))
    out, _ = run.communicate(timeout=600)
    assert run.returncode == 0, out.decode(errors="replace")
    assert f"imported {DOCUMENTS} of {DOCUMENTS} files" in out.decode(errors="replace")
    _all_graded_once(url)

    run = _cli(cli_env, "regrade", "--assignment", SLUG)
    regraded = select(func.count()).where(GradingRun.regrade_job_id.is_not(None))
    kill_a_grading_process(
        run.pid, lambda: run.poll() is None, lambda: _count(url, regraded) >= 1
    )
    out, _ = run.communicate(timeout=600)
    assert run.returncode == 0, out.decode(errors="replace")
    job = _count(url, select(func.max(RegradeJob.id)))
    assert _count(url, select(RegradeJob.done).where(RegradeJob.id == job)) == DOCUMENTS
    _all_graded_once(url, regrade_job=job)


@pytest.mark.timeout(600)
def test_a_grading_process_killed_during_an_api_regrade_costs_no_grade(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    url = cli_env["GRADEFORMER_DATABASE_URL"]
    folder = _folder(tmp_path)
    imported = _cli(cli_env, "import", str(folder), "--assignment", SLUG)
    assert imported.wait(timeout=600) == 0
    engine = make_engine(url)
    try:
        with unit_of_work(make_sessionmaker(engine)) as session:
            token = create_token(session, "prof", "instructor").token
    finally:
        engine.dispose()
    server = Server(cli_env, tmp_path / "api.log")
    server.start()
    try:
        headers = {"authorization": f"Bearer {token}"}
        started = httpx.post(
            f"{server.base}/api/v1/assignments/{SLUG}/regrade", headers=headers, timeout=60
        )
        assert started.status_code == 202, started.text
        job = started.json()
        assert server.process is not None
        regraded = select(func.count()).where(GradingRun.regrade_job_id == job["id"])
        kill_a_grading_process(
            server.process.pid,
            lambda: httpx.get(f"{server.base}{job['status_url']}", headers=headers).json()[
                "status"
            ] == "running",
            lambda: _count(url, regraded) >= 1,
        )  # fmt: skip
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            job = httpx.get(f"{server.base}{job['status_url']}", headers=headers).json()
            if job["status"] != "running":
                break
            time.sleep(0.3)
        assert job["status"] == "done" and job["done"] == DOCUMENTS, job
    finally:
        server.signal_group(signal.SIGKILL)
    _all_graded_once(url, regrade_job=job["id"])
