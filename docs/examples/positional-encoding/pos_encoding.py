"""Reference and known bugs for pos_encoding(position, d_model), the sinusoidal positional
encoding. Rubric data: run only in the trusted grading process, never in the sandbox, on the
inputs the battery (pe.yaml) draws.

PE[p, 2i] = sin(p / 10000^(2i / d_model)) and PE[p, 2i + 1] = cos(p / 10000^(2i / d_model)):
column j uses the frequency of its pair, 2 * (j // 2), so an odd d_model ends with a sine.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


def _angles(position: int, d_model: int, pair_exponent: bool = True) -> Array:
    p = np.arange(position, dtype=np.float64)[:, None]
    j = np.arange(d_model)
    exponent = 2 * (j // 2) if pair_exponent else j
    return p / np.power(10000.0, exponent / d_model)


def pos_encoding(position: int, d_model: int) -> Array | int:
    if position == 0 or d_model <= 0:
        return -1
    angles = _angles(position, d_model)
    even = np.arange(d_model) % 2 == 0
    return np.where(even, np.sin(angles), np.cos(angles)).astype(np.float16)


def _no_guard_arange(position: int, d_model: int) -> Array:
    # Without the guard: empty results for 0 sizes (np.arange of a negative size is empty too).
    d = max(d_model, 0)
    angles = _angles(position, d) if d else np.zeros((position, 0))
    even = np.arange(d) % 2 == 0
    return np.where(even, np.sin(angles), np.cos(angles)).astype(np.float16)


def _no_guard_zeros(position: int, d_model: int) -> Array:
    pe = np.zeros((position, d_model))  # raises ValueError for a negative d_model
    if d_model:
        angles = _angles(position, d_model)
        pe[:, 0::2] = np.sin(angles[:, 0::2])
        pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe.astype(np.float16)


def _half_frequencies(position: int, d_model: int) -> Array | int:
    # One frequency per sine column (ceil(d/2) of them) also used for the cosines: the shapes
    # disagree for an odd d_model and NumPy raises ValueError.
    if position == 0 or d_model <= 0:
        return -1
    pos = np.arange(position)[:, None]
    div = np.exp(np.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    pe = np.zeros((position, d_model))
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)
    return pe.astype(np.float16)


def _pairs_only(position: int, d_model: int) -> Array | int:
    # A loop over the d_model // 2 pairs: for an odd d_model the last (sine) column stays 0.
    if position == 0 or d_model <= 0:
        return -1
    pe = np.zeros((position, d_model))
    angles = _angles(position, d_model)
    for i in range(d_model // 2):
        pe[:, 2 * i] = np.sin(angles[:, 2 * i])
        pe[:, 2 * i + 1] = np.cos(angles[:, 2 * i + 1])
    return pe.astype(np.float16)


def _frequency_per_column(position: int, d_model: int) -> Array | int:
    if position == 0 or d_model <= 0:
        return -1
    angles = _angles(position, d_model, pair_exponent=False)
    even = np.arange(d_model) % 2 == 0
    return np.where(even, np.sin(angles), np.cos(angles)).astype(np.float16)


def _cos_on_even(position: int, d_model: int) -> Array | int:
    if position == 0 or d_model <= 0:
        return -1
    angles = _angles(position, d_model)
    even = np.arange(d_model) % 2 == 0
    return np.where(even, np.cos(angles), np.sin(angles)).astype(np.float16)


# name -> (feedback, implementation, *other spellings of the same mistake)
VARIANTS: dict[str, tuple[Any, ...]] = {
    "missing_guard": (
        "There is no guard for invalid sizes: when position == 0 or d_model <= 0 the function "
        "must return -1, not an empty array or an error.",
        _no_guard_arange, _no_guard_zeros),
    "odd_dmodel_frequencies": (
        "For an odd d_model the cosine columns get one frequency too many (ceil(d_model / 2) "
        "frequencies for floor(d_model / 2) columns), so the assignment fails. Compute the "
        "frequency per column from 2 * (j // 2), or trim the cosine half.",
        _half_frequencies),
    "odd_dmodel_last_column": (
        "For an odd d_model the last column (a sine) is never filled: a loop over the "
        "d_model // 2 pairs leaves it 0.",
        _pairs_only),
    "frequency_per_column": (
        "Each column uses its own exponent j / d_model; a sine/cosine pair (2i, 2i + 1) must "
        "share the frequency 1 / 10000^(2i / d_model).",
        _frequency_per_column),
    "sin_cos_swapped": (
        "Sine and cosine are swapped: the even columns take the sine, the odd ones the cosine.",
        _cos_on_even),
}
