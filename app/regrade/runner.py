"""Bulk regrade: every stored submission against the current rubric, in parallel, resumable.

A job runs outside any request, so it owns its transactions: one per batch of stored runs, so
an interrupted regrade keeps what it finished and a re-run continues where it stopped.
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
from app.regrade.changes import (  # noqa: F401  (ItemChange: part of this module's API)
    ItemChange,
    ScoreChange,
    _new_score,
    _score,
    diff,
    diff_of,
)
from app.regrade.fast import FastStats
from app.regrade.forks import worker_count
from app.regrade.parallel import Here, forked
from app.submissions.repository import overrides_for
from graders.cache import CacheStats

TASK_SIZE = 8  # documents per process round trip
FAST_BATCH = 1000  # submissions per transaction on the fast path

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


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


@dataclass
class _Batch:
    submissions: list[Submission]
    futures: list[concurrent.futures.Future[list[WorkerOutcome]]]


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
    with unit_of_work(factory) as session:
        current = current_rubric(session, slug)
        assignment_id, version_id = current.assignment.id, current.version.id
        rubric_text, rubric_hash = current.version.source_text, current.loaded.content_hash
        # Fixed for the whole regrade: every submission is graded with the same decisions.
        context = context_for_regrade(session, current, store=not dry_run)
        report = RegradeReport(slug, rubric_hash, dry_run)
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
        ids = repository.ids_to_regrade(session, assignment_id, job_id)
        if job_id is not None:
            job_row = repository.get_job(session, job_id)
            report.already_done = 0 if job_row is None else max(job_row.total - len(ids), 0)
    report.total = len(ids)
    source = as_pools(pools)
    fast = fast_path(current.loaded, context, options if options is not None
                     else getattr(source, "options", None))
    if fast is not None:
        report.fast = fast.stats
    target = Target(version_id, job_id, dry_run)
    pool = WindowedPool(source)  # a dying process fails only the calls in the pool with it
    quarantine = Quarantine(source, stopping)

    def submit(chunk: list[int]) -> _Batch:
        with unit_of_work(factory) as session:
            subs = repository.with_raw(session, chunk)
            session.expunge_all()
        docs = [(s.raw, s.filename, s.content_type, s.handout) for s in subs]
        futures = [
            pool.submit(
                grade_many,
                rubric_text,
                docs[i : i + TASK_SIZE],
                context,
                [s.id for s in subs[i : i + TASK_SIZE]],
            )
            for i in range(0, len(docs), TASK_SIZE)
        ]
        return _Batch(subs, futures)

    def alone(submission: Submission) -> WorkerOutcome | BaseException | None:
        """A document whose grading process died (perhaps for another one), graded again in
        a process of its own; None when the server stops meanwhile."""
        document = (submission.raw, submission.filename, submission.content_type,
                    submission.handout)
        try:
            retried = quarantine.run(grade_many, rubric_text, [document], context,
                                     [submission.id])
        except Exception as exc:  # GradingProcessDied: it kills every process grading it
            return exc
        return None if retried is None else retried[0]

    def finish(batch: _Batch) -> None:
        results: list[WorkerOutcome | BaseException | None] = []
        for number, future in enumerate(batch.futures):
            chunk = batch.submissions[number * TASK_SIZE : (number + 1) * TASK_SIZE]
            try:
                results.extend(future.result())
            except BrokenProcessPool:
                results.extend(alone(s) for s in chunk)
            except Exception as exc:  # the grading call failed: these documents only
                results.extend([exc] * len(chunk))
        if stopping is not None and stopping.is_set():
            # Failures now come from the shutdown (its pool is gone), not from the documents:
            # those stay unregraded, for the job's resumption.
            results = [r if isinstance(r, WorkerOutcome) else None for r in results]
        kept = [(s, r) for s, r in zip(batch.submissions, results, strict=True) if r is not None]
        graded = [s for s, _ in kept]
        outcomes = [r for _, r in kept]
        ids_ = [s.id for s in graded]
        changed_ids: set[int] = set()
        with unit_of_work(factory) as session:
            rows = current_item_rows(session, ids_)
            overrides = overrides_for(session, ids_)
        for submission, outcome in zip(graded, outcomes, strict=True):
            if not isinstance(outcome, WorkerOutcome):
                continue
            own = overrides.get(submission.id, {})
            old = _score(rows.get(submission.id, ()), own, submission.status)
            change = diff(submission, old, _new_score(outcome, own))
            if change is not None:
                changed_ids.add(submission.id)
                report.changes.append(change)
        report.changed += len(changed_ids)
        if not dry_run and job_id is not None:
            counted = job_id

            def count(session: Session, stored: Sequence[Result]) -> None:
                repository.count_done(session, counted, len(stored),
                                      sum(1 for s, _, _ in stored if s in changed_ids))

            # Each batch in its own transaction, one row in its own if the batch fails: a
            # submission whose result cannot be stored never aborts the regrade.
            store_results(
                factory,
                [(s.id, version_id, o) for s, o in zip(graded, outcomes, strict=True)],
                regrade_job_id=job_id,
                after=count,
            )
        report.count_work([o for o in outcomes if isinstance(o, WorkerOutcome)])
        if progress is not None:
            progress(len(outcomes), report.total)

    # Re-scoring here costs little per submission, and each batch is one commit: larger
    # batches (what the pool does not take stays in a batch of the usual size).
    step = batch_size if fast is None else max(batch_size, fast_batch or FAST_BATCH)
    in_flight: deque[_Batch] = deque()

    def send(chunk: list[int]) -> None:
        for at in range(0, len(chunk), batch_size):
            in_flight.append(submit(chunk[at : at + batch_size]))
            # Two batches in flight: the workers grade the next while this process
            # stores one.
            if len(in_flight) >= 2:
                finish(in_flight.popleft())

    def rescored(found: Rescoring) -> None:
        report.changes.extend(found.changes)
        report.changed += len(found.changes)
        if found.done and progress is not None:
            progress(found.done, report.total)
        send(found.rest)

    def counted(n: int) -> None:
        if progress is not None:
            progress(n, report.total)

    def here(chunk: list[int]) -> None:
        """A fast batch in this process: what the rubric change sends to the grading
        processes goes first, untried: they grade it while this process re-scores the rest."""
        assert fast is not None
        stored, untried = triage(factory, fast, chunk)
        send([sid for sid in chunk if sid in untried])
        rescored(rescore(factory, factory, fast, [sid for sid in chunk if sid not in untried],
                         stored, target))

    chunks = [ids[at : at + step] for at in range(0, len(ids), step)]
    try:
        if fast is None:
            for chunk in chunks:
                if stopping is not None and stopping.is_set():
                    break
                send(chunk)
        elif not forked(factory, fast, chunks, Here(here, send, rescored, counted), target,
                        stopping, worker_count(fast_workers, source.workers)):
            for chunk in chunks:
                if stopping is not None and stopping.is_set():
                    break
                here(chunk)
        while in_flight:
            if stopping is not None and stopping.is_set():
                # The server is stopping: what is still in flight would come back as failures.
                for pending in in_flight:
                    for future in pending.futures:
                        future.cancel()
                break
            finish(in_flight.popleft())
    finally:
        pool.shutdown(cancel_futures=True)
        quarantine.close()
    report.changes.sort(key=lambda change: change.submission_id)
    if stopping is not None and stopping.is_set():
        return report  # the job stays `running`; its heartbeat ages and a later run resumes it

    if job_id is not None:
        with unit_of_work(factory) as session:
            job = repository.get_job(session, job_id)
            if job is not None:
                repository.finish_job(session, job)
                record(
                    session,
                    actor,
                    "regrade.finish",
                    "assignment",
                    slug,
                    {"job": job_id, "regraded": report.total, "changed": report.changed},
                )
    return report
