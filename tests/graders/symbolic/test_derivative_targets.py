"""A derivation question asks for g = dL/dz; students write the derivative itself, in any of
its notations, often one component at a time, and often as a chain of equalities ending in the
answer. Class generated: every notation of the derivative (fraction, slash, nabla; partial, d,
∂; bold or plain; with or without a component index), every chain (the derivative, then the
working, then the answer), and the component form whose terms all share the index."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import Status
from graders.rubric import Question, Rubric, RubricItem
from graders.symbolic import GRADER
from graders.symbolic.config import SymbolicConfig
from graders.symbolic.derivatives import derivative_assignments
from graders.symbolic.expressions import find_assignments
from graders.symbolic.grader import spelled_out

PROPERTY = settings(max_examples=150, deadline=None, database=None, derandomize=True)

D = st.sampled_from([r"\partial ", "∂", "d"])
INDEX = st.sampled_from(["", "i", "j", "k"])
NAME = st.sampled_from([("L", "z"), ("J", "x"), ("E", "a")])


@st.composite
def derivative(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(written derivative, of, wrt, index)"""
    of, wrt = draw(NAME)
    d = draw(D)
    index = draw(INDEX)
    sub = draw(st.sampled_from([f"_{index}", f"_{{{index}}}"])) if index else ""
    x = draw(st.sampled_from([wrt, rf"\mathbf{{{wrt}}}", rf"\boldsymbol{{{wrt}}}"]))
    form = draw(st.sampled_from(["frac", "slash", "nabla"] if not index else ["frac", "slash"]))
    if form == "frac":
        frac = draw(st.sampled_from([r"\frac", r"\dfrac"]))
        return f"{frac}{{{d}{of}}}{{{d}{x}{sub}}}", of, wrt, index
    if form == "slash":
        gap = draw(st.sampled_from(["", " "]))
        return f"{d}{of}{gap}/{gap}{d}{x}{sub}", of, wrt, index
    return rf"\nabla_{{{x}}} {of}", of, wrt, index


def _component(index: str) -> str:
    return f"p_{index} - y_{index}" if index else "p - y"


@PROPERTY
@given(derivative(), st.sampled_from(["", "$", "$$"]), st.sampled_from(["", ".", ","]))
def test_every_notation_of_the_derivative_assigns_the_target(
        written: tuple[str, str, str, str], math: str, stop: str) -> None:
    spelled, of, wrt, index = written
    text = f"So {math}{spelled} = {_component(index)}{math}{stop}"
    found = derivative_assignments(text, "g", f"d{of}/d{wrt}")
    assert [a.expression for a in found] == ["p - y"], (text, found)


@PROPERTY
@given(derivative(), st.sampled_from([
    r"-\sum_i y_i (\delta_{ij} - p_j)", "-y_j + p_j \\sum_i y_i", r"\sum_k y_k p_j - y_j"]))
def test_a_chain_of_equalities_concludes_with_its_last_link(
        written: tuple[str, str, str, str], working: str) -> None:
    spelled, of, wrt, index = written
    text = f"{spelled} = {working} = {_component(index)}"
    found = derivative_assignments(text, "g", f"d{of}/d{wrt}")
    assert found and found[-1].expression == "p - y", (text, found)
    # the target's own name opening the chain: the derivative in the middle is no value
    named = find_assignments(f"$g = {spelled} = {working} = p - y$", "g")
    assert named[-1].expression == "p - y" and all(spelled not in a.expression for a in named)


@PROPERTY
@given(st.sampled_from(["i", "j", "k"]), st.sampled_from(["i", "j", "k"]))
def test_a_component_is_read_as_the_vector_only_when_every_term_shares_its_index(
        index: str, other: str) -> None:
    text = rf"\frac{{\partial L}}{{\partial z_{index}}} = p_{index} - y_{other}"
    [found] = derivative_assignments(text, "g", "dL/dz")
    expected = "p - y" if other == index else f"p_{index} - y_{other}"
    assert found.expression == expected


def test_a_derivative_of_another_quantity_assigns_nothing() -> None:
    assert derivative_assignments("dJ/dz = p - y and dL/dx = q", "g", "dL/dz") == []
    assert derivative_assignments("the loss L = -log p_c", "g", "dL/dz") == []


@PROPERTY
@given(st.sampled_from(["softmax(z)", r"\mathrm{softmax}(z)", r"\operatorname{softmax}(z)",
                        r"\text{softmax}( z )"]),
       st.sampled_from(["{} - y", "-y + {}", "({} - y)"]))
def test_an_alias_written_as_a_function_replaces_its_definition(spelled: str, form: str) -> None:
    from graders.symbolic.expressions import tidy
    config = SymbolicConfig(target="g", expected="p - y", mode="equivalent",
                            aliases={"softmax(z)": "p"})
    out = spelled_out(tidy(form.format(spelled)), config)
    assert "softmax" not in out and " p " in f" {out} ", out


RUBRIC_ITEM = RubricItem(id="q4", points=Decimal(3), grader="symbolic", config={
    "mode": "equivalent", "target": "g", "derivative": "dL/dz", "expected": "p - y",
    "aliases": {"softmax(z)": "p", r"\hat{y}": "p"}})
QUESTION = Question(id="Q4", items=(RUBRIC_ITEM,))
RUBRIC = Rubric(slug="derivative", title="derivative", questions=(QUESTION,))


def _grade(text: str, resources: GradingResources) -> tuple[Decimal, Status, str]:
    answer = LocatedAnswer("Q4", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"Q4": answer})
    result = GRADER.grade(RUBRIC_ITEM, answer, GradingContext(RUBRIC, QUESTION, submission,
                                                              resources))
    return result.points, result.status, result.feedback


def test_graded_end_to_end(resources: GradingResources) -> None:
    right = [
        r"$$\frac{\partial L}{\partial z_j} = -\sum_i y_i(\delta_{ij} - p_j) = p_j - y_j$$",
        "dL/dz = p — y",  # OCR's em dash
        r"$g = \frac{\partial L}{\partial z} = p - y$",
        "dL/dz = p - y (the softmax output minus the one-hot target).",
        r"$\nabla_z L = \hat{y} - y$",
        "g = softmax(z) - y",
    ]
    for text in right:
        points, status, feedback = _grade(text, resources)
        assert (points, status) == (Decimal(3), Status.GRADED), (text, feedback)
    for text in ["dL/dz = y - p", r"$\frac{\partial L}{\partial z_i} = y_i - p_i$", "g = p"]:
        points, status, feedback = _grade(text, resources)
        assert points == 0 and status is Status.GRADED, (text, feedback)
