"""A handwritten 1 read as l (or I) by OCR anywhere in a number, with its 0s read as O
(trial 8's transcripts: `5l2 MiB`, `l.5 GiB`, `l,6lO,6l2,736 bytes`, `2.l5 x lO^9`,
`l6OOO`, `l/l6`, `l6 times cheaper`). Before, only a leading l of a comma-grouped count and
an l after a decimal point were read: the rest were read as the digits around the letter
(`6`, `5`, `.5`), confident wrong at 0.9, or not found. The norms `l1`, `l2` and words stay
as written."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.numeric.latex import read_ocr_digits
from graders.results import ItemResult
from tests.graders.numeric.graded import grade_question

PROPERTY = settings(max_examples=150, deadline=None, database=None, derandomize=True)


def _grade(expected: int, text: str) -> ItemResult:
    return grade_question(f"""
slug: ocr
title: OCR
questions:
  - id: Q3
    items:
      - id: q3.count
        points: 1
        grader: numeric
        config: {{expected: {expected}, kind: integer, cues: [cache, bytes, total]}}
""", text)["q3.count"]


def _ocr(written: str, ones: list[bool], zeros: list[bool]) -> str:
    out = []
    for i, ch in enumerate(written):
        if ch == "1" and ones[i % len(ones)]:
            out.append("l")
        elif ch == "0" and zeros[i % len(zeros)]:
            out.append("O")
        else:
            out.append(ch)
    return "".join(out)


SENTENCES = ["(a) the cache takes {v} bytes", "total = {v}", "(b) {v} bytes saved",
             "2 x 32 x 8 = {v} bytes in total"]


@PROPERTY
@given(st.integers(10, 10**10), st.booleans(), st.lists(st.booleans(), min_size=1, max_size=5),
       st.lists(st.booleans(), min_size=1, max_size=5), st.sampled_from(SENTENCES))
def test_ocr_ones_and_zeros_in_a_count_are_read_as_digits(value, grouped, ones, zeros,
                                                           sentence):
    written = f"{value:,}" if grouped else str(value)
    assume("1" in written)
    ocr = _ocr(written, ones, zeros)
    assume(ocr != written and any(c.isdigit() for c in ocr) and ocr[0] != "O")
    assume(ocr not in ("l1", "l2"))
    text = sentence.format(v=ocr)
    result = _grade(value, text)
    assert result.points == Decimal(1), (text, result.feedback)


@PROPERTY
@given(st.integers(1, 9), st.integers(1, 9), st.sampled_from(["GiB", "MiB", "GB"]))
def test_an_l_before_a_decimal_point_with_a_unit(whole, tenth, unit):
    text = f"l{whole}.{tenth} {unit}" if whole != 1 else f"l.{tenth} {unit}"
    assert read_ocr_digits(text).startswith(f"1{whole}.{tenth}" if whole != 1 else f"1.{tenth}")


def test_norms_and_words_stay_as_written():
    for text in ("the l2 norm", "an l1 penalty", "I think 2 is right", "O2 and H2O",
                 "level 3 lol", "v1.2 model", "all 12 heads"):
        assert read_ocr_digits(text) == text


@PROPERTY
@given(st.integers(10, 199), st.sampled_from(["{v} times cheaper", "{v} times fewer FLOPs",
                                              "a factor of {v}", "{v}-fold"]))
def test_an_ocr_factor_is_read_as_its_digits(value, phrase):
    from graders.numeric.factors import factor_readings
    written = str(value)
    assume("1" in written)
    ocr = written.replace("1", "l").replace("0", "O")
    # a token of letters only is read when it is l then O's (`lO`, `lOO`); `ll` is left alone
    assume(ocr[0] != "O" and (any(c.isdigit() for c in ocr) or set(ocr[1:]) == {"O"}))
    assume(ocr not in ("l1", "l2"))  # the norms
    values = [r.value for r in factor_readings("(c) linear attention: " + phrase.format(v=ocr))]
    assert values and values[-1] in (value, Fraction(1, value)), (ocr, values)
