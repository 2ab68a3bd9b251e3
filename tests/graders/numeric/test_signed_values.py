"""Signed values as students write them: a minus against its number (`-0.416`, the Unicode minus
`−0.416`, `$-0.416$`, `= -0.416`) is the value's sign. The reader once stripped every leading
minus as a stray operator, so an item whose expected value is negative graded every right
answer 0 (`0.416 is not the expected value -0.416`)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.numeric.extract import extract
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, Question, RubricItem, load_rubric

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric

MINUS = ("-", "−")
FRAMES = ("{v}", "The value is {v}.", "cos(2) = {v}", "${v}$", "So the gradient is {v}",
          "we get $x = {v}$ here", "**{v}**")


def grade(text: str, expected: float) -> ItemResult:
    item = RubricItem(id="s", points=Decimal(1), grader="numeric",
                      config={"expected": expected, "abs_tolerance": 0.0005})
    answer = LocatedAnswer("S", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"S": answer})
    context = GradingContext(RUBRIC, Question(id="S", items=(item,)), submission,
                             GradingResources())
    return GRADER.grade(item, answer, context)


def _decimal(whole: int, frac: int) -> str:
    return f"{whole}.{frac:03d}"


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 999), st.integers(1, 999), st.sampled_from(MINUS),
       st.sampled_from(FRAMES))
def test_a_minus_against_the_number_is_its_sign(whole: int, frac: int, minus: str,
                                                frame: str) -> None:
    written = _decimal(whole, frac)
    text = frame.format(v=minus + written)
    values = [c.value for c in extract(text).candidates]
    assert -Fraction(written) in values, (text, values)
    result = grade(text, -float(written))
    assert result.status is Status.GRADED and result.points == Decimal(1), (text, result)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 999), st.integers(1, 999), st.sampled_from(FRAMES))
def test_the_positive_value_is_not_the_negative_one(whole: int, frac: int, frame: str) -> None:
    written = _decimal(whole, frac)
    result = grade(frame.format(v=written), -float(written))
    assert result.points == Decimal(0), result


def test_a_subtraction_and_a_bullet_are_not_signs() -> None:
    assert [c.value for c in extract("5 − 3").candidates] == [2]
    assert [c.value for c in extract("5 - 3").candidates] == [2]
    bullets = [c.value for c in extract("- 0.245\n- 0.3").candidates]
    assert Fraction("0.245") in bullets and -Fraction("0.245") not in bullets
