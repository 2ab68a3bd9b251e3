"""Property-based: every rendering of the expected value, wherever it stands and whatever is
around it, is found and credited; a wrong value rendered the same ways is not.

`GENERATED` counts the answers graded here; the module's budget (~2,700 per `make test`) is
split over the properties by `EXAMPLES` (it was 1,200 per property, then 600, and at 600 this
file was still the slowest of tests/graders, a sixth of the folder's time).
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.graders.numeric.renderings import (
    B1_NEARBY,
    B2_NEARBY,
    D_HEAD,
    FORMS,
    NORMALIZER,
    PER_MATRIX,
    TOTAL,
    VALUES,
    Slot,
    answer,
    integer_text,
    render_integer,
    vector_text,
)

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
QUESTIONS = {q.id: q for q in RUBRIC.questions}
GENERATED: list[int] = [0]
EXAMPLES = 300  # per property: 9 properties, 2,700 answers

PROPERTY = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def grade(question_id: str, text: str) -> dict[str, ItemResult]:
    GENERATED[0] += 1
    question = QUESTIONS[question_id]
    located = LocatedAnswer(question_id, text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={question_id: located})
    context = GradingContext(RUBRIC, question, submission, GradingResources())
    items = [i for i in question.items if i.grader == "numeric"]
    return {r.item_id: r for r in GRADER.grade_items(items, located, context)}


def _full(question_id: str, item_id: str) -> Decimal:
    return next(i.points for i in QUESTIONS[question_id].items if i.id == item_id)


EXACT_FORMS = {
    "b1.d_head": ("768/12", "$\\frac{768}{12}$", "$\\sqrt{4096}$", "2^6", "768 / 12"),
    "b1.per_matrix": ("768^2", "$768^{2}$", "768 × 768", "$768 \\times 768$", "768*768",
                      "768x768", "$768\\cdot768$"),
    "b1.total": ("3 × 589,824", "$3 \\times 589{,}824$", "3*768^2", "3 × 768 × 768",
                 "$3 \\cdot 768^2$", "3 x 589 824"),
}
EXPECTED = {"b1.d_head": 64, "b1.per_matrix": 589824, "b1.total": 1769472}
# the statements of the other B1 items, right, to stand beside the one under test
SIBLINGS = {
    "b1.d_head": "d_head = 64",
    "b1.per_matrix": "each W_Q has 768 × 768 = 589,824 weights",
    "b1.total": "total 3 × 589,824 = 1,769,472",
}
SLOTS = {"b1.d_head": D_HEAD, "b1.per_matrix": PER_MATRIX, "b1.total": TOTAL}
# labels whose own working would reach the right value whatever the final value says
WORKING = ("= 768 / 12 =", "768 × 768 =", "3 × 589,824 =")


def _names(feedback: str, value: int) -> bool:
    """The feedback states `value` (as digits or grouped), not merely digits inside another."""
    return any(re.search(rf"(?<![\d,.]){re.escape(form)}(?![\d,])", feedback)
               for form in (str(value), f"{value:,}"))


def _others(item: str) -> tuple[str, ...]:
    return tuple(text for other, text in SIBLINGS.items() if other != item)


def _not_credited_integer(item: str, value: int) -> bool:
    """A wrong value: not the key, a known mistake, a rounding of the key or carried forward."""
    expected = EXPECTED[item]
    if value in (expected, 590592, 49152, 2359296, 3 * 589824, 3 * 590592, 3 * 49152):
        return False
    digits = str(expected)
    for keep in range(1, len(digits)):
        unit = 10 ** (len(digits) - keep)
        if abs(value - expected) <= unit:  # too close to the key to call plainly wrong
            return False
    return True


@st.composite
def _right_count(draw: st.DrawFn, item: str) -> str:
    value = draw(integer_text(EXPECTED[item], EXACT_FORMS[item]))
    return draw(answer(SLOTS[item], value, B1_NEARBY, _others(item)))


@st.composite
def _wrong_count(draw: st.DrawFn, item: str) -> str:
    wrong, form, pick = draw(st.tuples(
        st.integers(2, 5_000_000).filter(lambda v: _not_credited_integer(item, v)),
        st.sampled_from(FORMS), st.integers(0, 59)))
    slot = Slot(item, tuple(label for label in SLOTS[item].labels
                            if not any(w in label for w in WORKING)))
    # prose that states the right value itself would rightly be read as the answer
    nearby = tuple(n for n in B1_NEARBY if str(EXPECTED[item]) not in n)
    return draw(answer(slot, render_integer(wrong, form, pick), nearby, _others(item)))


@pytest.mark.parametrize("item", list(EXPECTED))
def test_every_rendering_of_a_right_count_is_credited(item: str) -> None:
    @PROPERTY
    @given(text=_right_count(item))
    def check(text: str) -> None:
        result = grade("B1", text)[item]
        assert result.points == _full("B1", item), (text, result.feedback)
        assert result.status is Status.GRADED, (text, result.feedback)
        assert result.student_feedback and not _names(result.student_feedback, EXPECTED[item])

    check()


@pytest.mark.parametrize("item", list(EXPECTED))
def test_a_wrong_count_is_never_credited(item: str) -> None:
    @PROPERTY
    @given(text=_wrong_count(item))
    def check(text: str) -> None:
        result = grade("B1", text)[item]
        assert result.points == 0, (text, result.feedback)
        assert not _names(result.student_feedback or "", EXPECTED[item]), \
            result.student_feedback

    check()


SOFTMAX = (0.665241, 0.244728, 0.090031)
NORMALIZER_STATEMENTS = ("sum = e^2 + e^1 + e^0 = 11.107", "normalizer 11.11",
                         "Z = $e^2 + e + 1$")


@st.composite
def _right_softmax(draw: st.DrawFn) -> str:
    jitter = draw(st.tuples(*[st.integers(-4, 4) for _ in SOFTMAX]))
    values = tuple(v + d / 10_000 for v, d in zip(SOFTMAX, jitter, strict=True))
    others = draw(st.sampled_from([(), *((n,) for n in NORMALIZER_STATEMENTS)]))
    return draw(answer(VALUES, draw(vector_text(values)), B2_NEARBY, others))


@PROPERTY
@given(text=_right_softmax())
def test_every_rendering_of_the_softmax_is_credited(text: str) -> None:
    result = grade("B2", text)["b2.values"]
    assert result.points == _full("B2", "b2.values"), (text, result.feedback)
    assert result.status is Status.GRADED, (text, result.feedback)


@st.composite
def _wrong_softmax(draw: st.DrawFn) -> str:
    first, second = draw(st.tuples(st.integers(20, 960), st.integers(10, 980)))
    second = min(second, 990 - first)
    values = (first / 1000, second / 1000, (1000 - first - second) / 1000)
    if any(abs(v - s) <= 0.03 for v, s in zip(values, SOFTMAX, strict=True)):
        values = (0.5, 0.3, 0.2)
    return draw(answer(VALUES, draw(vector_text(values)), B2_NEARBY, ("sum = 11.107",)))


@PROPERTY
@given(text=_wrong_softmax())
def test_a_wrong_softmax_is_never_credited(text: str) -> None:
    result = grade("B2", text)["b2.values"]
    assert result.points == 0, (text, result.feedback)


NORMALIZER_FORMS = ("11.107", "11.1073", "11.11", "e^2 + e^1 + e^0", "$e^{2}+e^{1}+e^{0}$",
                    "$e^2 + e + 1$", "exp(2) + exp(1) + exp(0)", "7.389 + 2.718 + 1",
                    "e^2 + e^1 + e^0 = 7.389 + 2.718 + 1 = 11.107", "$\\boxed{11.107}$")


@st.composite
def _right_normaliser(draw: st.DrawFn) -> str:
    value = draw(st.sampled_from(NORMALIZER_FORMS))
    vector = draw(vector_text(SOFTMAX))
    return draw(answer(NORMALIZER, value, B2_NEARBY, (f"softmax = {vector}",)))


@PROPERTY
@given(text=_right_normaliser())
def test_every_rendering_of_the_normaliser_is_credited(text: str) -> None:
    result = grade("B2", text)["b2.normalizer"]
    assert result.points == _full("B2", "b2.normalizer"), (text, result.feedback)
    assert result.status is Status.GRADED, (text, result.feedback)
