"""Two ways students write numbers that the extractor did not read (trial homework 4, a
learning-rate schedule and OCR transcripts):

- a power of ten with a signed exponent and no braces, `2.5 x 10^-4`, `10^ -3`, or one in
  brackets, `10^(-4)`: no value at all was found, so the item was called missing or the grader
  picked another number of the answer (`250`, `1` of `(1 + cos(π/3))`);
- the letter O that OCR reads for a handwritten 0 anywhere in a number (`2O`, `1O^-4`,
  `0.O25`, `3.OO`, `-O.375`), which was read only inside comma groups (`1,O50,624`): `2O` was
  read as 2 and `-O.375` as +0.375 (a known wrong sign, confidently)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.extract import extract

TIMES = [" x ", "x", " × ", "*", " \\times ", " · "]
POWERS = ["10^-{k}", "10^{{-{k}}}", "10^(-{k})", "10^ -{k}"]


def _values(text: str) -> list[Fraction]:
    return [c.value for c in extract(text).candidates if not c.is_vector]


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 99), st.integers(1, 9), st.sampled_from(TIMES), st.sampled_from(POWERS),
       st.sampled_from(["", "lr = ", "(b) "]))
def test_a_power_of_ten_with_a_negative_exponent_is_read(
        tenths: int, k: int, times: str, power: str, before: str) -> None:
    mantissa = Fraction(tenths, 10)
    written = f"{before}{float(mantissa):g}{times}{power.format(k=k)}"
    assert mantissa * Fraction(1, 10 ** k) in _values(written), written


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 99_999), st.integers(0, 4), st.data())
def test_ocr_letter_o_for_a_zero_in_a_number_reads_as_zero(
        digits: int, places: int, data: st.DataObject) -> None:
    value = Fraction(digits, 10 ** places)
    shown = f"{float(value):.{places}f}" if places else str(digits)
    zeros = [i for i, ch in enumerate(shown) if ch == "0"]
    if not zeros:
        return
    chosen = data.draw(st.sets(st.sampled_from(zeros), min_size=1))
    ocr = "".join("O" if i in chosen else ch for i, ch in enumerate(shown))
    if ocr.startswith("O") and not ocr.startswith("O."):
        return  # `O7` is a name (O2, O(n)); a leading O is read before a decimal point only
    if not any(ch.isdigit() for ch in ocr):
        return  # `O.O` or `O.OO` holds no digit: a face or a name, not a number misread
    assert _values(f"answer: {ocr}") == [value], ocr
    assert -value in _values(f"bias = -{ocr}") or value == 0, ocr


def test_letters_o_that_are_no_digit_are_left_alone() -> None:
    assert _values("O(n^2) time, O2 and CO2, Oslo, O.K.") == []
    assert _values("the cost is O(n) for n = 64") == [Fraction(64)]
