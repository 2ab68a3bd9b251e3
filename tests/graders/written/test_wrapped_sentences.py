"""A sentence wrapped at a page's or an editor's width, as a PDF's text layer, a transcript of
a handwritten page or a block of comments gives it (trial homework 11: "... and any text is
just a" / "sequence of bytes, so it can always be encoded."), is one sentence: each line used
to be read as a sentence of its own, so a pattern or phrasing whose words straddle the break
(`any text ... bytes`) never matched. Short lines (notes, one idea a line) and lines that end a
sentence or open a new one with a capital stay apart."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.written.text import split_sentences

WORDS = ["the", "model", "sees", "tokens", "not", "characters", "and", "any", "text", "is",
         "just", "a", "sequence", "of", "bytes", "so", "every", "string", "can", "be", "encoded",
         "with", "single", "byte", "fallback", "which", "never", "meets", "unknown", "symbols"]


@settings(max_examples=100, deadline=None, database=None, derandomize=True)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=14, max_size=40), min_size=1,
                max_size=3), st.integers(62, 90))
def test_a_wrapped_sentence_is_one_sentence(sentences: list[list[str]], width: int) -> None:
    prose = " ".join(" ".join(words).capitalize() + "." for words in sentences)
    wrapped = textwrap.fill(prose, width=width)
    found = [" ".join(s.text.split()) for s in split_sentences(wrapped)]
    assert found == [" ".join(s.text.split()) for s in split_sentences(prose)], (wrapped, found)


@settings(max_examples=50, deadline=None, database=None, derandomize=True)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), min_size=2,
                max_size=6))
def test_short_note_lines_stay_apart(notes: list[list[str]]) -> None:
    text = "\n".join(" ".join(words) for words in notes)
    assert len(split_sentences(text)) == len(notes), text
