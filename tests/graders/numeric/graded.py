"""The items of a rubric's first question graded on one answer text, as the engine grades a
located answer: the helper of the tests that write a small rubric for one class of writing."""

from __future__ import annotations

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult
from graders.rubric import parse_rubric


def grade_question(rubric_text: str, text: str) -> dict[str, ItemResult]:
    rubric = parse_rubric(rubric_text).rubric
    question = rubric.questions[0]
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    results = GRADER.grade_items(question.items, LocatedAnswer(question.id, text), context)
    return {r.item_id: r for r in results}
