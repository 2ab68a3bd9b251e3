"""Golden scaling answers (tests/graders/cases/numeric/factors.yaml): factors written as
students write them, graded by items of `form: factor`."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, Question, RubricItem, load_rubric

CASES = yaml.safe_load((Path(__file__).resolve().parent.parent / "cases" / "numeric"
                        / "factors.yaml").read_text())
RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric


def grade(item_id: str, text: str) -> ItemResult:
    item = RubricItem(id=item_id, points=Decimal(2), grader="numeric",
                      config=CASES["items"][item_id])
    question = Question(id="S", items=(item,))
    answer = LocatedAnswer("S", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"S": answer})
    context = GradingContext(RUBRIC, question, submission, GradingResources())
    return GRADER.grade(item, answer, context)


def test_there_are_at_least_twenty_cases():
    assert len(CASES["cases"]) >= 20


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["id"] for c in CASES["cases"]])
def test_factor_case(case):
    result = grade(case["item"], case["answer"])
    assert result.points == Decimal(str(case["points"])), result.feedback
    assert result.status == Status(case.get("status", "graded")), result.feedback
    if "read" in case:
        notes = [e.note for e in result.evidence if e.kind == "value"]
        assert any(n.startswith(f"read as {case['read']}") for n in notes), notes
    if "feedback" in case:
        assert case["feedback"].lower() in result.feedback.lower()
    if result.status is Status.GRADED:
        assert result.confidence >= 0.8


def test_the_value_read_points_into_the_answer():
    text = "There are 2x as many tokens, so attention costs 4x as much."
    result = grade("longer", text)
    value = next(e for e in result.evidence if e.kind == "value")
    assert value.start is not None and value.end is not None
    assert text[value.start:value.end] == "4x"


def test_an_item_not_declared_a_factor_sends_a_stated_factor_to_review():
    config = {key: value for key, value in CASES["items"]["longer"].items() if key != "form"}
    item = RubricItem(id="plain", points=Decimal(2), grader="numeric", config=config)
    question = Question(id="S", items=(item,))
    text = "The attention cost quadruples."
    answer = LocatedAnswer("S", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"S": answer})
    context = GradingContext(RUBRIC, question, submission, GradingResources())
    result = GRADER.grade(item, answer, context)
    assert result.status is Status.NEEDS_REVIEW
    assert result.points == 2  # the suggestion a reader confirms
    assert any(e.note.startswith("read as 4") for e in result.evidence if e.kind == "value")
