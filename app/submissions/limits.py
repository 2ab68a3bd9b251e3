"""Per-student upload limits: a rate (token bucket) and a storage quota. Staff are exempt.

Both are kept in this process's memory: the quota's starting point is read from the database
once per student (then every stored upload is added), the bucket starts full after a restart.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, func, select

from app.db.models import Submission
from app.errors import DomainError
from app.ratelimit import RateBuckets


class TooManyRequests(DomainError):
    status = 429
    title = "Too many requests"
    slug = "too-many-requests"


class QuotaExceeded(DomainError):
    status = 413
    title = "Storage quota exceeded"
    slug = "quota-exceeded"


class UploadLimits:
    def __init__(
        self,
        read_engine: Engine,
        per_minute: float,
        burst: int,
        quota_bytes: int,
        clock: Callable[[], float] = time.monotonic,
        in_progress: int = 4,
    ) -> None:
        self._engine = read_engine
        self._rate = RateBuckets(per_minute, burst, clock=clock)
        self._quota = quota_bytes
        self._lock = threading.Lock()
        self._used: dict[int, int] = {}
        self._in_progress = in_progress
        self._receiving: dict[int, int] = {}

    def take(self, user_id: int) -> None:
        """One upload's worth of rate, or TooManyRequests saying when to come back."""
        wait = self._rate.take(user_id)
        if wait:
            raise TooManyRequests(f"Too many uploads; try again in {wait} s.", retry_after=wait)

    @contextmanager
    def receiving(self, user_id: int) -> Iterator[None]:
        """One of the student's uploads in progress (its body arriving, its document read,
        stored, graded when it waits), or TooManyRequests when `in_progress` already are. A
        credentialed body's deadline grows with what has arrived, so a body trickled at the
        minimum rate holds its connection for as long as the upload limit allows: without this,
        one student's uploads started within the rate could hold every connection."""
        with self._lock:
            running = self._receiving.get(user_id, 0)
            if running >= self._in_progress:
                raise TooManyRequests(
                    f"You have {running} uploads in progress; wait for one to finish.",
                    retry_after=5)
            self._receiving[user_id] = running + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._receiving.pop(user_id) - 1
                if left:
                    self._receiving[user_id] = left

    def known(self, user_id: int) -> bool:
        return user_id in self._used

    def load(self, user_id: int) -> None:
        """Read what the student has stored so far (a thread's work: it queries)."""
        with self._engine.connect() as connection:
            used = connection.scalar(
                select(func.coalesce(func.sum(Submission.size), 0)).where(
                    Submission.uploader_id == user_id
                )
            )
        with self._lock:
            self._used.setdefault(user_id, int(used or 0))

    def reserve(self, user_id: int, size: int) -> None:
        """Count `size` bytes against the quota, or QuotaExceeded."""
        with self._lock:
            used = self._used.get(user_id, 0)
            if used + size > self._quota:
                raise QuotaExceeded(
                    f"Storing this upload would exceed your storage quota of {self._quota} "
                    f"bytes ({used} used).",
                    quota_bytes=self._quota,
                    used_bytes=used,
                )
            self._used[user_id] = used + size

    def release(self, user_id: int, size: int) -> None:
        """An upload that was reserved but not stored."""
        with self._lock:
            self._used[user_id] = max(0, self._used.get(user_id, 0) - size)
