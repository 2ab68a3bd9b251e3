"""Counts of parameters and FLOPs as students write them (the third trial homework, a block's
parameters and attention's FLOPs): a unit of operations with its SI prefix (`2.1 GFLOPs`), a
bold value that ends its sentence (`**3,152,384**.`), a coefficient of a formula after the value
(`2.15 GFLOPs (4·T²·d)`), and a line that opens with the question's number and sub-part (`3b)`).
Before, the first read 2.15, the second nothing, the third 4 and the fourth the 3 of `3b)`, each
graded 0 at confidence >= 0.9."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.extract import extract

PROPERTY = settings(max_examples=150, deadline=None, database=None, derandomize=True)
PREFIX = {"k": 10**3, "K": 10**3, "M": 10**6, "m": 10**6, "G": 10**9, "g": 10**9,
          "T": 10**12, "t": 10**12}
MANTISSA = st.decimals(min_value="1.0", max_value="999.99", places=2)


def values(text: str) -> list[Fraction]:
    return [c.value for c in extract(text).candidates if not c.is_vector]  # type: ignore[misc]


@PROPERTY
@given(MANTISSA, st.sampled_from(sorted(PREFIX)), st.sampled_from(["FLOPs", "FLOP", "FLOPS",
                                                                    "flops"]),
       st.sampled_from(["", " "]), st.sampled_from(["", ".", " in total.", " for the layer"]))
def test_a_prefixed_unit_of_operations_scales_its_number(mantissa, prefix, unit, gap, tail):
    text = f"The attention products take about {mantissa}{gap}{prefix}{unit}{tail}"
    assert values(text) == [Fraction(str(mantissa)) * PREFIX[prefix]], text


@PROPERTY
@given(st.integers(1000, 10**10), st.sampled_from(["**", "*"]),
       st.sampled_from([".", "..", " .", ""]))
def test_a_bold_value_ending_its_sentence_is_read(count, bold, stop):
    text = f"Total parameters = {bold}{count:,}{bold}{stop}"
    assert values(text) == [count], text


@PROPERTY
@given(MANTISSA, st.sampled_from(["G", "M"]), st.integers(2, 16),
       st.sampled_from(["·", "*", r" \cdot ", " × ", r" \times "]),
       st.sampled_from(["T²·d", "T^2 d", "d_model", "n^2", "h"]))
def test_a_coefficient_of_a_name_is_no_value(mantissa, prefix, coefficient, times, names):
    formula = f"{coefficient}{times}{names}"
    text = f"about {mantissa} {prefix}FLOPs ({formula})."
    assert values(text) == [Fraction(str(mantissa)) * PREFIX[prefix]], text
    assert coefficient not in values(f"FLOPs are {formula} in general"), formula


@PROPERTY
@given(st.integers(1, 12), st.sampled_from(list("abcdefgh")),
       st.sampled_from(["{n}{l})", "{n}{l}.", "{n}.{l})", "Q{n}{l}", "Q{n}.{l}:", "Q{n}.{l}"]),
       st.integers(100, 10**8))
def test_a_line_opening_with_a_question_and_its_sub_part_holds_no_value(n, letter, label, count):
    text = f"{label.format(n=n, l=letter)} the block has {count:,} parameters"
    assert values(text) == [count], text


def test_products_and_working_notes_are_still_read() -> None:
    assert values("590592 (768*768 + bias)") == [590592, 589824]
    assert values("2 * 2 * 512 = 2048") == [2048, 2048]
    assert values("it is **-0.4**.") == [Fraction(-2, 5)]


@PROPERTY
@given(st.integers(2, 16), st.sampled_from(["", " "]), st.sampled_from(["T", "n", "d_{model}",
                                                                         "d_k"]),
       st.sampled_from(["", " d", "d"]), st.integers(10**6, 10**10),
       st.sampled_from(["=", r"\approx", "≈"]))
def test_the_coefficient_of_a_power_of_a_name_is_no_value(coefficient, gap, name, rest, count,
                                                          relation):
    text = f"FLOPs: ${coefficient}{gap}{name}^2{rest} {relation} {count:,}$"
    assert values(text) == [count], text
