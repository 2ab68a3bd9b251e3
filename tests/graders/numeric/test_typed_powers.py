"""A power typed as plain text with an exponent of two or three digits (trial 8: `F = 2^31`
FLOPs, `2.15 x 10^10`, `1.5 × 10^12 bytes`). Before, the exponent was read as TeX reads an
unbraced one, its first digit alone (`10^1` then `0`), the run did not parse and the value was
not found at all: the item was called missing (or another number of the answer graded). Braced
exponents (`2^{31}`) and one-digit ones were read already and still are."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.results import ItemResult
from tests.graders.numeric.graded import grade_question

PROPERTY = settings(max_examples=150, deadline=None, database=None, derandomize=True)


def _grade(expected: int, text: str) -> ItemResult:
    return grade_question(f"""
slug: powers
title: Powers
questions:
  - id: Q4
    items:
      - id: q4.flops
        points: 1
        grader: numeric
        config: {{expected: {expected}, kind: integer, cues: [FLOPs, total]}}
""", text)["q4.flops"]


SENTENCES = ["F = {v} FLOPs", "(b) {v}", "The total is {v} FLOPs.", "so F = {v}"]


@PROPERTY
@given(st.sampled_from([2, 3, 10]), st.integers(10, 40), st.sampled_from(SENTENCES),
       st.sampled_from(["{b}^{e}", "{b}^ {e}", "{b} ^ {e}"]))
def test_a_power_with_a_long_exponent_is_read_whole(base, exponent, sentence, form):
    assume(base**exponent < 2**53)  # the rubric's expected value is a float
    written = form.format(b=base, e=exponent)
    text = sentence.format(v=written)
    result = _grade(base**exponent, text)
    assert result.points == Decimal(1), (text, result.feedback)


@PROPERTY
@given(st.integers(100, 999), st.integers(10, 15), st.sampled_from(SENTENCES),
       st.sampled_from([" x ", " × ", "×", " * ", " \\times "]))
def test_scientific_notation_with_a_two_digit_exponent_is_read(digits, exponent, sentence,
                                                                times):
    mantissa = Fraction(digits, 100)
    value = int(mantissa * 10**exponent)
    written = f"{digits / 100:.2f}{times}10^{exponent}"
    text = sentence.format(v=written)
    result = _grade(value, text)
    assert result.points == Decimal(1), (text, result.feedback)
