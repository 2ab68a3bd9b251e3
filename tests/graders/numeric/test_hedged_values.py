"""Answers that name the right value without giving it: a value the answer negates (`65, not 64`,
`≠ 64`, `!= 64`, `=/= 64`, `isn't 64`), offers as one of several (`64 or 65`, `64 (or maybe
６５)`, `64, perhaps 65`) or takes back for another (`64 <- no wait, 32`, `64, scratch that,
32`, `64. Actually, it is 32.`, `64 -> 32`). The grader once credited each in full with no
review; a careful TA gives none of them full credit outright. Answers that negate or hedge
another value (`64 (not 512: that is d_model)`, `not 65 but 64`) or restate the value (`64,
i.e. 512/8`, `≈ 64`) keep their full credit; so do values written in another script's digits
(`٦٤`, `𝟔𝟒`, `६४`), which the reader once did not see at all (`missing`)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, Question, RubricItem, load_rubric

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
LABELS = ("d_head", "d_k", "params", "total", "the count", "n_heads")

NEGATED = ("{label} = {w}, not {v}", "{label} = {w} (not {v})", "{label} = ≠ {v}",
           "{label} != {v}", "{label} = =/= {v}", "{label} isn't {v}", "{label} is not {v}",
           "$ {label} \\neq {v} $", "{label} is not equal to {v}")
OFFERED = ("{label} = {v} or {w}", "{label} = {w} or {v}", "{label} = {v} (or maybe {wide})",
           "{label} = {v}, perhaps {w}", "{label}: either {v} or {w}",
           "{label} = {v} (or possibly {w})")
TAKEN_BACK = ("{label} = {v} <- no wait, {w}", "{label} = {v}, scratch that, {w}",
              "{label} = {v}. Actually, it is {w}.", "{label} = {v} -> {w}",
              "{label} = {v}, I mean {w}", "{label} = {v} (correction: {w})")
HONEST = ("{label} = {v} (not {w}: that is another size)", "{label} = not {w} but {v}",
          "{label} ≈ {v}", "{label} = {v}, i.e. {twice}/2", "{label} is {v}, not {w}",
          "{label} = {v} (I first got {w}, which was wrong)",
          "{label} = {v}; there are actually {w} rows", "{label} = {v} -> so {w} in all")
DIGITS = (0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50, 0x1D7CE, 0x1D7D8, 0xFF10)


def grade(text: str, expected: int, label: str) -> ItemResult:
    item = RubricItem(id="n", points=Decimal(4), grader="numeric",
                      config={"expected": expected, "kind": "integer", "cues": [label]})
    answer = LocatedAnswer("N", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"N": answer})
    context = GradingContext(RUBRIC, Question(id="N", items=(item,)), submission,
                             GradingResources())
    return GRADER.grade(item, answer, context)


def _full(result: ItemResult) -> bool:
    return result.status is Status.GRADED and result.points == result.max_points


def _wide(number: int) -> str:
    return "".join(chr(0xFF10 + int(d)) for d in str(number))


values = st.integers(2, 200_000)
offsets = st.integers(1, 40).flatmap(lambda d: st.sampled_from((d, -d)))


def _rival(v: int, offset: int) -> int:
    return v + offset if v + offset > 0 else v + abs(offset)


@settings(max_examples=150, deadline=None)
@given(values, offsets, st.sampled_from(LABELS), st.sampled_from(NEGATED + OFFERED + TAKEN_BACK))
def test_a_negated_offered_or_taken_back_value_is_not_full_credit(
        v: int, offset: int, label: str, frame: str) -> None:
    w = _rival(v, offset)
    text = frame.format(label=label, v=v, w=w, wide=_wide(w))
    result = grade(text, v, label)
    assert not _full(result), (text, result)
    if result.status is Status.NEEDS_REVIEW:
        # the reason is named for the reader, in neutral words for the student
        assert "negates" in result.feedback or "Conflicting" in result.feedback, result.feedback
        assert "which one you meant" in result.student_feedback or "which value you meant" \
            in result.student_feedback, result.student_feedback
        assert not result.student_feedback.startswith("Correct"), result.student_feedback


@settings(max_examples=120, deadline=None)
@given(values, offsets, st.sampled_from(LABELS), st.sampled_from(HONEST))
def test_a_value_affirmed_beside_another_negated_one_keeps_its_credit(
        v: int, offset: int, label: str, frame: str) -> None:
    w = _rival(v, offset)
    text = frame.format(label=label, v=v, w=w, twice=2 * v)
    result = grade(text, v, label)
    assert _full(result), (text, result)


@settings(max_examples=120, deadline=None)
@given(values, st.sampled_from(LABELS), st.sampled_from(DIGITS),
       st.sampled_from(("{label} = {v}", "{label}: {v}", "The {label} is {v}.")))
def test_a_value_in_another_scripts_digits_is_read(v: int, label: str, zero: int,
                                                   frame: str) -> None:
    digits = "".join(chr(zero + int(d)) for d in str(v))
    text = frame.format(label=label, v=digits)
    result = grade(text, v, label)
    assert _full(result), (text, result)
    wrong = grade(text, v + 1, label)
    assert wrong.status is not Status.MISSING and wrong.points == 0, (text, wrong)
