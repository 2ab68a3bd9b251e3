"""The graded examples' vote weighted by the reference model's doubt about each answer
(`exemplars.weighted_by_doubt`, option `written_exemplar_by_doubt`, set by active grading where
the examples are the answers the machine chose because it doubted them)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.rubric import parse_rubric
from graders.written.exemplars import DOUBT_REFERENCE, MAX_DOUBT_WEIGHT, weighted_by_doubt
from graders.written.settings import WrittenSettings

from .conftest import grade_text

REFERENCE = "A stack is a last-in first-out structure: push adds on top and pop removes the top."
# An answer the reference model is sure of (it restates the reference), and a decided answer
# close to it that the instructor graded 0 (a careless restatement, an atypical decision).
SURE = "A stack is last in, first out: push puts an item on the top and pop takes the top off."
DECIDED_LOW = "A stack is first in, first out: push puts an item on the top and pop takes it."


def _rubric(points: int) -> str:
    return f"""
slug: by-doubt
title: By doubt
version: "1"
questions:
  - id: q1
    prompt: What is a stack?
    items:
      - id: i1
        points: 5
        grader: written
        config:
          reference: [{REFERENCE!r}]
          exemplars:
            - text: {DECIDED_LOW!r}
              points: {points}
"""


@pytest.mark.parametrize(("value", "expected"), [
    (None, False), (True, True), ("true", True), ("on", True), (False, False),
    ("false", False), ("0", False)])
def test_the_option_reads_as_a_switch(value: object, expected: bool) -> None:
    options = {} if value is None else {"written_exemplar_by_doubt": value}
    assert WrittenSettings.from_options(options).exemplar_by_doubt is expected


@settings(max_examples=200, deadline=None)
@given(weight=st.floats(0.0, 0.5), low=st.floats(0.0, 1.0), high=st.floats(0.0, 1.0))
def test_the_weight_grows_with_the_doubt_and_stays_bounded(weight: float, low: float,
                                                           high: float) -> None:
    low, high = sorted((low, high))
    assert 0.0 <= weighted_by_doubt(weight, low) <= weighted_by_doubt(weight, high)
    assert weighted_by_doubt(weight, high) <= MAX_DOUBT_WEIGHT
    assert weighted_by_doubt(weight, DOUBT_REFERENCE) == pytest.approx(weight)


def test_a_sure_answer_is_moved_less_by_a_close_low_example() -> None:
    rubric = parse_rubric(_rubric(0)).rubric
    chosen = GradingResources(options={"written_exemplar_offset": False})
    high = grade_text(parse_rubric(_rubric(5)).rubric, "q1", SURE, chosen)[0]
    plain = grade_text(rubric, "q1", SURE, chosen)[0]
    by_doubt = grade_text(rubric, "q1", SURE, GradingResources(
        options={"written_exemplar_offset": False, "written_exemplar_by_doubt": True}))[0]
    assert plain.points < high.points  # the low example pulls the answer down
    assert plain.points < by_doubt.points <= high.points
    assert by_doubt.confidence > 0.5  # the reference model was sure of it
