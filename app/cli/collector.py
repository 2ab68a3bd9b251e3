"""The collector paused over start-up, apart from the rest of the commands' context so that the
entry point (app/cli/main.py) pauses it over typer's import before importing typer."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Start-ups frozen now (startup_frozen): what a pause allocates meanwhile is frozen with them.
_frozen = 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Start-up (a command's imports, a rubric's grader modules) allocates a great many
    objects that all live on: the collector's passes meanwhile would free nothing (about 0.2 s
    of `regrade`'s start). Nor does a pass over them afterwards: they join the oldest objects
    without one (frozen with them while start-up is frozen, else in the oldest generation, which
    only a full pass walks). The collector is left as it was."""
    enabled = gc.isenabled()
    frozen = _frozen > 0  # not gc.get_freeze_count(): it walks every frozen object
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()  # moves every tracked object, without walking any
        if not frozen:
            gc.unfreeze()  # into the oldest generation
        if enabled:
            gc.enable()


@contextmanager
def startup_frozen() -> Iterator[None]:
    """Bulk work after start-up: what start-up built (modules, classes, SQLAlchemy's and
    pydantic's tables: most of the process's objects) lives on, so the collector's full passes
    skip it meanwhile instead of walking it again each time; collected as before afterwards."""
    global _frozen
    gc.freeze()
    _frozen += 1
    try:
        yield
    finally:
        _frozen -= 1
        gc.unfreeze()
