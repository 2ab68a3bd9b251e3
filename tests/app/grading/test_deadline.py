"""A document's deadline and a step's share of it (app/grading/deadline.py): one context
manager, nested, that leaves a timer armed before it (pytest-timeout's, here) as it found it.
Timing is the behaviour here; the margins allow a loaded machine."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from app.grading.deadline import DocumentDeadline, deadline


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.005)


def _armed() -> float:
    return signal.getitimer(signal.ITIMER_REAL)[0]


def test_a_step_that_outlives_its_share_ends_at_its_share() -> None:
    started = time.monotonic()
    with pytest.raises(DocumentDeadline), deadline(30), deadline(0.2):
        _spin(10)
    assert time.monotonic() - started < 5


def test_the_document_keeps_what_it_had_left_after_a_step() -> None:
    started = time.monotonic()
    with pytest.raises(DocumentDeadline), deadline(0.6):
        with deadline(5):  # longer than what the document has left: the document's applies
            pass
        with deadline(0.3):
            _spin(0.05)
        _spin(10)
    # the document's own 0.6 s, counted from its start: not reset by the steps
    assert 0.5 <= time.monotonic() - started < 5


def test_what_was_armed_before_is_left_as_it_was_and_no_limit_is_no_limit() -> None:
    handler, armed = signal.getsignal(signal.SIGALRM), _armed()
    with deadline(None), deadline(0):
        _spin(0.05)
    with deadline(0.5):
        _spin(0.05)
    assert signal.getsignal(signal.SIGALRM) is handler
    assert (armed == 0) == (_armed() == 0) and _armed() <= armed


def test_off_the_main_thread_nothing_is_interrupted() -> None:
    finished: list[bool] = []

    def grade() -> None:
        with deadline(0.05):
            _spin(0.3)
        finished.append(True)

    thread = threading.Thread(target=grade)
    thread.start()
    thread.join()
    assert finished == [True]
