"""A decrease given as a percentage (trial 8's `c) the cache is 75% smaller`): `75% smaller`,
`75% less memory`, `75 % fewer bytes`, `decreases by 75%`, `reduced by 75%`, `a 75% reduction`
state the factor 1 - 0.75, a quarter. Before, only `increases by 300%` and `25% of ...` were
factors, and the item read 75 (0 at 0.95)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import Status
from tests.graders.numeric.graded import grade_question

_RUBRIC = """
slug: percent
title: A factor as a percentage
questions:
  - id: Q3
    labels: ["Q3", "3"]
    answer_kind: numeric
    items:
      - {{id: q3.factor, points: 1, grader: numeric,
         config: {{form: factor, expected: {expected}, cues: ["(c)", factor, smaller]}}}}
"""

_PHRASES = ("{p}% smaller", "{p}% less memory", "{p} % fewer bytes", "decreases by {p}%",
            "is reduced by {p}%", "a {p}% reduction", "shrinks by {p}%", "{p}% cheaper")


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.sampled_from([75, 50, 87.5, 25, 90]), st.sampled_from(_PHRASES),
       st.sampled_from(["(c) the cache is ", "c) ", "The GQA cache ", ""]))
def test_a_percentage_decrease_is_what_is_left(percent: float, phrase: str, opening: str
                                               ) -> None:
    expected = 1 - Fraction(str(percent)) / 100
    text = opening + phrase.format(p=f"{percent:g}")
    result = grade_question(_RUBRIC.format(expected=float(expected)), text)["q3.factor"]
    assert (result.status, result.points) == (Status.GRADED, 1), (text, result)


def test_a_share_of_the_whole_is_still_that_share() -> None:
    result = grade_question(_RUBRIC.format(expected=0.25), "it is 25% of the MHA cache")
    assert result["q3.factor"].points == 1
