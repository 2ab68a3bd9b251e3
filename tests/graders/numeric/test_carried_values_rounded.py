"""A value carried forward from the student's own wrong earlier value, rounded as they round the
rest (the twelfth trial homework: 28 ms for 14, then `35.7 x 32 = 1143 tokens/s` and `256 x 28 ms
= 7.17 s`). The carried value was compared exactly with the earlier value times the factor
(1142.4, 7.168), so a rounded one earned nothing at confidence 0.9. It is now compared within the
item's own tolerance around that product, as the expected value is: an item without a declared
tolerance still asks the product exactly."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.graders.numeric.graded import grade_question

PROPERTY = settings(max_examples=30, deadline=None, database=None, derandomize=True)


def _rubric(tolerance: str) -> str:
    return f"""
slug: carried
title: Carried
questions:
  - id: Q4
    items:
      - id: q4.tokens
        points: 1
        grader: numeric
        config: {{expected: 71.43, rel_tolerance: 0.02, cues: ["(a)"], avoid_cues: ["(b)"]}}
      - id: q4.batch
        points: 2
        grader: numeric
        config:
          expected: 2285.7
          {tolerance}
          cues: ["(b)"]
          avoid_cues: ["(a)"]
          carry_forward: {{from_item: q4.tokens, factor: 32, points: 1.5}}
"""


# the earlier value, wrong: far from 71.43, written with one decimal
EARLIER = st.integers(100, 900).map(lambda tenths: tenths / 10).filter(
    lambda v: abs(v - 71.43) > 3)


@PROPERTY
@given(EARLIER, st.sampled_from([3, 4]), st.sampled_from(["rel_tolerance: 0.02",
                                                          "abs_tolerance: 5"]))
def test_a_carried_value_rounded_within_the_tolerance_earns_the_carry_credit(earlier, digits,
                                                                           tolerance):
    carried = float(f"{earlier * 32:.{digits}g}")
    text = f"(a) {earlier} tokens/s\n(b) {earlier} x 32 = {carried:g} tokens/s"
    result = grade_question(_rubric(tolerance), text)["q4.batch"]
    assert result.points == Decimal("1.5"), (text, result.feedback)


@PROPERTY
@given(EARLIER, st.sampled_from([1.1, 0.9, 2]))
def test_a_value_off_the_carried_product_earns_nothing(earlier, off):
    carried = round(earlier * 32 * off, 1)
    text = f"(a) {earlier} tokens/s\n(b) {carried:g} tokens/s"
    result = grade_question(_rubric("rel_tolerance: 0.02"), text)["q4.batch"]
    assert result.points == 0, (text, result.feedback)


@PROPERTY
@given(EARLIER)
def test_without_a_declared_tolerance_the_product_is_asked_exactly(earlier):
    exact = round(earlier * 32, 1)
    rounded = float(f"{exact:.3g}")
    rubric = _rubric("")
    right = grade_question(rubric, f"(a) {earlier}\n(b) {exact:g}")["q4.batch"]
    assert right.points == Decimal("1.5"), right.feedback
    if rounded != exact:
        assert grade_question(rubric, f"(a) {earlier}\n(b) {rounded:g}")["q4.batch"].points == 0
