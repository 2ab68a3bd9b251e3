from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from graders.code import GRADER
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult
from graders.rubric import BUNDLED_RUBRICS, load_rubric

Grade = Callable[[str, str], dict[str, ItemResult]]


def grade_with(resources: GradingResources, question_id: str, text: str) -> dict[str, ItemResult]:
    rubric = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
    question = next(q for q in rubric.questions if q.id == question_id)
    submission = ParsedSubmission(text=text, format="text", answers={})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    results = GRADER.grade_items(question.items, LocatedAnswer(question_id, text), context)
    return {r.item_id: r for r in results}


@pytest.fixture(scope="module")
def resources() -> Iterator[GradingResources]:
    from graders.code import shared_sandbox
    from graders.context import GradingContext

    res = GradingResources(options={"sandbox_timeout_s": 1.0})
    rubric = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
    context = GradingContext(rubric=rubric, question=rubric.questions[0],
                             submission=ParsedSubmission(text="", format="text", answers={}),
                             resources=res)
    missing = shared_sandbox(context).missing_required()
    if missing:
        res.close()
        pytest.skip(f"this machine cannot provide the sandbox layers {missing}")
    yield res
    res.close()


@pytest.fixture
def grade(resources: GradingResources) -> Grade:
    def run(question_id: str, text: str) -> dict[str, ItemResult]:
        return grade_with(resources, question_id, text)

    return run
