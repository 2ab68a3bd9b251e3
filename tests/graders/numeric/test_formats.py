"""The pieces of the extraction on their own: words, roundings, lists, statements, labels, and
hostile input that must stay bounded."""

from __future__ import annotations

import time
from decimal import Decimal
from fractions import Fraction

import pytest

from graders.numeric.config import RoundingPolicy
from graders.numeric.extract import extract
from graders.numeric.rounding import coarser_rounding
from graders.numeric.statements import split_statements
from graders.numeric.words import spoken_numbers, words_value


@pytest.mark.parametrize(("text", "value"), [
    ("sixty-four", 64), ("Sixty four", 64), ("one hundred and twelve", 112),
    ("two million", 2_000_000), ("twelve", 12), ("one two", None), ("hundred", None),
    ("forty forty", None), ("seven hundred sixty-eight", 768),
])
def test_numerals_in_words(text: str, value: int | None) -> None:
    assert words_value(text) == value


def test_a_lone_small_number_word_is_prose_unless_it_is_the_whole_side() -> None:
    assert spoken_numbers("one head attends") == []
    assert [s.value for s in spoken_numbers(" one ")] == [1]
    assert [s.value for s in spoken_numbers("with twelve heads of sixty-four")] == [12, 64]


@pytest.mark.parametrize(("value", "target", "significant", "rounded"), [
    (Fraction(1_770_000), 1769472, 2, True), (Fraction(1_800_000), 1769472, 3, False),
    (Fraction("0.67"), 0.665, 2, True), (Fraction("0.7"), 0.665, 2, False),
    (Fraction("11.1"), 11.107, 3, True), (Fraction(11), 11.107, 3, False),
    (Fraction(589_000), 589824, 2, False), (Fraction(64), 64, 2, False),
    (7.389, 7.389056, 2, False),  # a computed float is nobody's rounding
])
def test_coarser_rounding(value: Fraction | float, target: float, significant: int,
                          rounded: bool) -> None:
    policy = RoundingPolicy(credit=Decimal("0.5"), min_significant=significant)
    assert coarser_rounding(value, target, policy) is rounded
    assert coarser_rounding(value, target, None) is False


def _vectors(text: str) -> list[tuple[float, ...]]:
    return [tuple(float(v) for v in c.value) for c in extract(text).candidates  # type: ignore[union-attr]
            if c.is_vector]


@pytest.mark.parametrize("text", [
    "0.665, 0.245 and 0.090", "0.665; 0.245; 0.090", "0.665 & 0.245 & 0.090",
    "softmax:\n0.665\n0.245\n0.090", "- 0.665\n- 0.245\n- 0.090", "66.5 %, 24.5 % and 9.0 %",
    "softmax = 0.665 0.245 0.090", "p = [0.665 0.245 0.090] (numpy)",
    "x \\approx \\left(0.665, 0.245, 0.090\\right)",
])
def test_bare_and_bracketed_lists_are_vectors(text: str) -> None:
    assert (0.665, 0.245, 0.09) in _vectors(text)


@pytest.mark.parametrize(("text", "value"), [
    ("e^2 = 7.389, e^1 = 2.718, e^0 = 1", 7.389),  # labelled values are not one list
    ("Z = 11.107\n0.665\n0.245", 11.107),  # a labelled line does not join the rows under it
    ("total 3 × 589,824, each 589,824", 1769472.0),  # an expression is not a list element
])
def test_labelled_values_do_not_form_lists(text: str, value: float) -> None:
    assert not [v for v in _vectors(text) if value in v]


def test_statements_end_after_a_value_and_a_full_stop() -> None:
    text = "sum = 11.107. softmax = [0.665, 0.245, 0.090]. e.g. this stays"
    pieces = [text[s.start:s.end].strip() for s in split_statements(text)]
    assert pieces[0] == "sum = 11.107"
    assert pieces[1].startswith("softmax")


def test_labels_name_the_value_before_and_after_it() -> None:
    found = {float(c.value): c for c in extract(  # type: ignore[arg-type]
        "d_head = 64, each W_Q has 589 824 weights per matrix, so 3 × 589 824 in total"
    ).candidates if not c.is_vector}
    assert found[64.0].label == "d_head ="
    assert "per matrix" in found[589824.0].trailing
    assert found[1769472.0].trailing == "in total"


def test_a_chain_keeps_its_label_and_its_working_is_not_an_answer() -> None:
    first, last = extract("d_head = 768 / 12 = 64").candidates
    assert first.working and not last.working and last.chained
    assert last.label == "d_head ="


@pytest.mark.parametrize("text", [
    "\\boxed{" * 7000, "(" * 50000, "[1,2]" * 10000, "1\n" * 25000, "sixty-four " * 4500,
    "= 1 " * 12000, "2^" * 20000 + "2", "x = " + "1+" * 20000 + "1",
])
def test_hostile_input_is_read_in_bounded_time(text: str) -> None:
    started = time.process_time()
    extract(text)
    assert time.process_time() - started < 10.0  # quadratic scans took minutes here
