"""A decrease written with a multiplier sign the typesetting or the scan sets apart from its
comparative (trials 8 and 9): `$16\\times$ fewer`, `$128\\times$ smaller`, `\\(4\\times\\) cheaper`,
`**16x** fewer`, and OCR's `l6x fewer`, `l28x smaller` (a handwritten 1 read as l against the
sign). Before, the math delimiter (or bold) between the sign and `fewer` hid the comparative, so
the factor read as the increase 16, and OCR's `l28x` was no number at all: a confident 0 for
the reciprocal asked."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import Status
from tests.graders.numeric.graded import grade_question

_RUBRIC = """
slug: shrink
title: A factor that shrinks
questions:
  - id: Q3
    labels: ["Q3", "3"]
    answer_kind: numeric
    items:
      - {{id: q3.factor, points: 1, grader: numeric,
         config: {{form: factor, expected: {expected}, cues: [fewer, factor, smaller]}}}}
"""

_SIGNS = ("${n}\\times$", "\\({n}\\times\\)", "${n} \\times$", "**{n}x**", "**{n}×**", "{ocr}x",
          "{ocr}×", "${n}\\times$\u00a0")
_COMPARATIVES = ("fewer", "smaller", "cheaper", "less")


@st.composite
def _answers(draw: st.DrawFn) -> tuple[str, Fraction]:
    n = draw(st.sampled_from([4, 16, 128, 64, 10]))  # `l2` is a norm, no OCR of 12
    ocr = str(n).replace("1", "l")
    sign = draw(st.sampled_from(_SIGNS)).format(n=n, ocr=ocr)
    comparative = draw(st.sampled_from(_COMPARATIVES))
    opening = draw(st.sampled_from(["The adapter is", "b)", "so it has", "It is"]))
    tail = draw(st.sampled_from([" parameters than W.", "", " than the full matrix", "."]))
    return f"{opening} {sign} {comparative}{tail}", Fraction(1, n)


@settings(max_examples=80, deadline=None, database=None, derandomize=True)
@given(_answers())
def test_a_sign_set_apart_from_its_comparative_is_a_decrease(case: tuple[str, Fraction]) -> None:
    text, expected = case
    result = grade_question(_RUBRIC.format(expected=float(expected)), text)["q3.factor"]
    assert (result.status, result.points) == (Status.GRADED, 1), (text, result)


def test_an_increase_stays_an_increase() -> None:
    result = grade_question(_RUBRIC.format(expected=0.0625), "$16\\times$ more FLOPs")["q3.factor"]
    assert result.points == 0
