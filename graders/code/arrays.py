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
# What a correct computation in single precision (float32 inputs or arithmetic, an epsilon of
# 1e-6 or less in a denominator) is off by: relative to each value, and absolute relative to
# the largest value (float32's 1.2e-7 per operation, summed over a row): right, not rounded.
SINGLE_RTOL, SINGLE_ATOL = 1e-5, 1e-6
FLOAT32_EPS = float(np.finfo(np.float32).eps)
# Softmax weights of a scaled score matrix: the fitted scale times the spread of the scores
# within a row must exceed this, or the weights are (near) uniform and ignore the scores.
MIN_LOGIT_SPREAD = 0.05
EXACT_LOG_TOL = 1e-4
FLOAT32_LOG_TOL = 1e-3
ROUNDED_LOG_TOL, ROUNDED_ABS = 2e-3, 6e-5  # results rounded to 4 decimals


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


def close_single(actual: Array | None, expected: Array, slack: float = 0.0) -> bool:
    """`actual` equals `expected` to single precision (SINGLE_RTOL, SINGLE_ATOL), give or take
    `slack` more (absolute): what float32 arithmetic on the case's inputs can be off by beyond a
    few roundings, for values computed in float32 (large logits: `checks.float32_slack`)."""
    scale = float(np.max(np.abs(expected), initial=1.0)) if np.isfinite(expected).all() else 1.0
    return close(actual, expected, SINGLE_RTOL, SINGLE_ATOL * scale + slack)


def decimally_rounded(array: Array | None) -> bool:
    """Every value is a whole multiple of 10^-d, for one d from 0 to 6: results rounded to a
    few decimals (np.round in float64), which no arithmetic error gives."""
    if array is None or not array.size or not np.isfinite(array).all():
        return False
    with np.errstate(all="ignore"):
        for digits in range(7):
            scaled = array * 10.0**digits
            if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6):
                return True
    return False


def is_float32(array: Array | None) -> bool:
    """Every value is a float32 one (a float32 result read as float64); rounding in float64
    (to 4 decimals, say) gives values float32 cannot hold."""
    if array is None or not array.size:
        return False
    with np.errstate(all="ignore"):
        return bool(np.array_equal(array.astype(np.float32).astype(np.float64), array))


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


def _fit(weights: Array, scores: Array, entries: Array, column_factors: bool,
         sigma: Array | None = None) -> tuple[float, Array] | None:
    """Least squares for log w_ij = a_i (+ b_j) + c·S_ij over `entries`: (c, the residuals as
    an (n, m) array, 0 off the entries), or None when c cannot be told (too few entries)."""
    entries = entries & (entries.sum(axis=1, keepdims=True) >= 2)  # a lone entry tells nothing
    rows, cols = np.nonzero(entries)
    used_rows = np.unique(rows)
    used_cols = np.unique(cols) if column_factors else np.zeros(0, dtype=np.int64)
    unknowns = len(used_rows) + max(len(used_cols) - 1, 0) + 1
    if not len(rows) or len(rows) < unknowns:
        return None
    design = np.zeros((len(rows), unknowns))
    design[np.arange(len(rows)), np.searchsorted(used_rows, rows)] = 1.0
    if column_factors and len(used_cols) > 1:
        index = np.searchsorted(used_cols, cols)
        keep = index > 0
        design[np.arange(len(rows))[keep], len(used_rows) + index[keep] - 1] = 1.0
    design[:, -1] = scores[rows, cols]
    target = np.log(weights[rows, cols])
    scale = 1.0 / sigma[rows, cols] if sigma is not None else np.ones(len(rows))
    with np.errstate(all="ignore"):
        solution, *_ = np.linalg.lstsq(design * scale[:, None], target * scale, rcond=None)
        residual = np.abs(design @ solution - target)
    if not (np.isfinite(solution).all() and np.isfinite(residual).all()):
        return None
    full = np.zeros(scores.shape)
    full[rows, cols] = residual
    return float(solution[-1]), full


def relation(weights: Array, scores: Array, allowed: Array,
             column_factors: bool = False) -> Relation:
    """Whether weights_ij = a_i · exp(c·S_ij) on every allowed position (with a column factor
    b_j too when `column_factors`: a softmax normalised along the wrong axis still relates to
    its scores), for one c > 0 that makes the weights depend on the scores.

    Fitted in log space at three levels of precision: float64 on every positive weight (exact
    arithmetic keeps tiny weights exact in relative terms, so one-hot rows at large logits still
    tell c); float32, without its imprecise denormal weights; results rounded to 4 decimals,
    each weight within what rounding can move its log. Rows with fewer than two weights tell
    nothing; with too few everywhere, the weights must at least grow with the scores. An
    allowed position left out of the fit (weight 0) is accepted only where the fitted softmax
    is negligible. Uniform weights fit c = 0 and fail; an identity matrix fails on its zeros;
    arbitrary positive matrices fail on the residual."""
    if weights.shape != scores.shape or weights.ndim != 2 or not np.isfinite(weights).all() \
            or (weights < 0).any():
        return Relation(False, 0.0, "the weights are not a finite non-negative matrix")
    positive = allowed & (weights > 1e-290)
    with np.errstate(all="ignore"):
        top = weights.max(axis=1, keepdims=True, initial=0.0)
        # Rounding to 4 decimals moves a weight w by up to 5e-5: log w by up to 5e-5 / w.
        rounding = ROUNDED_LOG_TOL + ROUNDED_ABS / np.maximum(weights, 1e-300)
    levels = ((positive, EXACT_LOG_TOL), (positive & (weights > 1e-30 * top), FLOAT32_LOG_TOL),
              (positive, rounding))
    fitted: tuple[float, Array] | None = None
    tried: float | None = None
    tolerance: float | Array
    for entries, tolerance in levels:
        fit = _fit(weights, scores, entries, column_factors,
                   tolerance if isinstance(tolerance, np.ndarray) else None)
        if fit is None:
            continue
        tried = fit[0]
        if (fit[1] <= 1.5 * tolerance).all():
            fitted = fit[0], entries
            break
    if fitted is None:
        if tried is not None:
            return Relation(False, tried, "the weights are not a softmax of the scaled scores")
        if (allowed & ~positive).any() and not _monotone(weights, scores, allowed):
            return Relation(False, 0.0, "allowed positions get no weight at all, or weight "
                            "that does not follow the scores")
        return Relation(None, 0.0, "too few positions to relate the weights to the scores")
    scale, entries = fitted
    if scale * _row_spread(scores, entries) <= MIN_LOGIT_SPREAD:
        return Relation(False, scale, "the weights do not grow with the scores (uniform or "
                        "reversed), so they are not a softmax of them")
    zeros = allowed & ~entries
    if zeros.any():
        # A weight left out of the fit (zero, or tiny in rounded results) must be one the
        # fitted softmax makes negligible too.
        logits = scale * np.where(allowed, scores, -np.inf)
        with np.errstate(all="ignore"):
            predicted = np.exp(logits - logits.max(axis=1, keepdims=True))
            predicted = predicted / predicted.sum(axis=1, keepdims=True)
            share = weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-300)
        if (np.abs(predicted - share)[zeros] > 0.02).any():
            return Relation(False, scale, "an allowed position that the scores favour gets no "
                            "weight")
    return Relation(True, scale, "")


def _monotone(weights: Array, scores: Array, allowed: Array) -> bool:
    """Within every row a higher score never gets less weight, and strictly more wherever the
    lower one's weight is visible: what any softmax with c > 0 gives, even when underflow or
    rounding leaves too few weights to fit c (one-hot rows at very large logits)."""
    if not (np.where(allowed, weights, 0.0).sum(axis=1) > 0).all():
        return False
    for i in range(scores.shape[0]):
        index = np.nonzero(allowed[i])[0]
        s, w = scores[i, index], weights[i, index]
        visible = w > 1e-3 * w.max()
        higher = s[:, None] > s[None, :]
        if (higher & (w[:, None] < w[None, :])).any():
            return False
        if (higher & (w[:, None] <= w[None, :]) & visible[None, :]).any():
            return False
    return True


def _row_spread(scores: Array, positive: Array) -> float:
    spreads = [float(np.ptp(scores[i, positive[i]])) for i in range(scores.shape[0])
               if positive[i].sum() >= 2]
    return max(spreads, default=0.0)
