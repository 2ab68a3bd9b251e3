"""The words that offer what follows as an alternative to what precedes: `64 or 65`,
`64 (or maybe 65)`, `q = k_a, or maybe q = k_b`, `X (or possibly Y)`, `X, perhaps Y`. Between
two answers they make a hedge, no committed answer; the numeric grader reads them between two
values (graders.numeric.hedges), the symbolic grader between two expressions
(graders.symbolic.hedges)."""

from __future__ import annotations

import re

OFFERING = r"(?:or(?:\s+(?:maybe|perhaps|possibly|else))?|maybe|perhaps|possibly)"


def offering_gap(before: str, after: str) -> re.Pattern[str]:
    """A gap that is only the offering words, with the characters `before` and `after` (each a
    repeated character class) around them; matched with `fullmatch`."""
    return re.compile(f"{before}{OFFERING}{after}", re.IGNORECASE)
