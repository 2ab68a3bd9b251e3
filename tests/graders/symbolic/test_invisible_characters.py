"""Invisible format characters (Unicode category Cf: zero-width space, joiners, word joiner, soft
hyphen, byte order mark, direction marks, embeddings and isolates, tags) anywhere in a formula, as
copying from a web page leaves them: `s = x/\\sqrt{6<U+200B>4}` shows as `x/\\sqrt{64}`. The
parser once failed on them (`needs_review`, "cannot read the expression"); the formula is now read
as shown. A direction override (U+202E), which shows the formula in another order, is still not
read: a reader decides."""

from __future__ import annotations

import sys
import unicodedata
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import Question, Rubric, RubricItem
from graders.symbolic import GRADER

ITEM = RubricItem(id="q", points=Decimal(1), grader="symbolic",
                  config={"mode": "equivalent", "target": "s", "expected": "x/sqrt(64)"})
QUESTION = Question(id="Q", items=(ITEM,))
RUBRIC = Rubric(slug="t", title="t", questions=(QUESTION,))

_DRAWN = {0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891,
          0x08E2, 0x110BD, 0x110CD}
SHOWN_IN_ORDER = [chr(c) for c in range(sys.maxunicode + 1)
                  if unicodedata.category(chr(c)) == "Cf" and c not in _DRAWN | {0x202D, 0x202E}]
RIGHT = ["x/sqrt(64)", "x/8", r"\frac{x}{\sqrt{64}}", r"\frac{x}{8}", "0.125 x", "x / 64^{1/2}"]
WRONG = ["x/sqrt(46)", "x/64", r"\frac{x}{6}", "8 x"]


def _grade(text: str, resources: GradingResources) -> ItemResult:
    answer = LocatedAnswer("Q", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"Q": answer})
    return GRADER.grade(ITEM, answer, GradingContext(RUBRIC, QUESTION, submission, resources))


@st.composite
def _sprinkled(draw: st.DrawFn, formulas: list[str]) -> str:
    chars = list(draw(st.sampled_from(formulas)))
    for _ in range(draw(st.integers(1, 3))):
        chars.insert(draw(st.integers(0, len(chars))), draw(st.sampled_from(SHOWN_IN_ORDER)))
    return "s = " + "".join(chars)


# a few dozen examples cover the characters
@settings(max_examples=15, deadline=None)
@given(_sprinkled(RIGHT))
def test_a_formula_with_invisible_characters_is_read_as_shown(
        resources: GradingResources, text: str) -> None:
    result = _grade(text, resources)
    assert (result.status, result.points) == (Status.GRADED, Decimal(1)), (text, result.feedback)


@settings(max_examples=8, deadline=None)
@given(_sprinkled(WRONG))
def test_a_wrong_formula_with_them_earns_nothing(resources: GradingResources, text: str) -> None:
    assert _grade(text, resources).points == 0, text


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(RIGHT + WRONG), st.booleans())
def test_a_direction_override_is_not_graded(resources: GradingResources, formula: str,
                                           closed: bool) -> None:
    text = "s = \u202e" + formula[::-1] + ("\u202c" if closed else "")
    assert _grade(text, resources).status is not Status.GRADED, text
