"""The visibility-and-release migration on a database that already holds data."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect, text

from app.db.migrate import downgrade, upgrade
from app.db.session import make_engine
from tests.app.conftest import sqlite_url

NEW = {
    "assignments": {"opens_at", "due_at", "late_until", "late_penalty_percent",
                    "max_submissions", "counts", "grades_published_at"},
    "submissions": {"chosen"},
    "grading_runs": {"execution_time"},
    "item_scores": {"student_feedback"},
}


def _columns(url: str) -> dict[str, set[str]]:
    engine = make_engine(url)
    try:
        found = inspect(engine)
        return {table: {c["name"] for c in found.get_columns(table)} for table in NEW}
    finally:
        engine.dispose()


def test_existing_rows_get_the_defaults_and_survive_a_downgrade(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    upgrade(url, "0001")
    assert all(not (cols & NEW[t]) for t, cols in _columns(url).items())
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO assignments (slug, title, created_at) "
                "VALUES ('hw', 'Homework', '2026-09-01 00:00:00')"
            ))
            connection.execute(text(
                "INSERT INTO submissions (assignment_id, size, sha256, raw, status, created_at, "
                "updated_at) VALUES (1, 1, 'x', X'00', 'graded', '2026-09-01 00:00:00', "
                "'2026-09-01 00:00:00')"
            ))
        upgrade(url)
        assert all(NEW[t] <= cols for t, cols in _columns(url).items())
        with engine.connect() as connection:
            row = connection.execute(text(
                "SELECT counts, late_penalty_percent, max_submissions, grades_published_at "
                "FROM assignments"
            )).one()
            assert row.counts == "latest" and float(row.late_penalty_percent) == 0
            assert row.max_submissions is None and row.grades_published_at is None
            assert connection.execute(text("SELECT chosen FROM submissions")).scalar() in (0, False)
        downgrade(url, "0001")
        assert all(not (cols & NEW[t]) for t, cols in _columns(url).items())
        with engine.connect() as connection:
            assert connection.execute(text("SELECT slug FROM assignments")).scalar() == "hw"
            assert connection.execute(text("SELECT count(*) FROM submissions")).scalar() == 1
    finally:
        engine.dispose()
