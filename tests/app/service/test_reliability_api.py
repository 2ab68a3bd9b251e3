"""Reliability seen from the API: Idempotency-Key, health under a locked database or a full
disk, a clear 503 when the write lock stays taken, and rubric versions that survive restarts."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from app.assignments.service import current_rubric, load_rubric_text, sync_rubric_dir
from app.cli.main import app as cli
from app.db import session as db_session
from app.db.migrate import upgrade
from app.db.models import GradingRun, RubricVersion, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading.jobs import Executor
from app.grading.local import LocalExecutor
from app.main import create_app
from app.settings import Settings, get_settings
from graders.rubric import BUNDLED_RUBRICS
from tests.app.conftest import Api, make_tokens, sqlite_url
from tests.app.fault_helpers import SLOW, grade_with_faults

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"


def _body(n: int) -> dict[str, object]:
    return {"student_id": f"s{n}", "answers": {"b1.d_head": str(n)}}


def test_the_same_idempotency_key_returns_the_same_submission(api: Api) -> None:
    alice = {**api.auth("alice"), "Idempotency-Key": "upload-7f3a"}
    first = api.client.post(UPLOAD, json=_body(64), headers=alice)
    again = api.client.post(UPLOAD, json=_body(64), headers=alice)
    assert first.status_code == 202 and again.status_code in (200, 202)
    assert again.json()["id"] == first.json()["id"]
    with unit_of_work(api.sessions) as session:
        count = session.scalar(
            select(func.count()).where(Submission.idempotency_key == "upload-7f3a")
        )
    assert count == 1

    other = api.client.post(UPLOAD, json=_body(12), headers=alice)
    assert other.status_code == 409
    assert other.json()["submission_id"] == first.json()["id"]
    # the same bytes under the same key to another assignment: a different upload, not a retry
    elsewhere = api.client.post("/api/v1/assignments/cs224n-attention/submissions",
                                json=_body(64), headers=alice)
    assert elsewhere.status_code == 409, elsewhere.text
    assert "another assignment" in elsewhere.json()["detail"]
    with unit_of_work(api.sessions) as session:
        assert session.scalar(
            select(func.count()).where(Submission.idempotency_key == "upload-7f3a")) == 1
    bob = {**api.auth("bob"), "Idempotency-Key": "upload-7f3a"}  # keys are per uploader
    assert api.client.post(UPLOAD, json=_body(64), headers=bob).json()["id"] != first.json()["id"]
    too_long = {**api.auth("alice"), "Idempotency-Key": "k" * 201}
    assert api.client.post(UPLOAD, json=_body(1), headers=too_long).status_code == 422


def test_health_reports_a_locked_database_and_a_low_disk(api: Api) -> None:
    path = api.settings.database_url.removeprefix("sqlite:///")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        locked = api.client.get("/healthz")
        assert time.monotonic() - started < 5
        assert locked.status_code == 503 and locked.json()["database"] == "locked"
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert api.client.get("/healthz").status_code == 200

    saved = api.settings.min_free_disk_bytes
    api.settings.min_free_disk_bytes = 1 << 62
    try:
        low = api.client.get("/healthz")
        assert low.status_code == 503 and low.json()["disk"] == "low"
    finally:
        api.settings.min_free_disk_bytes = saved


def test_a_database_busy_with_one_commit_after_another_is_healthy(api: Api) -> None:
    """A writer that takes the lock again the moment it commits (a regrade storing batch after
    batch) leaves the check no turn of its own; its commits show the database takes writes."""
    path = api.settings.database_url.removeprefix("sqlite:///")
    stop = threading.Event()
    commits = 0

    def busy() -> None:
        nonlocal commits
        writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            while not stop.is_set():
                writer.execute("BEGIN IMMEDIATE")
                writer.execute("UPDATE alembic_version SET version_num = version_num")
                time.sleep(0.03)
                writer.execute("COMMIT")
                commits += 1
        finally:
            writer.close()

    thread = threading.Thread(target=busy)
    thread.start()
    try:
        answers = [api.client.get("/healthz") for _ in range(5)]
    finally:
        stop.set()
        thread.join()
    assert commits > 5
    assert [a.json()["database"] for a in answers] == ["ok"] * 5
    assert all(a.status_code == 200 for a in answers)


@pytest.fixture
def short_lock_app(
    sqlite_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Api]:
    monkeypatch.setattr(db_session, "SQLITE_BUSY_TIMEOUT_MS", 300)
    url = sqlite_db
    settings = Settings(database_url=url, workers=1, embedding_cache_dir=tmp_path / "emb")
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with TestClient(create_app(settings)) as client:
        yield Api(client, sessions, settings, make_tokens(sessions))
    engine.dispose()


def test_an_upload_gets_a_clear_503_while_the_write_lock_stays_taken(short_lock_app: Api) -> None:
    api = short_lock_app
    blocker = sqlite3.connect(api.settings.database_url.removeprefix("sqlite:///"))
    blocker.isolation_level = None
    blocker.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        refused = api.client.post(UPLOAD, json=_body(3), headers=api.auth("alice"))
        assert time.monotonic() - started < 5
        assert refused.status_code == 503
        assert "not stored" in refused.json()["detail"]
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert api.client.post(UPLOAD, json=_body(3), headers=api.auth("alice")).status_code == 202


def _rubric_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "rubrics"
    folder.mkdir()
    shutil.copy(BUNDLED_RUBRICS / f"{SLUG}.yaml", folder / f"{SLUG}.yaml")
    shutil.copytree(BUNDLED_RUBRICS / SLUG, folder / SLUG)
    return folder


def _edited(text: str, title: str) -> str:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("title:"))
    lines[at] = f"title: {title}"
    return "\n".join(lines) + "\n"


def test_a_rubric_loaded_by_an_instructor_stays_current_across_restarts(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    upgrade(url)
    sessions = make_sessionmaker(make_engine(url))
    folder = _rubric_dir(tmp_path)
    bundled = (folder / f"{SLUG}.yaml").read_text()
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, folder)
    with unit_of_work(sessions) as session:  # the instructor's `gradeformer rubric load`
        mine = load_rubric_text(session, _edited(bundled, "Loaded by hand"), "mine.yaml")
        assert mine.changed
    for _ in range(2):  # server starts
        with unit_of_work(sessions) as session:
            sync_rubric_dir(session, folder)
            assert current_rubric(session, SLUG).version.id == mine.version.id

    (folder / f"{SLUG}.yaml").write_text(_edited(bundled, "Changed on disk"))
    with unit_of_work(sessions) as session:  # the file changed since the last sync: it wins
        sync_rubric_dir(session, folder)
        current = current_rubric(session, SLUG).version
        assert "Changed on disk" in current.source_text and current.synced_at is not None


def _as_before_0013(sessions: sessionmaker[Session]) -> None:
    """Every version as a database upgraded from before versions kept their battery files has
    it: none kept, hashed by its text alone."""
    with unit_of_work(sessions) as session:
        for version in session.scalars(select(RubricVersion)):
            version.battery_files = None
            version.content_hash = hashlib.sha256(version.source_text.encode()).hexdigest()


def test_a_synced_rubric_from_before_battery_files_were_kept_is_kept_with_them_once(
        tmp_path: Path) -> None:
    """After the upgrade, the first start stores the unchanged bundled file again with its
    batteries' files: current where the version it replaces was, never over the version an
    instructor loaded since; and the next starts change nothing."""
    folder = _rubric_dir(tmp_path)
    bundled = (folder / f"{SLUG}.yaml").read_text()
    for by_hand in (False, True):
        (tmp_path / str(by_hand)).mkdir()
        url = sqlite_url(tmp_path / str(by_hand))
        upgrade(url)
        sessions = make_sessionmaker(make_engine(url))
        with unit_of_work(sessions) as session:
            current = sync_rubric_dir(session, folder)[0].version.id
            if by_hand:  # the instructor's `gradeformer rubric load`
                current = load_rubric_text(session, _edited(bundled, "By hand"),
                                           "mine.yaml").version.id
        _as_before_0013(sessions)
        for _ in range(2):  # server starts
            with unit_of_work(sessions) as session:
                sync_rubric_dir(session, folder)
                now = current_rubric(session, SLUG).version
                assert (now.id == current) is by_hand
                synced = session.scalar(select(RubricVersion).where(
                    RubricVersion.battery_files.is_not(None)))
                assert synced is not None and synced.synced_at is not None
                assert synced.source_text == bundled
                assert by_hand or synced.id == now.id
                assert session.scalar(select(func.count()).select_from(RubricVersion)) == \
                    2 + by_hand


def test_rubric_list_says_which_version_is_current_and_where_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "g.db"
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", f"sqlite:///{db}")
    get_settings.cache_clear()
    try:
        runner = CliRunner()
        assert runner.invoke(cli, ["db", "upgrade"]).exit_code == 0
        mine = tmp_path / "mine.yaml"
        mine.write_text(_edited((BUNDLED_RUBRICS / f"{SLUG}.yaml").read_text(), "Mine"))
        (tmp_path / SLUG).symlink_to(BUNDLED_RUBRICS / SLUG)  # the rubric's reference files
        assert runner.invoke(cli, ["rubric", "load", str(mine)]).exit_code == 0
        listed = runner.invoke(cli, ["rubric", "list"])
        assert listed.exit_code == 0, listed.output
        row = next(line for line in listed.output.splitlines() if SLUG in line)
        assert "current" in row and "mine.yaml" in row
    finally:
        get_settings.cache_clear()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB filesystem of its own (tmpfs; needs root)."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(directory: Path) -> Path:
    filler = directory / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


@pytest.mark.slow
def test_a_full_disk_loses_nothing_and_grades_everything_once_it_has_room(
    small_disk: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = sqlite_url(small_disk)
    upgrade(url)
    settings = Settings(
        database_url=url,
        workers=1,
        embedding_cache_dir=tmp_path / "emb",
        min_free_disk_bytes=1 << 20,
        grading_lease_seconds=1,
        sweep_interval_seconds=0.3,
        # bulk uploads as one student: the per-student limits are not under test here
        uploads_per_minute=1_000_000,
        upload_burst=1_000_000,
        uploads_in_progress=1_000_000,
        student_quota_bytes=1 << 40,
    )
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    accepted: list[int] = []

    def slow_executor(factory: sessionmaker[Session], s: Settings) -> Executor:
        return LocalExecutor(factory, 1, s.grading_options(), grade=grade_with_faults)

    with TestClient(create_app(settings, slow_executor)) as client:
        auth = {"Authorization": f"Bearer {make_tokens(sessions)['alice']}"}
        for n in range(3):  # still grading when the disk fills up: their results wait
            slow = {**auth, "content-type": "text/plain"}
            body = f"Student: s{n}\nB1: {n}\n".encode() + SLOW
            accepted.append(client.post(UPLOAD, content=body, headers=slow).json()["id"])
        filler = _fill(small_disk)
        assert client.get("/healthz").json()["disk"] == "low"
        refused = 0
        for n in range(5, 15):
            answer = client.post(UPLOAD, json=_body(n), headers=auth)
            if answer.status_code == 202:
                accepted.append(answer.json()["id"])
            else:
                assert answer.status_code == 503, answer.text
                refused += 1
        assert refused > 0
        time.sleep(4)
        filler.unlink()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with unit_of_work(make_sessionmaker(engine, read_only=True)) as session:
                waiting = session.scalar(
                    select(func.count()).where(Submission.status.in_(("queued", "grading")))
                )
            if waiting == 0:
                break
            time.sleep(0.3)
        assert client.get("/healthz").status_code == 200
    with unit_of_work(sessions) as session:
        rows = dict(session.execute(select(Submission.id, Submission.status)).tuples().all())
        runs = session.execute(
            select(GradingRun.submission_id, func.count()).group_by(GradingRun.submission_id)
        ).tuples()
        counts = {i: n for i, n in runs}
    engine.dispose()
    assert "storing" in caplog.text and "failed" in caplog.text  # the fault did hit a write
    assert sorted(rows) == sorted(accepted)  # every accepted upload is there, nothing else
    assert all(status in ("graded", "needs_review", "pending") for status in rows.values()), rows
    assert all(counts.get(i) == 1 for i in accepted), counts
