"""A decimal that OCR read with letters only, no digit left (the twelfth trial homework's `max err
= O.Ol` for 0.01; `l.O`, `O.OOl`): every rule for OCR's O and l asked for a true digit in the
number, so the answer was called missing at 0.85. A run of O, l and I with one decimal point
between them, standing alone, is no word: it is read as the number."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.graders.numeric.graded import grade_question

PROPERTY = settings(max_examples=30, deadline=None, database=None, derandomize=True)
SENTENCES = ["c) max err = {v}", "the largest error is {v}.", "(c) {v}", "error: {v} (for 0.5)"]


def _rubric(expected: str) -> str:
    return f"""
slug: ocr
title: OCR
questions:
  - id: Q3
    items:
      - id: q3.error
        points: 2
        grader: numeric
        config: {{expected: {expected}, abs_tolerance: 0.0005, cues: ["(c)", "c)", error, err]}}
"""


@PROPERTY
@given(st.sampled_from(["0", "1"]), st.text("01", min_size=1, max_size=4).filter(
    lambda f: "1" in f), st.sampled_from(SENTENCES), st.sampled_from(["l", "I"]))
def test_a_decimal_of_letters_only_is_read_as_the_number(whole, fraction, sentence, one):
    written = f"{whole}.{fraction}".replace("0", "O").replace("1", one)
    text = sentence.format(v=written)
    result = grade_question(_rubric(f"{whole}.{fraction}"), text)["q3.error"]
    assert result.points == Decimal(2), (text, result.feedback)


def test_words_and_names_are_left_alone():
    # `I.O` reads as 1.0 only where it stands alone; `O.K.`, `Ol.` and a name `l.Ol_x` are not
    for text in ["O.K. so the error is small", "see Fig. l.Ol_x", "Ol. max err"]:
        assert grade_question(_rubric("0.01"), text)["q3.error"].points == 0, text
