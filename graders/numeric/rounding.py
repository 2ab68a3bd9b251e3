"""A value rounded more coarsely than the item asks: `1.77 million` for 1,769,472, `0.67` for
0.665. Judged from the value: its last significant digit sets the place it was rounded to, and
the expected value must round to it there. A decimal as written keeps its trailing zeros (`0.50`
was rounded to hundredths: two significant digits, not the one of 1/2)."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from graders.numeric.arith import Number
from graders.numeric.config import RoundingPolicy

MAX_DECIMALS = 15


def _place(value: Fraction) -> tuple[int, int] | None:
    """(exponent of the last significant digit, number of significant digits), or None when the
    value is not a terminating decimal (1/3) or is zero."""
    if value == 0:
        return None
    decimals = 0
    scaled = abs(value)
    while scaled.denominator != 1:
        scaled *= 10
        decimals += 1
        if decimals > MAX_DECIMALS:
            return None
    digits = scaled.numerator
    zeros = 0
    while digits % 10 == 0:
        digits //= 10
        zeros += 1
    return zeros - decimals, len(str(digits))


_DECIMAL = re.compile(r"[-+−]?(\d{1,15})\.(\d{1,15})")


def _written_place(value: Fraction, written: str) -> tuple[int, int] | None:
    """The place and digits of a plain decimal as written (`0.50`: hundredths, 2 digits), when
    `written` spells `value` with zeros after its last significant digit."""
    m = _DECIMAL.fullmatch(written.strip())
    if m is None or Fraction(m.group(1) + "." + m.group(2)) != abs(value):
        return None
    digits = (m.group(1) + m.group(2)).lstrip("0")
    return -len(m.group(2)), len(digits)


@lru_cache(maxsize=256)
def _exact(target: float) -> Fraction:
    """The key as its author wrote it (0.665, not the binary float nearest to it)."""
    return Fraction(repr(target))


def coarser_rounding(value: Number, target: float, policy: RoundingPolicy | None,
                     written: str = "") -> bool:
    """True when `value` is `target` rounded to fewer digits, keeping at least the policy's
    significant digits. A computed float (e^2 evaluated) is not a rounding anyone wrote."""
    if policy is None:
        return False
    digits = rounded_digits(value, target, written)
    return digits is not None and digits >= policy.min_significant


def rounded_digits(value: Number, target: float, written: str = "") -> int | None:
    """The significant digits `value` keeps when it is `target` rounded (2 for `2.1 million`
    against 2,097,152), else None. `written` is the value as the student wrote it."""
    if not isinstance(value, Fraction):
        return None
    place = (_written_place(value, written) if written else None) or _place(value)
    if place is None:
        return None
    exponent, significant = place
    half_unit = Fraction(1, 2) * Fraction(10) ** exponent
    expected = _exact(float(target))
    if value != expected and abs(value - expected) <= half_unit:
        return significant
    return None
