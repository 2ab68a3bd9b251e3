"""A product of one-letter symbols typed against each other, and powers typed as Unicode
superscripts (trial 8: the FLOPs of attention, F = 4T^2d, written `F = 4dT^2`, `F = 4T²d`,
`F = 2T²d + 2T²d = 4T²d.`). Before, `dT` was read as one name (a confident 0 at 0.9) and `T²`
could not be read (review at 0.3). Letters the expected expression does not use (`FLOPs`), a
name it has whole, and a wrong power or coefficient are not made right by the reading."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import Question, Rubric, RubricItem
from graders.symbolic import GRADER

PROPERTY = settings(max_examples=60, deadline=None, database=None, derandomize=True)
SUPERSCRIPT = {2: "²", 3: "³"}
LETTERS = ["T", "d", "n", "V", "h", "L"]


def _grade(expected: str, text: str, resources: GradingResources) -> ItemResult:
    item = RubricItem(id="q4.formula", points=Decimal(1), grader="symbolic",
                      config={"mode": "equivalent", "target": "F", "expected": expected})
    question = Question(id="Q4", items=(item,))
    rubric = Rubric(slug="cost", title="cost", questions=(question,))
    answer = LocatedAnswer("Q4", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"Q4": answer})
    return GRADER.grade(item, answer, GradingContext(rubric, question, submission, resources))


def _factor(name: str, power: int, unicode: bool) -> str:
    if power == 1:
        return name
    return name + (SUPERSCRIPT[power] if unicode else f"^{power}")


@PROPERTY
@given(st.lists(st.sampled_from(LETTERS), min_size=2, max_size=3, unique=True),
       st.lists(st.integers(1, 3), min_size=3, max_size=3), st.integers(2, 8),
       st.booleans(), st.randoms(use_true_random=False),
       st.sampled_from(["F = {e}", "(a) F = {e}", "F = {e} FLOPs", "so F = {e}."]))
def test_juxtaposed_symbols_are_a_product(resources, names, powers, coefficient, unicode,
                                          order, line):
    powers = powers[:len(names)]
    expected = "*".join([str(coefficient)] + [f"{n}^{p}" for n, p in zip(names, powers,
                                                                            strict=True)])
    written = list(zip(names, powers, strict=True))
    order.shuffle(written)
    typed = str(coefficient) + "".join(_factor(n, p, unicode) for n, p in written)
    result = _grade(expected, line.format(e=typed), resources)
    assert result.points == Decimal(1), (typed, expected, result.feedback)
    assert result.status is Status.GRADED, (typed, result.feedback)
    # a different power of the first name is still wrong
    wrong_power = powers[0] % 3 + 1
    wrong = str(coefficient) + "".join(
        _factor(n, wrong_power if n == names[0] else p, unicode) for n, p in written)
    assert _grade(expected, line.format(e=wrong), resources).points == Decimal(0), wrong


def test_a_name_the_expected_expression_has_whole_is_not_split(resources):
    # `dT` is a name of its own here (a time step), not d times T
    assert _grade("2*dT", "F = 2dT", resources).points == Decimal(1)
    assert _grade("2*d*T", "F = 2dT", resources).points == Decimal(1)
    assert _grade("d*T", "F = exp(dT)", resources).points == Decimal(0)
