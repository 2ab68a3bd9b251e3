"""What a regrade spends outside the per-submission work (issue #16): the CLI's collector
pause no longer counts the frozen objects (a walk over all of them).
"""

from __future__ import annotations

import gc

import pytest

from app.cli import context
from tests.app.regrade.test_startup import collector  # noqa: F401  (a fixture)


@pytest.mark.usefixtures("collector")
def test_a_pause_within_a_frozen_start_up_counts_no_frozen_object(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What the pause adds stays frozen with start-up (tests/app/regrade/test_startup.py);
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
