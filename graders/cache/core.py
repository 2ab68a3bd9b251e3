"""The cache a grading process consults: a bounded store of checked bytes, and its counters."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Protocol, TypeVar

from graders.context import GradingResources, Resource

# Set in GradingContext.per_submission when a result rests on something not worth keeping (a
# timeout, a died child, an insecure run): the engine then stores no group result from it.
UNCACHEABLE = "cache.uncacheable"
CACHE_KEY: Resource[ResultCache] = Resource("result_cache")  # the process's ResultCache
_MAGIC = b"GFC1"
_CHECK = 16  # bytes of sha256 kept with each value

T = TypeVar("T")


class ResultStore(Protocol):
    """Where entries live. Best effort: a store that cannot read or write answers a miss."""

    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, value: bytes) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class MemoryStore:
    """An in-process LRU bounded by the bytes it holds (tests, and a store for one process)."""

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> bytes | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: str, value: bytes) -> None:
        if len(value) > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= len(old)
            self._entries[key] = value
            self.size += len(value)
            while self.size > self.max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self.size -= len(evicted)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class CacheStats:
    """What one document's grading reused and what it recomputed."""

    located: int = 0  # documents read and located
    location_cached: int = 0
    groups_run: int = 0  # (question, grader kind) groups graded
    groups_cached: int = 0
    code_runs: int = 0  # sandbox jobs run
    code_cached: int = 0
    corrupt: int = 0  # entries found unreadable (treated as misses)

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def summary(self, documents: int) -> str:
        """These counts summed over `documents` graded with the cache, in words."""
        return (f"{documents - self.located} re-scored from stored observations "
                f"({self.groups_cached} grader results reused, {self.groups_run} recomputed), "
                f"{self.located} documents re-located, {self.code_runs} code runs "
                f"({self.code_cached} reused)")

    def add(self, other: dict[str, int]) -> None:
        for f in fields(self):
            value = other.get(f.name, 0)
            if isinstance(value, int) and value > 0:
                setattr(self, f.name, getattr(self, f.name) + value)


def frame(payload: bytes) -> bytes:
    return _MAGIC + hashlib.sha256(payload).digest()[:_CHECK] + payload


def unframe(value: bytes) -> bytes | None:
    """The payload of a framed value, or None when it is not one of ours or was altered."""
    head = len(_MAGIC) + _CHECK
    if len(value) < head or not value.startswith(_MAGIC):
        return None
    payload = value[head:]
    if hashlib.sha256(payload).digest()[:_CHECK] != value[len(_MAGIC):head]:
        return None
    return payload


class ResultCache:
    """A store, the counters of the document being graded, and typed reads that never fail."""

    def __init__(self, store: ResultStore | None) -> None:
        self.store = store
        self.stats = CacheStats()
        # "<question>/<kind>" -> [key, what of the submission it names], for the document
        # being graded: the groups whose results are kept (`groups.grade_cached`).
        self.keys: dict[str, list[str]] = {}

    def record(self, group: str, key: str, basis: str) -> None:
        self.keys[group] = [key, basis]

    def take_keys(self) -> dict[str, list[str]]:
        done, self.keys = self.keys, {}
        return done

    @property
    def enabled(self) -> bool:
        return self.store is not None

    def reset_stats(self) -> CacheStats:
        done, self.stats = self.stats, CacheStats()
        return done

    def load(self, key: str, decode: Callable[[bytes], T]) -> T | None:
        """The decoded entry, or None: absent, unreadable, or rejected by `decode` (which
        raises on anything it does not accept)."""
        if self.store is None:
            return None
        try:
            raw = self.store.get(key)
        except Exception:  # a failing store is a miss, never a failed grading
            return None
        if raw is None:
            return None
        payload = unframe(raw)
        if payload is not None:
            try:
                return decode(payload)
            except Exception:
                pass
        self.stats.corrupt += 1
        return None

    def save(self, key: str, payload: bytes) -> None:
        if self.store is None:
            return
        try:
            self.store.put(key, frame(payload))
        except Exception:
            return

    def flush(self) -> None:
        if self.store is not None:
            try:
                self.store.flush()
            except Exception:
                return

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


NO_CACHE = ResultCache(None)


def result_cache(resources: GradingResources) -> ResultCache:
    """The process's cache (installed by whoever built `resources`), else a disabled one."""
    return resources.shared(CACHE_KEY, lambda: NO_CACHE)

