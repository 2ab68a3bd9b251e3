"""`grade_jobs` (CLI import/submit) stores results while the others are graded, in batches
that halve towards the end, and calls `finished` once every outcome is in, before the last
ones are stored: every result is stored once, whatever the count and the batch bound."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.grading import local
from app.grading.local import grade_jobs
from app.grading.store import Result
from tests.app.grading.test_local_faults import Db, db, graded_once, store

__all__ = ["db"]


@pytest.mark.parametrize(("count", "bound"), [(1, 100), (2, 100), (13, 100), (50, 100),
                                              (13, 4), (30, 1)])
def test_results_are_stored_while_the_others_are_graded(
    db: Db, monkeypatch: pytest.MonkeyPatch, count: int, bound: int
) -> None:
    jobs = store(db, count)
    events: list[tuple[str, int]] = []
    stored: list[int] = []
    real = local.store_results

    def recording(factory: object, results: Sequence[Result]) -> list[int]:
        events.append(("store", len(results)))
        stored.extend(r[0] for r in results)
        return real(factory, results)  # type: ignore[arg-type]

    monkeypatch.setattr(local, "store_results", recording)
    done: list[int] = []
    # One grading thread: the results come one at a time, in order.
    with ThreadPoolExecutor(1) as pool:
        outcomes = grade_jobs(db.sessions, jobs, pool, progress=done.append, batch=bound,
                              finished=lambda: events.append(("finished", len(done))))
    assert all(o is not None for o in outcomes)
    assert sorted(stored) == sorted(j.submission_id for j in jobs)  # each once
    graded_once(db, [j.submission_id for j in jobs])
    kinds = [kind for kind, _ in events]
    assert kinds.count("finished") == 1 and kinds[-1] == "store"
    # Called when every outcome is in, and only the last result waits for it to be stored.
    assert events[-2] == ("finished", count) and events[-1] == ("store", 1)
    sizes = [n for kind, n in events if kind == "store"]
    assert max(sizes) <= bound
    # A store during the grading holds at most one result more than are still being graded:
    # the batches halve towards the end.
    received = 0
    for size in sizes[:-1]:
        received += size
        assert size <= count - received + 1
    assert sum(sizes) == count
