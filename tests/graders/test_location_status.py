"""How location strength becomes status: weak evidence goes to review with its reason (the
machine's points kept), and a document that may not answer this assignment is not graded 0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pytest
from pydantic import BaseModel

from graders import registry
from graders.context import GradingContext
from graders.documents import read_submission
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.documents.strength import BY_HEADING_ORDER, doubt_in
from graders.engine import RunStatus, grade_submission
from graders.registry import Grader
from graders.results import ItemResult, Status
from graders.rubric import LoadedRubric, RubricItem, parse_rubric

RUBRIC = """
slug: strength-test
title: Strength test
handouts: ["2021", "2025"]
questions:
  - id: Q1
    labels: ["Question 1"]
    items:
      - {id: q1, points: 2, grader: full}
  - id: Q2
    labels: ["Question 2"]
    items:
      - {id: q2, points: 1, grader: full}
  - id: Q3
    labels: ["Question 3"]
    cues: [gradient, vanishes]
    items:
      - {id: q3, points: 1, grader: full}
  - id: Q4
    labels: ["Question 4"]
    handouts: ["2025"]
    cues: ["512"]
    items:
      - {id: q4, points: 1, grader: full}
"""


class _Config(BaseModel):
    pass


class FullMarks(Grader):
    """Full points, confidently, for any answer: what location does to it is what is tested."""

    kind: ClassVar[str] = "full"
    version: ClassVar[str] = "test"
    config_model: ClassVar[type[BaseModel]] = _Config

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        return ItemResult(item_id=item.id, question=context.question.id, points=item.points,
                          max_points=item.points, status=Status.GRADED, confidence=0.99,
                          grader=self.kind, grader_version=self.version)


@pytest.fixture
def rubric(monkeypatch: pytest.MonkeyPatch) -> LoadedRubric:
    monkeypatch.setitem(registry._registered, "full", FullMarks())
    return parse_rubric(RUBRIC)


def _by_id(results: Sequence[ItemResult]) -> dict[str, ItemResult]:
    return {r.item_id: r for r in results}


def _parsed(answers: dict[str, LocatedAnswer], doubt: str = "") -> ParsedSubmission:
    return ParsedSubmission(text="x", format="markdown", answers=answers, doubt=doubt)


def test_a_weakly_located_answer_goes_to_review_with_its_reason_and_points(rubric) -> None:
    reason = BY_HEADING_ORDER.format(heading="# Overview")
    answers = {
        "Q1": LocatedAnswer("Q1", "strong text"),
        "Q2": LocatedAnswer("Q2", "weak text", strength="weak", weak_reason=reason),
    }
    outcome = grade_submission(rubric, _parsed(answers))
    results = _by_id(outcome.items)
    assert results["q1"].status is Status.GRADED
    assert results["q2"].status is Status.NEEDS_REVIEW
    assert results["q2"].points == 1  # the machine's suggestion is kept
    assert "heading order only" in results["q2"].feedback
    assert "suggests 1.00 of 1.00" in results["q2"].feedback
    assert outcome.status is RunStatus.NEEDS_REVIEW


def test_a_doubted_document_sends_every_item_to_review_none_graded_zero(rubric) -> None:
    doubt = "does this answer this assignment? 1 of 3 questions found; ..."
    answers = {"Q1": LocatedAnswer("Q1", "text", doubt=doubt)}
    results = _by_id(grade_submission(rubric, _parsed(answers, doubt)).items)
    assert {r.status for r in (results["q1"], results["q2"], results["q3"])} == {
        Status.NEEDS_REVIEW}
    assert results["q2"].points == 0 and "1 of 3 questions found" in results["q2"].feedback
    assert doubt_in(r.feedback for r in results.values()) is not None


def test_most_questions_not_found_is_said_once_for_the_document(rubric) -> None:
    doc = b"Question 1\n\nThe attention weights sum to one.\n"
    parsed = read_submission(doc, "a.md", None, rubric.rubric)
    assert parsed.doubt.startswith("does this answer this assignment? 1 of 3 questions found")
    whole = read_submission(b"Question 1\n\nA.\n\nQuestion 2\n\nB.\n\nQuestion 3\n\nC.\n",
                            "b.md", None, rubric.rubric)
    assert whole.doubt == ""


def test_an_edition_question_is_not_inferred_from_stray_numbers(rubric) -> None:
    """Q4 is asked only by the 2025 handout; a 2021 document with "512" in its code has no
    label for it, so it is not answered (0 of 0), whatever its content."""
    doc = (b"Question 1\n\nA.\n\nQuestion 2\n\nB.\n\nQuestion 3\n\nThe gradient vanishes.\n\n"
           b"```python\nx = np.zeros(512)\n```\n")
    parsed = read_submission(doc, "a.md", None, rubric.rubric)
    assert "Q4" not in parsed.answers
    q4 = _by_id(grade_submission(rubric, parsed).items)["q4"]
    assert q4.max_points == 0 and q4.status is Status.MISSING


def test_content_only_is_weak(rubric) -> None:
    doc = b"Question 1\n\nA.\n\nQuestion 2\n\nB.\n\nSomewhere the gradient vanishes.\n"
    parsed = read_submission(doc, "a.md", None, rubric.rubric)
    q3 = parsed.answers.get("Q3")
    assert q3 is not None and q3.strength == "weak" and "content" in q3.weak_reason


def test_a_program_is_doubted_only_over_the_code_questions() -> None:
    rubric = parse_rubric("""
slug: program
title: Program
questions:
  - {id: W1, items: [{id: w1, points: 1, grader: written, config: {reference: [x]}}]}
  - {id: W2, items: [{id: w2, points: 1, grader: written, config: {reference: [x]}}]}
  - id: C1
    answer_kind: code
    cues: ["def attention"]
    items: [{id: c1, points: 1, grader: written, config: {reference: [x]}}]
""").rubric
    parsed = read_submission(b"def attention(q, k, v):\n    return q\n", "a.py", None, rubric)
    assert "C1" in parsed.answers and parsed.doubt == ""


def test_the_code_group_key_names_a_weak_or_doubted_location() -> None:
    """The same program located strongly in one document and weakly (or in a doubted
    document) in another must not share cached results: their statuses differ."""
    from dataclasses import replace

    from graders.code.basis import code_basis
    from graders.context import GradingResources

    rubric = parse_rubric("""
slug: basis
title: Basis
questions:
  - id: C1
    answer_kind: code
    items: [{id: c1, points: 1, grader: written, config: {reference: [x]}}]
""").rubric
    strong = LocatedAnswer("C1", "def f(x):\n    return x\n")
    keys = set()
    for answer in (strong, replace(strong, strength="weak", weak_reason="content only"),
                   replace(strong, doubt="does this answer this assignment? 1 of 3")):
        parsed = ParsedSubmission(text=answer.text, format="markdown", answers={"C1": answer})
        context = GradingContext(rubric=rubric, question=rubric.questions[0], submission=parsed,
                                 resources=GradingResources(), earlier={}, per_submission={})
        keys.add(code_basis(context))
    assert len(keys) == 3
