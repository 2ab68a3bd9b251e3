"""Numbers written in words: `Sixty-four`, `one hundred and twelve`, `two million`.

Only well-formed numerals count (`one two` is two words, not 3), and a lone small word (`one
head`, `two matrices`) is prose, not an answer, unless it is all a side of a relation says or a
size's unit follows it (`exactly one gibibyte`, `two GB`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
          "seven": 7, "eight": 8, "nine": 9}
_TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
          "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_ALL = [*_UNITS, *_TEENS, *_TENS, "hundred", *_SCALES]
WORD = r"(?:" + "|".join(sorted(_ALL, key=len, reverse=True)) + r")"
# a run of number words joined by spaces, hyphens or "and"; every repetition consumes a whole
# word at a word boundary, so matching stays linear
RUN = re.compile(r"\b" + WORD + r"(?:(?:[ \t]*-[ \t]*|[ \t]+(?:and[ \t]+)?)" + WORD + r")*\b",
                 re.IGNORECASE)
MAX_WORDS = 10
# a size's unit after a numeral: `one gibibyte`, `two GB` state a value, as `2 GiB` does
_SIZE_AFTER = re.compile(r"[ \t]+(?:[kKMGT]i?B\b|(?:kilo|mega|giga|tera|kibi|mebi|gibi|tebi)?"
                         r"bytes?\b)", re.IGNORECASE)


@dataclass(frozen=True)
class SpokenNumber:
    start: int
    end: int
    value: int
    words: int


def words_value(text: str) -> int | None:
    """`sixty-four` -> 64, `one hundred and twelve` -> 112; None unless a well-formed numeral."""
    words = [w for w in re.findall(r"[a-z]+", text.lower()) if w != "and"]
    if not words or len(words) > MAX_WORDS:
        return None
    total = 0
    group = 0  # below one thousand
    last = ""  # the kind of the previous word: unit, teen, tens, hundred, scale
    for word in words:
        if word in _UNITS:
            if last in ("unit", "teen"):
                return None
            group += _UNITS[word]
            last = "unit"
        elif word in _TEENS:
            if last in ("unit", "teen", "tens"):
                return None
            group += _TEENS[word]
            last = "teen"
        elif word in _TENS:
            if last in ("unit", "teen", "tens"):
                return None
            group += _TENS[word]
            last = "tens"
        elif word == "hundred":
            if last != "unit" or group >= 10:
                return None
            group *= 100
            last = "hundred"
        elif word in _SCALES:
            if last in ("", "scale"):
                return None
            total += group * _SCALES[word]
            group = 0
            last = "scale"
        else:
            return None
    return total + group


def spoken_numbers(side: str) -> list[SpokenNumber]:
    """Every numeral in words in `side` (bounded by the caller), with its span in `side`."""
    found: list[SpokenNumber] = []
    whole = side.strip(" \t.,;:!?")
    for m in RUN.finditer(side):
        value = words_value(m.group(0))
        if value is None:
            continue
        count = len(re.findall(r"[A-Za-z]+", m.group(0)))
        small = count == 1 and value <= 10 and not _SIZE_AFTER.match(side, m.end())
        if small and m.group(0) != whole:
            continue
        found.append(SpokenNumber(m.start(), m.end(), value, count))
    return found
