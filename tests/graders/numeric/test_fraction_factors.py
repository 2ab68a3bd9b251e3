"""A factor item answered by a fraction of two integers, written as the value and labelled by
the item's sub-part marker or cues (trial 8: `(c) 1/16`, `(c) GQA cache / MHA cache = 1/4`,
`(c) $\\frac{1}{16}$`). Before, such a fraction was taken for an unevaluated product or shape
(`2x2`, `n x 64`: no answer) and the item was called missing at 0.85, though a fraction of two
numbers is how a ratio below one is written. A product of integers (`4 x 16`) is still no
factor, and a fraction that is no answer (unlabelled, in working) is still only a suggestion."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import ItemResult, Status
from tests.graders.numeric.graded import grade_question

PROPERTY = settings(max_examples=150, deadline=None, database=None, derandomize=True)


def _grade(expected: Fraction, text: str) -> ItemResult:
    return grade_question(f"""
slug: fractions
title: Fractions
questions:
  - id: Q4
    items:
      - id: q4.value
        points: 1
        grader: numeric
        config: {{expected: 2147483648, kind: integer, cues: ["(b)", FLOPs], avoid_cues: ["(c)"]}}
      - id: q4.factor
        points: 1
        grader: numeric
        config: {{form: factor, expected: {float(expected)}, cues: ["(c)", linear, factor],
                  avoid_cues: ["(b)"]}}
""", text)["q4.factor"]


FRACTIONS = ["{n}/{d}", "{n} / {d}", "$\\frac{{{n}}}{{{d}}}$", "$\\tfrac{{{n}}}{{{d}}}$",
             "\\frac{{{n}}}{{{d}}}"]
LINES = ["(c) {f}", "(c) linear / softmax = {f}", "(c) ratio: {f}",
         "(c) the cost changes by {f}", "(c) linear attention: {f}"]


@PROPERTY
@given(st.integers(1, 3), st.integers(2, 64), st.sampled_from(FRACTIONS),
       st.sampled_from(LINES), st.booleans())
def test_a_labelled_fraction_is_the_factor(numerator, denominator, fraction, line, working):
    expected = Fraction(numerator, denominator)
    text = line.format(f=fraction.format(n=numerator, d=denominator))
    if working:
        text = "(b) F = 4 * 2048^2 * 128 = 2147483648 FLOPs\n" + text
    result = _grade(expected, text)
    assert result.points == Decimal(1), (text, result.feedback)
    assert result.status is Status.GRADED, (text, result.feedback)
    wrong = _grade(expected * 3 if expected * 3 != 1 else expected * 5, text)
    assert wrong.points == Decimal(0), (text, wrong.feedback)


@PROPERTY
@given(st.integers(2, 9), st.integers(2, 64), st.sampled_from(["(c) {a} x {b}",
                                                                "(c) {a} * {b}"]))
def test_a_product_is_still_no_factor(a, b, line):
    text = line.format(a=a, b=b)
    result = _grade(Fraction(a * b), text)
    assert not (result.points == Decimal(1) and result.status is Status.GRADED), (
        text, result.feedback)
