"""Golden numeric cases: messy answer strings, the value read and the points given."""

from __future__ import annotations

import re
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.numeric.extract import extract
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.support.pace import stretched

CASES = Path(__file__).resolve().parent.parent / "cases" / "numeric"
RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
ANSWERS = yaml.safe_load((CASES / "answers.yaml").read_text())
EXTRACTION = yaml.safe_load((CASES / "extraction.yaml").read_text())


def grade(
    question_id: str, text: str, parts: dict[str, str] | None = None
) -> dict[str, ItemResult]:
    question = next(q for q in RUBRIC.questions if q.id == question_id)
    answer = LocatedAnswer(question_id, text, start=0, end=len(text), parts=parts or {})
    submission = ParsedSubmission(text=text, format="text", answers={question_id: answer})
    context = GradingContext(RUBRIC, question, submission, GradingResources())
    items = [i for i in question.items if i.grader == "numeric"]
    return {r.item_id: r for r in GRADER.grade_items(items, answer, context)}


def test_there_are_at_least_forty_cases():
    assert len(ANSWERS) >= 40


@pytest.mark.parametrize("case", ANSWERS, ids=[c["id"] for c in ANSWERS])
def test_answer_case(case):
    started = time.perf_counter()
    result = grade(case["question"], case["answer"])[case["item"]]
    assert time.perf_counter() - started < stretched(1.0)
    assert result.points == Decimal(str(case["points"])), result.feedback
    assert result.status == Status(case.get("status", "graded")), result.feedback
    if "read" in case:
        notes = [e.note for e in result.evidence if e.kind == "value"]
        assert any(n.startswith(f"read as {case['read']}") for n in notes), notes
    if "feedback" in case:
        assert case["feedback"].lower() in result.feedback.lower()
    assert result.evidence and result.evidence[0].kind == "answer"
    _assert_student_feedback_hides_the_key(case["item"], result, case["answer"])


def _assert_student_feedback_hides_the_key(item_id: str, result: ItemResult, answer: str) -> None:
    """The key never appears in what the student reads, unless quoting their own writing."""
    item = next(i for i in RUBRIC.items() if i.id == item_id)
    expected = item.config["expected"]
    values = expected if isinstance(expected, list) else [expected]
    assert result.student_feedback, result
    for value in values:
        forms = {str(value), f"{value:,}"} if isinstance(value, int) else {f"{value:g}"}
        for form in forms - {f for f in forms if f in answer}:
            assert not re.search(rf"(?<![\d,.]){re.escape(form)}(?![\d,])",
                                 result.student_feedback), (form, result.student_feedback)


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    value = Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator()
    return str(value.numerator) if value.denominator == 1 else str(float(value))


@pytest.mark.parametrize("case", EXTRACTION, ids=[c["text"] for c in EXTRACTION])
def test_extraction_case(case):
    found = extract(case["text"])
    finals = [c for c in found.candidates if c.final]
    if case["final"] is None:
        assert not finals
        return
    assert finals, found
    last = finals[-1]
    assert _plain(last.value) == case["final"]
    assert last.percent == case.get("percent", False)


def test_json_item_parts_are_used_directly():
    results = grade("B1", "b1.d_head: 64\nb1.total: 1769472",
                    parts={"b1.d_head": "64", "b1.total": "1769472"})
    assert results["b1.d_head"].points == 4
    assert results["b1.total"].points == 3
    assert results["b1.per_matrix"].status is Status.MISSING


def test_evidence_spans_point_into_the_answer():
    text = "d_head = 768/12 = 64"
    result = grade("B1", text)["b1.d_head"]
    value = next(e for e in result.evidence if e.kind == "value")
    assert value.start is not None and value.end is not None
    assert "64" in text[value.start:value.end]


def test_low_location_confidence_sends_the_item_to_review():
    question = next(q for q in RUBRIC.questions if q.id == "B1")
    answer = LocatedAnswer("B1", "d_head = 64", confidence=0.35, method="order")
    submission = ParsedSubmission(text=answer.text, format="text", answers={"B1": answer})
    context = GradingContext(RUBRIC, question, submission, GradingResources())
    result = GRADER.grade(question.items[0], answer, context)
    assert result.status is Status.NEEDS_REVIEW
    assert result.points == 4
