"""A second run's clocks (graders/sandbox/clock.py, harness_clock.py): every field of the date
and time differs from the first run's, every clock reader of `time`, `datetime` and NumPy is
moved by the shift (and by nothing in a first run), and the readers still out of reach are
measured here, so that the list in docs/result-cache.md stays true."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.sandbox import Call, Job, Sandbox
from graders.sandbox.clock import APART_S, clock_shift

FIELDS = ("year", "month", "day", "hour", "minute")


def _fields(at: float) -> tuple[int, ...]:
    moment = datetime.fromtimestamp(at, UTC)
    return (*(getattr(moment, name) for name in FIELDS), moment.weekday())


@settings(max_examples=300, deadline=None)
@given(now=st.floats(min_value=0, max_value=4e9), seed=st.integers(0, 2**32),
       first=st.floats(min_value=0, max_value=APART_S),
       second=st.floats(min_value=0, max_value=APART_S))
def test_every_field_of_a_moved_moment_differs(now: float, seed: int, first: float,
                                               second: float) -> None:
    shift = clock_shift(now, random.Random(seed).randrange)
    assert 366 * 86_400 < shift < 5 * 366 * 86_400
    before, after = _fields(now - first), _fields(now + second + shift)
    assert all(a != b for a, b in zip(before, after, strict=True)), (before, after)
    # The second differs too when the runs are a moment apart.
    assert int(now) % 60 != int(now + shift) % 60


# Each reader's idea of the Unix time, as a float.
COVERED = {
    "time.time": "time.time()",
    "time.time_ns": "time.time_ns() / 1e9",
    "time.clock_gettime": "time.clock_gettime(time.CLOCK_REALTIME)",
    "time.clock_gettime_ns": "time.clock_gettime_ns(time.CLOCK_REALTIME) / 1e9",
    "time.localtime": "calendar.timegm(time.localtime())",
    "time.gmtime": "calendar.timegm(time.gmtime())",
    "time.strftime": "calendar.timegm(time.strptime(time.strftime('%c')))",
    "time.ctime": "calendar.timegm(time.strptime(time.ctime()))",
    "time.asctime": "calendar.timegm(time.strptime(time.asctime()))",
    "datetime.now": "datetime.datetime.now(datetime.timezone.utc).timestamp()",
    "datetime.utcnow": "datetime.datetime.utcnow().replace(tzinfo=datetime.timezone.utc)"
                       ".timestamp()",
    "datetime.today": "datetime.datetime.today().timestamp()",
    "date.today": "calendar.timegm(datetime.date.today().timetuple())",
    "np.datetime64('now')": "np.datetime64('now').astype('M8[s]').astype(np.int64)",
    "np.datetime64('today')": "np.datetime64('today').astype('M8[s]').astype(np.int64)",
}
# Readers a determined program can still reach unmoved (docs/result-cache.md).
UNMOVED = {
    "libc through ctypes (the vDSO)": "__import__('ctypes').CDLL(None).time(None)",
    "the C datetime class": "datetime.datetime.__mro__[1].now().timestamp()",
    "_datetime": "__import__('_datetime').datetime.now().timestamp()",
    "a NumPy array of 'now'": "np.array('now', dtype='M8[s]').astype(np.int64)",
    "a pipe's modification time": "os.fstat(3).st_mtime",
    "the syscall the child's set-up resolved, through the frames": "_set_up_syscall()",
}
SOURCE = """
import calendar, ctypes, datetime, os, sys, time
import numpy as np

def _set_up_syscall():
    # The frame below the harness's is the zygote's `main`, whose globals hold its libc,
    # `syscall` already resolved (seccomp's set-up): clock_gettime (228) with no audit event.
    frame = sys._getframe()
    while "libc" not in frame.f_globals:
        frame = frame.f_back
    libc, moment = frame.f_globals["libc"], (ctypes.c_long * 2)()
    assert "syscall" in vars(libc)
    libc.syscall(228, 0, moment)
    return moment[0] + moment[1] / 1e9

def readings():
    return np.array([{readers}], dtype=np.float64)
"""


def _readings(sandbox: Sandbox, readers: dict[str, str], shift: int) -> dict[str, float]:
    source = SOURCE.format(readers=", ".join(readers.values()))
    outcome = sandbox.run(Job(source, (), (Call("readings", ()),), clock_shift_s=shift))
    call = outcome.calls[0]
    assert call is not None and call.ok and call.value is not None, outcome
    values = call.value.array
    assert values is not None
    return dict(zip(readers, values.tolist(), strict=True))


@pytest.mark.parametrize("shift", [0, 400 * 86_400 + 5 * 3600 + 7 * 60 + 11])
def test_every_covered_reader_is_moved_by_the_shift(sandbox: Sandbox, shift: int) -> None:
    before = time.time()
    readings = _readings(sandbox, COVERED, shift)
    after = time.time()
    for name, value in readings.items():
        slack = 86_400 if "today" in name else 2  # a date reads midnight
        assert before + shift - slack <= value <= after + shift + 1, (name, value - before)


def test_the_readers_out_of_reach_read_the_real_clock(sandbox: Sandbox) -> None:
    shift = 400 * 86_400
    before = time.time()
    readings = _readings(sandbox, UNMOVED, shift)
    for name, value in readings.items():
        assert before - 5 <= value <= time.time() + 1, (name, value - before)


def test_the_root_s_times_are_the_zygote_s_start(sandbox: Sandbox) -> None:
    # Not moved either: the private root was built when the zygote started, so its inode
    # times tell that day (a clock as slow as the zygote's restarts).
    source = "import os\nimport numpy as np\n\ndef readings():\n" \
             "    return np.array([os.stat('/').st_ctime], dtype=np.float64)\n"
    outcome = sandbox.run(Job(source, (), (Call("readings", ()),), clock_shift_s=86_400 * 400))
    call = outcome.calls[0]
    assert call is not None and call.value is not None and call.value.array is not None
    built = float(call.value.array[0])
    assert built <= time.time() and np.isfinite(built)


ORDINARY = """
import dataclasses, datetime, logging, time, typing, warnings
import numpy as np

T = typing.TypeVar("T")

class Pair(typing.NamedTuple):
    first: float
    second: float

@dataclasses.dataclass(frozen=True)
class Config:
    d_k: int = 4

def readings():
    warnings.warn("a student's warning")
    logging.basicConfig(format="%(asctime)s %(message)s", level=logging.INFO)
    logging.getLogger("student").info("started")
    now = datetime.datetime.now()
    later = now + datetime.timedelta(hours=1)
    dates = np.arange(np.datetime64("2026-01-01"), np.datetime64("2026-01-08"))
    checks = [isinstance(now, datetime.date), isinstance(later, datetime.datetime),
              type(later) is type(now), isinstance(dates[0], np.datetime64),
              np.issubdtype(dates.dtype, np.datetime64), len(dates) == 7,
              datetime.datetime.strptime("2026-11-29", "%Y-%m-%d").year == 2026,
              Pair(1.0, 2.0).second == 2.0, Config().d_k == 4, time.sleep(0) is None,
              str(np.datetime64("2026-11-29")) == "2026-11-29"]
    return np.array(checks, dtype=np.float64)
"""


@pytest.mark.parametrize("shift", [0, 800 * 86_400 + 3600 + 60 + 5])
def test_ordinary_code_that_meets_the_clock_runs_alike_under_a_shift(
    sandbox: Sandbox, shift: int
) -> None:
    # typing, dataclasses, warnings and logging ask for frames and the time; dates in NumPy
    # and datetime arithmetic meet the replaced classes.
    outcome = sandbox.run(Job(ORDINARY, (), (Call("readings", ()),), clock_shift_s=shift))
    call = outcome.calls[0]
    assert call is not None and call.ok and call.value is not None, (outcome, outcome.output)
    assert call.value.array is not None and bool(call.value.array.all()), call.value.array
