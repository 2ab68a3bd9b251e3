"""Writer threads take what is queued in batches: one commit for many rows (SQLite's cost)."""

from __future__ import annotations

import queue
from collections.abc import Callable

STOP = object()  # put on a writer's queue: finish what is queued before it, then end


def drain(items: queue.Queue[object], limit: int, write: Callable[[list[object]], None]) -> None:
    """Until STOP: wait for an item, take up to `limit` that are already queued with it, and
    hand them to `write` together."""
    while True:
        first = items.get()
        if first is STOP:
            return
        batch = [first]
        stop = False
        while len(batch) < limit:
            try:
                nxt = items.get_nowait()
            except queue.Empty:
                break
            if nxt is STOP:
                stop = True
                break
            batch.append(nxt)
        write(batch)
        if stop:
            return
