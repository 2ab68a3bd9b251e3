"""Invisible format characters (Unicode category Cf: zero-width space, joiners, word joiner, soft
hyphen, byte order mark, direction marks) inside question labels (`**Q<U+200B>3**`,
`## Question<U+2060> 2`), sub-part markers (`(<U+00AD>b)`, `3<U+200D>(b)`) and the words
graders look for (`satu<U+00AD>rates`, `quadru<U+200B>ples`, `16<U+FEFF>x fewer`), as copying
from a web page, a chat or a PDF leaves them. Every page shows the document without them. They
were skipped inside numbers only: a label with one was no label (every question `missing`), a
sub-part's marker with one was read under the part before it, a factor word with one was not
read (`missing`, or "16 is not the expected value 0.0625" graded for `16x fe<U+00AD>wer`).
The answers are still spans of the document as written."""

from __future__ import annotations

import sys
import unicodedata
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents import read_submission
from graders.documents.model import LocatedAnswer
from graders.numeric import GRADER
from graders.results import Status
from graders.rubric import parse_rubric
from tests.graders.documents.numbered import numbered_rubric
from tests.graders.numeric.scaling_phrasings import CLASSES, FIXED, factor_phrase
from tests.graders.numeric.test_factor_properties import grade as grade_factor
from tests.graders.written.conftest import grade_text

N = 4
RUBRIC = parse_rubric(numbered_rubric("invisible", N)).rubric
# every invisible format character but the drawn ones and the direction overrides (which
# reorder what is shown: the numeric grader sends those to a reader)
_DRAWN = {0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891,
          0x08E2, 0x110BD, 0x110CD, 0x202D, 0x202E}
INVISIBLE = [chr(c) for c in range(sys.maxunicode + 1)
             if unicodedata.category(chr(c)) == "Cf" and c not in _DRAWN]
COMMON = ["\u200b", "\u00ad", "\u2060", "\u200d", "\u200c", "\ufeff", "\u200e", "\u200f"]
marks = st.one_of(st.sampled_from(COMMON), st.sampled_from(INVISIBLE))
HEADINGS = ["**Q{n}**", "Q{n}.", "## Question {n}", "Problem {n}:", "### Q{n}", "Q{n})",
            "**Question {n}.**", "{n}."]
PARTS = [("(a) {a}", "(b) {b}"), ("{n}(a) {a}", "{n}(b) {b}"), ("a) {a}", "b) {b}"),
         ("**(a)** {a}", "**(b)** {b}")]


def _sprinkle(draw: st.DrawFn, text: str, at_least: int = 1) -> str:
    """`text` with invisible characters between its characters (one at least), none inside the
    `{...}` of a template."""
    spots = [i for i in range(len(text) + 1)
             if text[:i].count("{") == text[:i].count("}")]
    chosen = draw(st.lists(st.sampled_from(spots), min_size=at_least, max_size=3))
    for i in sorted(chosen, reverse=True):
        text = text[:i] + draw(marks) + text[i:]
    return text


@st.composite
def documents(draw: st.DrawFn) -> str:
    heading = draw(st.sampled_from(HEADINGS))
    first, second = draw(st.sampled_from(PARTS))
    lines = ["# Homework 2", ""]
    for n in range(1, N + 1):
        lines += [_sprinkle(draw, heading).format(n=n),
                  _sprinkle(draw, first, 0).format(n=n, a=100 + n),
                  _sprinkle(draw, second, 0).format(n=n, b=200 + n), ""]
    return "\n".join(lines)


@settings(max_examples=40, deadline=None)
@given(documents(), st.sampled_from(["md", "txt"]))
def test_a_label_with_invisible_characters_names_its_question(text: str, suffix: str) -> None:
    parsed = read_submission(text.encode(), f"hw.{suffix}", None, RUBRIC)
    for question in RUBRIC.questions:
        answer = parsed.answers.get(question.id)
        assert answer is not None and answer.method == "label", (text, parsed.missing, answer)
        # a span of the document as written, invisible characters and all
        assert answer.start is not None and answer.end is not None
        assert answer.text == parsed.text[answer.start:answer.end], (text, answer)
        context = GradingContext(RUBRIC, question, parsed, GradingResources())
        for result in GRADER.grade_items(question.items, answer, context):
            assert result.status is Status.GRADED and result.points == result.max_points, (
                text, answer.text, result)
            value = result.evidence[1]
            assert value.start is not None and value.end is not None
            assert parsed.text[value.start:value.end] == value.text, (text, value)


WRITTEN = parse_rubric("""
slug: w
title: W
questions:
  - id: Q
    items:
      - id: q.a
        points: 1
        grader: written
        config:
          subpart: a
          elements: [{id: saturate, patterns: ['saturat*']}]
      - id: q.b
        points: 1
        grader: written
        config:
          subpart: b
          elements: [{id: heads, patterns: ['several heads']}]
""").rubric
RESOURCES = GradingResources(options={})


@settings(max_examples=40, deadline=None)
@given(st.data(), st.booleans())
def test_sub_part_markers_and_cue_words_are_read_through_invisible_characters(
        data: st.DataObject, swapped: bool) -> None:
    a, b = "The softmax saturates.", "Several heads attend to different things."
    if swapped:  # each sub-part answers the other's question: no credit
        a, b = b, a
    plain = f"(a) {a}\n(b) {b}"
    text = f"{_sprinkle(data.draw, '(a)')} {_sprinkle(data.draw, a)}\n" \
           f"{_sprinkle(data.draw, '(b)')} {_sprinkle(data.draw, b)}"
    shown = {r.item_id: r.points for r in grade_text(WRITTEN, "Q", text, RESOURCES)}
    expected = {r.item_id: r.points for r in grade_text(WRITTEN, "Q", plain, RESOURCES)}
    assert shown == expected, (text, shown, expected)
    assert set(shown.values()) == {Decimal(0) if swapped else Decimal(1)}


PHRASES = [(factor_phrase(k, t, n), k.value(n)) for k in CLASSES for t in k.templates
           for n in (k.low, 16) if n <= k.high] + list(FIXED)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(PHRASES), st.data())
def test_a_factor_is_read_through_invisible_characters(phrase: tuple[str, object],
                                                       data: st.DataObject) -> None:
    text, value = phrase
    written = _sprinkle(data.draw, text.replace("{", "(").replace("}", ")"))
    result = grade_factor(written, value)  # type: ignore[arg-type]
    clean = grade_factor(text.replace("{", "(").replace("}", ")"), value)  # type: ignore[arg-type]
    assert (result.status, result.points) == (clean.status, clean.points), (written, result)


def test_the_answer_keeps_its_characters_where_they_were_written() -> None:
    text = "Homework\n\n**Q\u200b1**\n(a) 1\u200b01\n(b) 201\n\n**Q2**\n(a) 102\n(b) 202\n"
    parsed = read_submission(text.encode(), "hw.md", None, RUBRIC)
    first = parsed.answers["Q1"]
    assert first.text == text[first.start:first.end] and "1\u200b01" in first.text
    second = parsed.answers["Q2"]
    assert second.text == text[second.start:second.end] and "(a) 102" in second.text
    assert LocatedAnswer  # the located answers are spans of the text as written
