"""What /healthz checks: the database takes a write (not only a read), and the disks beside the
database and the caches have room; a full disk or a held write lock makes the service unhealthy
instead of letting results fail to store behind an "ok"."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, text
from sqlalchemy.engine import make_url

from app.db.session import SQLITE_BUSY_TIMEOUT_MS
from app.settings import Settings

# The health check waits this long for the write lock, not the service's full lock timeout.
LOCK_WAIT_MS = 1000


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
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                # On the driver's connection, before SQLAlchemy begins (and takes the lock).
                _driver_sql(connection, f"PRAGMA busy_timeout={LOCK_WAIT_MS}")
            try:
                if not sqlite:
                    connection.exec_driver_sql(f"SET LOCAL lock_timeout = {LOCK_WAIT_MS}")
                connection.execute(text("UPDATE alembic_version SET version_num = version_num"))
                connection.rollback()
            finally:
                if sqlite:
                    _driver_sql(connection, f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    except Exception as exc:
        return "locked" if "lock" in str(exc).lower() else "unavailable"
    return "ok"


def _driver_sql(connection: Connection, statement: str) -> None:
    cursor = connection.connection.cursor()
    try:
        cursor.execute(statement)
    finally:
        cursor.close()


def check(engine: Engine, settings: Settings) -> Health:
    return Health(database_writable(engine), free_disk(settings), settings.min_free_disk_bytes)
