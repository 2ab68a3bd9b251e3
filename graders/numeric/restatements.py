"""A precise value restated rounded: `590,592 ≈ 0.59 M`, `590,592 = 0.59M`, `590,592 ~5.9e5`,
`1,769,472 \\approx 1.77 million`. Students round a value they computed exactly to make it
readable; the two are one answer written twice, and the precise value, not its rounding, is
what answers the item. A rounding is said with a relation of (near) equality; an arrow, `is` or
a colon is a step of working (`2.5 → 3 GPUs`), a rounding done as an operation (`q = round(30.75)
= 31`) gives its result, and a value taken back for a rounded one (`590,592? no, 0.59 M`) is a
correction (graders.numeric.hedges), never a restatement."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from graders.numeric.arith import Number
from graders.numeric.candidates import Candidate
from graders.numeric.rounding import rounded_digits
from graders.numeric.units import unit_factor

# what restates a value (nearly) equal; any step word or arrow in the gap makes it working
_RESTATING = re.compile(r"=|≈|≃|~|\\approx\b|\\simeq\b|\\sim\b")
_STEP = re.compile(r"→|⇒|⟹|->|=>|\\(?:rightarrow|Rightarrow|to|implies|longrightarrow|"
                   r"Longrightarrow)\b|[:?]|\b(?:is|gives|equals|are|no|not|or)\b", re.IGNORECASE)


# a rounding done, not said: the precise value is the argument of an operation whose result is
# the later value (`q = round(30.75) = 31`, `\lfloor 7.5 \rfloor = 7`): the result is the answer
_OPERATION = re.compile(r"(?:round|floor|ceil|int|clip|clamp|quantiz\w*|lfloor|lceil|[⌊⌈])"
                        r"[\s({\[}]{0,3}$", re.IGNORECASE)
_OPERATED = re.compile(r"[)\]⌋⌉]|\\r(?:floor|ceil)|\bround", re.IGNORECASE)


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
            out[k] = replace(later, working=True, final=False)
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
