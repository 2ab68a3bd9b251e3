"""Numbers a clause states, and whether it states other numbers than a phrasing does.

The sentence encoder reads "the sigmoid's derivative can be as large as 4" as close to "the
sigmoid's derivative is at most 0.25" (cosine 0.87): it hardly sees digits. A phrasing that
names a quantity is therefore not established by a clause that names only other quantities;
the same value in another form (0.25, .25, 1/4, 25%) is the same quantity. Numbers written as
words ("a quarter") are not read, and a clause without digits is left to the encoder.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

# Tokens are split at spaces, brackets and comparison signs ("x>0", "(p=0.5)", "<=0.25"); a
# token is a number when the whole of it is a decimal or a fraction of two, optionally a
# percentage ("W2", "x1", "0.25x" are names or products, not numbers). No repetition is
# nested, so both are linear on any input.
_SPLIT = re.compile(r"[\s()\[\]{},;:=<>≤≥~≈*+]+")
_NUMBER = re.compile(r"(-?\d+(?:\.\d+)?|\.\d+)(?:/(\d+(?:\.\d+)?))?(%)?")
_MAX_CHARS = 4000


def numbers_in(text: str) -> frozenset[Fraction]:
    """The values of the numbers written with digits in `text`."""
    found: set[Fraction] = set()
    for token in _SPLIT.split(text[:_MAX_CHARS]):
        match = _NUMBER.fullmatch(token.rstrip(".!?'\"").lstrip("'\""))
        if match is None:
            continue
        value = Fraction(match.group(1))
        if match.group(2) is not None:
            if Fraction(match.group(2)) == 0:
                continue
            value /= Fraction(match.group(2))
        if match.group(3):
            value /= 100
        found.add(value)
    return frozenset(found)


@lru_cache(maxsize=50_000)
def other_quantity(clause: str, phrasing: str) -> bool:
    """Whether the phrasing names a number and the clause names numbers, none of them one the
    phrasing names: the clause then does not establish the phrasing, however close in
    meaning."""
    wanted = numbers_in(phrasing)
    if not wanted:
        return False
    stated = numbers_in(clause)
    return bool(stated) and not (stated & wanted)
