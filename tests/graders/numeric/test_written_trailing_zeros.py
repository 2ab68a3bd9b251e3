"""A decimal's trailing zeros are digits the student kept: `0.50` for 0.5026 is rounded to two
significant digits, not to the one of the value 1/2, and `3.0` for 3.004 to two. The rounding
policy read the value alone, so `min_significant: 2` refused `≈ 0.50` as "rounded to 1
significant digit" (trial homework 4: a cross-entropy loss and a perplexity)."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.numeric.config import RoundingPolicy
from graders.numeric.rounding import coarser_rounding, rounded_digits


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 99_999), st.integers(1, 3), st.integers(1, 3))
def test_trailing_zeros_as_written_count_as_significant(
        ten_thousandths: int, places: int, units: int) -> None:
    expected = Decimal(units) + Decimal(ten_thousandths) / Decimal(100_000)
    rounded = expected.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    written = f"{rounded:.{places}f}"
    assume(written.endswith("0") and rounded != expected)
    digits = len(written.replace(".", "").lstrip("0"))
    value = Fraction(written)
    assert rounded_digits(value, float(expected), written) == digits, written
    policy = RoundingPolicy(credit=0.5, min_significant=digits)
    assert coarser_rounding(value, float(expected), policy, written), written


def test_without_the_written_form_the_value_decides() -> None:
    assert rounded_digits(Fraction(1, 2), 0.5026) == 1
    assert rounded_digits(Fraction(1, 2), 0.5026, "0.50") == 2
    assert rounded_digits(Fraction(1, 2), 0.5026, "1/2") == 1
