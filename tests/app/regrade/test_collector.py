"""A forked regrade worker's collector: its young generation is collected rarely (each worker
re-scores and stores whole batches, allocating millions of short-lived objects), in the worker
only: the command's own process keeps the interpreter's thresholds."""

from __future__ import annotations

import gc
import threading
from typing import Any

from app.regrade import parallel
from app.regrade.forks import Forked, run_forked


def test_each_forked_worker_collects_its_young_generation_rarely_and_the_command_as_before(
) -> None:
    before = gc.get_threshold()
    answers: list[Any] = []
    lost: list[Any] = []
    run_forked([[1], [2], [3]], 2, lambda batch: (batch, gc.get_threshold()),
               Forked(lambda batch, answer: answers.append(answer), lost.append),
               stopping=threading.Event(), in_worker=parallel.worker_collector)
    assert not lost
    assert sorted(batch for batch, _ in answers) == [[1], [2], [3]]
    for _, threshold in answers:
        assert threshold == (parallel.WORKER_YOUNG_THRESHOLD, before[1], before[2])
    assert gc.get_threshold() == before  # the command's own process: unchanged

