"""A known mistake given as a list (the fifth trial homework: top-2 gate weights computed with a
softmax over all four logits). The validator accepts a list as a known mistake's value, but the
vector grader never looked at it: the mistake got 0 points, not the 0.5 the rubric gives it."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult
from graders.rubric import parse_rubric

PROPERTY = settings(max_examples=40, deadline=None, database=None, derandomize=True)


def _grade_vector(text: str) -> ItemResult:
    rubric = parse_rubric("""
slug: gates
title: Gates
questions:
  - id: Q3
    items:
      - id: q3.weights
        points: 2
        grader: numeric
        config:
          expected: [0.7311, 0.2689]
          kind: vector
          abs_tolerance: 0.002
          known_mistakes:
            - {value: [0.6308, 0.2321], points: 0.5, feedback: Softmax over all four logits.}
""").rubric
    question = rubric.questions[0]
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    return GRADER.grade_items(question.items, LocatedAnswer("Q3", text), context)[0]


@PROPERTY
@given(st.sampled_from(["{a}, {b}", "({a}, {b})", "[{a} {b}]", "{a} and {b}"]),
       st.sampled_from([(0.6308, 0.2321), (0.631, 0.232), (0.7311, 0.2689), (0.731, 0.269),
                        (0.5, 0.5)]))
def test_a_known_mistake_given_as_a_vector_earns_its_points(layout, pair):
    text = "weights = " + layout.format(a=pair[0], b=pair[1])
    points = _grade_vector(text).points
    if abs(pair[0] - 0.7311) <= 0.002:
        assert points == Decimal(2), text
    elif abs(pair[0] - 0.6308) <= 0.002:
        assert points == Decimal("0.5"), text
    else:
        assert points == 0, text
