"""Regrade as a background job: one live job per assignment, idempotent starts, status to poll,
shared by the API and the CLI; `serve` on an unmigrated database; the per-document deadline."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from app.assignments.service import sync_rubric_dir
from app.cli.main import app as cli
from app.db.base import utcnow
from app.db.migrate import is_current
from app.db.models import GradingRun, RegradeJob
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading import worker
from app.regrade import jobs
from app.settings import get_settings
from graders.context import GradingResources
from graders.rubric import BUNDLED_RUBRICS
from tests.app.conftest import Api

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
REGRADE = f"/api/v1/assignments/{SLUG}/regrade"


def _wait(api: Api, job: dict[str, Any], seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while job["status"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        job = api.client.get(job["status_url"], headers=api.auth("prof")).json()
    return job


def _runs(api: Api) -> int:
    with unit_of_work(api.sessions) as session:
        return int(session.scalar(select(func.count(GradingRun.id))) or 0)


def test_a_regrade_flood_runs_one_job_once(api: Api) -> None:
    for n in range(6):
        api.client.post(f"{UPLOAD}?wait=true", json={"answers": {"B1": str(n)}},
                        headers=api.auth("alice"))
    before = _runs(api)
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(
            lambda _: api.client.post(REGRADE, headers=api.auth("prof")), range(16)
        ))
    assert {a.status_code for a in answers} == {202}
    started = {a.json()["id"] for a in answers}
    job = _wait(api, answers[0].json())
    assert job["status"] == "done" and job["done"] == job["total"] == 6
    # Every start landed on a job that then graded each submission exactly once.
    assert _runs(api) - before == 6 * len(started)
    # However fast a job ends, a start after it ended begins the next one, never a second job
    # beside a running one: the jobs the flood started ran one after the other.
    jobs = sorted((_wait(api, api.client.get(f"/api/v1/regrades/{i}",
                                             headers=api.auth("prof")).json())
                   for i in started), key=lambda j: j["started_at"])
    assert all(j["status"] == "done" for j in jobs), jobs
    for earlier, later in pairwise(jobs):
        assert datetime.fromisoformat(later["started_at"]) >= \
            datetime.fromisoformat(earlier["finished_at"]), jobs
    latest = api.client.get(REGRADE, headers=api.auth("prof")).json()
    assert latest["id"] == max(started)
    assert api.client.get(REGRADE, headers=api.auth("alice")).status_code == 403
    assert api.client.get("/api/v1/regrades/999999", headers=api.auth("prof")).status_code == 404


def test_a_live_job_is_never_started_twice_and_a_stale_one_is_taken_over(api: Api) -> None:
    with unit_of_work(api.sessions) as session:
        first = jobs.claim(session, SLUG, None)
    assert first.ours
    with unit_of_work(api.sessions) as session:
        again = jobs.claim(session, SLUG, None)
    assert again == jobs.Claim(first.job_id, ours=False, resumed=False)
    started = api.client.post(REGRADE, headers=api.auth("prof")).json()
    assert started["id"] == first.job_id and started["status"] == "running"
    with unit_of_work(api.sessions) as session:  # the runner died an hour ago
        job = session.get(RegradeJob, first.job_id)
        assert job is not None
        job.heartbeat_at = utcnow() - timedelta(hours=1)
    taken = api.client.post(REGRADE, headers=api.auth("prof")).json()
    assert taken["id"] == first.job_id
    assert _wait(api, taken)["status"] == "done"


@pytest.fixture
def cli_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'var' / 'g.db'}"
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def test_the_cli_follows_a_job_running_elsewhere(cli_db: str) -> None:
    from app.db.migrate import upgrade

    upgrade(cli_db)
    sessions = make_sessionmaker(make_engine(cli_db))
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        claim = jobs.claim(session, SLUG, None)

    def finish_elsewhere() -> None:
        time.sleep(1.5)
        with unit_of_work(sessions) as session:
            job = session.get(RegradeJob, claim.job_id)
            assert job is not None
            job.status, job.finished_at = "done", utcnow()

    threading.Thread(target=finish_elsewhere).start()
    result = CliRunner().invoke(cli, ["regrade", "--assignment", SLUG])
    assert result.exit_code == 0, (result.output, result.exception)
    assert f"regrade job {claim.job_id} of {SLUG}: done" in result.output


def test_serve_migrates_the_embedded_sqlite_database(
    cli_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append(k))
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert is_current(cli_db)
    assert calls[0]["limit_concurrency"] > 0 and calls[0]["timeout_keep_alive"] > 0


def test_serve_refuses_another_unmigrated_database_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.db import migrate

    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", "postgresql+psycopg://u@127.0.0.1:1/none")
    get_settings.cache_clear()
    # `serve` imports the migrations when it runs (app/cli/ops.py): patched where they live.
    monkeypatch.setattr(migrate, "is_current", lambda _url: False)
    try:
        result = CliRunner().invoke(cli, ["serve"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "gradeformer db upgrade" in lines[0]
    assert "Traceback" not in result.output


def test_a_document_past_its_deadline_is_needs_review_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def slow(*_: Any) -> worker.WorkerOutcome:
        time.sleep(5)
        raise AssertionError("the deadline did not fire")

    monkeypatch.setattr(worker, "_grade", slow)
    rubric = (BUNDLED_RUBRICS / f"{SLUG}.yaml").read_text()
    started = time.monotonic()
    outcome = worker.grade_document(
        rubric, b"B1: 64", "a.txt", "text/plain",
        GradingResources(options={"document_seconds": 0.2}),
    )
    assert time.monotonic() - started < 2
    assert outcome.status == "needs_review" and "0.2 s" in (outcome.error or "")


def test_a_released_job_is_taken_over_at_once(api: Api) -> None:
    with unit_of_work(api.sessions) as session:
        lease = jobs.claim(session, SLUG, None)
        assert lease.ours
    with unit_of_work(api.sessions) as session:
        jobs.release(session, lease.job_id)  # what a shutdown does with a job it stopped
    with unit_of_work(api.sessions) as session:
        again = jobs.claim(session, SLUG, None)
    assert again == jobs.Claim(lease.job_id, ours=True, resumed=True)
    with unit_of_work(api.sessions) as session:
        jobs.fail(session, lease.job_id, "stopped by the test\x00\x1b[31m")
        job = session.get(RegradeJob, lease.job_id)
        assert job is not None and job.status == "failed"
        assert job.error is not None and "\x00" not in job.error and "\x1b" not in job.error


def test_reading_has_its_own_shorter_share_of_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def slow_read(*_: Any) -> None:
        time.sleep(5)
        raise AssertionError("the reading deadline did not fire")

    monkeypatch.setattr(worker, "read_submission", slow_read)
    rubric = (BUNDLED_RUBRICS / f"{SLUG}.yaml").read_text()
    started = time.monotonic()
    outcome = worker.grade_document(
        rubric, b"B1: 64", "a.txt", "text/plain",
        GradingResources(options={"document_seconds": 30, "parse_seconds": 0.2}),
    )
    assert time.monotonic() - started < 2
    assert outcome.status == "needs_review" and "Reading" in (outcome.error or "")


def test_the_document_deadline_still_holds_after_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow_grading(*_: Any) -> None:
        time.sleep(5)
        raise AssertionError("the document deadline did not fire")

    monkeypatch.setattr(worker, "grade_submission", slow_grading)
    rubric = (BUNDLED_RUBRICS / f"{SLUG}.yaml").read_text()
    started = time.monotonic()
    outcome = worker.grade_document(
        rubric, b"B1: 64", "a.txt", "text/plain",
        GradingResources(options={"document_seconds": 0.5, "parse_seconds": 0.3}),
    )
    assert time.monotonic() - started < 2.5
    assert outcome.status == "needs_review" and "per-document limit" in (outcome.error or "")
