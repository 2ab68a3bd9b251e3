"""The sweeper: every interval, renew what this process holds and hand out what nobody does.

A submission is left ungraded only while someone holds a live lease on it. When its holder
died (a killed server or worker, a result that could not be written, a broker that lost its
queue) the lease runs out, and the next sweep enqueues it again. Sweeping is idempotent: a
graded submission is never touched, a held one never handed out twice.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy.orm import Session, sessionmaker

from app.db.session import unit_of_work
from app.grading.jobs import Executor
from app.grading.leases import renew, take

log = logging.getLogger(__name__)


def sweep(
    sessions: sessionmaker[Session],
    executor: Executor,
    lease_seconds: float,
    everything: bool = False,
) -> int:
    """One sweep; returns how many submissions it enqueued. `everything`: take every unfinished
    submission whatever its lease (the sole owner of the database, at start)."""
    held = executor.held()
    if held:
        with unit_of_work(sessions) as session:
            renew(session, held, lease_seconds)
    enqueued = 0
    after: int | None = 0
    while after is not None:
        with unit_of_work(sessions) as session:
            taken = take(session, lease_seconds, held, after, everything)
        for job in taken.jobs:
            executor.enqueue(job)
        enqueued += len(taken.jobs)
        after = taken.last_id
    return enqueued


class Sweeper(threading.Thread):
    def __init__(self, sessions: sessionmaker[Session], executor: Executor, interval: float,
                 lease_seconds: float) -> None:
        super().__init__(name="grading-sweeper", daemon=True)
        self._sweep = (sessions, executor, lease_seconds)
        self._interval = interval
        self._stopped = threading.Event()

    def stop(self) -> None:
        self._stopped.set()
        if self.is_alive():
            self.join()

    def run(self) -> None:
        while not self._stopped.wait(self._interval):
            try:
                found = sweep(*self._sweep)
            except Exception:  # the database is down or locked: try again next interval
                log.exception("sweeping for unfinished submissions failed")
                continue
            if found:
                log.warning("sweeper: %d unfinished submissions had no live holder; enqueued",
                            found)
