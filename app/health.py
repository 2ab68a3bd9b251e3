"""What /healthz checks: the database takes a write (not only a read), and the disks beside the
database and the caches have room; a full disk or a held write lock makes the service unhealthy
instead of letting results fail to store behind an "ok".

A busy SQLite database is not a locked one: while a regrade stores batch after batch, the write
lock is taken most of the time, and a check that waited for its own turn waited up to its full
second (and, on a loaded machine, past it) for a database that took every write. So the check
tries for the lock in short waits and, between them, asks whether another connection committed
meanwhile (`PRAGMA data_version`): a commit seen is a database taking writes, answered at once;
only a lock held with no commit for the whole wait is "locked"."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app.db.session import SQLITE_BUSY_TIMEOUT_MS
from app.settings import Settings

# The health check waits this long for the write lock, not the service's full lock timeout.
LOCK_WAIT_MS = 1000
# On SQLite, in waits this long each, looking for another connection's commit between them.
PROBE_WAIT_MS = 100


@dataclass(frozen=True)
class Health:
    database: str  # "ok", "locked" or "unavailable"
    free_disk_bytes: int | None
    min_free_disk_bytes: int

    @property
    def ok(self) -> bool:
        return self.database == "ok" and not self.disk_low

    @property
    def disk_low(self) -> bool:
        return self.free_disk_bytes is not None and self.free_disk_bytes < self.min_free_disk_bytes

    def body(self) -> dict[str, object]:
        return {
            "status": "ok" if self.ok else "unhealthy",
            "database": self.database,
            "disk": "low" if self.disk_low else "ok",
            "free_disk_bytes": self.free_disk_bytes,
        }


def _directories(settings: Settings) -> list[Path]:
    url = make_url(settings.database_url)
    found: list[Path] = []
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        found.append(Path(url.database).resolve().parent)
    found.append(settings.resolved_embedding_cache_dir().resolve())
    return found


def free_disk(settings: Settings) -> int | None:
    """The least free space among the directories the service writes to (that exist)."""
    free: list[int] = []
    for directory in _directories(settings):
        probe = directory
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        try:
            free.append(shutil.disk_usage(probe).free)
        except OSError:
            continue
    return min(free) if free else None


def database_writable(engine: Engine) -> str:
    """Take the write lock and write a row, then roll back: a read-only, locked or unreachable
    database is reported, each in its own words."""
    try:
        with engine.connect() as connection:
            if connection.dialect.name == "sqlite":
                return _sqlite_writable(connection)
            connection.exec_driver_sql(f"SET LOCAL lock_timeout = {LOCK_WAIT_MS}")
            _write_and_undo(connection)
    except Exception as exc:
        return "locked" if "lock" in str(exc).lower() else "unavailable"
    return "ok"


def _write_and_undo(connection: Connection) -> None:
    connection.execute(text("UPDATE alembic_version SET version_num = version_num"))
    connection.rollback()


def _sqlite_writable(connection: Connection) -> str:
    """"ok" once the write goes through or another connection commits; "locked" when neither
    happens within LOCK_WAIT_MS."""
    deadline = time.monotonic() + LOCK_WAIT_MS / 1000
    # On the driver's connection, before SQLAlchemy begins (and takes the lock).
    _driver_sql(connection, f"PRAGMA busy_timeout={PROBE_WAIT_MS}")
    try:
        version = _data_version(connection)
        while True:
            try:
                _write_and_undo(connection)
                return "ok"
            except OperationalError as exc:
                connection.rollback()
                if "lock" not in str(exc).lower():
                    raise
            if _data_version(connection) != version:
                return "ok"  # another connection's write landed meanwhile: writes go through
            if time.monotonic() >= deadline:
                return "locked"
    finally:
        _driver_sql(connection, f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")


def _data_version(connection: Connection) -> int:
    """Changes whenever another connection commits to the database (SQLite's data_version)."""
    return int(_driver_sql(connection, "PRAGMA data_version") or 0)


def _driver_sql(connection: Connection, statement: str) -> Any:
    """`statement` on the driver's connection (outside SQLAlchemy's transaction); the first
    column of its first row, if it returns any."""
    cursor = connection.connection.cursor()
    try:
        cursor.execute(statement)
        row = cursor.fetchone()
        return row[0] if row else None
    finally:
        cursor.close()


def check(engine: Engine, settings: Settings) -> Health:
    return Health(database_writable(engine), free_disk(settings), settings.min_free_disk_bytes)
