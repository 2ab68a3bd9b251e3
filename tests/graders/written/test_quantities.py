"""A phrasing that names a quantity, met by a stretch that names another (the sixth probe's
"the sigmoid's derivative can be as large as 4" credited as "at most 0.25" at 0.95,
benchmarks/written_probe_registers.py): the sentence encoder hardly reads digits, so a stretch
naming only other numbers never establishes such a phrasing; the same value in another form
(0.25, .25, 1/4, 25%) does. Generated over the bundled item and a synthetic rubric of another
subject.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import ItemResult, Status
from graders.rubric import LoadedRubric, Rubric
from graders.written.quantities import numbers_in, other_quantity
from tests.graders.written.conftest import full_or_reviewed, grade_text, graded_item

# Values with a short decimal form, and how a student may write each.
VALUES = st.sampled_from([Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1, 10),
                          Fraction(2), Fraction(4), Fraction(100), Fraction(37)])


def _forms(value: Fraction) -> list[str]:
    decimal = f"{float(value):g}"
    forms = [decimal, f"{float(value) * 100:g}%"]
    if decimal.startswith("0."):
        forms.append(decimal[1:])
    if value.denominator != 1:
        forms.append(f"{value.numerator}/{value.denominator}")
    return forms


@given(value=VALUES, data=st.data())
def test_a_value_reads_the_same_in_every_form(value: Fraction, data: st.DataObject) -> None:
    form = data.draw(st.sampled_from(_forms(value)))
    before = data.draw(st.sampled_from(["", "(", "<=", "x>", "p="]))
    after = data.draw(st.sampled_from(["", ".", ",", ")", " units"]))
    assert value in numbers_in(f"it is at most {before}{form}{after} here")


@given(name=st.sampled_from(["W2", "x1", "d_k", "h2o", "0.25x", "v_2", "3e5", "k_j"]))
def test_names_and_products_are_not_numbers(name: str) -> None:
    assert numbers_in(f"the {name} term") == frozenset()


@given(wanted=VALUES, stated=VALUES, data=st.data())
def test_a_clause_naming_only_other_values_does_not_state_the_phrasing(
        wanted: Fraction, stated: Fraction, data: st.DataObject) -> None:
    phrasing = f"the derivative is at most {data.draw(st.sampled_from(_forms(wanted)))}"
    clause = f"the derivative can be as large as {data.draw(st.sampled_from(_forms(stated)))}"
    assert other_quantity(clause, phrasing) is (stated != wanted)
    # Naming the phrasing's value beside another keeps it; no digits leaves it to the encoder.
    assert not other_quantity(f"{clause} or {f'{float(wanted):g}'}", phrasing)
    assert not other_quantity("the derivative is at most a quarter", phrasing)
    assert not other_quantity(clause, "the derivative is small")


def _capped_or_reviewed(result: ItemResult) -> bool:
    return result.points < result.max_points or result.status is Status.NEEDS_REVIEW


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stated=st.sampled_from(["4", "1", "2.5", "10", "0.9", "3/4"]),
       head=st.sampled_from(["ReLU helps because its derivative is 1 for positive inputs",
                             "relu' = 1 for x>0 so the gradient passes"]),
       verb=st.sampled_from(["can be as large as", "reaches", "is at most", "peaks at"]))
def test_another_bound_for_the_sigmoid_never_earns_the_bound_confidently(
        transformer_basics: LoadedRubric, resources: GradingResources, stated: str, head: str,
        verb: str) -> None:
    text = f"{head}, while the sigmoid's derivative {verb} {stated}."
    result = graded_item(transformer_basics, resources, "A2", "a2.relu", text)
    assert _capped_or_reviewed(result), (text, result.points, result.confidence)


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(form=st.sampled_from(["0.25", ".25", "1/4", "25%"]))
def test_the_same_bound_in_another_form_still_earns_it(
        transformer_basics: LoadedRubric, resources: GradingResources, form: str) -> None:
    text = (f"ReLU's derivative is exactly 1 for positive inputs, while the sigmoid's "
            f"derivative is at most {form}.")
    result = graded_item(transformer_basics, resources, "A2", "a2.relu", text)
    assert result.points == result.max_points, (text, result.feedback)


def _boiling() -> Rubric:
    return Rubric.model_validate({"slug": "chem", "title": "chem", "questions": [{
        "id": "q", "prompt": "At what temperature does water boil at sea level?",
        "items": [{"id": "q.a", "points": 2, "grader": "written", "config": {
            "reference": ["Water boils at 100 degrees Celsius at sea level."],
            "elements": [{"id": "boil", "phrasings": [
                "water boils at 100 degrees Celsius at sea level"]}]}}]}]})


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(degrees=st.sampled_from(["90", "80", "212", "120", "37.5"]),
       shape=st.sampled_from(["At sea level water boils at {} degrees Celsius.",
                              "water boils at {} °C at sea level",
                              "It boils at about {} degrees C when at sea level."]))
def test_another_subject_a_wrong_value_is_not_a_confident_full_credit(
        resources: GradingResources, degrees: str, shape: str) -> None:
    text = shape.format(degrees)
    [result] = grade_text(_boiling(), "q", text, resources)
    assert _capped_or_reviewed(result), (text, result.points, result.confidence)
    # The right value is never a confident zero for it (a unit in symbols may send it to a
    # person, `text.py`).
    [right] = grade_text(_boiling(), "q", shape.format("100"), resources)
    assert full_or_reviewed(right), (shape, right.feedback)
