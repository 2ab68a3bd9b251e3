"""Properties of factor reading (graders.numeric.factors, graders.numeric.scaling) over generated
scaling answers: every class of writing is read as its factor, what is not a factor never is,
the conclusion beats the intermediate values, and a graded result is never confidently wrong."""

from __future__ import annotations

import time
from decimal import Decimal
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.numeric.config import NumericConfig
from graders.numeric.factors import factor_readings
from graders.numeric.scaling import choose_factor
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, Question, RubricItem, load_rubric
from tests.graders.numeric.scaling_phrasings import (
    AVOID_CUES,
    CLASSES,
    COST_CUES,
    FIXED,
    Answer,
    factor_phrase,
    intermediate_then_final,
    non_factors,
    stated_factors,
)
from tests.support.pace import stretched

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
# A whole grading per example (the numeric grader, its cues and review rules): the readers'
# properties above draw 150 each; this one, ~0.4 s an example here, 50 (2.7% of the suite's
# worker time at 150).
GRADED = settings(SETTINGS, max_examples=50)


def _config(expected: Fraction, cues: bool = True) -> NumericConfig:
    return NumericConfig(expected=float(expected), form="factor",
                         cues=COST_CUES if cues else (), avoid_cues=AVOID_CUES if cues else ())


def grade(text: str, expected: Fraction) -> ItemResult:
    item = RubricItem(id="s", points=Decimal(2), grader="numeric",
                      config={"expected": float(expected), "form": "factor",
                              "cues": list(COST_CUES), "avoid_cues": list(AVOID_CUES)})
    answer = LocatedAnswer("S", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"S": answer})
    context = GradingContext(RUBRIC, Question(id="S", items=(item,)), submission,
                             GradingResources())
    return GRADER.grade(item, answer, context)


def test_every_class_reads_its_factor_at_every_template():
    for klass in CLASSES:
        for template in klass.templates:
            for n in (klass.low, (klass.low + klass.high) // 2, klass.high):
                text = factor_phrase(klass, template, n)
                values = [r.value for r in factor_readings(text)]
                assert values == [klass.value(n)], (klass.name, text, values)
    for text, value in FIXED:
        assert [r.value for r in factor_readings(text)] == [value], text


@SETTINGS
@given(stated_factors(), st.booleans())
def test_a_stated_factor_is_read_within_its_explanation(answer: Answer, cues: bool):
    assert answer.value is not None
    choice = choose_factor(answer.text, _config(answer.value, cues))
    assert choice is not None, answer
    assert choice.value == answer.value, answer
    assert choice.confidence >= 0.85, answer


@SETTINGS
@given(non_factors())
def test_shapes_products_names_and_causes_are_not_factors(answer: Answer):
    assert factor_readings(answer.text) == [], answer


@SETTINGS
@given(intermediate_then_final(), st.booleans())
def test_the_conclusion_beats_the_intermediate_value(answer: Answer, cues: bool):
    assert answer.value is not None
    choice = choose_factor(answer.text, _config(answer.value, cues))
    assert choice is not None and choice.value == answer.value, answer
    assert choice.confidence >= 0.85, answer


@GRADED
@given(st.one_of(stated_factors(), intermediate_then_final(), non_factors()),
       st.sampled_from([Fraction(2), Fraction(4), Fraction(16), Fraction(1, 4)]))
def test_a_graded_result_is_the_answers_own_conclusion(answer: Answer, expected: Fraction):
    started = time.perf_counter()
    result = grade(answer.text, expected)
    assert time.perf_counter() - started < stretched(1.0)
    if result.status is Status.GRADED:
        assert answer.value is not None, (answer, result.feedback)
        right = answer.value == expected
        assert result.points == (Decimal(2) if right else Decimal(0)), (answer, result.feedback)
    if answer.value is None:
        # nothing was read as the answer, or a number was, for a reader to look at
        assert result.status in (Status.MISSING, Status.NEEDS_REVIEW), (answer, result.feedback)


@given(st.text(alphabet="x×0123456789 .,timesfoldbyactr", max_size=3000))
@settings(max_examples=25, deadline=None)
def test_reading_is_bounded_on_hostile_text(text: str):
    started = time.perf_counter()
    factor_readings(text * 3)
    assert time.perf_counter() - started < stretched(0.5)
