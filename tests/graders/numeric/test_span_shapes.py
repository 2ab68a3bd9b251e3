"""Where a number was written is found with one pattern per shape of number (its digit groups
and decimals) and a check of its digits, instead of a pattern compiled for each number: a list
of thousands of distinct numbers compiled thousands of patterns (tests/attacks/
test_number_lists.py). The old per-number pattern is kept here as the oracle: on texts built of
numbers, digit-group separators, invisible characters and words, both find the same span."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric import spans
from graders.numeric.invisible import INVISIBLE_CLASS

_SKIP = INVISIBLE_CLASS + "*"


def _old_pattern(literal: str) -> re.Pattern[str]:
    whole, dot, decimals = literal.partition(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    body = (_SKIP + spans._GROUP_SEP + _SKIP).join(_SKIP.join(group) for group in groups) \
        + (_SKIP + r"\." + _SKIP + _SKIP.join(decimals) if dot else "")
    return re.compile(r"(?<![\d.])" + body + r"(?![\d])")


UNITS = ["1", "2", "64", "589", "824", "0", ".", ",", " ", "\u200b", "\\,", "{,}", "'", "~",
         " = ", "x", "\n", "٦", "12", "3.5", "589,824", "589 824", "6\u200b4", ".5"]
texts = st.lists(st.sampled_from(UNITS), max_size=40).map("".join)
literals = st.sampled_from(["64", "589824", "5", "12", "3.5", ".5", "0.665", "1769472", "824",
                            "589", "6", "٦"])


@settings(max_examples=300, deadline=None)
@given(texts, literals, st.integers(0, 10))
def test_a_literal_is_found_where_the_old_pattern_found_it(text: str, literal: str,
                                                           start: int) -> None:
    old = _old_pattern(literal).search(text, start, len(text))
    new = spans._find_literal(text, literal, start, len(text))
    assert (old and old.span()) == (new and new.span()), (text, literal)
