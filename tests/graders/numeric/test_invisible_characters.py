"""Invisible format characters (Unicode category Cf) inside or around a number, as copying from a
web page, a chat or a PDF leaves them: `6<U+200B>4` (zero-width space), a zero-width joiner or
non-joiner, a word joiner, a soft hyphen, a byte order mark, direction marks, embeddings and
isolates, invisible operators, tags. Every page shows the number without them, so it is the
student's answer: the reader once read `6` and `4` apart (d_head graded 0 of 4, no review).
A direction override (U+202E) that reorders the digits shown (`<U+202E>46<U+202C>` shows 64) is
read as typed and sent to a reader, never graded."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.invisible import INVISIBLE
from graders.results import Status
from tests.graders.numeric.test_hedged_values import grade

# drawn, though Cf: the prepended concatenation marks (Arabic number sign, ...)
_DRAWN = {0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891,
          0x08E2, 0x110BD, 0x110CD}
_OVERRIDES = {0x202D, 0x202E}
FORMAT = sorted(c for c in range(sys.maxunicode + 1)
                if unicodedata.category(chr(c)) == "Cf" and c not in _DRAWN)
SHOWN_IN_ORDER = [chr(c) for c in FORMAT if c not in _OVERRIDES]
FRAMES = ("{label} = {v}", "{label}: {v}", "The {label} is {v}.", "{label} = \\boxed{{{v}}}",
          "$ {label} = {v} $", "- {label}: **{v}** in all")
LABELS = ("d_head", "params", "total")


def test_every_invisible_format_character_is_skipped() -> None:
    assert [hex(c) for c in FORMAT if not INVISIBLE.fullmatch(chr(c))] == []
    assert not any(INVISIBLE.fullmatch(chr(c)) for c in _DRAWN)


@st.composite
def _sprinkled(draw: st.DrawFn) -> tuple[int, str]:
    v = draw(st.integers(10, 10_000_000))
    digits = list(str(v))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(digits)))
        digits.insert(at, draw(st.sampled_from(SHOWN_IN_ORDER)))
    inside = any(INVISIBLE.fullmatch(digits[i]) for i in range(1, len(digits) - 1))
    if not inside:  # at least one between two digits
        digits.insert(1 + next(i for i, ch in enumerate(digits) if ch.isdigit()),
                      draw(st.sampled_from(SHOWN_IN_ORDER)))
    return v, "".join(digits)


@settings(max_examples=200, deadline=None)
@given(_sprinkled(), st.sampled_from(FRAMES), st.sampled_from(LABELS))
def test_a_number_with_invisible_characters_is_read_as_shown(
        sprinkled: tuple[int, str], frame: str, label: str) -> None:
    v, written = sprinkled
    text = frame.format(label=label, v=written)
    result = grade(text, v, label)
    assert result.status is Status.GRADED and result.points == result.max_points, (text, result)
    quoted = result.evidence[1]
    # quoted where it was written: every digit of the number, and nothing of the label
    assert INVISIBLE.sub("", quoted.text) == str(v), (text, quoted)
    assert text[quoted.start:quoted.end] == quoted.text
    wrong = grade(text, v + 1, label)
    assert wrong.status is Status.GRADED and wrong.points == 0, (text, wrong)


@settings(max_examples=100, deadline=None)
@given(st.integers(10, 10_000_000).filter(lambda v: str(v) != str(v)[::-1]),
       st.sampled_from(FRAMES), st.sampled_from(LABELS), st.booleans())
def test_an_override_that_reorders_the_digits_goes_to_a_reader(
        v: int, frame: str, label: str, closed: bool) -> None:
    # typed reversed inside a right-to-left override, so the page shows v
    text = frame.format(label=label, v="\u202e" + str(v)[::-1] + ("\u202c" if closed else ""))
    for expected in (v, int(str(v)[::-1])):
        result = grade(text, expected, label)
        assert result.status is Status.NEEDS_REVIEW, (text, expected, result)
        assert "direction override" in result.feedback, result.feedback


CHAINS = ("{label} = {a} * {b} = {v}", "{label} = {a}/{b} = {v}", "{label} = {v} ({a} x {b})",
          "$ {label} = {a} \\times {b} = {v} $", "{label}: {v}, i.e. {a} * {b}",
          "{label} = {a} * {b} = {v}%")


@st.composite
def _chain(draw: st.DrawFn) -> tuple[str, str, int]:
    a, b = draw(st.integers(2, 999)), draw(st.integers(2, 999))
    v = a * b + draw(st.sampled_from((0, 0, 1, -1, 9)))
    frame, label = draw(st.sampled_from(CHAINS)), draw(st.sampled_from(LABELS))
    clean = frame.format(label=label, a=a, b=b, v=v)
    chars = list(clean)
    for _ in range(draw(st.integers(1, 4))):
        digits = [i for i, ch in enumerate(chars) if ch.isdigit()]
        at = draw(st.sampled_from(digits)) + draw(st.sampled_from((0, 1)))  # before or after one
        chars.insert(at, draw(st.sampled_from(SHOWN_IN_ORDER)))
    return clean, "".join(chars), a * b


@settings(max_examples=200, deadline=None)
@given(_chain())
def test_invisible_characters_in_or_around_numbers_change_nothing(
        chain: tuple[str, str, int]) -> None:
    clean, sprinkled, expected = chain
    label = next(name for name in LABELS if name in clean)
    before, after = grade(clean, expected, label), grade(sprinkled, expected, label)
    assert (after.status, after.points) == (before.status, before.points), (sprinkled, after)
