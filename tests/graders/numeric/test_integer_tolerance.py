"""An integer item whose rubric declares a tolerance (trial 8, a KV cache's bytes: `kind:
integer`, `rel_tolerance: 0.002`, rounding credit below it). Before, an integer was compared
exactly whatever the tolerance said: `5.37e8 bytes` for 536,870,912 took the rounding credit
(0.5 at confidence 0.95) though it lies within the 0.2% the instructor allowed. A value within
the declared tolerance is right however it is written; outside it, the rounding policy and the
known mistakes apply as before; without a tolerance an integer is still exact."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult
from graders.rubric import parse_rubric

PROPERTY = settings(max_examples=120, deadline=None, database=None, derandomize=True)


def _grade(expected: int, text: str, tolerance: str) -> ItemResult:
    rubric = parse_rubric(f"""
slug: counts
title: Counts
questions:
  - id: Q3
    items:
      - id: q3.bytes
        points: 2
        grader: numeric
        config:
          expected: {expected}
          kind: integer
          {tolerance}
          rounding: {{credit: 0.5, min_significant: 2}}
          cues: [cache, bytes]
""").rubric
    question = rubric.questions[0]
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    return GRADER.grade_items(question.items, LocatedAnswer("Q3", text), context)[0]


def _scientific(value: float, digits: int, style: str) -> str:
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    power = int(exponent)
    return {"e": f"{mantissa}e{power}", "x": f"{mantissa} x 10^{power}",
            "latex": f"${mantissa} \\times 10^{{{power}}}$"}[style]


SENTENCES = ["The KV cache takes {v} bytes.", "cache = {v} bytes", "(a) {v} bytes"]


@PROPERTY
@given(st.integers(10**6, 10**11), st.integers(3, 6), st.sampled_from(["e", "x", "latex"]),
       st.sampled_from(SENTENCES))
def test_a_rounded_count_within_the_declared_tolerance_is_right(expected, digits, style,
                                                                 sentence):
    written = _scientific(expected, digits, style)
    value = float(written.strip("$").replace(" x 10^", "e").replace(" \\times 10^{", "e")
                  .rstrip("}"))
    relative = abs(value - expected) / expected
    text = sentence.format(v=written)
    result = _grade(expected, text, "rel_tolerance: 0.002")
    if relative <= 0.002:
        assert result.points == Decimal(2), (text, result.feedback)
    # the same answer without a declared tolerance keeps the exact comparison of a count
    exact = _grade(expected, text, "")
    if value != expected:
        assert exact.points < Decimal(2), (text, exact.feedback)


@PROPERTY
@given(st.integers(10**6, 10**11), st.sampled_from(SENTENCES))
def test_outside_the_tolerance_the_rounding_policy_still_decides(expected, sentence):
    written = _scientific(expected, 2, "e")
    assume(not written.split("e")[0].endswith("0"))  # `1.0e6`'s digits are another matter
    value = float(written)
    relative = abs(value - expected) / expected
    text = sentence.format(v=written)
    result = _grade(expected, text, "rel_tolerance: 0.002")
    if relative > 0.002:
        assert result.points == Decimal(1), (text, result.feedback)
