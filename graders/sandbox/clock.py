"""How far a second run's clocks are moved (graders/sandbox/harness_clock.py moves them).

A program that reads the date, the weekday, the hour or the minute gives the same answer in two
runs a moment apart. Its second run sees every clock moved forward by one to four years and
some days, hours, minutes and seconds, drawn so that each of those fields differs from the
first run's (the sandbox has no time zone: its local time is UTC), whatever the few seconds
between the two runs add.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime

# The first run's clock is read up to this long before the second's (both runs of one job).
APART_S = 30
_DAY = 86_400


def _fields(at: float) -> tuple[int, ...]:
    moment = datetime.fromtimestamp(at, UTC)
    return (moment.year, moment.month, moment.day, moment.weekday(), moment.hour,
            moment.minute)


def clock_shift(now: float | None = None, draw: Callable[[int], int] = secrets.randbelow
                ) -> int:
    """Whole seconds to move a second run's clocks by: year, month, day of the month,
    weekday, hour and minute all differ from those of any moment up to APART_S seconds
    before `now` (the first run), read up to APART_S seconds after it; the second differs
    unless the runs were more than a few seconds apart."""
    at = time.time() if now is None else now
    while True:
        days = 366 + draw(3 * 365)
        hours, minutes, seconds = 1 + draw(22), 1 + draw(57), 5 + draw(51)
        shift = days * _DAY + hours * 3600 + minutes * 60 + seconds
        if all(a != b for earlier in (at - APART_S, at) for later in (at, at + APART_S)
               for a, b in zip(_fields(earlier), _fields(later + shift), strict=True)):
            return shift
