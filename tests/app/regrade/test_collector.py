"""A forked regrade worker's collector: its young generation is collected rarely (each worker
re-scores and stores whole batches, allocating millions of short-lived objects), in the worker
only: the command's own process keeps the interpreter's thresholds."""

from __future__ import annotations

import gc
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from app.regrade import batches


def test_each_forked_worker_collects_its_young_generation_rarely_and_the_command_as_before(
) -> None:
    before = gc.get_threshold()
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"),
                             initializer=batches.worker_collector) as pool:
        thresholds = [pool.submit(gc.get_threshold).result() for _ in range(3)]
    assert thresholds == [(batches.WORKER_YOUNG_THRESHOLD, before[1], before[2])] * 3
    assert gc.get_threshold() == before  # the command's own process: unchanged
