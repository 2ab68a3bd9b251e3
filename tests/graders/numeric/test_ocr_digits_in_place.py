"""OCR's letters inside a number, and a decimal comma, where a unit follows (the sixth trial
homework, memory of mixed-precision training read from scanned pages): `2O.8 GB`,
`1 O73 741 824 bytes`, `0.l299`, `2,6 GB`, `-8,03e-4`. Before, the number was read in the
converted text but could not be found again where it was written, so its unit was lost (20.8
graded against 20,800,000,000 bytes, confidence 0.9), a spaced count with an O read as 1, a
fraction with an l was no value, and `2,6 GB` was 6 GB."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.numeric.extract import extract
from graders.results import ItemResult
from graders.rubric import parse_rubric

PROPERTY = settings(max_examples=80, deadline=None, database=None, derandomize=True)
UNITS = {"GB": 10**9, "MB": 10**6, "GiB": 2**30, "MiB": 2**20, "TB": 10**12}
LEADS = ["(b) 16 bytes each -> {v} {u}", "total: {v} {u}", "b) = {v} {u} in all",
         "so the state takes {v} {u}"]


def _grade(expected: int | float, text: str) -> ItemResult:
    rubric = parse_rubric(f"""
slug: memory
title: Memory
questions:
  - id: Q3
    items:
      - id: q3.total
        points: 2
        grader: numeric
        config: {{expected: {expected}, rel_tolerance: 0.001, cues: [total, bytes]}}
""").rubric
    question = rubric.questions[0]
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    return GRADER.grade_items(question.items, LocatedAnswer("Q3", text), context)[0]


@PROPERTY
@given(st.integers(1, 99), st.integers(0, 9), st.sampled_from(sorted(UNITS)),
       st.sampled_from(LEADS))
def test_an_ocr_zero_in_a_size_keeps_its_unit(whole, tenth, unit, lead):
    written = f"{whole * 10}.{tenth}"  # a zero in the units place, read as O
    value = whole * 10 + tenth / 10
    text = lead.format(v=written[:-3] + "O" + written[-2:], u=unit)
    result = _grade(value * UNITS[unit], text)
    assert result.points == Decimal(2), (text, result.feedback)


@PROPERTY
@given(st.integers(1, 999), st.integers(1, 99), st.sampled_from(sorted(UNITS)),
       st.sampled_from(LEADS))
def test_a_decimal_comma_before_a_unit_is_a_decimal_point(whole, hundredths, unit, lead):
    decimals = f"{hundredths:02d}".rstrip("0")
    text = lead.format(v=f"{whole},{decimals}", u=unit)
    value = float(f"{whole}.{decimals}")
    result = _grade(value * UNITS[unit], text)
    assert result.points == Decimal(2), (text, result.feedback)


@PROPERTY
@given(st.integers(10**6, 10**10), st.data())
def test_a_spaced_count_with_an_ocr_zero_is_the_count(count, data):
    digits = f"{count:,}".replace(",", " ")
    zeros = [i for i, ch in enumerate(digits) if ch == "0" and i > 0]
    if zeros:
        i = data.draw(st.sampled_from(zeros))
        digits = digits[:i] + "O" + digits[i + 1:]
    text = f"c) 8 x 16 x 2048 x 2048 x 2 = {digits} bytes"
    values = [c.value for c in extract(text).candidates if c.source.strip() == digits]
    assert values == [count], (text, [(c.source, c.value) for c in extract(text).candidates])


@PROPERTY
@given(st.integers(0, 9), st.lists(st.integers(0, 9), min_size=2, max_size=5), st.data())
def test_an_ocr_l_in_a_fraction_is_a_one(whole, tail, data):
    digits = "".join(map(str, [1, *tail]))
    i = data.draw(st.sampled_from([k for k, ch in enumerate(digits) if ch == "1"]))
    letter = data.draw(st.sampled_from("lI"))
    written = f"{whole}." + digits[:i] + letter + digits[i + 1:]
    text = f"v^2 = 0.00025975 / 0.001999 = {written}"
    values = [c.value for c in extract(text).candidates if c.source == written]
    assert values and float(values[0]) == float(f"{whole}.{digits}"), text


@PROPERTY
@given(st.integers(1, 99), st.integers(1, 99))
def test_a_pair_without_a_unit_is_still_two_values(a, b):
    text = f"the experts are ({a},{b})"
    vectors = [c.value for c in extract(text).candidates if isinstance(c.value, tuple)]
    assert (a, b) in vectors, text


@PROPERTY
@given(st.integers(10, 99), st.integers(0, 999), st.integers(0, 999),
       st.sampled_from(["l", "I"]), st.sampled_from(["(b) N = {v}", "total = {v} bytes",
                                                    "so {v} in total", "= {v}"]))
def test_a_leading_one_read_as_l_in_a_grouped_count(head, mid, last, letter, lead):
    # trial homework 7's OCR page: `N = 32 OOO x 4 O96 = l31,O72,OOO` (before: no value there,
    # the 4 of `4 O96` graded, 0 at 0.85)
    value = int(f"1{head}{mid:03d}{last:03d}")
    written = f"{letter}{head},{mid:03d},{last:03d}".replace("0", "O")
    result = _grade(value, lead.format(v=written))
    assert result.points == Decimal(2), (lead.format(v=written), result.feedback)
