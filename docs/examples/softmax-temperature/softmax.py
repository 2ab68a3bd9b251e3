"""Reference and known bugs for softmax(x, *, temperature=1.0), a row-wise softmax of
x / temperature. Rubric data: run only in the trusted grading process, never in the sandbox."""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


def softmax(x: Array, *, temperature: float = 1.0) -> Array:
    z = x / temperature
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _multiplied(x: Array, *, temperature: float = 1.0) -> Array:
    z = x * temperature
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _whole_array(x: Array, *, temperature: float = 1.0) -> Array:
    z = x / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


# name -> (feedback, implementation)
VARIANTS = {
    "multiplied": ("The logits are multiplied by the temperature; divide by it.", _multiplied),
    "whole_array": ("The softmax is normalised over the whole array, not over each row.",
                    _whole_array),
}
