"""The staff-editions migration (0012) on a SQLite file that already holds submissions: what
each one declared is kept as its declaration, and a downgrade leaves the edition graded."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect, text

from app.db.migrate import downgrade, upgrade
from app.db.session import make_engine
from tests.app.conftest import sqlite_url

BEFORE = "0011_regrade_requests"


def _shape(url: str) -> tuple[set[str], set[str], bool]:
    engine = make_engine(url)
    try:
        found = inspect(engine)
        return ({c["name"] for c in found.get_columns("assignments")},
                {c["name"] for c in found.get_columns("submissions")},
                "student_editions" in found.get_table_names())
    finally:
        engine.dispose()


def test_declarations_are_kept_up_and_the_graded_edition_down(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    upgrade(url, BEFORE)
    assignments, submissions, table = _shape(url)
    assert "handout" not in assignments and "declared_handout" not in submissions and not table
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO assignments (slug, title, created_at) "
                "VALUES ('hw', 'Homework', '2026-09-01 00:00:00')"))
            for handout in ("'2022'", "NULL"):
                connection.execute(text(
                    "INSERT INTO submissions (assignment_id, student, handout, size, sha256, raw, "
                    "status, created_at, updated_at) VALUES (1, 's1', " + handout + ", 1, 'x', "
                    "X'00', 'graded', '2026-09-01 00:00:00', '2026-09-01 00:00:00')"))
        upgrade(url)
        assignments, submissions, table = _shape(url)
        assert "handout" in assignments and "declared_handout" in submissions and table
        with engine.begin() as connection:
            rows = connection.execute(text(
                "SELECT handout, declared_handout FROM submissions ORDER BY id")).all()
            assert [tuple(r) for r in rows] == [("2022", "2022"), (None, None)]
            assert connection.execute(text("SELECT handout FROM assignments")).scalar() is None
            connection.execute(text(
                "INSERT INTO student_editions (assignment_id, student, handout, updated_at) "
                "VALUES (1, 's1', '2021', '2026-09-02 00:00:00')"))
            connection.execute(text("UPDATE submissions SET handout = '2021'"))
        downgrade(url, BEFORE)
        assignments, submissions, table = _shape(url)
        assert "handout" not in assignments and "declared_handout" not in submissions and not table
        with engine.connect() as connection:
            assert connection.execute(text(
                "SELECT handout FROM submissions ORDER BY id")).scalars().all() == ["2021", "2021"]
        upgrade(url)
        assert _shape(url)[2]
    finally:
        engine.dispose()
