"""A regrade's fast path a batch at a time (app.regrade.fast): read the batch's stored runs,
re-score what can be re-scored here, store it in one transaction. The same whether the CLI's
process runs the batch or one of its forked workers does (app.regrade.parallel).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.db.session import unit_of_work
from app.grading.advance import AdvancedRun, advance_runs
from app.grading.repository import run_scores
from app.regrade import repository
from app.regrade.changes import ScoreChange
from app.regrade.fast import FastPath, Rescored
from app.regrade.settle import Settled, settle
from app.regrade.stored import StoredRun, stored_runs
from app.submissions.repository import overrides_for
from graders.rubric import LoadedRubric

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Target:
    """Where a regrade stores what it re-scores."""

    version_id: int
    job_id: int | None
    dry_run: bool


@dataclass(slots=True)
class Rescoring:
    """What one batch's re-scoring gave: the submissions it could not do (for the grading
    processes), the score changes of those it did, and how many it did (stored, unless a dry
    run)."""

    rest: list[int] = field(default_factory=list)
    changes: list[ScoreChange] = field(default_factory=list)
    done: int = 0


def fast_path(loaded: LoadedRubric, context: str | None,
              options: Mapping[str, Any] | None) -> FastPath | None:
    """The fast path, when it can decide exactly as the grading processes would: a result cache
    to read, and no calibration context (its annotations are not what the keys name)."""
    if context is not None or not options or not options.get("result_cache_path"):
        return None
    from app.cache.store import open_cache

    cache = open_cache(options)
    if not cache.enabled:
        return None
    return FastPath(loaded, options, cache)


def triage(reads: sessionmaker[Session], fast: FastPath, chunk: Sequence[int]
           ) -> tuple[dict[int, StoredRun], set[int]]:
    """The chunk's stored runs, and those of its submissions known to need the grading
    processes without trying here (`FastPath.pool_only`)."""
    with unit_of_work(reads) as session:
        stored = stored_runs(session, chunk)
        untried = fast.pool_only(session, chunk, stored)
    return stored, untried


def rescore(reads: sessionmaker[Session], writes: sessionmaker[Session], fast: FastPath,
            chunk: Sequence[int], stored: Mapping[int, StoredRun], target: Target,
            turn: Callable[[], AbstractContextManager[None]] = nullcontext) -> Rescoring:
    """Re-score here what the fast path can of `chunk` and store it in one transaction (once
    `turn` lets it write)."""
    found = Rescoring()
    if not chunk:
        return found
    started = time.perf_counter()
    rescored: list[Rescored] = []
    for sid in chunk:
        done = fast.rescore(stored.get(sid))
        if done is None:
            found.rest.append(sid)
        else:
            rescored.append(done)
    fast.close()
    if not rescored:
        return found
    # Of each stored run only its item count and the rows that can change its status or
    # total are read: those of the recomputed and the overridden items, and the deciding ones.
    with unit_of_work(reads) as session:
        overrides = overrides_for(session, [r.stored.submission_id for r in rescored])
        wanted = {item for r in rescored for item in r.recomputed}
        wanted.update(item for own in overrides.values() for item in own)
        scores = run_scores(session, [r.stored.run_id for r in rescored], wanted)
    settled: list[tuple[Rescored, Settled]] = []
    changes: list[ScoreChange] = []
    for r in rescored:
        run = r.stored
        read = scores.get(run.run_id)
        now = None if read is None or read.count != len(fast.order) else settle(
            run.submission_id, run.student, run.total, run.max_points, read, r.recomputed,
            overrides.get(run.submission_id, {}), fast.positions)
        if now is None:
            fast.stats.unsettled(r)
            found.rest.append(run.submission_id)
            continue
        settled.append((r, now))
        if now.change is not None:
            changes.append(now.change)
    found.rest.sort()
    if not settled:
        return found
    if not target.dry_run:
        seconds = (time.perf_counter() - started) / len(chunk)
        try:
            with turn():
                _store(writes, settled, target, fast, len(changes), seconds)
        except Exception:  # the grading processes store them, a row at a time if need be
            log.exception("storing %d re-scored submissions failed", len(settled))
            fast.stats.sent += len(settled)
            found.rest = sorted(found.rest + [r.stored.submission_id for r, _ in settled])
            return found
    found.changes = changes
    found.done = len(settled)
    return found


def _store(writes: sessionmaker[Session], settled: Sequence[tuple[Rescored, Settled]],
           target: Target, fast: FastPath, changed: int, seconds: float) -> None:
    with unit_of_work(writes) as session:
        stored = advance_runs(
            session,
            [AdvancedRun(r.stored.submission_id, r.stored.run_id, s.status, s.total,
                         s.max_points, r.keys, r.recomputed) for r, s in settled],
            target.version_id, fast.loaded.content_hash, target.job_id, fast.positions,
            seconds,
        )
        if target.job_id is not None:
            repository.count_done(session, target.job_id, stored, changed)
