"""Compute, counts and sizes written with a prefixed unit, the way scaling-law answers put them
(trial homework 11): FLOPs with an SI prefix (`3.6 ZFLOPs`, `3,600 EFLOP`, `360 PFLOP`,
`3.6 zettaFLOPs`), a count in billions with the `B` set apart from its number (`140 B tokens`,
`70.7 B params`), and a size in bits where bytes are asked (`2,097,152 bits` for 262,144
bytes). Before, the number was read without its unit (3.6, 3,600, 140, the bits) and graded 0
at confidence 0.9. `2 GB` stays 2e9 bytes, never 2 GiB: whether a GB written for a GiB costs
points is the instructor's (trial homework 8's hand grades take half the points for it). A
value in the unit the question asks (`3.6` where the item expects 3.6 ZFLOPs written as 3.6)
keeps its reading."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult
from graders.rubric import parse_rubric

PROPERTY = settings(max_examples=80, deadline=None, database=None, derandomize=True)
FLOPS = {"k": 3, "K": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18, "Z": 21, "Y": 24}
WORDS = {"kilo": 3, "mega": 6, "giga": 9, "tera": 12, "peta": 15, "exa": 18, "zetta": 21,
         "yotta": 24}
LEADS = ["(a) C = 6ND = {v}", "C ≈ {v}", "a) 6 · 1e9 · 6e11 = {v} in total", "**{v}**"]


def _grade(expected: float, text: str, kind: str = "real") -> ItemResult:
    rubric = parse_rubric(f"""
slug: scaling
title: Scaling
questions:
  - id: Q3
    items:
      - id: q3.value
        points: 2
        grader: numeric
        config: {{expected: {expected!r}, kind: {kind}, rel_tolerance: 0.01}}
""").rubric
    question = rubric.questions[0]
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    return GRADER.grade_items(question.items, LocatedAnswer("Q3", text), context)[0]


@PROPERTY
@given(st.integers(11, 999), st.sampled_from(sorted(FLOPS) + sorted(WORDS)),
       st.sampled_from(["FLOPs", "FLOP", "FLOPS", "flops"]), st.booleans(),
       st.sampled_from(LEADS))
def test_flops_with_a_prefix_are_read_in_flops(digits: int, prefix: str, flop: str,
                                               spaced: bool, lead: str) -> None:
    written = f"{digits / 10:g}"
    exponent = FLOPS.get(prefix, WORDS.get(prefix, 0))
    text = lead.format(v=f"{written}{' ' if spaced else ''}{prefix}{flop}")
    expected = float(written) * 10.0**exponent
    result = _grade(expected, text)
    assert result.points == Decimal(2), (text, expected, result.feedback)


@PROPERTY
@given(st.integers(11, 999), st.sampled_from(["tokens", "params", "parameters", "words"]),
       st.sampled_from(["{v} B {n}", "D = 20 × 7B = {v} B {n}", "≈ {v} B {n} (Chinchilla)"]))
def test_a_count_in_billions_with_the_b_apart(digits: int, noun: str, form: str) -> None:
    written = f"{digits / 10:g}"
    text = form.format(v=written, n=noun)
    result = _grade(float(written) * 1e9, text)
    assert result.points == Decimal(2), (text, result.feedback)


@PROPERTY
@given(st.sampled_from([("K", 2**10), ("M", 2**20), ("G", 2**30), ("T", 2**40)]),
       st.integers(1, 512), st.sampled_from(["{v} {u}B", "= {v} {u}B per token", "{v}{u}B"]))
def test_a_decimal_size_unit_stays_decimal(unit: tuple[str, int], count: int,
                                           form: str) -> None:
    letter, factor = unit
    text = form.format(v=count, u=letter)
    decimal = _grade(float(count * 1000 ** (" KMGT".index(letter))), text, kind="integer")
    assert decimal.points == Decimal(2), (text, decimal.feedback)
    binary = _grade(float(count * factor), text, kind="integer")
    assert binary.points == Decimal(0), (text, binary.feedback)


@PROPERTY
@given(st.integers(11, 999), st.sampled_from(["ZFLOPs", "EFLOP", "B tokens", "GB"]))
def test_a_value_asked_in_the_unit_keeps_its_number(digits: int, unit: str) -> None:
    written = f"{digits / 10:g}"
    result = _grade(float(written), f"(a) {written} {unit}")
    assert result.points == Decimal(2), (written, unit, result.feedback)


@PROPERTY
@given(st.integers(1, 2**24), st.sampled_from(["{v} bits", "= {v} bits per token", "{v} bit"]),
       st.booleans())
def test_a_size_in_bits_where_bytes_are_asked(count: int, form: str, grouped: bool) -> None:
    written = f"{count * 8:,}" if grouped else str(count * 8)
    text = form.format(v=written)
    in_bytes = _grade(float(count), text, kind="integer")
    assert in_bytes.points == Decimal(2), (text, in_bytes.feedback)
    in_bits = _grade(float(count * 8), text, kind="integer")
    assert in_bits.points == Decimal(2), (text, in_bits.feedback)
