"""A size whose unit comes before it, as printed output and tables write it (`total GB: 20.8`,
`scores GiB: 1.0`, `memory (MB) = 2600`; the sixth trial homework's notebook printed its
answers so). Before, only a unit after the value was read: 20.8 was graded against
20,800,000,000 bytes. A value with no unit named is still read as written."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult
from graders.rubric import parse_rubric

PROPERTY = settings(max_examples=80, deadline=None, database=None, derandomize=True)
UNITS = {"GB": 10**9, "MB": 10**6, "GiB": 2**30, "MiB": 2**20, "KiB": 2**10}
FORMS = ["total {u}: {v}", "Out: (b) total {u}: {v}", "memory ({u}) = {v}",
         "print: state in {u}: {v}"]


def _grade(expected: int, text: str) -> ItemResult:
    rubric = parse_rubric(f"""
slug: before
title: Unit before
questions:
  - id: Q3
    items:
      - id: q3.total
        points: 2
        grader: numeric
        config: {{expected: {expected}, rel_tolerance: 0.001, cues: [total, memory, state]}}
""").rubric
    question = rubric.questions[0]
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    return GRADER.grade_items(question.items, LocatedAnswer("Q3", text), context)[0]


@PROPERTY
@given(st.integers(1, 999), st.integers(0, 9), st.sampled_from(sorted(UNITS)),
       st.sampled_from(FORMS))
def test_a_unit_before_its_value_scales_it(whole, tenth, unit, form):
    value = f"{whole}.{tenth}" if tenth else str(whole)
    text = form.format(u=unit, v=value)
    expected = round(float(value) * UNITS[unit])
    result = _grade(expected, text)
    assert result.points == Decimal(2), (text, result.feedback)


@PROPERTY
@given(st.integers(2, 999), st.sampled_from(sorted(UNITS)))
def test_a_value_without_a_unit_named_is_read_as_written(whole, unit):
    text = f"total: {whole}"
    assert _grade(whole * UNITS[unit], text).points == 0, text
