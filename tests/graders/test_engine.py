from collections.abc import Sequence
from decimal import Decimal
from typing import ClassVar

import pytest
from pydantic import BaseModel

from graders import registry
from graders.context import GradingContext
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.engine import RunStatus, grade_submission
from graders.registry import Grader
from graders.results import ItemResult, Status
from graders.rubric import RubricItem, parse_rubric

RUBRIC = """
slug: engine-test
title: Engine test
questions:
  - id: Q1
    items:
      - {id: q1.a, points: 2, grader: fake}
      - {id: q1.b, points: 1, grader: fake}
  - id: Q2
    items:
      - {id: q2.a, points: 3, grader: fake}
  - id: Q3
    items:
      - {id: q3.a, points: 1, grader: later}
"""


class FakeConfig(BaseModel):
    pass


class FakeGrader(Grader):
    kind: ClassVar[str] = "fake"
    version: ClassVar[str] = "test"
    config_model: ClassVar[type[BaseModel]] = FakeConfig

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        if "crash" in answer.text:
            raise RuntimeError("bug in the grader")
        if "greedy" in answer.text:
            return ItemResult(item_id=item.id, question=context.question.id, points=item.points + 1,
                              max_points=item.points, status=Status.GRADED, grader=self.kind,
                              grader_version=self.version)
        third = Decimal(item.points) / 3
        return ItemResult(item_id=item.id, question=context.question.id, points=f"{third}",
                          max_points=item.points, status=Status.NEEDS_REVIEW, confidence=0.4,
                          grader=self.kind, grader_version=self.version)


@pytest.fixture
def rubric(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(registry.KINDS, "later", "graders.not_built_yet")
    monkeypatch.setitem(registry._registered, "fake", FakeGrader())
    return parse_rubric(RUBRIC)


def submission(answers: dict[str, str]) -> ParsedSubmission:
    return ParsedSubmission(
        text="\n".join(answers.values()), format="json",
        answers={
            q: LocatedAnswer(question_id=q, text=t, method="json") for q, t in answers.items()
        },
        missing={"Q2": "no label Q2 and nothing that looks like its answer"},
    )


def by_id(results: Sequence[ItemResult]) -> dict[str, ItemResult]:
    return {r.item_id: r for r in results}


def test_every_item_gets_exactly_one_result(rubric) -> None:
    outcome = grade_submission(rubric, submission({"Q1": "fine", "Q3": "x"}))
    assert [r.item_id for r in outcome.items] == ["q1.a", "q1.b", "q2.a", "q3.a"]
    assert outcome.rubric_hash == rubric.content_hash


def test_missing_answers_say_why(rubric) -> None:
    results = by_id(grade_submission(rubric, submission({"Q1": "fine"})).items)
    assert results["q2.a"].status is Status.MISSING
    assert results["q2.a"].points == 0
    assert "no label Q2" in results["q2.a"].feedback


def test_unbuilt_kind_is_pending_and_not_scored(rubric) -> None:
    outcome = grade_submission(rubric, submission({"Q1": "fine", "Q3": "x"}))
    pending = by_id(outcome.items)["q3.a"]
    assert pending.status is Status.PENDING
    assert not pending.counts_toward_total
    assert outcome.status is RunStatus.PENDING


def test_grader_crash_is_grader_error_not_zero(rubric) -> None:
    outcome = grade_submission(rubric, submission({"Q1": "crash", "Q2": "fine"}))
    results = by_id(outcome.items)
    assert results["q1.a"].status is Status.GRADER_ERROR
    assert "RuntimeError" in results["q1.a"].feedback
    assert outcome.status is RunStatus.GRADER_ERROR
    assert results["q2.a"].status is Status.NEEDS_REVIEW  # the others still graded


def test_points_above_maximum_are_refused(rubric) -> None:
    results = by_id(grade_submission(rubric, submission({"Q1": "greedy"})).items)
    assert results["q1.a"].status is Status.GRADER_ERROR


def test_totals_are_exact(rubric) -> None:
    outcome = grade_submission(rubric, submission({"Q1": "fine", "Q2": "fine"}))
    # 2/3 + 1/3 + 3/3 (each quantised to hundredths), pending q3.a excluded from the total
    assert outcome.total == Decimal("0.67") + Decimal("0.33") + Decimal("1.00")
    assert outcome.max_points == Decimal(7)


def test_float_points_are_rejected() -> None:
    with pytest.raises(ValueError, match="exact"):
        ItemResult(item_id="x", question="Q", points=0.1, max_points=1, status=Status.GRADED,
                   grader="t", grader_version="1")
