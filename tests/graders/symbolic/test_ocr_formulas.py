"""A formula in an OCR transcript of handwriting, its 1 read as l and its 0 as O (the twelfth
trial homework: `E = (l - alpha^(gamma+l)) / (l - alpha)` then `E = (l - O.8^5)/O.2 = 3.36`).
The l was read as a symbol: the formula was not the expected one, and its evaluation, with
letters in it, was no number to pass over (0 at 0.85). In a transcript (a `.txt` upload), where
the expected expression names no symbol l, an l standing alone between signs or brackets is a 1,
and an O before a decimal point's digits a 0; a typed document keeps its letters."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult
from graders.rubric import Question, Rubric, RubricItem
from graders.symbolic import GRADER

ITEM = RubricItem(id="q5.formula", points=Decimal(2), grader="symbolic",
                  config={"mode": "equivalent", "target": "E",
                          "expected": "(1 - alpha^(gamma + 1)) / (1 - alpha)"})
QUESTION = Question(id="Q5", items=(ITEM,))
RUBRIC = Rubric(slug="spec", title="spec", questions=(QUESTION,))


def _grade(text: str, document: str, resources: GradingResources) -> ItemResult:
    answer = LocatedAnswer("Q5", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format=document,  # type: ignore[arg-type]
                                  answers={"Q5": answer})
    return GRADER.grade(ITEM, answer, GradingContext(RUBRIC, QUESTION, submission, resources))


@st.composite
def _transcribed(draw: st.DrawFn) -> str:
    ones = [draw(st.sampled_from(["1", "l"])) for _ in range(3)]
    if "l" not in ones:
        ones[draw(st.integers(0, 2))] = "l"
    formula = "E = ({} - alpha^(gamma+{})) / ({} - alpha)".format(*ones)
    value = draw(st.sampled_from(["", "\nb) E = (l - O.8^5)/O.2 = 3.36", "\nb) E = 3.36"]))
    return "a) " + formula + value


# each example is a symbolic grading (about 0.5 s)
@settings(max_examples=6, deadline=None, database=None, derandomize=True)
@given(text=_transcribed())
def test_a_transcribed_formula_reads_l_as_one(text: str, resources: GradingResources) -> None:
    result = _grade(text, "text", resources)
    assert (result.points, result.status.value) == (Decimal(2), "graded"), (text, result.feedback)


def test_a_typed_formula_keeps_its_l(resources: GradingResources) -> None:
    result = _grade("E = (l - alpha^(gamma+1)) / (l - alpha)", "markdown", resources)
    assert result.points == 0, result.feedback


def test_a_symbol_l_the_expected_expression_names_is_kept(resources: GradingResources) -> None:
    item = RubricItem(id="q", points=Decimal(1), grader="symbolic",
                      config={"mode": "equivalent", "target": "y", "expected": "(l + 1) x"})
    question = Question(id="Q5", items=(item,))
    text = "y = (l + 1) x"
    answer = LocatedAnswer("Q5", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"Q5": answer})
    context = GradingContext(Rubric(slug="s", title="s", questions=(question,)), question,
                             submission, resources)
    assert GRADER.grade(item, answer, context).points == 1
