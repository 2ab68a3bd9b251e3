"""The clocks a job's code reads, moved by its run's shift.

Appended to the harness's text (graders/sandbox/zygote.py), so it runs only in the zygote and
its children, never in the grader. A job not found in the cache runs twice
(graders/code/determinism.py); the second run's clocks are moved by days, hours, minutes and
seconds (graders/sandbox/clock.py draws the shift), so a program whose answer follows the date,
the weekday, the hour or the minute disagrees with itself like one that follows the
microseconds. `install_clock` replaces the clock readers of `time`, `datetime` and NumPy once in
the zygote (no cost per job); each child sets its run's shift before the student's code runs
(0 in a first run). Both runs see the same functions, so their presence does not tell the runs
apart; what is still out of their reach is listed in docs/result-cache.md.
"""

# No `from __future__` here: this text follows the harness's own in one source.
import datetime as _datetime
import time as _time
from typing import Any

import numpy as _numpy

_SHIFT = [0]  # whole seconds added to every clock this process reads
# Wall clocks (REALTIME, REALTIME_COARSE, TAI) and the clocks counted from boot (MONOTONIC,
# MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME), by their Linux numbers: a program may pass those.
_SHIFTED_CLOCKS = frozenset({0, 5, 11, 1, 4, 6, 7})


def set_clock(shift: int) -> None:
    _SHIFT[0] = int(shift)


def install_clock() -> None:
    """Replace the clock readers of `time`, `datetime.datetime` and `numpy.datetime64`."""
    if getattr(getattr(_time.time, "__func__", None), "_shifted", False):
        return
    real = {name: getattr(_time, name) for name in (
        "time", "time_ns", "localtime", "gmtime", "ctime", "asctime", "strftime",
        "clock_gettime", "clock_gettime_ns", "monotonic", "monotonic_ns", "perf_counter",
        "perf_counter_ns")}
    shift = _SHIFT

    def moved(name: str) -> Any:
        original, unit = real[name], 1_000_000_000 if name.endswith("_ns") else 1

        def clock() -> Any:
            return original() + shift[0] * unit

        clock.__name__ = clock.__qualname__ = name
        return clock

    now = moved("time")

    def broken_down(name: str) -> Any:
        original = real[name]

        def convert(secs: Any = None) -> Any:
            return original(now() if secs is None else secs)

        convert.__name__ = convert.__qualname__ = name
        return convert

    def asctime(t: Any = None, _real: Any = real["asctime"],
                _local: Any = real["localtime"]) -> str:
        return _real(_local(now()) if t is None else t)  # type: ignore[no-any-return]

    def strftime(format: str, t: Any = None, _real: Any = real["strftime"],
                 _local: Any = real["localtime"]) -> str:
        return _real(format, _local(now()) if t is None else t)  # type: ignore[no-any-return]

    def clock_gettime(clock: int, _real: Any = real["clock_gettime"]) -> float:
        return _real(clock) + (shift[0] if clock in _SHIFTED_CLOCKS else 0)  # type: ignore[no-any-return]

    def clock_gettime_ns(clock: int, _real: Any = real["clock_gettime_ns"]) -> int:
        return _real(clock) + (  # type: ignore[no-any-return]
            shift[0] * 1_000_000_000 if clock in _SHIFTED_CLOCKS else 0)

    replaced = {"time": now, "asctime": asctime, "strftime": strftime,
                "clock_gettime": clock_gettime, "clock_gettime_ns": clock_gettime_ns,
                **{name: broken_down(name) for name in ("localtime", "gmtime", "ctime")},
                **{name: moved(name) for name in ("time_ns", "monotonic", "monotonic_ns",
                                                  "perf_counter", "perf_counter_ns")}}
    now._shifted = True
    for name, function in replaced.items():
        # A static method, like the built-in it replaces, does not bind when a class keeps it
        # (logging.Formatter.converter = time.localtime).
        setattr(_time, name, staticmethod(function))
    _datetime.datetime = _moved_datetime(_datetime.datetime)  # type: ignore[misc]
    _numpy.datetime64 = _moved_datetime64(_numpy.datetime64)  # type: ignore[misc]


def _moved_datetime(base: Any) -> Any:
    """`datetime.datetime` whose `now` and `utcnow` read the moved clock (`today`, and
    `date.today`, already read `time.time`)."""

    class datetime(base):  # type: ignore[misc]
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return cls.fromtimestamp(_time.time(), tz)

        @classmethod
        def utcnow(cls) -> Any:
            return cls.utcfromtimestamp(_time.time())

    datetime.__module__ = "datetime"
    return datetime


def _moved_datetime64(base: Any) -> Any:
    """`numpy.datetime64` whose 'now' and 'today' read the moved clock; every other value, and
    `isinstance` against it, as NumPy's own."""

    class _Kind(type(base)):  # type: ignore[misc]
        def __instancecheck__(cls, value: Any) -> bool:
            return isinstance(value, base)

        def __subclasscheck__(cls, kind: Any) -> bool:
            return issubclass(kind, base)

    class datetime64(base, metaclass=_Kind):  # type: ignore[misc]
        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            word = args[0].strip() if args and isinstance(args[0], str) else ""
            if word not in ("now", "today"):
                return base(*args, **kwargs)
            unit = args[1] if len(args) > 1 else kwargs.get("unit")
            moment = base(_time.time_ns(), "ns")
            return moment.astype(f"M8[{unit or ('s' if word == 'now' else 'D')}]")

    datetime64.__module__ = "numpy"
    return datetime64
