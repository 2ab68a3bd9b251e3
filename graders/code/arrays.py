"""Arrays from a student's process, made safe to reason about, and the question every softmax
credit asks: do these weights come from the scores?

Whatever a child returned (any shape including zero-size, bool, integer, float16, NaN, inf) is
turned into float64 here or refused with a reason; nothing below raises on a hostile array.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]
STRICT_RTOL, STRICT_ATOL = 1e-6, 1e-8
# Matches to this and not to the item's tolerance: the function rounds its results (a check
# that passes only so earns the rubric's `rounded` share).
LOOSE_RTOL, LOOSE_ATOL = 1e-3, 1e-3
# Softmax weights of a scaled score matrix: the fitted scale times the spread of the scores
# within a row must exceed this, or the weights are (near) uniform and ignore the scores.
MIN_LOGIT_SPREAD = 0.05
RELATION_TOL = 2e-3  # largest weight-weighted log residual accepted (rounded weights pass)
TINY = 0.0  # any positive weight takes part in the fit (weighted by its size)


def as_float(value: Any) -> Array | None:
    """A float64 copy of a numeric array, or None (object arrays, strings, complex)."""
    try:
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            return None
        with np.errstate(all="ignore"):
            return array.astype(np.float64)
    except (ValueError, TypeError, OverflowError, MemoryError):
        return None


def squeeze_batch(array: Array) -> tuple[Array, bool]:
    """(n, d) from (1, n, d) or (1, 1, n, d): a batch (and head) of one, removed."""
    squeezed = False
    while array.ndim > 2 and array.shape[0] == 1:
        array = array[0]
        squeezed = True
    return array, squeezed


def finite(array: Array) -> bool:
    return bool(array.size) and bool(np.isfinite(array).all())


def close(actual: Array | None, expected: Array, rtol: float = STRICT_RTOL,
          atol: float = STRICT_ATOL) -> bool:
    if actual is None or actual.shape != expected.shape or not np.isfinite(actual).all():
        return False
    with np.errstate(all="ignore"):
        return bool(np.all(np.abs(actual - expected) <= atol + rtol * np.abs(expected)))


def same(a: Array | None, b: Array | None) -> bool:
    """allclose with NaN equal to NaN (a bug's NaNs are part of its signature)."""
    if a is None or b is None or a.shape != b.shape:
        return False
    with np.errstate(all="ignore"):
        near = np.abs(a - b) <= 1e-8 + 1e-5 * np.abs(b)
        return bool((near | (np.isnan(a) & np.isnan(b)) | (a == b)).all())


@dataclass(frozen=True)
class Relation:
    """How weights relate to the scores S = Q Kᵀ on the allowed positions."""

    holds: bool | None  # None: too few positions to tell (n = 1, tiny cases)
    scale: float  # fitted c in exp(c·S): 1/√d_k for the right scale
    note: str


def relation(weights: Array, scores: Array, allowed: Array,
             column_factors: bool = False) -> Relation:
    """Whether weights_ij = a_i · exp(c·S_ij) on every allowed position (with a column factor
    b_j too when `column_factors`: a softmax normalised along the wrong axis still relates to
    its scores), for one c > 0 that makes the weights depend on the scores.

    The fit is in log space, weighted by the weights themselves so that rounded small weights do
    not decide it; an allowed position with weight exactly 0 is accepted only where the fitted
    softmax underflows too. Uniform weights fit c = 0 and fail; an identity matrix fails on its
    zeros; arbitrary positive matrices fail on the residual."""
    n, m = scores.shape
    if weights.shape != scores.shape or not np.isfinite(weights).all() or (weights < 0).any():
        return Relation(False, 0.0, "the weights are not a finite non-negative matrix")
    positive = allowed & (weights > TINY)
    rows, cols = np.nonzero(positive)
    unknowns = n + (m - 1 if column_factors else 0) + 1
    if len(rows) - unknowns < 1 or not positive.sum(axis=1).max(initial=0) >= 2:
        if (allowed & ~positive).any():
            return Relation(False, 0.0, "allowed positions get no weight at all")
        return Relation(None, 0.0, "too few positions to relate the weights to the scores")
    design = np.zeros((len(rows), unknowns))
    design[np.arange(len(rows)), rows] = 1.0
    if column_factors:
        keep = cols > 0
        design[np.arange(len(rows))[keep], n + cols[keep] - 1] = 1.0
    design[:, -1] = scores[rows, cols]
    target = np.log(weights[rows, cols])
    fit_weights = np.sqrt(weights[rows, cols] / weights[rows, cols].max())
    with np.errstate(all="ignore"):
        solution, *_ = np.linalg.lstsq(design * fit_weights[:, None], target * fit_weights,
                                       rcond=None)
    if not np.isfinite(solution).all():
        return Relation(False, 0.0, "the weights do not follow the scores")
    scale = float(solution[-1])
    residual = np.abs(design @ solution - target) * weights[rows, cols]
    spread = _row_spread(scores, positive)
    if scale * spread <= MIN_LOGIT_SPREAD:
        return Relation(False, scale, "the weights do not grow with the scores (uniform or "
                        "reversed), so they are not a softmax of them")
    if residual.max() > RELATION_TOL:
        return Relation(False, scale, "the weights are not a softmax of the scaled scores")
    zeros = allowed & ~positive
    if zeros.any():
        # A zero is an underflow (or a rounded tiny weight) only where the fitted softmax
        # itself is negligible.
        logits = scale * np.where(allowed, scores, -np.inf)
        with np.errstate(all="ignore"):
            predicted = np.exp(logits - logits.max(axis=1, keepdims=True))
            predicted = predicted / predicted.sum(axis=1, keepdims=True)
        if (predicted[zeros] > LOOSE_ATOL).any():
            return Relation(False, scale, "an allowed position that the scores favour gets no "
                            "weight")
    return Relation(True, scale, "")


def _row_spread(scores: Array, positive: Array) -> float:
    spreads = [float(np.ptp(scores[i, positive[i]])) for i in range(scores.shape[0])
               if positive[i].sum() >= 2]
    return max(spreads, default=0.0)
