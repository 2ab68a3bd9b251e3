"""Regrades started over HTTP run here, on the server's own threads, never in a request.

A request claims the assignment's job (or finds the live one) and answers at once with the
job's status; the job runs on a small thread pool of its own, so a flood of regrade requests
neither takes the server's request threads nor grades anything twice. Dry runs (which store
nothing and answer with the diff) run on the same threads; identical dry runs in flight share
one computation.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from datetime import timedelta

from sqlalchemy.orm import Session, sessionmaker

from app.db.models import User
from app.db.session import unit_of_work
from app.grading.retry import Pools
from app.regrade import jobs
from app.regrade.runner import RegradeReport, run_regrade

log = logging.getLogger(__name__)

class RegradeRunner:
    def __init__(
        self,
        factory: sessionmaker[Session],
        pools: Pools,
        *,
        batch_size: int,
        threads: int = 2,
        stale_after: timedelta = jobs.DEFAULT_STALE_AFTER,
    ) -> None:
        self._factory = factory
        self._pools = pools  # replaced when broken; documents of a dead process retried alone
        self._batch_size = batch_size
        self._stale_after = stale_after
        self._threads = concurrent.futures.ThreadPoolExecutor(threads, "regrade")
        self._lock = threading.Lock()  # guards the two tables; held only briefly
        self._claiming = threading.Lock()  # one claim transaction at a time in this process
        self._stopping = threading.Event()
        self._running: dict[str, tuple[int, concurrent.futures.Future[RegradeReport]]] = {}
        self._dry_runs: dict[str, concurrent.futures.Future[RegradeReport]] = {}

    def running_job(self, slug: str) -> int | None:
        """The job this process runs for the assignment, if any: no database work (the common
        case in a flood of starts, answered without a thread)."""
        with self._lock:
            running = self._running.get(slug)
        return None if running is None else running[0]

    def start(self, slug: str, actor: User | None) -> int:
        """The id of the assignment's live job: started now, or already running."""
        running = self.running_job(slug)
        if running is not None:
            return running
        with self._claiming:
            with unit_of_work(self._factory) as session:
                lease = jobs.claim(session, slug, actor, self._stale_after)
            if lease.ours:
                future = self._threads.submit(self._run, slug, actor, lease)
                with self._lock:
                    self._running[slug] = (lease.job_id, future)
                future.add_done_callback(lambda _: self._forget_job(slug, future))
        return lease.job_id

    def _forget_job(self, slug: str, future: concurrent.futures.Future[RegradeReport]) -> None:
        with self._lock:
            running = self._running.get(slug)
            if running is not None and running[1] is future:
                del self._running[slug]

    async def dry_run(self, slug: str, actor: User | None) -> RegradeReport:
        with self._lock:
            future = self._dry_runs.get(slug)
            ours = future is None
            if future is None:
                future = self._threads.submit(
                    run_regrade, self._factory, slug, self._pools, dry_run=True, actor=actor,
                    batch_size=self._batch_size, stopping=self._stopping,
                )
                self._dry_runs[slug] = future
        if ours:
            # Outside the lock: a future that is already done runs the callback right here.
            fut = future
            future.add_done_callback(lambda _: self._forget_dry_run(slug, fut))
        # Shielded: a client that gives up must not cancel the computation others share.
        return await asyncio.shield(asyncio.wrap_future(future))

    def _forget_dry_run(
        self, slug: str, future: concurrent.futures.Future[RegradeReport]
    ) -> None:
        with self._lock:
            if self._dry_runs.get(slug) is future:
                del self._dry_runs[slug]

    def _run(self, slug: str, actor: User | None, lease: jobs.Claim) -> RegradeReport:
        try:
            report = run_regrade(
                self._factory, slug, self._pools, actor=actor, batch_size=self._batch_size,
                job_id=lease.job_id, resumed=lease.resumed, stopping=self._stopping,
            )
            if self._stopping.is_set():
                # Stopped part-way by a shutdown: the job is free for the next start to resume
                # at once, not after its heartbeat has aged.
                with unit_of_work(self._factory) as session:
                    jobs.release(session, lease.job_id)
            return report
        except Exception as exc:
            log.exception("regrade job %d of %s failed", lease.job_id, slug)
            with unit_of_work(self._factory) as session:
                jobs.fail(session, lease.job_id, f"{type(exc).__name__}: {exc}")
            raise

    def close(self) -> None:
        """Stop between batches: a running job stays `running` and a later start resumes it."""
        self._stopping.set()
        self._threads.shutdown(wait=True, cancel_futures=True)
