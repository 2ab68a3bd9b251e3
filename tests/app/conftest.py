"""Databases built by running the migrations (SQLite file, PostgreSQL), and a live test app.

The migrations run once per test session, into a template of each backend; every test then gets
its own copy (a file copy on SQLite, `CREATE DATABASE ... TEMPLATE` on PostgreSQL): as fresh as a
migrated database, for a fraction of the time. tests/app/db/test_migrations.py runs the migrations
themselves, up and down, on its copies.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.orm import Session, sessionmaker

from app.auth.service import create_token
from app.db.migrate import upgrade
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.main import create_app
from app.settings import Settings
from tests.support.faultkit import migrated_postgres

PG_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'gradeformer.db'}"


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to the newest revision, never opened by a test: copy it."""
    directory = tmp_path_factory.mktemp("sqlite-template")
    upgrade(sqlite_url(directory))
    return directory / "gradeformer.db"


def copy_sqlite_file(source: Path, target: Path) -> None:
    """`source` copied to `target` by SQLite's backup API, which copies what a write-ahead log
    may still hold, not only the main file."""
    original, copy = sqlite3.connect(source), sqlite3.connect(target)
    try:
        original.backup(copy)
    finally:
        original.close()
        copy.close()


def copy_sqlite(template: Path, directory: Path) -> str:
    """A copy of the migrated `template` as directory/gradeformer.db; its URL."""
    copy_sqlite_file(template, directory / "gradeformer.db")
    return sqlite_url(directory)


@pytest.fixture
def sqlite_db(sqlite_template: Path, tmp_path: Path) -> str:
    """tmp_path/gradeformer.db, migrated (a copy of the session's template)."""
    return copy_sqlite(sqlite_template, tmp_path)


@pytest.fixture(scope="session")
def regrade_graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The regrade tests' mixed set graded once per session with the result cache
    (test_regrade_fast.grade_mixed_set): a folder their `Setup` copies, never opened by a test."""
    from tests.app.regrade.test_fast import grade_mixed_set

    folder = tmp_path_factory.mktemp("regrade-graded")
    grade_mixed_set(folder)
    return folder


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """The name of a database on the local server, migrated once per session, dropped at the end;
    nothing stays connected to it, so that it can be copied."""
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as exc:  # the server is not there: say so, do not fail
        admin.dispose()
        pytest.skip(f"PostgreSQL at 127.0.0.1:5432 is unreachable: {type(exc).__name__}")
    admin.dispose()
    with migrated_postgres(PG_ADMIN_URL, "gf_template") as url:
        name = make_url(url).database
        assert name is not None
        yield name


@pytest.fixture
def postgres_db(postgres_template: str) -> Iterator[str]:
    """A fresh database gf_test_<random> on the local server, migrated (a copy of the session's
    template), dropped afterwards."""
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"gf_test_{secrets.token_hex(6)}"
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{postgres_template}"'))
        try:
            yield make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest) -> str:
    """Both backends: repository tests run once on each."""
    fixture = "sqlite_db" if request.param == "sqlite" else "postgres_db"
    url: str = request.getfixturevalue(fixture)
    return url


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(db_url)
    yield make_sessionmaker(engine)
    engine.dispose()


@dataclass
class Api:
    client: TestClient
    sessions: sessionmaker[Session]
    settings: Settings
    tokens: dict[str, str]

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


def make_tokens(sessions: sessionmaker[Session]) -> dict[str, str]:
    people = {"alice": "student", "bob": "student", "prof": "instructor", "root": "admin"}
    tokens: dict[str, str] = {}
    with unit_of_work(sessions) as session:
        for name, role in people.items():
            tokens[name] = create_token(session, name, role).token
    return tokens


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Api]:
    """One running app per test module: a real SQLite file and a real process pool."""
    directory = tmp_path_factory.mktemp("api")
    url = copy_sqlite(sqlite_template, directory)
    # Per-student limits are tested on their own app; these modules upload in bursts.
    settings = Settings(
        database_url=url,
        workers=1,
        max_upload_bytes=64 * 1024,
        upload_burst=10_000,
        uploads_per_minute=10_000,
        uploads_in_progress=1_000,
    )
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with TestClient(create_app(settings)) as client:
        yield Api(client, sessions, settings, make_tokens(sessions))
    engine.dispose()
