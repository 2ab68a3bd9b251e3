"""How the seventh trial homework's students answered "(a) give N, the parameters saved by tying
the embeddings, as a formula in V and d; (b) evaluate it for V = 32,000 and d = 4,096": the
formula, then the same target assigned its value (`N = 32000 \\cdot 4096 = 131{,}072{,}000`,
`N = 1.31072 \\times 10^8`, OCR's `N = 32 OOO x 4 O96 = l31,O72,OOO`), on one line or the next,
a width `d` written first (`N = d \\cdot V`, `N = d V`), and an x for times (`N = V x d`).
Before: the last assignment, a number, was graded against the formula (0, or review when the
formula came earlier), and
`d \\cdot V` was read as the name `dcdot` times V, `d V` as the differential dV, `V x d` as
V·x·d (0 at 0.81-0.85)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult
from graders.rubric import Question, Rubric, RubricItem
from graders.symbolic import GRADER
from graders.symbolic.evaluations import is_number

PROPERTY = settings(max_examples=40, deadline=None, database=None, derandomize=True)

ITEM = RubricItem(id="q4.formula", points=Decimal(1), grader="symbolic",
                  config={"mode": "equivalent", "target": "N", "expected": "V*d"})
QUESTION = Question(id="Q4", items=(ITEM,))
RUBRIC = Rubric(slug="tying", title="tying", questions=(QUESTION,))

FORMULAS = ["V d", "d V", r"V \cdot d", r"d \cdot V", "V*d", "d*V", r"V \times d", "Vd", "V·d",
            r"d \times V", "V x d", "d x V", "V X d"]
WRONG = ["2 V d", r"2 \cdot d \cdot V", "V + d", "V^2 d"]
VALUES = [r"32000 \cdot 4096 = 131{,}072{,}000", "32,000 x 4,096 = 131,072,000",
          r"1.31072 \times 10^8", r"1.31072 \cdot 10^{8}", "131072000", "1.31072e8",
          "32 OOO x 4 O96 = l31,O72,OOO"]
LAYOUTS = ["(a) N = {f}   (b) N = {v}", "(a) N = {f}\n(b) N = {v}", "${m}N = {f}${m}\n\n$N = {v}$",
           "**4.a** $N = {f}$\n**4.b** $N = {v}$", "a) N = {f}, b) N = {v}"]


def _grade(text: str, resources: GradingResources) -> ItemResult:
    answer = LocatedAnswer("Q4", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"Q4": answer})
    return GRADER.grade(ITEM, answer, GradingContext(RUBRIC, QUESTION, submission, resources))


@PROPERTY
@given(formula=st.sampled_from(FORMULAS), value=st.sampled_from(VALUES),
       layout=st.sampled_from(LAYOUTS), space=st.sampled_from(["", " "]))
def test_a_formula_then_its_value_grades_the_formula(
        formula: str, value: str, layout: str, space: str, resources: GradingResources) -> None:
    text = layout.format(f=formula, v=value, m=space)
    result = _grade(text, resources)
    assert (result.points, result.status.value) == (Decimal(1), "graded"), (text, result.feedback)


@PROPERTY
@given(formula=st.sampled_from(WRONG), value=st.sampled_from(VALUES),
       layout=st.sampled_from(LAYOUTS))
def test_a_wrong_formula_then_a_value_stays_wrong(
        formula: str, value: str, layout: str, resources: GradingResources) -> None:
    text = layout.format(f=formula, v=value, m="")
    assert _grade(text, resources).points == 0, text


def test_a_number_alone_is_still_what_is_graded(resources: GradingResources) -> None:
    result = _grade("N = 131,072,000", resources)
    assert result.points == 0 and "131" in result.feedback


@given(st.sampled_from(FORMULAS + WRONG + ["x", "2 x", "e", "3e", "O", "lambda w", "log 2"]))
def test_a_formula_is_no_number(formula: str) -> None:
    assert not is_number(formula)


@given(st.sampled_from(VALUES))
def test_a_value_is_a_number(value: str) -> None:
    assert is_number(value)


def test_an_x_is_a_symbol_where_the_expected_expression_has_one() -> None:
    from graders.symbolic.evaluations import times_x

    assert times_x("W x + b", "W*d") == "W x + b"
    assert times_x("V x d", "x*V") == "V x d"
    assert times_x("V x d", "V*d") == r"V \cdot d"
