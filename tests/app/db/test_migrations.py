"""The Alembic migrations build the schema on SQLite (WAL) and PostgreSQL, and go back down."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from app.db.base import Base
from app.db.migrate import downgrade, is_current, upgrade
from app.db.session import make_engine
from tests.app.conftest import sqlite_url

TABLES = {
    "assignments",
    "rubric_versions",
    "users",
    "api_tokens",
    "submissions",
    "grading_runs",
    "item_scores",
    "overrides",
    "regrade_jobs",
    "audit_log",
    "roster_students",
    "risk_targets",
    "calibration_snapshots",
    "active_checks",
    "regrade_requests",
    "student_editions",
}


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_migration_matches_models(db_url: str) -> None:
    assert _tables(db_url) == TABLES == set(Base.metadata.tables)
    assert is_current(db_url)
    engine = make_engine(db_url)
    try:
        columns = {c["name"]: c for c in inspect(engine).get_columns("item_scores")}
        # Scores are exact: a fixed-point column, not a float.
        assert "NUMERIC" in str(columns["points"]["type"]).upper()
    finally:
        engine.dispose()


def test_downgrade_and_upgrade_again(db_url: str) -> None:
    downgrade(db_url)
    assert _tables(db_url) == set()
    upgrade(db_url)
    assert _tables(db_url) == TABLES


def test_sqlite_is_a_wal_file_under_the_configured_path(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "nested" / "dir")
    upgrade(url)
    assert (tmp_path / "nested" / "dir" / "gradeformer.db").is_file()
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_postgres_database_is_its_own(postgres_db: str) -> None:
    assert "gf_test_" in postgres_db
    assert is_current(postgres_db)
