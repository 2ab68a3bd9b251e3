"""A code item whose sandbox lacks a required layer is never graded with less isolation: it
waits for a person (`when_isolation_missing: review`, the default) or fails loudly
(`error`), as the item's config says."""

from __future__ import annotations

from typing import Literal

import pytest

from graders.code import GRADER
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.graders.code.test_grader import B3_CORRECT


@pytest.mark.parametrize(("policy", "status"), [
    (None, Status.NEEDS_REVIEW), ("review", Status.NEEDS_REVIEW), ("error", Status.GRADER_ERROR),
])
def test_missing_layers_wait_or_fail_as_the_item_says(
        policy: Literal["review", "error"] | None, status: Status) -> None:
    rubric = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
    question = next(q for q in rubric.questions if q.id == "B3")
    items = [i.model_copy(update={"config": {**i.config, "when_isolation_missing": policy}})
             if policy and i.grader == "code" else i for i in question.items]
    question = question.model_copy(update={"items": tuple(items)})
    resources = GradingResources(options={"sandbox_disabled_layers": ["seccomp"],
                                          "sandbox_timeout_s": 1.0})
    try:
        context = GradingContext(rubric=rubric, question=question, resources=resources,
                                 submission=ParsedSubmission(text=B3_CORRECT, format="text",
                                                             answers={}))
        code = [i for i in items if i.grader == "code"]
        results = GRADER.grade_items(code, LocatedAnswer("B3", B3_CORRECT), context)
    finally:
        resources.close()
    assert results and all(r.status is status and r.points == 0 for r in results)
    assert all("lacks required layers seccomp" in r.feedback for r in results)
    assert not any(r.student_feedback and "seccomp" in r.student_feedback for r in results)
