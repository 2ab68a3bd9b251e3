"""A wall-clock limit on reading and grading one document, inside a grading process.

Every parse and check is meant to be bounded on its own; this is the backstop that keeps one
document from holding a grading process for minutes when one of them is not. It interrupts the
process's main thread with SIGALRM, so it applies only there (pool workers, Celery's prefork
children and the offline CLI all grade on their main thread).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class DocumentDeadline(BaseException):
    """Not an Exception: graders that catch `Exception` around one item must not swallow it
    and carry on with the next."""


def _expire(_signum: int, _frame: FrameType | None) -> None:
    raise DocumentDeadline


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """DocumentDeadline once `seconds` have passed (None: no limit). Inside another deadline,
    this step gets `seconds` at most (the outer one still applies if it comes sooner), and the
    outer one keeps what it has left afterwards."""
    if (not seconds or threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "setitimer")):
        yield
        return
    outer = signal.getitimer(signal.ITIMER_REAL)[0]
    if outer and outer <= seconds:  # the outer deadline comes first
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expire)
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # re-armed for what it has left, with its own handler
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 0.001))
