"""A list whose values each repeat the word before them (`expert 2 and expert 4`, `experts #2,
#4`, `token 3, token 5 and token 8`), as students name the experts, tokens or classes a question
asks for (the fifth trial homework's top-2 experts). Before, only separators could stand between
the values of a bare list: these were loose numbers, and a vector item read another pair
(`0 of 2 values are right`). Two values after different words (`expert 2 and token 4`) are
still no list."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.extract import extract

PROPERTY = settings(max_examples=100, deadline=None, database=None, derandomize=True)
WORDS = ["expert", "Expert", "token", "class", "head", "#"]


def _named(word: str, value: int) -> str:
    return f"#{value}" if word == "#" else f"{word} {value}"


@PROPERTY
@given(st.lists(st.integers(1, 64), min_size=2, max_size=4), st.sampled_from(WORDS),
       st.sampled_from([", ", " and ", ", and "]),
       st.sampled_from(["top 2 = ", "the router picks ", "b) ", ""]))
def test_values_that_repeat_their_word_are_one_list(values, word, sep, lead):
    parts = [_named(word, v) for v in values]
    text = lead + (sep.join(parts) if len(parts) == 2
                   else ", ".join(parts[:-1]) + sep + parts[-1])
    vectors = [c.value for c in extract(text).candidates if c.is_vector]
    assert tuple(Fraction(v) for v in values) in vectors, text


@PROPERTY
@given(st.integers(1, 64), st.integers(1, 64), st.sampled_from([" and ", ", "]))
def test_values_after_different_words_are_no_list(a, b, sep):
    text = f"expert {a}{sep}token {b}"
    assert not [c for c in extract(text).candidates if c.is_vector], text
