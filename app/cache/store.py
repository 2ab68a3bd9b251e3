"""The result cache on disk: one SQLite file beside the database, shared by grading processes.

SQLite in WAL mode lets every grading process of the machine read while one writes, whatever
the main database is (SQLite or PostgreSQL): the cache holds only derived, re-computable data,
so it stays out of the main database's transactions and backups. Writes are buffered and go in
one short transaction per document. Entries carry the time they were last used; past the size
cap the least recently used are evicted (a read refreshes an entry's time of last use when it
is older than `TOUCH_AFTER_S`). A file that cannot be opened, a locked database or a disk error
only turns reads into misses and drops writes: grading never waits on the cache.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graders.cache import NO_CACHE, ResultCache
from graders.options import GradingOptions

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    value BLOB NOT NULL,
    size INTEGER NOT NULL,
    used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_used ON entries (used);
"""
BUSY_MS = 200  # a writer holding the file longer than this: the entry is dropped, not waited on
EVICT_TO = 0.8  # eviction brings the size down to this share of the cap
CHECK_EVERY = 64  # flushes between size checks
EVICT_BATCH = 50_000  # entries looked at per eviction (the next check continues)
# An entry's last-used time is refreshed by a read only when it is older than this: eviction
# needs no finer order, and a regrade soon after grading (or another regrade) then does not
# rewrite every entry it reads (each refresh rewrites the entry and its `used` index entry).
TOUCH_AFTER_S = 3600.0


class SqliteStore:
    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._pending: dict[str, bytes] = {}
        self._touched: set[str] = set()
        self._flushes = 0
        self._pid = os.getpid()
        # A process may grade in several threads; one connection, used by one at a time.
        self._lock = threading.RLock()
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None,
                             check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        # A lost entry on power failure is a miss; a checksum catches a torn one.
        db.execute("PRAGMA synchronous=OFF")
        db.executescript(_SCHEMA)
        return db

    def _connection(self) -> sqlite3.Connection:
        if os.getpid() != self._pid:  # forked: never share a connection across processes
            self._pid = os.getpid()
            self._db = self._open()
        return self._db

    def get(self, key: str) -> bytes | None:
        with self._lock:
            return self._get(key)

    def _get(self, key: str) -> bytes | None:
        pending = self._pending.get(key)
        if pending is not None:
            return pending
        try:
            row = self._connection().execute(
                "SELECT value, used FROM entries WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        if row is None or not isinstance(row[0], bytes):
            return None
        if not isinstance(row[1], int | float) or time.time() - row[1] >= TOUCH_AFTER_S:
            self._touched.add(key)
        return row[0]

    def put(self, key: str, value: bytes) -> None:
        with self._lock:
            self._put(key, value)

    def _put(self, key: str, value: bytes) -> None:
        if len(value) <= self.max_bytes:
            self._pending[key] = value

    def flush(self) -> None:
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        if not self._pending and not self._touched:
            return
        pending, touched = self._pending, self._touched
        self._pending, self._touched = {}, set()
        now = time.time()
        db = self._connection()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT OR REPLACE INTO entries (key, value, size, used) VALUES (?, ?, ?, ?)",
                    [(k, v, len(v), now) for k, v in pending.items()])
                if touched:
                    db.executemany("UPDATE entries SET used = ? WHERE key = ?",
                                   [(now, k) for k in touched])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            log.debug("result cache: %d entries not stored (%s)", len(pending), exc)
            return
        self._flushes += 1
        if self._flushes % CHECK_EVERY == 1:
            self.evict()

    def size(self) -> int:
        with self._lock:
            return self._size()

    def _size(self) -> int:
        row = self._connection().execute("SELECT total(size) FROM entries").fetchone()
        return int(row[0])

    def evict(self) -> int:
        with self._lock:
            return self._evict()

    def _evict(self) -> int:
        """Drop least recently used entries while the file holds more than the cap."""
        try:
            # The entries cannot hold more than the file: below the cap, no scan of them all.
            db = self._connection()
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            if int(pages) * int(db.execute("PRAGMA page_size").fetchone()[0]) <= self.max_bytes:
                return 0
            total = self.size()
            if total <= self.max_bytes:
                return 0
            excess = total - int(self.max_bytes * EVICT_TO)
            freed = 0
            rows = db.execute("SELECT key, size FROM entries ORDER BY used LIMIT ?",
                              (EVICT_BATCH,)).fetchall()
            victims: list[tuple[str]] = []
            for key, size in rows:
                if freed >= excess:
                    break
                victims.append((key,))
                freed += int(size)
            db.execute("BEGIN IMMEDIATE")
            db.executemany("DELETE FROM entries WHERE key = ?", victims)
            db.execute("COMMIT")
            return len(victims)
        except sqlite3.Error as exc:
            log.debug("result cache: eviction skipped (%s)", exc)
            return 0

    def count(self) -> int:
        with self._lock:
            return self._count()

    def _count(self) -> int:
        return int(self._connection().execute("SELECT count(*) FROM entries").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        self.flush()
        with contextlib.suppress(sqlite3.Error):
            self._db.close()


def open_cache(options: Mapping[str, Any]) -> ResultCache:
    """The grading process's cache from its options (`result_cache_path`, `_bytes`)."""
    settings = GradingOptions.from_mapping(options)
    path = settings.result_cache_path
    if path is None:
        return NO_CACHE
    try:
        store = SqliteStore(path, settings.result_cache_bytes)
    except (sqlite3.Error, OSError) as exc:
        log.warning("result cache %s unusable (%s): grading without it", path, exc)
        return NO_CACHE
    return ResultCache(store)
