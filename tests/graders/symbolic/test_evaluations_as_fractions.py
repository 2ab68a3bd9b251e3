"""A formula, then its value for the next sub-part written as a fraction of numbers or with the
minus sign (the twelfth trial homework: "(a) E = \\frac{1 - \\alpha^{\\gamma+1}}{1 - \\alpha}
(b) E = \\frac{1 - 0.8^{5}}{0.2} = 3.3616", `E = (1 − 0.8⁵)/0.2`). The evaluation was not read as
a number (`\\frac` and U+2212 were letters and an unknown sign), so it was graded against the
formula as the last assignment: review at 0 in four submissions. It is passed over, as
`N = 32000 \\cdot 4096` is (test_formula_then_value.py)."""

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

ITEM = RubricItem(id="q5.formula", points=Decimal(2), grader="symbolic",
                  config={"mode": "equivalent", "target": "E",
                          "expected": "(1 - alpha^(gamma + 1)) / (1 - alpha)"})
QUESTION = Question(id="Q5", items=(ITEM,))
RUBRIC = Rubric(slug="spec", title="spec", questions=(QUESTION,))

MINUS = ["-", "−"]
FRACTIONS = ["\\frac{{1 {m} {a}^{{{k}}}}}{{{b}}}", "\\dfrac{{1 {m} {a}^{k}}}{{{b}}}",
             "\\tfrac{{1{m}{a}^{{{k}}}}}{{{b}}}", "(1 {m} {a}^{k}) / {b}", "(1{m}{a}^{k})/{b}"]
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"


@st.composite
def _evaluation(draw: st.DrawFn) -> str:
    a = draw(st.sampled_from(["0.8", "0.5", "0.75", "0.9"]))
    k = draw(st.integers(2, 9))
    b = draw(st.sampled_from(["0.2", "0.5", "0.25", "0.1"]))
    m = draw(st.sampled_from(MINUS))
    if draw(st.booleans()):
        return f"(1 {m} {a}{SUPERSCRIPTS[k]})/{b}"
    return draw(st.sampled_from(FRACTIONS)).format(m=m, a=a, k=k, b=b)


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(_evaluation(), st.sampled_from(["\\alpha", "α", "alpha", "x"]))
def test_a_fraction_of_numbers_is_a_number_and_one_with_a_symbol_is_not(evaluation, symbol):
    assert is_number(evaluation), evaluation
    with_symbol = evaluation.replace("0.", f"{symbol} 0.", 1) if symbol != "x" else \
        evaluation.replace("1", "x", 1)
    assert not is_number(with_symbol), with_symbol


FORMULAS = ["\\frac{1 - \\alpha^{\\gamma + 1}}{1 - \\alpha}", "(1 − α^(γ+1)) / (1 − α)",
            "(1 - alpha^(gamma+1))/(1 - alpha)"]
LAYOUTS = ["(a) E = {f}\n(b) E = {v} = 3.36", "(a) $E = {f}$\n\n(b) $E = {v} \\approx 3.36$",
           "**(a)** E = {f}\n**(b)** E = {v}"]


def _grade(text: str, resources: GradingResources) -> ItemResult:
    answer = LocatedAnswer("Q5", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"Q5": answer})
    return GRADER.grade(ITEM, answer, GradingContext(RUBRIC, QUESTION, submission, resources))


# each example is a symbolic grading (about 0.5 s): a few cover the layouts
@settings(max_examples=6, deadline=None, database=None, derandomize=True)
@given(formula=st.sampled_from(FORMULAS), evaluation=_evaluation(),
       layout=st.sampled_from(LAYOUTS))
def test_the_formula_is_graded_not_its_evaluation(formula, evaluation, layout, resources):
    text = layout.format(f=formula, v=evaluation)
    result = _grade(text, resources)
    assert (result.points, result.status.value) == (Decimal(2), "graded"), (text, result.feedback)
