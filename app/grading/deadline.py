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


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    if (
        not seconds
        or threading.current_thread() is not threading.main_thread()
        or not hasattr(signal, "setitimer")
    ):
        yield
        return

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise DocumentDeadline

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def at_most(seconds: float | None) -> Iterator[None]:
    """Inside `deadline`: this step gets `seconds` at most (the document's own deadline still
    applies if it comes sooner), and the document keeps what it has left afterwards."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return
    remaining = signal.getitimer(signal.ITIMER_REAL)[0]
    if not remaining or remaining <= seconds:  # no document deadline armed, or it comes first
        yield
        return
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        left = remaining - (time.monotonic() - started)
        signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))
