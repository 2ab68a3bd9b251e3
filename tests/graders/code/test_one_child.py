"""A submission's code questions run in one sandboxed child, with the grades of one each."""

from __future__ import annotations

import pytest

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.engine import grade_submission
from graders.results import ItemResult
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from graders.sandbox import Sandbox
from tests.graders.code.test_grader import B3_CORRECT, B4_CORRECT

LOADED = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
B3_UNSTABLE = B3_CORRECT.replace("    scores = scores - scores.max(axis=-1, keepdims=True)\n", "")
B4_NO_MASK = B4_CORRECT.replace(
    "    scores = np.where(np.triu(np.ones((n, n)), k=1) == 1, -np.inf, scores)\n", "")
PAIRS = {
    "both right": (B3_CORRECT, B4_CORRECT),
    "overflow warnings and no mask": (B3_UNSTABLE, B4_NO_MASK),
    "B3 does not parse": ("def attention(Q, K, V)\n    return Q\n", B4_CORRECT),
    "B3 prints and raises": ("print('debug')\ndef attention(Q, K, V):\n    raise ValueError('x')\n",
                             "print('more')\n" + B4_CORRECT),
}


def submission(b3: str, b4: str) -> ParsedSubmission:
    answers = {q: LocatedAnswer(q, f"```python\n{code}```") for q, code in (("B3", b3),
                                                                           ("B4", b4))}
    return ParsedSubmission(text="", format="text", answers=answers)


def each_alone(parsed: ParsedSubmission, resources: GradingResources) -> dict[str, ItemResult]:
    """The code questions graded one by one, with no per-submission scratch (one child each)."""
    from graders.code import GRADER

    found: dict[str, ItemResult] = {}
    for question in LOADED.rubric.questions:
        if question.id not in parsed.answers:
            continue
        context = GradingContext(rubric=LOADED.rubric, question=question, submission=parsed,
                                 resources=resources)
        for result in GRADER.grade_items(question.items, parsed.answers[question.id], context):
            found[result.item_id] = result
    return found


@pytest.mark.parametrize("name", list(PAIRS))
def test_one_child_grades_like_one_per_question(resources: GradingResources, name: str) -> None:
    parsed = submission(*PAIRS[name])
    dispatched = 0
    original = Sandbox._dispatch

    def counting(self: Sandbox, *args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal dispatched
        dispatched += 1
        return original(self, *args, **kwargs)

    Sandbox._dispatch = counting  # type: ignore[method-assign]
    try:
        together = {r.item_id: r for r in grade_submission(LOADED, parsed, resources).items
                    if r.grader == "code"}
        children_together, dispatched = dispatched, 0
        alone = each_alone(parsed, resources)
    finally:
        Sandbox._dispatch = original  # type: ignore[method-assign]
    assert together == alone
    assert dispatched == 2
    assert children_together == 1, f"{children_together} children for one submission"
