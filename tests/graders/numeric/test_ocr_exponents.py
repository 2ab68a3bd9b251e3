"""A number in scientific notation read from a handwritten page, with OCR's letters for its
digits, in the mantissa or the exponent (trial homework 11): `3.6e2l` (3.6e21), `le9` (1e9),
`l.4e1l` (1.4e11), `7.O7e1O` (7.07e10). Before, the letters were read only in plain numbers, so
such a value was no value and the item read another number of the answer (`6` of `6ND`) at
confidence 0.9. A word that merely starts with `le` (`level`, `le9x`) is no number."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.extract import extract
from tests.graders.numeric.test_prefixed_units import _grade

PROPERTY = settings(max_examples=100, deadline=None, database=None, derandomize=True)


def _ocr(digits: str, picks: list[bool]) -> str:
    out = []
    for ch, pick in zip(digits, picks, strict=False):
        out.append({"1": "l", "0": "O"}.get(ch, ch) if pick else ch)
    return "".join(out) + digits[len(picks):]


@PROPERTY
@given(st.integers(10, 99), st.integers(1, 24), st.lists(st.booleans(), min_size=6, max_size=6),
       st.sampled_from(["C = 6ND = {v} FLOPs", "{v} tokens", "N = {v} params", "= {v}"]))
def test_ocr_letters_in_scientific_notation(mantissa: int, exponent: int, picks: list[bool],
                                            lead: str) -> None:
    written = f"{mantissa // 10}.{mantissa % 10}e{exponent}"
    ocr = _ocr(written, picks)
    if ocr == written:
        ocr = written.replace("1", "l", 1).replace("0", "O", 1)
    if ocr == written:
        return
    text = lead.format(v=ocr)
    result = _grade(float(written), text)
    assert result.points == Decimal(2), (text, written, result.feedback)


def test_a_word_is_no_number() -> None:
    found = extract("the level le9x and lee are words; 3 heads").candidates
    assert [c.value for c in found] == [3], found
