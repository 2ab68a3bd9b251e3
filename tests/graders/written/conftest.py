from __future__ import annotations

from collections.abc import Callable

import pytest

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import LoadedRubric, Rubric, bundled_rubric_paths, load_rubric
from graders.written import GRADER

Grade = Callable[..., list[ItemResult]]


@pytest.fixture(scope="session")
def resources() -> GradingResources:
    """One process-wide set of resources, so the embedding model loads once per test session."""
    return GradingResources(options={})


@pytest.fixture(scope="session")
def transformer_basics() -> LoadedRubric:
    path = next(p for p in bundled_rubric_paths() if p.stem == "transformer-basics")
    return load_rubric(path)


def grade_text(rubric: Rubric, question_id: str, text: str, resources: GradingResources,
               prefix: str = "") -> list[ItemResult]:
    """Grade `text` as the answer to one question (placed after `prefix` in the document)."""
    question = next(q for q in rubric.questions if q.id == question_id)
    document = prefix + text
    answer = LocatedAnswer(question_id, text, start=len(prefix), end=len(document))
    submission = ParsedSubmission(text=document, format="text", answers={question_id: answer})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    items = [i for i in question.items if i.grader == "written"]
    return GRADER.grade_items(items, answer, context)


def graded_item(rubric: LoadedRubric, resources: GradingResources, question: str, item: str,
                answer: str) -> ItemResult:
    """One item's result of grading `answer` as the answer to `question`."""
    return next(r for r in grade_text(rubric.rubric, question, answer, resources)
                if r.item_id == item)


def full_or_reviewed(result: ItemResult) -> bool:
    """Full credit, or a person decides: never a confident partial or zero."""
    return result.points == result.max_points or result.status is Status.NEEDS_REVIEW


@pytest.fixture
def grade(resources: GradingResources, transformer_basics: LoadedRubric) -> Grade:
    def run(question_id: str, text: str, prefix: str = "",
            res: GradingResources | None = None) -> list[ItemResult]:
        return grade_text(transformer_basics.rubric, question_id, text, res or resources, prefix)
    return run
