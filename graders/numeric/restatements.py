"""A precise value restated rounded: `590,592 ≈ 0.59 M`, `590,592 = 0.59M`, `590,592 ~5.9e5`,
`1,769,472 \\approx 1.77 million`. Students round a value they computed exactly to make it
readable; the two are one answer written twice, and the precise value, not its rounding, is
what answers the item. A rounding is said with a relation of (near) equality; an arrow, `is` or
a colon is a step of working (`2.5 → 3 GPUs`), a rounding done as an operation (`q = round(30.75)
= 31`) gives its result, and a value taken back for a rounded one (`590,592? no, 0.59 M`) is a
correction (graders.numeric.hedges), never a restatement."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from graders.numeric.arith import Number
from graders.numeric.candidates import Candidate
from graders.numeric.config import NumericConfig
from graders.numeric.rounding import rounded_digits
from graders.numeric.units import unit_factor

# what restates a value (nearly) equal; any step word or arrow in the gap makes it working
_RESTATING = re.compile(r"=|≈|≃|~|\\approx\b|\\simeq\b|\\sim\b")
_STEP = re.compile(r"→|⇒|⟹|->|=>|\\(?:rightarrow|Rightarrow|to|implies|longrightarrow|"
                   r"Longrightarrow)\b|[:?]|\b(?:is|gives|equals|are|no|not|or)\b", re.IGNORECASE)


# a rounding done, not said: the precise value is the argument of an operation whose result is
# the later value (`q = round(30.75) = 31`, `\lfloor 7.5 \rfloor = 7`): the result is the answer
_OPERATION = re.compile(r"(?:round|floor|ceil|(?<![A-Za-z\\])int|clip|clamp|quantiz\w*|lfloor|"
                        r"lceil|[⌊⌈])\}?[\s({\[]{0,3}(?:\\left\s*[(\[]?\s*)?$",
                        re.IGNORECASE)
_OPERATED = re.compile(r"[)\]⌋⌉]|\\r(?:floor|ceil)|\bround", re.IGNORECASE)
# a rounding's name and brackets between two values of one chain are layout, not words
# (`5/4 = \\mathrm{round}(1.25) = 1`: the 5/4 is working)
OPERATION_WORDS = re.compile(
    r"\\(?:mathrm|operatorname|text|textrm|textup|mathit|mathsf)\s*\{\s*(?:round|ceil|floor)"
    r"\s*\}|(?<![A-Za-z])(?:(?:math|np|numpy)\.)?(?:round|ceil|floor|int)(?=\s*(?:\\left\s*)?\(|\s*$)"
    r"|\\[lr](?:ceil|floor)(?![A-Za-z])|[⌈⌉⌊⌋]")
# how far before a value its operation's name may begin (`\operatorname{round}\left(`)
_OPERATION_REACH = 24


def operated(masked: str, found: list[Candidate]) -> list[Candidate]:
    """The statement's values with the argument of a rounding made working when a later value
    of the statement follows (`round(30.75) = 31`, `\\lceil 30.2 \\rceil \\approx 31`, `⌊30.75⌋,
    i.e. 30`): the student states the result of the rounding, and that is the answer."""
    out = list(found)
    for k in range(len(out) - 1):
        argument = out[k]
        if argument.is_vector or not _OPERATION.search(
                masked, max(0, argument.start - _OPERATION_REACH), argument.start):
            continue
        out[k] = replace(argument, working=True, final=False)
    return out


def restated(masked: str, found: list[Candidate]) -> list[Candidate]:
    """The statement's values with each rounded restatement of the value before it made working
    and that precise value the result in its place (final when the restatement was)."""
    out = list(found)
    for k in range(1, len(out)):
        precise, later = out[k - 1], out[k]
        if not later.chained or precise.expression or precise.words or precise.is_vector \
                or later.is_vector or isinstance(precise.value, tuple):
            continue
        gap = masked[precise.end:later.start]
        if not _RESTATING.search(gap) or _STEP.search(gap) or _OPERATED.search(gap) \
                or _OPERATION.search(masked, max(0, precise.start - 16), precise.start):
            continue
        if _rounds(later, precise.value):
            out[k - 1] = replace(precise, working=False, final=later.final)
            out[k] = replace(later, working=True, final=False, restates=True)
    return out


def _rounds(later: Candidate, precise: Number) -> bool:
    """Whether the later value, as written or scaled by the unit after it (`0.59 M`), is the
    precise value rounded."""
    value = later.value
    if isinstance(value, tuple):
        return False
    readings: list[tuple[Number, str]] = [(value, later.source)]
    factor = unit_factor(later.trailing)
    if factor is not None and isinstance(value, Fraction):
        readings.append((value * factor, ""))
    return any(rounded_digits(v, float(precise), written) is not None for v, written in readings)


def rounded_to_count(candidates: Sequence[Candidate], position: int,
                     config: NumericConfig) -> bool:
    """Whether the candidate at `position` restates a fraction rounded to a whole number
    (`123/4 = 30.75 ≈ 31`) and the item asks for a whole number: a count of batches or GPUs is
    the whole number the student settled on, where a precise count restated rounded
    (`590,592 ≈ 0.59 M`) is the count (`restates` above)."""
    if not 0 < position < len(candidates) or not candidates[position].restates:
        return False
    expected = config.expected
    if config.mode != "exact" or not isinstance(expected, int | float) \
            or not float(expected).is_integer():
        return False
    value, precise = candidates[position].value, candidates[position - 1].value
    return not isinstance(value, tuple) and not isinstance(precise, tuple) \
        and _whole(value) and not _whole(precise)


def _whole(value: Number) -> bool:
    return value.denominator == 1 if isinstance(value, Fraction) else float(value).is_integer()
