"""How the sixth trial homework's students wrote g = dL/dz for p = softmax(z / T) and h = dR/dw
for R = (lambda / 2) ||w||^2 (both answers in one block, sub-parts marked): one component with a
scalar factor (`\\frac{\\partial L}{\\partial z_i} = \\frac{p_i - y_i}{T}`), in an align
environment (`\\nabla_z L &= T^{-1}\\,(p - y)`), both sub-parts on one line (`g = (p - y) / T
(b) h = lambda * w`), a bold label before the target (`**Problem 2.b** h = λ·w`). Before: the
component was graded 0 at 0.85 (T carries no index), the align's and the bold label's were no
expression at all (review at 0.28), and the one-line answer gave g the value of h (0 at
0.81)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.symbolic.derivatives import derivative_assignments
from graders.symbolic.expressions import find_assignments, tidy

PROPERTY = settings(max_examples=120, deadline=None, database=None, derandomize=True)

SCALED = ["({c}) / T", r"\frac{{{c}}}{{T}}", r"\frac{{1}}{{T}}({c})",
          r"\frac{{1}}{{T}}\left({c}\right)", r"T^{{-1}}\,({c})", "1/T ({c})", "({c})/T"]
DERIVATIVE = [r"\frac{{\partial L}}{{\partial z_{i}}}", "dL/dz_{i}", r"\frac{{dL}}{{dz_{{{i}}}}}",
              "∂L/∂z_{i}"]


@PROPERTY
@given(st.sampled_from(SCALED), st.sampled_from(DERIVATIVE), st.sampled_from("ijk"),
       st.sampled_from([" = ", " &= "]), st.sampled_from(["$", "$$", ""]))
def test_a_component_with_a_scalar_factor_is_the_vector(
        scaled: str, derivative: str, index: str, relation: str, math: str) -> None:
    component = f"p_{index} - y_{index}"
    text = f"{math}{derivative.format(i=index)}{relation}{scaled.format(c=component)}{math}"
    [found] = derivative_assignments(text, "g", "dL/dz")
    assert found.expression.replace(" ", "") == scaled.format(c="p - y").replace(" ", ""), (
        text, found)


@PROPERTY
@given(st.sampled_from(SCALED), st.sampled_from("ijk"), st.sampled_from("ijk"))
def test_a_term_without_the_index_keeps_the_component_as_written(
        scaled: str, index: str, other: str) -> None:
    for component in (f"p_{index} - y", f"p_{index} - y_{other}" if other != index else "q"):
        text = f"dL/dz_{index} = {scaled.format(c=component)}"
        [found] = derivative_assignments(text, "g", "dL/dz")
        assert f"_{index}" in found.expression or component == "q", (text, found)


VALUES = ["(p - y) / T", r"\frac{p - y}{T}", "lambda * w", r"\lambda w", "λ·w"]


@PROPERTY
@given(st.sampled_from(VALUES), st.sampled_from(VALUES), st.sampled_from(["(b)", "b)"]),
       st.sampled_from([" ", "   ", "\t"]))
def test_the_next_sub_part_on_the_same_line_ends_the_expression(
        first: str, second: str, marker: str, gap: str) -> None:
    text = f"(a) g = {first}{gap}{marker} h = {second}"
    assert [a.expression for a in find_assignments(text, "g")] == [first], text
    assert [a.expression for a in find_assignments(text, "h")] == [second], text


@PROPERTY
@given(st.sampled_from(VALUES), st.sampled_from(["**Problem 2.b**", "**(b)**", "__2b__",
                                                 "**Q2.ii**"]))
def test_a_bold_label_before_the_target_leaves_it_the_left_hand_side(
        value: str, label: str) -> None:
    text = f"**Problem 2.a** g = x\n\n{label} h = {value}"
    assert [a.expression for a in find_assignments(text, "h")] == [value], text


@PROPERTY
@given(st.sampled_from([r"\lambda\, w", r"\lambda \, w", r"T^{-1}\,(p - y)"]),
       st.sampled_from([r"\nabla_w R", r"\frac{\partial R}{\partial w}", "dR/dw"]))
def test_a_latex_thin_space_does_not_end_the_expression(value: str, derivative: str) -> None:
    text = rf"\begin{{align}} {derivative} &= {value} \\ \end{{align}}"
    assert [a.expression for a in derivative_assignments(text, "h", "dR/dw")] == [value], text


def test_graded_end_to_end(resources: GradingResources) -> None:
    from graders.context import GradingContext
    from graders.documents.model import LocatedAnswer, ParsedSubmission
    from graders.rubric import Question, Rubric, RubricItem
    from graders.symbolic import GRADER

    item = RubricItem(id="q2", points=Decimal(3), grader="symbolic", config={
        "mode": "equivalent", "target": "g", "derivative": "dL/dz", "expected": "(p - y)/T"})
    question = Question(id="Q2", items=(item,))
    rubric = Rubric(slug="scaled", title="scaled", questions=(question,))
    right = [r"For each component, $\frac{\partial L}{\partial z_i} = \frac{p_i - y_i}{T}$.",
             r"$$\frac{\partial L}{\partial z_j} = \frac{1}{T}(p_j - y_j).$$",
             r"\begin{align} \nabla_z L &= T^{-1}\,(p - y) \\ \end{align}",
             "(a) g = (p - y) / T   (b) h = lambda * w"]
    for text in right:
        answer = LocatedAnswer("Q2", text, start=0, end=len(text))
        submission = ParsedSubmission(text=text, format="text", answers={"Q2": answer})
        result = GRADER.grade(item, answer, GradingContext(rubric, question, submission,
                                                           resources))
        assert result.points == Decimal(3), (text, result.feedback, tidy(text))
