"""The result cache's file store (app.cache.store.SqliteStore): when a read refreshes an entry's
time of last use, and that eviction still drops the least recently used first. A fake clock
stands in for `time.time` so that hours pass at once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cache import store as store_module
from app.cache.store import TOUCH_AFTER_S, SqliteStore
from app.db.session import make_engine


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _used(path: Path) -> dict[str, float]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT key, used FROM entries").fetchall())


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock(1_000_000.0)
    monkeypatch.setattr(store_module.time, "time", fake)
    return fake


def test_a_read_soon_after_the_last_use_writes_nothing(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "c.sqlite"
    store = SqliteStore(path, max_bytes=1 << 20)
    store.put("a", b"x" * 100)
    store.flush()
    written = _used(path)["a"]
    clock.now += TOUCH_AFTER_S / 2
    assert store.get("a") == b"x" * 100
    store.flush()
    assert _used(path)["a"] == written  # not rewritten
    clock.now += TOUCH_AFTER_S
    assert store.get("a") == b"x" * 100
    store.flush()
    assert _used(path)["a"] == clock.now  # older than TOUCH_AFTER_S: refreshed
    store.close()


@settings(max_examples=30, deadline=None)
@given(reads=st.lists(st.tuples(st.integers(0, 5), st.floats(0, 4)), max_size=12))
def test_eviction_drops_the_least_recently_used_to_within_the_interval(
    tmp_path_factory: pytest.TempPathFactory, reads: list[tuple[int, float]]
) -> None:
    """Whatever reads come, hours apart or not: each entry's time of last use is its last
    read's to within TOUCH_AFTER_S, and eviction drops the entries with the oldest."""
    path = tmp_path_factory.mktemp("lru") / "c.sqlite"
    start = 1_000_000.0
    clock = Clock(start)
    original = store_module.time.time
    store_module.time.time = clock  # type: ignore[assignment]
    try:
        store = SqliteStore(path, max_bytes=1 << 20)
        for index in range(6):
            store.put(f"k{index}", bytes([index]) * 1000)
        store.flush()
        read_last = {f"k{index}": start for index in range(6)}  # when each was last used
        stamp = dict(read_last)  # what the store should hold
        for index, hours in sorted(reads, key=lambda read: read[1]):
            key = f"k{index}"
            clock.now = start + hours * 3600
            assert store.get(key) == bytes([index]) * 1000
            read_last[key] = clock.now
            if clock.now - stamp[key] >= TOUCH_AFTER_S:
                stamp[key] = clock.now
            store.flush()
        assert _used(path) == stamp
        assert all(read_last[key] - stamp[key] < TOUCH_AFTER_S for key in stamp)
        store.max_bytes = 3000  # down to 80% of it: four entries of 1,000 bytes go
        store.evict()
        kept = set(_used(path))
        store.close()
    finally:
        store_module.time.time = original  # type: ignore[assignment]
    assert len(kept) == 2
    assert max(stamp[key] for key in set(stamp) - kept) <= min(stamp[key] for key in kept)


def test_the_database_keeps_its_temporary_files_in_memory(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA temp_store").scalar() == 2  # MEMORY
    engine.dispose()
