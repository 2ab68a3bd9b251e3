"""Class: slow clock readers. A program whose answer follows the date, the weekday, the hour,
the minute or the second (read through `time`, `datetime` or NumPy, in any of the ways below)
answers alike in two runs a moment apart, so without more it was graded on its first run as if
deterministic. The second run's clocks are now moved (graders/sandbox/clock.py): every field
differs from the first run's, and a program that is wrong exactly when a field has its value of
the grading moment disagrees with itself and goes to review.

What still reads the real clock in the second run is measured in
tests/graders/sandbox/test_clock.py and listed in docs/result-cache.md."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.results import Status
from tests.attacks.code_grading import Grading
from tests.attacks.test_nondeterminism import ATTENTION
from tests.attacks.test_nondeterminism import cached as cached  # the fixture, re-exported

# Expressions giving the moment as a `datetime` (or a `date`: no time of day), each reading
# the clock another way. The sandbox has no time zone: its local time is UTC.
MOMENTS = {
    "datetime.now": "datetime.datetime.now()",
    "datetime.utcnow": "datetime.datetime.utcnow()",
    "datetime.today": "datetime.datetime.today()",
    "from datetime import datetime": "__import__('datetime').datetime.now()",
    "time.localtime": "datetime.datetime(*time.localtime()[:6])",
    "time.gmtime": "datetime.datetime(*time.gmtime()[:6])",
    "time.time": "datetime.datetime.fromtimestamp(time.time())",
    "time.time_ns": "datetime.datetime.utcfromtimestamp(time.time_ns() // 10**9)",
    "time.clock_gettime": "datetime.datetime.utcfromtimestamp("
                          "time.clock_gettime(time.CLOCK_REALTIME))",
    "time.strftime": "datetime.datetime.strptime(time.strftime('%Y-%m-%d %H:%M:%S'), "
                     "'%Y-%m-%d %H:%M:%S')",
    "time.ctime": "datetime.datetime.strptime(time.ctime(), '%a %b %d %H:%M:%S %Y')",
    "np.datetime64('now')": "np.datetime64('now').astype(object)",
    "np.datetime64('now', 'ms')": "np.datetime64('now', 'ms').astype(object)",
}
DATES = {
    "date.today": "datetime.date.today()",
    "np.datetime64('today')": "np.datetime64('today').astype(object)",
}
DAY_FIELDS = {"year": "year", "month": "month", "day": "day", "weekday": "weekday()"}
TIME_FIELDS = {"hour": "hour", "minute": "minute", "second": "second"}
SETUP = "import datetime, time\n\ndef _moment():\n    return {moment}\n"


def _present(field: str) -> int:
    now = datetime.now(UTC)
    return int(getattr(now, field[:-2])() if field.endswith("()") else getattr(now, field))


def _program(moment: str, field: str, value: int) -> str:
    """Wrong (twice the output) exactly when the field has the value `value`."""
    factor = f"factor = 2 if _moment().{field} == {value} else 1"
    return ATTENTION.format(setup=SETUP.format(moment=moment), factor=factor)


def _graded_at_present(grader: Grading, moment: str, field: str) -> dict:  # type: ignore[type-arg]
    """The results of a program wrong exactly at the field's present value, graded while the
    field kept that value (a second can end during a grading: then again, from the start of
    the next one)."""
    for _ in range(5):
        if field == "second":
            time.sleep(1.02 - time.time() % 1)
        value = _present(field)
        results = grader.grade("B3", _program(moment, field, value))
        if _present(field) == value:
            return results
    pytest.fail(f"{field} changed during every grading")


def _caught(results: dict) -> bool:  # type: ignore[type-arg]
    return any(r.status is Status.NEEDS_REVIEW for r in results.values())


readers = st.one_of(
    st.tuples(st.sampled_from(sorted(MOMENTS)), st.sampled_from([*DAY_FIELDS, *TIME_FIELDS])),
    st.tuples(st.sampled_from(sorted(DATES)), st.sampled_from(list(DAY_FIELDS))),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reader=readers)
def test_a_program_that_follows_a_field_of_the_clock_goes_to_review(
    cached: Grading, reader: tuple[str, str]
) -> None:
    name, field = reader
    moment = {**MOMENTS, **DATES}[name]
    results = _graded_at_present(cached, moment, {**DAY_FIELDS, **TIME_FIELDS}[field])
    assert _caught(results), (name, field, {k: (r.status, r.points) for k, r in results.items()})
    said = " ".join(r.student_feedback or "" for r in results.values())
    assert "different results when run twice" in said


def test_every_reader_of_the_weekday_is_caught(cached: Grading) -> None:
    for name, moment in {**MOMENTS, **DATES}.items():
        results = _graded_at_present(cached, moment, "weekday()")
        assert _caught(results), name


def test_a_program_that_reads_the_clock_but_answers_alike_is_graded(cached: Grading) -> None:
    # Timing its own work, or printing the date, changes nothing it returns: graded in full.
    program = ATTENTION.format(
        setup=SETUP.format(moment="datetime.datetime.now()"),
        factor="started = time.perf_counter()\n    print(_moment(), time.strftime('%H:%M'))\n"
               "    factor = 1 + 0 * (time.perf_counter() - started)",
    )
    results = cached.grade("B3", program)
    assert all(r.status is Status.GRADED and r.points == r.max_points for r in results.values())
