"""What a forked regrade spends outside the per-submission work (issue #16): the first batch
triaged once (before the fork; its worker inherits the runs), and the CLI's collector pause that
no longer counts the frozen objects (a walk over all of them).

The forks are real (of the test process), on the SQLite files of `test_regrade_parallel`.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import pytest

from app.cli import context
from app.regrade import batches
from tests.app.regrade.test_cache import POINTS_AND_FEEDBACK
from tests.app.regrade.test_fast import ALL, Setup, _edited, _same_reports, stored
from tests.app.regrade.test_parallel import FORKED, forks, setup  # noqa: F401  (fixtures)
from tests.app.regrade.test_startup import collector  # noqa: F401  (a fixture)


def test_the_first_batch_is_triaged_once_and_stores_the_same(
    setup: Setup, forks: list[int], tmp_path: Path  # noqa: F811  (fixtures)
) -> None:
    log = tmp_path / "triaged"
    real = batches.triage

    def triage(reads: Any, fast: Any, chunk: list[int], send: Any) -> Any:
        with open(log, "a") as out:  # the workers' calls too (one write each, appended)
            out.write(f"{os.getpid()} {','.join(map(str, chunk))}\n")
        return real(reads, fast, chunk, send)

    setup.monkeypatch.setattr(batches, "triage", triage)
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    fast, slow = setup.regrade_both(**FORKED)
    assert len(forks) == 2
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    counts = fast.fast
    assert counts is not None and counts.reused + counts.rescored + counts.sent == len(ALL)
    calls = [line.split() for line in log.read_text().splitlines()]
    triaged = [sid for _, chunk in calls for sid in chunk.split(",")]
    # Every submission once: the first batch here before the fork, the others in the workers.
    assert len(triaged) == len(set(triaged)) == len(ALL)
    assert calls[0][0] == str(os.getpid()) and {pid for pid, _ in calls[1:]} <= set(
        map(str, forks))


@pytest.mark.usefixtures("collector")
def test_a_pause_within_a_frozen_start_up_counts_no_frozen_object(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What the pause adds stays frozen with start-up (tests/app/test_regrade_startup.py);
    # knowing that must not cost a walk over every frozen object.
    def walks() -> int:
        raise AssertionError("gc.get_freeze_count walks every frozen object")

    with context.startup_frozen():
        monkeypatch.setattr(gc, "get_freeze_count", walks)
        with context.collector_paused():
            more = [[n] for n in range(10_000)]
        monkeypatch.undo()
        assert not any(found is more for found in gc.get_objects())  # frozen: in no generation
    assert any(found is more for found in gc.get_objects(generation=2))
