"""A factor stated as a division (trial 8: the KV cache shrinks from multi-head to grouped-query
attention, `| (c) factor | ÷ 4 |`, `(c) GQA cache = MHA cache / 4`). Before, the divisor was
read as the factor itself (4 for 0.25, a confident 0 at 0.9); `divided by 4` was read as a
quarter already. A division between two values (`12 ÷ 4 = 3`, `2048 / 128 = 16`) states no
factor."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.factors import factor_readings

PROPERTY = settings(max_examples=150, deadline=None, database=None, derandomize=True)
NAMES = ["MHA cache", "the old cost", "MHA", "the cache", "cost"]


@PROPERTY
@given(st.integers(2, 64), st.sampled_from(NAMES),
       st.sampled_from(["(c) {s} {n}", "| (c) factor | {s} {n} |", "(c) new = {name} / {n}",
                        "(c) GQA cache = {name} / {n}", "so it is {s} {n}"]),
       st.sampled_from(["÷", "÷ "]))
def test_a_division_states_its_reciprocal(n, name, line, sign):
    text = line.format(s=sign.strip(), n=n, name=name)
    values = [r.value for r in factor_readings(text)]
    assert values and values[-1] == Fraction(1, n), (text, values)


@PROPERTY
@given(st.integers(2, 64), st.integers(2, 64), st.sampled_from(["÷", "/"]))
def test_a_division_of_two_values_is_no_factor(a, n, sign):
    text = f"(c) {a * n} {sign} {n} = {a}"
    assert Fraction(1, n) not in [r.value for r in factor_readings(text)], text
