"""Engines and sessions. SQLite runs in WAL mode with immediate transactions; PostgreSQL by URL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 30_000
SQLITE_CACHE_KIB = 32_768  # per connection, at most: pages are cached as they are used
SQLITE_MMAP_BYTES = 1 << 30
READ_ONLY = "gradeformer_read_only"


def _sqlite_file(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" hook below open transactions instead of the driver.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        # A regrade's transaction of 1,000 runs dirties over 2,000 pages (8 MB and more: each
        # run's row, each moved item row, the new rows): with the default 2 MB cache they
        # spill to the WAL mid-transaction and are read back and written again.
        cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
        # Reads map the file instead of copying each page out of it: a regrade batch reads a
        # page or two of every one of its 1,000 runs and submissions, each once, cold.
        cursor.execute(f"PRAGMA mmap_size={SQLITE_MMAP_BYTES}")
        # Temporary files (the statement journals of multi-row writes, sorts) in memory: a
        # regrade batch's moves of runs and item rows otherwise wrote ~9,000 pages a batch to
        # files in /var/tmp that are deleted unread. They hold at most what one statement
        # changes or sorts, bounded by the batch sizes and the requests' limits.
        cursor.execute("PRAGMA temp_store=MEMORY")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # IMMEDIATE takes the write lock up front: a deferred transaction that reads and then
        # writes fails at once with SQLITE_BUSY when another writer committed in between, while
        # an immediate one simply waits its turn (busy_timeout). Read-only sessions never
        # write, so they take a plain snapshot and block nobody.
        read_only = connection.get_execution_options().get(READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def make_engine(url: str, **kwargs: Any) -> Engine:
    path = _sqlite_file(url)
    if make_url(url).get_backend_name() == "sqlite":
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        connect_args = {"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        _configure_sqlite(engine)
        return engine
    if make_url(url).get_backend_name() == "postgresql" and "connect_args" not in kwargs:
        # The same bounded wait for a lock as on SQLite: past it, a clear error (an upload gets
        # 503, a result write is retried), not a request that hangs.
        kwargs["connect_args"] = {"options": f"-c lock_timeout={SQLITE_BUSY_TIMEOUT_MS}"}
    return create_engine(url, pool_pre_ping=True, **kwargs)


def read_only_engine(engine: Engine) -> Engine:
    """`engine` for work that never writes: on SQLite its transactions take no lock."""
    return engine.execution_options(**{READ_ONLY: True})


def make_sessionmaker(engine: Engine, read_only: bool = False) -> sessionmaker[Session]:
    """Sessions on `engine`; read-only ones must not write (on SQLite they hold no lock)."""
    bind = read_only_engine(engine) if read_only else engine
    return sessionmaker(bind, expire_on_commit=False)


@contextmanager
def unit_of_work(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One transaction outside a request (CLI, background writer): commit or roll back."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
