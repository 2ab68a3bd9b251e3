"""Text from a child is valid, printable and bounded before anything trusted holds it."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.sandbox.text import clean_text

HOSTILE = ["\ud800", "\udfff", "\x00", "\x1b[2J", "\x1b]0;owned\x07", "\x1b]8;;http://x\x1b\\",
           "\x9b31m", "\r", "\x7f", "\u202e", "\u2066", "\u2028", "\x85", "\x08"]


def assert_clean(text: str, limit: int, multiline: bool) -> None:
    text.encode("utf-8")  # strict: raises on a lone surrogate
    assert len(text) <= limit
    for char in text:
        category = unicodedata.category(char)
        if char in "\n\t":
            assert multiline
            continue
        assert category not in ("Cc", "Cs", "Zl", "Zp"), repr(char)
        assert char not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=20)), max_size=30),
       st.integers(1, 300), st.booleans())
def test_any_text_comes_out_clean(parts: list[str], limit: int, multiline: bool) -> None:
    assert_clean(clean_text("".join(parts), limit, multiline=multiline), limit, multiline)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.integers(1, 300), st.booleans())
def test_any_bytes_come_out_clean(data: bytes, limit: int, multiline: bool) -> None:
    assert_clean(clean_text(data, limit, multiline=multiline), limit, multiline)


@pytest.mark.parametrize(("raw", "multiline", "expected"), [
    ("shape (3, 4) != (4, 3)", False, "shape (3, 4) != (4, 3)"),
    ("line one\nline\ttwo", True, "line one\nline\ttwo"),
    ("line one\nline two", False, "line one line two"),
    ("\x1b[31mred\x1b[0m text", False, "red text"),
    ("title\x1b]0;owned\x07 kept", False, "title kept"),
    ("progress 10%\rprogress 99%", True, "progress 10%\nprogress 99%"),
    ("caf\u00e9 \u2014 \U0001f600 \u00b5", False, "caf\u00e9 \u2014 \U0001f600 \u00b5"),
    ("a\ud800b", False, "a\ufffdb"),
    ("nul\x00byte", False, "nulbyte"),
    ("access \u202eexe.txt", False, "access exe.txt"),
])
def test_what_is_kept_and_what_goes(raw: str, multiline: bool, expected: str) -> None:
    assert clean_text(raw, 200, multiline=multiline) == expected


def test_long_text_is_cut_with_a_mark() -> None:
    assert clean_text("x" * 10_000, 50) == "x" * 49 + "\u2026"
    assert clean_text(b"\xff" * 10, 200) == "\ufffd" * 10


def test_a_huge_hostile_string_costs_little() -> None:
    # Capped before scanning: 50 MB of escape starts is read no further than the limit needs.
    text = clean_text("\x1b[" * 25_000_000, 500, multiline=True)
    assert text == "" or text.endswith("\u2026")
