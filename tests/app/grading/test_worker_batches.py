"""`grade_many` (a regrade's call to a grading process) writes to the result cache once per
call: the outcomes are those of grading each document alone, and everything it computed is in
the cache file when the call returns."""

from __future__ import annotations

import multiprocessing
import sqlite3
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from app.grading import worker
from app.grading.worker import WorkerOutcome, grade_document, grade_many
from graders.context import GradingResources
from tests.app.regrade.test_cache import DOCUMENTS, GRADING, RUBRIC


def _same(outcome: WorkerOutcome) -> tuple[Any, ...]:
    return (outcome.status, outcome.rubric_hash, outcome.error, outcome.student_id,
            outcome.items, outcome.answers)


def _entries(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM entries").fetchone()[0])


def _in_a_grading_process(options: dict[str, Any]) -> list[WorkerOutcome]:
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context, initializer=worker.init_worker,
                             initargs=(options,)) as pool:
        return pool.submit(grade_many, RUBRIC, DOCUMENTS).result(timeout=300)


def test_a_call_grades_like_each_document_alone_and_leaves_its_work_in_the_cache(
        tmp_path: Path) -> None:
    plain = GradingResources(options=dict(GRADING))
    try:
        alone = [grade_document(RUBRIC, *doc, resources=plain) for doc in DOCUMENTS]
    finally:
        plain.close()
    path = tmp_path / "cache.sqlite"
    options = {**GRADING, "result_cache_path": str(path),
               "result_cache_bytes": 64 << 20}
    cold = _in_a_grading_process(options)
    assert [_same(o) for o in cold] == [_same(o) for o in alone]
    assert sum(o.work["groups_run"] for o in cold) > 0
    assert _entries(path) > 0
    # Another process reads every document and group back from what the first one left.
    warm = _in_a_grading_process(options)
    assert [_same(o) for o in warm] == [_same(o) for o in alone]
    for before, after in zip(cold, warm, strict=True):
        kept = [g for g in (before.keys or {}).get("groups", {}) if not g.endswith("/missing")]
        # What was kept is read back; only what could not be kept (a program that loops
        # forever, an unreadable upload) is computed again.
        assert after.work["groups_cached"] == len(kept)
        assert after.work["groups_run"] == (before.work["groups_run"]
                                            + before.work["groups_cached"] - len(kept))
        assert after.work["located"] == (0 if before.keys else before.work["located"])
    assert [o.keys for o in warm] == [o.keys for o in cold]
