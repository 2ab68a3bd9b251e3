"""Reference and known bugs for relative_positions(n) (trusted, grading process only)."""
from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


def relative_positions(n: int) -> Array:
    i = np.arange(n)
    return i[None, :] - i[:, None]


def _negated(n: int) -> Array:
    i = np.arange(n)
    return i[:, None] - i[None, :]


def _absolute(n: int) -> Array:
    i = np.arange(n)
    return np.abs(i[None, :] - i[:, None])


VARIANTS = {
    "negated": ("Entry (i, j) is i - j here; the question asks for j - i.", _negated),
    "absolute": (
        "The offsets lost their sign (|j - i|): keys before and after look alike.",
        _absolute),
}
