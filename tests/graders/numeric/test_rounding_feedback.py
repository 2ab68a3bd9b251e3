"""A value rounded to fewer significant digits than an item's rounding policy credits: the
feedback said "a count must be exact, not rounded" although the rubric credits roundings
(`2.1 million` for 2,097,152 under `min_significant: 3`)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.numeric.config import NumericConfig
from graders.numeric.rounding import rounded_digits
from graders.numeric.verdicts import _wrong


def _round(value: int, digits: int) -> int:
    return int(round(value, digits - len(str(value))))


@settings(max_examples=200, deadline=None)
@given(st.integers(300_000, 989_999), st.integers(2, 4), st.integers(1, 2),
       st.sampled_from(["integer", "real"]))
def test_a_rounding_below_the_policy_says_how_many_digits_count(
        target: int, digits: int, more: int, kind: str) -> None:
    value, least = _round(target, digits), digits + more
    assume(value != target)
    config = NumericConfig.model_validate({
        "expected": target, "kind": kind,
        "rounding": {"credit": 0.5, "min_significant": least}})
    verdict = _wrong(Fraction(value), float(target), config)
    kept = rounded_digits(Fraction(value), target)
    assert verdict.points == Decimal(0)
    assert f"rounded to {kept} significant digit" in verdict.feedback
    assert f"credits {least} or more" in verdict.feedback
    assert "count must be exact" not in verdict.feedback
    assert str(target) not in (verdict.student)  # never the answer
    without = NumericConfig.model_validate({"expected": target, "kind": kind})
    assert "rounding policy" not in _wrong(Fraction(value), float(target), without).feedback
