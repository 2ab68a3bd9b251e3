"""A value written with a unit of size after it: `2 GiB`, `2147.48 MB`, `16 KiB`, `38.6 M`
(a scale letter set apart from its number, as in `$38.6$ M parameters`), or with a unit of time:
`0.014 s`, `3584 ms`, `2 min`.

Whether the item wants the value in the unit or in plain numbers (bytes, parameters) is the
item's: the answer `2 GiB` is 2 to a question asked in GiB and 2,147,483,648 to one asked in
bytes. The reading nearer the expected value's order of magnitude is the one the item means, so
neither kind of question loses: a written `2 GiB` is never turned into something other than the
two readings it has.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from graders.numeric.arith import Number

_BYTES = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_WORDS = {"kilo": 10**3, "mega": 10**6, "giga": 10**9, "tera": 10**12,
          "kibi": 2**10, "mebi": 2**20, "gibi": 2**30, "tebi": 2**40}
# seconds per unit of time
_SECONDS = {"s": Fraction(1), "ms": Fraction(1, 10**3), "us": Fraction(1, 10**6),
            "ns": Fraction(1, 10**9), "min": Fraction(60), "hour": Fraction(3600)}
_SI = {"k": 3, "K": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18, "Z": 21, "Y": 24,
       "kilo": 3, "mega": 6, "giga": 9, "tera": 12, "peta": 15, "exa": 18, "zetta": 21,
       "yotta": 24}
# at the start of the words after the value; bounded: one token. FLOPs with an SI prefix
# (`3.6 ZFLOPs`, `3,600 EFLOP`), and a `B` for billions set apart from its number before what
# it counts (`140 B tokens`; `256 B` alone is bytes)
_UNIT = re.compile(r"(?:(?P<binary>[kKMGT]i[Bb])|(?P<decimal>[kKMGT]B)"
                   r"|(?P<word>(?:kilo|mega|giga|tera|kibi|mebi|gibi|tebi)bytes?)"
                   r"|(?P<flops>[kKMGTPEZY]|kilo|mega|giga|tera|peta|exa|zetta|yotta)"
                   r"(?:FLOP[Ss]?|[Ff]lops?)"
                   r"|(?P<billions>B)(?=[ \t]+(?:tokens?|param(?:eter)?s?|words?|weights?)\b)"
                   r"|(?P<bits>bits?)"
                   r"|(?P<ms>ms|msecs?|milliseconds?)|(?P<us>[µμu]s|microseconds?)"
                   r"|(?P<ns>ns|nanoseconds?)|(?P<min>mins?|minutes?)|(?P<hour>hrs?|hours?)"
                   r"|(?P<s>s|secs?|seconds?)"
                   r"|(?P<scale>[KM]))(?![A-Za-z0-9_])", re.ASCII)


# spacing before the unit: blanks, LaTeX's thin spaces, the dollar closing the formula, and
# LaTeX's upright text around the unit (`14\\,\\text{ms}`)
_SPACING = re.compile(r"^(?:\\[,;: ]|[\s~$]){1,8}")
_UPRIGHT = re.compile(r"^\\(?:text|mathrm|mbox|textrm)\s*\{")
# a unit that names the value after it: `total GB: 20.8`, `memory (GiB) = 19.4`, as printed
# output and tables put it
_UNIT_BEFORE = re.compile(r"(?<![A-Za-z])\(?([kKMGT]i?B)\)?[ \t]*[:=][ \t]*$")


def unit_factors(trailing: str) -> tuple[Number, ...]:
    """The factors the size unit that opens `trailing` may mean, or none; bits are an eighth
    of a byte. `2 GB` is 2e9 bytes, never 2 GiB: whether a GB for a GiB costs points is the
    instructor's call (trial homework 8's hand grades take half the points for it)."""
    m = _UNIT.match(_UPRIGHT.sub("", _SPACING.sub("", trailing[:32], count=1), count=1))
    if m is None:
        return ()
    for unit, seconds in _SECONDS.items():
        if m.group(unit):
            # a duration is the same in every unit of time: as written first, then the others
            return (Fraction(1), *(seconds / other for other in _SECONDS.values()
                                   if other != seconds))
    if m.group("binary"):
        return (_BINARY[m.group("binary")[0].lower()],)
    if m.group("decimal"):
        return (_BYTES[m.group("decimal")[0].lower()],)
    if m.group("word"):
        return (_WORDS[m.group("word")[:4].lower()],)
    if m.group("flops"):
        return (10 ** _SI[m.group("flops")],)
    if m.group("billions"):
        return (10**9,)
    if m.group("bits"):
        return (Fraction(1, 8),)
    return (10**3,) if m.group("scale") == "K" else (10**6,)


# the unit that opens the words after a value, with its spacing and LaTeX's upright text
_LEADING_UNIT = re.compile(r"(?:\\[,;: ]|[\s~$]){0,8}(?:\\(?:text|mathrm|mbox|textrm)\s*\{)?"
                           + _UNIT.pattern + r"\}?", re.ASCII)


def unit_length(text: str) -> int:
    """How many characters of `text` the unit of size or time that opens it takes (with the
    spacing before it), or 0: `256 x 28 ms = 7.17 s` is one chain, the `ms` its first step's."""
    m = _LEADING_UNIT.match(text[:48])
    return m.end() if m else 0


def unit_factor(trailing: str) -> Number | None:
    """The factor of the size unit that opens `trailing`, or None."""
    factors = unit_factors(trailing)
    return factors[0] if factors else None


def unit_before(label: str) -> str:
    """The size unit that ends the words before a value (`scores GiB:`), as text that
    `unit_factor` reads, or the empty string."""
    m = _UNIT_BEFORE.search(label[-40:])
    return m.group(1) if m else ""


def _distance(value: Number, target: float) -> float:
    if value == 0 or target == 0:
        return math.inf
    return abs(math.log10(abs(float(value))) - math.log10(abs(target)))


def in_unit(value: Number, trailing: str, expected: object) -> Number:
    """`value` as the item means it, when a size unit follows it: scaled by the unit when that
    brings it nearer the expected value than the number as written."""
    factors = unit_factors(trailing)
    if not factors or not isinstance(expected, int | float) or isinstance(expected, bool):
        return value
    best = value
    for factor in factors:
        scaled: Number = value * factor
        if _distance(scaled, float(expected)) < _distance(best, float(expected)):
            best = scaled
    return best
