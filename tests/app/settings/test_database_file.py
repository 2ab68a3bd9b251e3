"""The settings read a SQLite URL's file as SQLAlchemy does, without importing it (the offline
commands start without the ORM): checked against SQLAlchemy's own reading."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import make_url

from app.settings import Settings, sqlite_file


@pytest.mark.parametrize("url", [
    "sqlite:///./var/gradeformer.db",
    "sqlite:////srv/grading/g.db",
    "sqlite:////tmp/with space.db",
    "sqlite:///rel%20x.db",
    "sqlite+pysqlite:///x.db?mode=ro",
    "sqlite://",
    "sqlite:///",
    "sqlite:///:memory:",
    "postgresql+psycopg://postgres@127.0.0.1:5432/test",
    "postgresql://u:p@h/sqlite.db",
])
def test_the_file_of_a_sqlite_url_is_sqlalchemys(url: str) -> None:
    parsed = make_url(url)
    expected = parsed.database if (parsed.get_backend_name() == "sqlite"
                                   and parsed.database not in (None, "", ":memory:")) else None
    assert sqlite_file(url) == expected


def test_the_caches_sit_beside_a_sqlite_database() -> None:
    settings = Settings(database_url="sqlite:////srv/grading/g.db")
    assert str(settings.resolved_embedding_cache_dir()) == "/srv/grading/embedding-cache"
    other = Settings(database_url="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    assert str(other.resolved_embedding_cache_dir()) == "var/embedding-cache"
