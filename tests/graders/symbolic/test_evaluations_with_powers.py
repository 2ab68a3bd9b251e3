"""A formula, then its evaluation for the given sizes with a power typed as a superscript or a
rounded value after `≈` (trial 8: `F = 4T²d` then `(b) F = 4 × 2048² × 128 = 2,147,483,648`,
`F = 4 \\cdot 2048^2 \\cdot 128 = 2^{31} \\approx 2.15 \\times 10^{9}`). Before, `2048²` and
`\\approx` made the evaluation look like a formula with symbols, so it was graded against the
expected expression instead of being passed over: a confident 0 (0.85) or a review at 0.47."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import Question, Rubric, RubricItem
from graders.symbolic import GRADER

PROPERTY = settings(max_examples=50, deadline=None, database=None, derandomize=True)
ITEM = RubricItem(id="q4.formula", points=Decimal(1), grader="symbolic",
                  config={"mode": "equivalent", "target": "F", "expected": "4*T^2*d"})
QUESTION = Question(id="Q4", items=(ITEM,))
RUBRIC = Rubric(slug="cost", title="cost", questions=(QUESTION,))
FORMULAS = ["4T^2 d", "4T²d", "4 T² d", r"4 \cdot T^2 \cdot d", "2T^2 d + 2T^2 d"]
WRONG = ["2T^2 d", "4Td^2", "4T d"]
POWERS = ["2048²", "2048^2", "2048^{2}"]
TIMES = [" × ", r" \cdot ", " * ", " x "]
ENDS = ["", " = 2,147,483,648", r" = 2^{31} \approx 2.15 \times 10^{9}", " ≈ 2.15e9",
        " = 2147483648 FLOPs", r" \approx 2.1 \times 10^9"]
LAYOUTS = ["(a) F = {f}\n(b) F = {v}", "(a) F = {f}   (b) F = {v}", "$F = {f}$\n\n(b) $F = {v}$",
           "F = {f}, so for T = 2048 and d = 128, F = {v}"]


def _grade(text: str, resources: GradingResources) -> ItemResult:
    answer = LocatedAnswer("Q4", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"Q4": answer})
    return GRADER.grade(ITEM, answer, GradingContext(RUBRIC, QUESTION, submission, resources))


@PROPERTY
@given(st.sampled_from(FORMULAS + WRONG), st.sampled_from(POWERS), st.sampled_from(TIMES),
       st.sampled_from(ENDS), st.sampled_from(LAYOUTS))
def test_the_evaluation_is_passed_over(resources, formula, power, times, end, layout):
    value = times.join(["4", power, "128"]) + end
    text = layout.format(f=formula, v=value)
    result = _grade(text, resources)
    right = formula in FORMULAS
    assert result.points == Decimal(1 if right else 0), (text, result.feedback)
    assert result.status is Status.GRADED, (text, result.feedback)
