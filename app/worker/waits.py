"""`?wait=true` uploads on the scale path: each caller waits until its submission's status is
final (graded by a Celery worker), or for WAIT_SECONDS.

One thread polls every waited submission with one query a tick, so any number of waiting
callers costs one thread and one query per tick. (A pool of eight waiting threads let two
students' slow waits hold every thread, and a third student's answer waited for one.)
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import Submission, SubmissionStatus
from app.db.session import unit_of_work

log = logging.getLogger(__name__)

WAIT_SECONDS = 300
WAIT_POLL_SECONDS = 0.2
FINAL = [s.value for s in SubmissionStatus if s.is_final]


class FinalWaits:
    def __init__(self, sessions: sessionmaker[Session], *, poll: float = WAIT_POLL_SECONDS,
                 limit: float = WAIT_SECONDS) -> None:
        self._sessions, self._poll, self._limit = sessions, poll, limit
        self._lock = threading.Lock()
        self._waiting: dict[int, list[tuple[Future[None], float]]] = {}
        self._wake = threading.Event()  # a new wait, or closing
        self._closed = False
        self._thread: threading.Thread | None = None

    def until_final(self, submission_id: int) -> Future[None]:
        """Done once the submission's status is final (or it is gone), or after the limit;
        cancelled if the waits are closed first."""
        future: Future[None] = Future()
        with self._lock:
            if self._closed:
                future.cancel()
                return future
            self._waiting.setdefault(submission_id, []).append(
                (future, time.monotonic() + self._limit))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="celery-wait",
                                                daemon=True)
                self._thread.start()
        self._wake.set()
        return future

    def close(self) -> None:
        with self._lock:
            self._closed = True
            left = [f for waits in self._waiting.values() for f, _ in waits]
            self._waiting.clear()
        self._wake.set()
        for future in left:
            future.cancel()

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                ids = list(self._waiting)
            if not ids:
                self._wake.wait()
                self._wake.clear()
                continue
            try:
                final = self._final(ids)
            except Exception:  # the database is away for a moment: the next tick asks again
                log.exception("reading the status of %d waited submissions failed", len(ids))
                final = set()
            now, done = time.monotonic(), list[Future[None]]()
            with self._lock:
                for sid in ids:
                    waits = self._waiting.get(sid, [])
                    keep = [(f, d) for f, d in waits if sid not in final and now < d]
                    done.extend(f for f, d in waits if (f, d) not in keep)
                    if keep:
                        self._waiting[sid] = keep
                    else:
                        self._waiting.pop(sid, None)
            for future in done:
                if future.set_running_or_notify_cancel():
                    future.set_result(None)
            time.sleep(self._poll)

    def _final(self, ids: list[int]) -> set[int]:
        """Those of `ids` whose status is final or that no longer exist."""
        with unit_of_work(self._sessions) as session:
            open_ = set(session.scalars(select(Submission.id).where(
                Submission.id.in_(ids), Submission.status.not_in(FINAL))))
        return set(ids) - open_
