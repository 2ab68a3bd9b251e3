"""Background grading: uploads stored before grading, queued work picked up at startup."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

from app.assignments.service import sync_rubric_dir
from app.db.migrate import upgrade
from app.db.models import Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.main import create_app
from app.settings import Settings
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.rubric import BUNDLED_RUBRICS
from tests.app.conftest import sqlite_url

SLUG = "transformer-basics"


def test_submissions_left_queued_are_graded_at_startup(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        # Stored, then the server "stopped" before grading them.
        ids = [
            accept(
                session,
                SLUG,
                Upload(b'{"answers": {"B1": "64"}}', f"{i}.json", "application/json", f"s{i}"),
                None,
                10_000,
            ).submission.id
            for i in range(3)
        ]
    with TestClient(create_app(Settings(database_url=url, workers=1))):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with unit_of_work(sessions) as session:
                statuses = [session.get(Submission, i).status for i in ids]  # type: ignore[union-attr]
            if all(s not in ("queued", "grading") for s in statuses):
                break
            time.sleep(0.2)
    assert all(s in ("graded", "needs_review", "pending") for s in statuses), statuses
    engine.dispose()
