"""Bulk regrade: every stored submission against the current rubric, in parallel, resumable.

A job runs outside any request (HTTP regrades on the server's own threads: `RegradeRunner`),
so it owns its transactions: one per batch, so an interrupted regrade keeps what it finished
and a re-run continues where it stopped. With a result cache,
each batch is first re-scored here from its stored runs' keys (app.regrade.batches); the rest
goes through the pipeline every bulk path shares (app.grading.retry: window, quarantine;
app.grading.store: batch, then per row).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import current_rubric
from app.audit.repository import record
from app.calibration.service import context_for_regrade
from app.db.models import Submission, User
from app.db.session import unit_of_work
from app.errors import Conflict
from app.grading.repository import current_item_rows
from app.grading.retry import Pools, WindowedPool, as_pools
from app.grading.store import store_results
from app.grading.worker import RubricText, WorkerOutcome, grade_many
from app.regrade import jobs
from app.regrade.batches import Rescoring, Target, fast_path, run_batches, worker_count
from app.regrade.changes import ScoreChange, diff_of, new_score, stored_score
from app.submissions.repository import overrides_for
from graders.cache import CacheStats
from graders.cache.rescore import RescoreStats

TASK_SIZE = 8  # documents per process round trip
FAST_BATCH = 1000  # submissions per transaction on the fast path

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
# A document's grade: its outcome, why grading it failed, or None (stopped meanwhile).
Graded = WorkerOutcome | BaseException | None


@dataclass
class RegradeReport:
    assignment: str
    rubric_hash: str
    dry_run: bool
    job_id: int | None = None
    resumed: bool = False
    total: int = 0  # submissions this run looked at
    already_done: int = 0  # regraded by an earlier, interrupted run of the same job
    changed: int = 0
    changes: list[ScoreChange] = field(default_factory=list)
    # What the grading processes recomputed and reused (graders.cache), summed.
    work: CacheStats = field(default_factory=CacheStats)
    cached: int = 0  # submissions graded with the result cache on
    fast: RescoreStats | None = None  # what this process re-scored itself (app.regrade.batches)

    def work_summary(self) -> str:
        """How much this run recomputed, in words (`regrade --dry-run` prints it)."""
        pooled = self.work.summary(self.cached) if self.cached else (
            "result cache off, everything recomputed")
        if self.fast is None:
            return f"{self.total} submissions: {pooled}"
        there = f"; there: {pooled}" if self.fast.sent else ""
        return f"{self.total} submissions: {self.fast.summary()}{there}"


class _Pooled:
    """The submissions a regrade sends to the grading processes: graded through the shared
    window and quarantine, two batches in flight (the processes grade the next while this one
    is stored), each compared with its stored scores and stored a batch per transaction."""

    def __init__(self, factory: sessionmaker[Session], source: Pools, rubric: RubricText,
                 context: str | None, target: Target, report: RegradeReport,
                 progress: Progress | None, stopping: threading.Event | None,
                 batch_size: int) -> None:
        self.factory, self.rubric, self.context, self.target = factory, rubric, context, target
        self.report, self.progress, self.stopping = report, progress, stopping
        self.batch_size = batch_size
        # A dying process fails only the calls with it; their documents are retried alone by
        # the window's quarantine, which a stopping server interrupts.
        self.pool = WindowedPool(source, stopping)
        self.in_flight: deque[tuple[list[Submission], list[concurrent.futures.Future[Any]]]] = (
            deque())

    def stopped(self) -> bool:
        return self.stopping is not None and self.stopping.is_set()

    def counted(self, n: int, changes: Sequence[ScoreChange] = ()) -> None:
        self.report.changes.extend(changes)
        self.report.changed += len(changes)
        if self.progress is not None:
            self.progress(n, self.report.total)

    def rescored(self, found: Rescoring) -> None:
        """A fast batch re-scored: its changes and progress; the rest sent here."""
        if found.done:  # changes come only with what was done
            self.counted(found.done, found.changes)
        self.send(found.rest)

    def send(self, chunk: Sequence[int]) -> None:
        for at in range(0, len(chunk), self.batch_size):
            with unit_of_work(self.factory) as session:
                subs = jobs.with_raw(session, chunk[at : at + self.batch_size])
                session.expunge_all()
            parts = [subs[i : i + TASK_SIZE] for i in range(0, len(subs), TASK_SIZE)]
            self.in_flight.append((subs, [self.pool.submit(grade_many, self.rubric, [
                _document(s) for s in part], self.context, [s.id for s in part])
                for part in parts]))
            if len(self.in_flight) >= 2:
                self._finish(*self.in_flight.popleft())

    def drain(self) -> None:
        while self.in_flight:
            if self.stopped():
                # The server is stopping: what is still in flight would come back as failures.
                for _, futures in self.in_flight:
                    for future in futures:
                        future.cancel()
                return
            self._finish(*self.in_flight.popleft())

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)
        self.pool.close()

    def _alone(self, submissions: list[Submission]) -> list[Graded]:
        """Documents whose grading process died (perhaps for another one), each graded again in
        a process of its own, one after the other; None when the server stops meanwhile."""
        retries = [self.pool.retrying(None, grade_many, self.rubric, [_document(s)],
                                      self.context, [s.id], attempts=1) for s in submissions]
        return [r[0] if isinstance(r, list) else r for r in (f.result() for f in retries)]

    def _finish(self, submissions: list[Submission],
                futures: list[concurrent.futures.Future[Any]]) -> None:
        results: list[Graded] = []
        for number, future in enumerate(futures):
            chunk = submissions[number * TASK_SIZE : (number + 1) * TASK_SIZE]
            try:
                results.extend(future.result())
            except BrokenProcessPool:
                results.extend(self._alone(chunk))
            except Exception as exc:  # the grading call failed: these documents only
                results.extend([exc] * len(chunk))
        # Once stopping, failures come from the shutdown (its pool is gone), not from the
        # documents: those stay unregraded, for the job's resumption.
        stopped = self.stopped()
        kept = [(s, r) for s, r in zip(submissions, results, strict=True)
                if isinstance(r, WorkerOutcome) or (r is not None and not stopped)]
        # The submissions whose scores the new outcomes change (reported as changes).
        ids = [s.id for s, _ in kept]
        with unit_of_work(self.factory) as session:
            rows = current_item_rows(session, ids)
            overrides = overrides_for(session, ids)
        changes: list[ScoreChange] = []
        for submission, outcome in kept:
            if not isinstance(outcome, WorkerOutcome):
                continue
            if outcome.work:
                self.report.cached += 1
                self.report.work.add(outcome.work)
            own = overrides.get(submission.id, {})
            old = stored_score(rows.get(submission.id, ()), own, submission.status)
            change = diff_of(submission.id, submission.student, old, new_score(outcome, own))
            changes.extend([] if change is None else [change])
        changed = {change.submission_id for change in changes}
        job_id = self.target.job_id
        if not self.target.dry_run and job_id is not None:
            # Each batch in its own transaction, one row in its own if the batch fails: a
            # submission whose result cannot be stored never aborts the regrade.
            store_results(self.factory, [(s.id, self.target.version_id, o) for s, o in kept],
                          regrade_job_id=job_id, after=lambda session, stored: jobs.count_done(
                              session, job_id, len(stored),
                              sum(1 for s, _, _ in stored if s in changed)))
        self.counted(len(kept), changes)


def _document(s: Submission) -> tuple[bytes, str | None, str | None, str | None]:
    return (s.raw, s.filename, s.content_type, s.handout)


def run_regrade(
    factory: sessionmaker[Session],
    slug: str,
    pools: concurrent.futures.Executor | Pools,
    *,
    dry_run: bool = False,
    actor: User | None = None,
    batch_size: int = 200,
    progress: Progress | None = None,
    lease: jobs.Claim | None = None,
    stopping: threading.Event | None = None,
    options: Mapping[str, Any] | None = None,
    fast_batch: int | None = None,
    fast_workers: int | None = None,
) -> RegradeReport:
    """Without `lease` a real regrade claims the assignment's job itself (Conflict when a
    live runner has it); with one, the caller claimed it already (`jobs.claim`). `pools` is a
    pool source (a broken pool is replaced and the documents of a dead process are retried
    alone) or one executor used as it is. `options`: the grading options (default: the pool
    source's); with a result cache among them, submissions whose stored run recorded its keys
    are re-scored outside the grading processes, `fast_batch` at a time, in `fast_workers`
    forked workers (default: one per core, at most the pool's processes; none from a thread
    other than the main one), and only the others go to the pool."""
    source = as_pools(pools)
    if options is None:
        options = getattr(source, "options", None)
    with unit_of_work(factory) as session:
        current = current_rubric(session, slug)
        # Fixed for the whole regrade: every submission is graded with the same decisions.
        context = context_for_regrade(session, current, store=not dry_run)
        report = RegradeReport(slug, current.loaded.content_hash, dry_run)
        if not dry_run:
            if lease is None:
                lease = jobs.claim(session, slug, actor)
                if not lease.ours:
                    raise Conflict(f"Regrade job {lease.job_id} of {slug!r} is already running.",
                                   job_id=lease.job_id)
            report.job_id, report.resumed = lease.job_id, lease.resumed
        ids = jobs.ids_to_regrade(session, current.assignment.id, report.job_id)
        job = None if report.job_id is None else jobs.get_job(session, report.job_id)
        report.already_done = 0 if job is None else max(job.total - len(ids), 0)
    report.total = len(ids)
    target = Target(current.version.id, report.job_id, dry_run)
    fast = fast_path(current.loaded, context, options)
    pooled = _Pooled(factory, source, RubricText.of_version(current.version), context, target,
                     report, progress, stopping, batch_size)
    # Re-scoring here costs little per submission, and each batch is one commit: larger
    # batches (what the pool does not take stays in a batch of the usual size).
    step = batch_size if fast is None else max(batch_size, fast_batch or FAST_BATCH)
    chunks = [ids[at : at + step] for at in range(0, len(ids), step)]
    try:
        if fast is None:
            for chunk in chunks:
                if pooled.stopped():
                    break
                pooled.send(chunk)
        else:
            report.fast = fast.stats
            run_batches(factory, fast, chunks, target, worker_count(fast_workers, source.workers),
                        pooled.stopped, pooled.send, pooled.rescored)
        pooled.drain()
    finally:
        pooled.close()
    report.changes.sort(key=lambda change: change.submission_id)
    if pooled.stopped():
        return report  # the job stays `running`; its heartbeat ages and a later run resumes it
    if job is not None:
        with unit_of_work(factory) as session:
            job = jobs.get_job(session, job.id)
            if job is not None:
                jobs.finish_job(session, job)
                record(session, actor, "regrade.finish", "assignment", slug,
                       {"job": job.id, "regraded": report.total, "changed": report.changed})
    return report


class RegradeRunner:
    """Regrades started over HTTP, never in a request: a request claims the assignment's job
    (or finds the live one) and answers at once; the job runs on a small thread pool of its
    own, so a flood of requests neither takes the server's threads nor grades anything twice.
    Identical dry runs in flight share one computation."""

    def __init__(self, factory: sessionmaker[Session], pools: Pools, *, batch_size: int,
                 threads: int = 2, stale_after: timedelta = jobs.DEFAULT_STALE_AFTER) -> None:
        self._factory = factory
        self._pools = pools  # replaced when broken; documents of a dead process retried alone
        self._batch_size = batch_size
        self._stale_after = stale_after
        self._threads = concurrent.futures.ThreadPoolExecutor(threads, "regrade")
        self._lock = threading.Lock()  # guards the two tables; held only briefly
        self._claiming = threading.Lock()  # one claim transaction at a time in this process
        self._stopping = threading.Event()
        # By (assignment, dry run): the job this process runs (its id) or the dry run in flight.
        self._running: dict[tuple[str, bool], tuple[int | None, Future[RegradeReport]]] = {}

    def running_job(self, slug: str) -> int | None:
        """No database work: the common case in a flood of starts, answered without a thread."""
        with self._lock:
            return self._running.get((slug, False), (None,))[0]

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
                    self._running[slug, False] = (lease.job_id, future)
                self._forget_when_done((slug, False), future)
        return lease.job_id

    async def dry_run(self, slug: str, actor: User | None) -> RegradeReport:
        with self._lock:
            future = self._running.get((slug, True), (None, None))[1]
            ours = future is None
            if future is None:
                future = self._threads.submit(
                    run_regrade, self._factory, slug, self._pools, dry_run=True, actor=actor,
                    batch_size=self._batch_size, stopping=self._stopping)
                self._running[slug, True] = (None, future)
        if ours:
            self._forget_when_done((slug, True), future)
        # Shielded: a client that gives up must not cancel the computation others share.
        return await asyncio.shield(asyncio.wrap_future(future))

    def _forget_when_done(self, key: tuple[str, bool], future: Future[RegradeReport]) -> None:
        def forget(_: object) -> None:
            with self._lock:
                if self._running.get(key, (None, None))[1] is future:
                    del self._running[key]

        # Outside the lock: a future that is already done runs the callback right here.
        future.add_done_callback(forget)

    def _run(self, slug: str, actor: User | None, lease: jobs.Claim) -> RegradeReport:
        try:
            report = run_regrade(self._factory, slug, self._pools, actor=actor, lease=lease,
                                 batch_size=self._batch_size, stopping=self._stopping)
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
