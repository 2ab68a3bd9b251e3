"""A count written with a lower-case k against its digits (trial 8's `(b) 16k`; `32k tokens`,
`131k params`) is thousands, as `590K` is. Before, `16k` read 16 (0 at 0.85 for 16,000); a k
that goes on into an expression (`2k + 1`, `4k_1`) is still no thousand."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import Status
from tests.graders.numeric.graded import grade_question

_RUBRIC = """
slug: kilo
title: Thousands
questions:
  - id: Q5
    labels: ["Q5", "5"]
    answer_kind: numeric
    items:
      - {{id: q5.count, points: 1, grader: numeric,
         config: {{expected: {expected}, kind: integer, cues: ["(b)", weights, total]}}}}
"""


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.sampled_from([16, 32, 131, 4, 250]),
       st.sampled_from(["(b) {n}k", "(b) {n}k weights", "total: {n}k", "(b) about {n}k.",
                        "(b) {n}k in total"]))
def test_a_lower_case_k_against_the_digits_is_thousands(n: int, shape: str) -> None:
    text = shape.format(n=n)
    result = grade_question(_RUBRIC.format(expected=n * 1000), text)["q5.count"]
    assert (result.status, result.points) == (Status.GRADED, 1), (text, result)


def test_a_k_in_an_expression_is_no_thousand() -> None:
    result = grade_question(_RUBRIC.format(expected=2000), "(b) total = 2k + 1")["q5.count"]
    assert result.points == 0
