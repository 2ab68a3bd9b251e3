"""The graded examples' mean offset from the reference model (`exemplars.reference_offset`)
and the option that leaves it out where the examples were chosen, not sampled
(`written_exemplar_offset`, set by active grading)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from graders.context import GradingResources
from graders.rubric import parse_rubric
from graders.written.settings import WrittenSettings

from .conftest import grade_text

REFERENCE = "A stack is a last-in first-out structure: push adds on top and pop removes the top."
# Answers far from the reference, each graded full credit: the reference model under-scores
# this question's answers by a wide margin, if they were a sample of them.
GENEROUS = ["Stacks keep items, you can put things in and get them out again.",
            "It is a list where the newest element is always the one taken first.",
            "A structure that holds data and you take from one end only.",
            "Like plates piled up, the last plate you put down is the one you lift."]
ANSWER = "Recursion calls the same function again with a smaller input until a base case."


def _rubric(exemplars: list[str]) -> str:
    shown = "".join(f"\n          - text: {t!r}\n            points: 5" for t in exemplars)
    return f"""
slug: offset
title: Offset
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
          exemplars: {'[]' if not exemplars else ''}{shown}
"""


@pytest.mark.parametrize(("value", "expected"), [
    (None, True), (True, True), ("true", True), (False, False), ("false", False), ("no", False),
    ("off", False), ("0", False)])
def test_the_option_reads_as_a_switch(value: object, expected: bool) -> None:
    options = {} if value is None else {"written_exemplar_offset": value}
    assert WrittenSettings.from_options(options).exemplar_offset is expected


def test_without_the_offset_an_answer_unlike_every_example_keeps_its_reference_score(
    resources: GradingResources,
) -> None:
    plain = grade_text(parse_rubric(_rubric([])).rubric, "q1", ANSWER, resources)[0]
    rubric = parse_rubric(_rubric(GENEROUS)).rubric
    moved = grade_text(rubric, "q1", ANSWER, resources)[0]
    kept = grade_text(rubric, "q1", ANSWER, GradingResources(
        options={"written_exemplar_offset": False}))[0]
    assert moved.points > plain.points  # the examples' offset lifts every answer
    assert kept.points == plain.points
    assert plain.points < Decimal(5)
