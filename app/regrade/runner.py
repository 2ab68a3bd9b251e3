"""Bulk regrade: every stored submission against the current rubric, in parallel, resumable.

A job runs outside any request, so it owns its transactions: one per batch of stored runs, so
an interrupted regrade keeps what it finished and a re-run continues where it stopped. What it
recomputes is planned per batch (app.regrade.fast: reuse, re-score in place, or send to the
grading processes); what goes to the grading processes runs through the pipeline every bulk
path shares (app.grading.retry: window, quarantine; app.grading.store: batch, then per row).
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import current_rubric
from app.audit.repository import record
from app.calibration.service import context_for_regrade
from app.db.models import Submission, User
from app.db.session import unit_of_work
from app.errors import Conflict
from app.grading.repository import current_item_rows
from app.grading.retry import Pools, Quarantine, WindowedPool, as_pools
from app.grading.store import Result, store_results
from app.grading.worker import WorkerOutcome, grade_many
from app.regrade import jobs, repository
from app.regrade.batches import Rescoring, Target, fast_path, rescore, triage
from app.regrade.changes import ScoreChange, diff_of, new_score, stored_score
from app.regrade.fast import FastPath, FastStats
from app.regrade.forks import worker_count
from app.regrade.parallel import Here, forked
from app.submissions.repository import overrides_for
from graders.cache import CacheStats

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
    # What this process re-scored itself from the stored runs' keys (app.regrade.fast).
    fast: FastStats | None = None

    def count_work(self, outcomes: Sequence[WorkerOutcome]) -> None:
        for outcome in outcomes:
            if outcome.work:
                self.cached += 1
                self.work.add(outcome.work)

    def work_summary(self) -> str:
        """How much this run recomputed, in words (`regrade --dry-run` prints it)."""
        pooled = work_summary(self.total, self.cached, self.work)
        fast = self.fast
        if fast is None:
            return pooled
        head = (
            f"{fast.reused} re-used stored scores, {fast.rescored} re-scored in place "
            f"({fast.groups_cached} grader results read from the cache, {fast.groups_run} "
            f"recomputed here), {fast.sent} sent to the grading processes "
            f"({fast.sent_untried} without trying: no recorded keys, or a changed code or "
            f"written group)"
        )
        if not fast.sent:
            return f"{self.total} submissions: {head}"
        return f"{self.total} submissions: {head}; there: {pooled.split(': ', 1)[1]}"


def work_summary(total: int, cached: int, work: CacheStats) -> str:
    if not cached:
        return f"{total} submissions: result cache off, everything recomputed"
    rescored = cached - work.located
    return (
        f"{total} submissions: {rescored} re-scored from stored observations "
        f"({work.groups_cached} grader results reused, {work.groups_run} recomputed), "
        f"{work.located} documents re-located, {work.code_runs} code runs "
        f"({work.code_cached} reused)"
    )


@dataclass(frozen=True)
class _Rubric:
    """What every document of one regrade is graded with (fixed for the whole regrade)."""

    text: str
    context: str | None


@dataclass
class _Batch:
    submissions: list[Submission]
    futures: list[concurrent.futures.Future[list[WorkerOutcome]]]


class _Pooled:
    """The submissions a regrade sends to the grading processes: graded through the shared
    window and quarantine, two batches in flight (the processes grade the next while this one
    is stored), each compared with its stored scores and stored a batch per transaction."""

    def __init__(self, factory: sessionmaker[Session], source: Pools, rubric: _Rubric,
                 target: Target, report: RegradeReport, progress: Progress | None,
                 stopping: threading.Event | None, batch_size: int) -> None:
        self.factory, self.rubric, self.target = factory, rubric, target
        self.report, self.progress, self.stopping = report, progress, stopping
        self.batch_size = batch_size
        self.pool = WindowedPool(source)  # a dying process fails only the calls with it
        self.quarantine = Quarantine(source, stopping)
        self.in_flight: deque[_Batch] = deque()

    def stopped(self) -> bool:
        return self.stopping is not None and self.stopping.is_set()

    def send(self, chunk: Sequence[int]) -> None:
        for at in range(0, len(chunk), self.batch_size):
            self.in_flight.append(self._submit(chunk[at : at + self.batch_size]))
            if len(self.in_flight) >= 2:
                self._finish(self.in_flight.popleft())

    def drain(self) -> None:
        while self.in_flight:
            if self.stopped():
                # The server is stopping: what is still in flight would come back as failures.
                for pending in self.in_flight:
                    for future in pending.futures:
                        future.cancel()
                return
            self._finish(self.in_flight.popleft())

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)
        self.quarantine.close()

    def _submit(self, chunk: Sequence[int]) -> _Batch:
        with unit_of_work(self.factory) as session:
            subs = repository.with_raw(session, chunk)
            session.expunge_all()
        futures = [
            self.pool.submit(grade_many, self.rubric.text, [_document(s) for s in part],
                             self.rubric.context, [s.id for s in part])
            for part in (subs[i : i + TASK_SIZE] for i in range(0, len(subs), TASK_SIZE))
        ]
        return _Batch(subs, futures)

    def _alone(self, submission: Submission) -> Graded:
        """A document whose grading process died (perhaps for another one), graded again in
        a process of its own; None when the server stops meanwhile."""
        retried = self.quarantine.alone(grade_many, self.rubric.text, [_document(submission)],
                                        self.rubric.context, [submission.id])
        return retried[0] if isinstance(retried, list) else retried

    def _results(self, batch: _Batch) -> list[Graded]:
        results: list[Graded] = []
        for number, future in enumerate(batch.futures):
            chunk = batch.submissions[number * TASK_SIZE : (number + 1) * TASK_SIZE]
            try:
                results.extend(future.result())
            except BrokenProcessPool:
                results.extend(self._alone(s) for s in chunk)
            except Exception as exc:  # the grading call failed: these documents only
                results.extend([exc] * len(chunk))
        if self.stopped():
            # Failures now come from the shutdown (its pool is gone), not from the documents:
            # those stay unregraded, for the job's resumption.
            results = [r if isinstance(r, WorkerOutcome) else None for r in results]
        return results

    def _finish(self, batch: _Batch) -> None:
        kept = [(s, r) for s, r in zip(batch.submissions, self._results(batch), strict=True)
                if r is not None]
        changed = self._compare(kept)
        self.report.changed += len(changed)
        if not self.target.dry_run and self.target.job_id is not None:
            self._store(kept, changed, self.target.job_id)
        self.report.count_work([r for _, r in kept if isinstance(r, WorkerOutcome)])
        if self.progress is not None:
            self.progress(len(kept), self.report.total)

    def _compare(self, kept: Sequence[tuple[Submission, WorkerOutcome | BaseException]]
                 ) -> set[int]:
        """The submissions whose scores the new outcomes change (reported as changes)."""
        ids = [s.id for s, _ in kept]
        with unit_of_work(self.factory) as session:
            rows = current_item_rows(session, ids)
            overrides = overrides_for(session, ids)
        changed: set[int] = set()
        for submission, outcome in kept:
            if not isinstance(outcome, WorkerOutcome):
                continue
            own = overrides.get(submission.id, {})
            old = stored_score(rows.get(submission.id, ()), own, submission.status)
            change = diff_of(submission.id, submission.student, old, new_score(outcome, own))
            if change is not None:
                changed.add(submission.id)
                self.report.changes.append(change)
        return changed

    def _store(self, kept: Sequence[tuple[Submission, WorkerOutcome | BaseException]],
               changed: set[int], job_id: int) -> None:
        def count(session: Session, stored: Sequence[Result]) -> None:
            repository.count_done(session, job_id, len(stored),
                                  sum(1 for s, _, _ in stored if s in changed))

        # Each batch in its own transaction, one row in its own if the batch fails: a
        # submission whose result cannot be stored never aborts the regrade.
        store_results(self.factory, [(s.id, self.target.version_id, o) for s, o in kept],
                      regrade_job_id=job_id, after=count)


def _document(s: Submission) -> tuple[bytes, str | None, str | None, str | None]:
    return (s.raw, s.filename, s.content_type, s.handout)


class _FastBatches:
    """The fast path's side of a regrade: batches re-scored here (or in forked workers), what
    they could not do handed to the grading processes."""

    def __init__(self, factory: sessionmaker[Session], fast: FastPath, pooled: _Pooled) -> None:
        self.factory, self.fast, self.pooled = factory, fast, pooled

    def here(self, chunk: list[int]) -> None:
        """A fast batch in this process: what the rubric change sends to the grading
        processes goes first, untried: they grade it while this process re-scores the rest."""
        stored, untried = triage(self.factory, self.fast, chunk)
        self.pooled.send([sid for sid in chunk if sid in untried])
        self.rescored(rescore(self.factory, self.factory, self.fast,
                              [sid for sid in chunk if sid not in untried], stored,
                              self.pooled.target))

    def rescored(self, found: Rescoring) -> None:
        report = self.pooled.report
        report.changes.extend(found.changes)
        report.changed += len(found.changes)
        if found.done:
            self.counted(found.done)
        self.pooled.send(found.rest)

    def counted(self, n: int) -> None:
        if self.pooled.progress is not None:
            self.pooled.progress(n, self.pooled.report.total)

    def run(self, chunks: list[list[int]], workers: int) -> None:
        pooled = self.pooled
        if forked(self.factory, self.fast, chunks,
                  Here(self.here, pooled.send, self.rescored, self.counted), pooled.target,
                  pooled.stopping, workers):
            return
        for chunk in chunks:
            if pooled.stopped():
                return
            self.here(chunk)


@dataclass
class _Opened:
    """A regrade as it starts: its rubric, target and report, and the submissions to do."""

    rubric: _Rubric
    target: Target
    report: RegradeReport
    ids: list[int]
    fast: FastPath | None


def _open(factory: sessionmaker[Session], slug: str, dry_run: bool, actor: User | None,
          job_id: int | None, resumed: bool, options: Mapping[str, Any] | None) -> _Opened:
    """Read the current rubric and claim the job (Conflict when a live runner has it)."""
    with unit_of_work(factory) as session:
        current = current_rubric(session, slug)
        # Fixed for the whole regrade: every submission is graded with the same decisions.
        context = context_for_regrade(session, current, store=not dry_run)
        report = RegradeReport(slug, current.loaded.content_hash, dry_run)
        rubric = _Rubric(current.version.source_text, context)
        version_id = current.version.id
        if not dry_run:
            if job_id is None:
                lease = jobs.claim(session, slug, actor)
                if not lease.ours:
                    raise Conflict(
                        f"Regrade job {lease.job_id} of {slug!r} is already running.",
                        job_id=lease.job_id,
                    )
                job_id, report.resumed = lease.job_id, lease.resumed
            else:
                report.resumed = resumed
            report.job_id = job_id
        ids = repository.ids_to_regrade(session, current.assignment.id, job_id)
        if job_id is not None:
            job_row = repository.get_job(session, job_id)
            report.already_done = 0 if job_row is None else max(job_row.total - len(ids), 0)
    report.total = len(ids)
    fast = fast_path(current.loaded, context, options)
    if fast is not None:
        report.fast = fast.stats
    return _Opened(rubric, Target(version_id, job_id, dry_run), report, ids, fast)


def run_regrade(
    factory: sessionmaker[Session],
    slug: str,
    pools: concurrent.futures.Executor | Pools,
    *,
    dry_run: bool = False,
    actor: User | None = None,
    batch_size: int = 200,
    progress: Progress | None = None,
    job_id: int | None = None,
    resumed: bool = False,
    stopping: threading.Event | None = None,
    options: Mapping[str, Any] | None = None,
    fast_batch: int | None = None,
    fast_workers: int | None = None,
) -> RegradeReport:
    """Without `job_id` a real regrade claims the assignment's job itself (Conflict when a
    live runner has it); with one, the caller claimed it already (`jobs.claim`). `pools` is a
    pool source (a broken pool is replaced and the documents of a dead process are retried
    alone) or one executor used as it is. `options`: the grading options (default: the pool
    source's); with a result cache among them, submissions whose stored run recorded its keys
    are re-scored outside the grading processes (app.regrade.fast), `fast_batch` at a time (one
    transaction each), and only the others go to the pool. Two batches or more are re-scored
    in `fast_workers` forked workers (default: one per core, at most the pool's processes;
    none from a thread other than the main one: app.regrade.parallel)."""
    source = as_pools(pools)
    opened = _open(factory, slug, dry_run, actor, job_id, resumed,
                   options if options is not None else getattr(source, "options", None))
    report, ids, fast = opened.report, opened.ids, opened.fast
    pooled = _Pooled(factory, source, opened.rubric, opened.target, report, progress,
                     stopping, batch_size)
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
            _FastBatches(factory, fast, pooled).run(
                chunks, worker_count(fast_workers, source.workers))
        pooled.drain()
    finally:
        pooled.close()
    report.changes.sort(key=lambda change: change.submission_id)
    if pooled.stopped():
        return report  # the job stays `running`; its heartbeat ages and a later run resumes it
    if report.job_id is not None:
        _finish_job(factory, report, actor)
    return report


def _finish_job(factory: sessionmaker[Session], report: RegradeReport,
                actor: User | None) -> None:
    with unit_of_work(factory) as session:
        job = repository.get_job(session, report.job_id) if report.job_id is not None else None
        if job is not None:
            repository.finish_job(session, job)
            record(session, actor, "regrade.finish", "assignment", report.assignment,
                   {"job": report.job_id, "regraded": report.total,
                    "changed": report.changed})
