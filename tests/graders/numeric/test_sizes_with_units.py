"""A value written with a unit of size (the fifth trial homework, a KV cache's bytes and the
parameters that tied embeddings save): `2 GiB`, `2147.48 MB`, `2048 MiB`, `$38.6$ M`. Before,
the number as written was graded against a count of bytes (2 against 2,147,483,648), at
confidence 0.7-0.9. The unit's reading is taken only when the expected value's magnitude says
the item asks for plain units: the same `2 GiB` still answers a question asked in GiB."""

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
BINARY = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
DECIMAL = {"kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
WORDS = {"kibibytes": 2**10, "mebibytes": 2**20, "gibibytes": 2**30, "megabytes": 10**6,
         "gigabytes": 10**9}


def _grade(expected: int | float, text: str, rounding: str = "") -> ItemResult:
    rubric = parse_rubric(f"""
slug: sizes
title: Sizes
questions:
  - id: Q4
    items:
      - id: q4.size
        points: 2
        grader: numeric
        config: {{expected: {expected}, cues: [cache, bytes]{rounding}}}
""").rubric
    question = rubric.questions[0]
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    return GRADER.grade_items(question.items, LocatedAnswer("Q4", text), context)[0]


SENTENCES = ["The KV cache takes {v}{gap}{u}.", "KV cache = {v}{gap}{u}",
             "{v}{gap}{u} per sequence",
             "so the cache needs $2 \\cdot 32 \\cdot 4096 \\cdot 4096 \\cdot 2$ = {v}{gap}{u}"]


@PROPERTY
@given(st.integers(1, 999), st.sampled_from(sorted({**BINARY, **DECIMAL, **WORDS})),
       st.sampled_from(["", " ", "\u2009"]), st.sampled_from(SENTENCES))
def test_a_size_with_its_unit_answers_in_either_unit(count, unit, gap, sentence):
    factor = {**BINARY, **DECIMAL, **WORDS}[unit]
    if unit in WORDS:
        gap = " "
    text = sentence.format(v=count, gap=gap, u=unit)
    in_bytes = _grade(count * factor, text)
    assert in_bytes.points == Decimal(2), (text, in_bytes.feedback)
    in_unit = _grade(count, text)
    assert in_unit.points == Decimal(2), (text, in_unit.feedback)


@PROPERTY
@given(st.integers(2, 999), st.sampled_from(sorted(BINARY)), st.sampled_from(SENTENCES))
def test_another_size_is_still_wrong(count, unit, sentence):
    text = sentence.format(v=count - 1, gap=" ", u=unit)
    assert _grade(count * BINARY[unit], text).points == 0, text
    assert _grade(count, text).points == 0, text


@PROPERTY
@given(st.integers(100, 999), st.integers(1, 9), st.sampled_from(["$ M", " M", "M"]))
def test_a_scale_letter_outside_the_formula_scales_its_number(whole, tenth, written):
    # (a trailing zero, `100.0 M`, is left out: the rounding policy counts a written form's
    # trailing zeros only when the value is the number as written, not the number scaled)
    count = whole * 10**6 + tenth * 10**5 + 12_345
    value = f"{whole}.{tenth}"
    text = f"$50257 \\times 768 = {value}{written} parameters saved."
    if not written.startswith("$"):
        text = text.replace("$", "", 1)
    result = _grade(count, text, ", rounding: {credit: 1, min_significant: 3}")
    assert result.points == Decimal(2), (text, result.feedback)


def test_a_unit_letter_that_is_a_name_is_no_unit() -> None:
    # `m` is a position, `B` a batch: neither scales the number before it
    assert _grade(3, "angle = 3 m theta_1 where the cache bytes do not matter").points == 2
    assert _grade(2, "the cache holds 2 B sequences of bytes").points == 2

