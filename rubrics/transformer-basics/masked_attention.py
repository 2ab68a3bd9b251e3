"""B4 reference and known bugs (causal attention). Rubric data: run only in the trusted grading
process, never in the sandbox."""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]
Result = tuple[Array, Array]


def _scores(Q: Array, K: Array) -> Array:
    return Q @ K.T / np.sqrt(Q.shape[-1])


def _future(n: int, k: int = 1) -> Array:
    return np.triu(np.ones((n, n), dtype=bool), k=k)


def _row_softmax(scores: Array) -> Array:
    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def masked_attention(Q: Array, K: Array, V: Array) -> Result:
    scores = np.where(_future(Q.shape[0]), -np.inf, _scores(Q, K))
    weights = _row_softmax(scores)
    return weights @ V, weights


def _mask_after_softmax(Q: Array, K: Array, V: Array) -> Result:
    weights = np.where(_future(Q.shape[0]), 0.0, _row_softmax(_scores(Q, K)))
    return weights @ V, weights


def _hides_diagonal(Q: Array, K: Array, V: Array) -> Result:
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(_future(Q.shape[0], k=0), -np.inf, _scores(Q, K))
        e = np.exp(scores)
        weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def _no_mask(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(_scores(Q, K))
    return weights @ V, weights


def _mask_lower(Q: Array, K: Array, V: Array) -> Result:
    past = np.tril(np.ones((Q.shape[0], Q.shape[0]), dtype=bool), k=-1)
    weights = _row_softmax(np.where(past, -np.inf, _scores(Q, K)))
    return weights @ V, weights


def _columns(Q: Array, K: Array, V: Array) -> Result:
    with np.errstate(invalid="ignore"):
        e = np.exp(np.where(_future(Q.shape[0]), -np.inf, _scores(Q, K)))
        weights = e / e.sum(axis=0, keepdims=True)
    return weights @ V, weights


def _keepdims_missing(Q: Array, K: Array, V: Array) -> Result:
    e = np.exp(np.where(_future(Q.shape[0]), -np.inf, _scores(Q, K)))
    weights = e / np.sum(e, axis=1)  # (n, n) / (n,): divides column j by row j's sum
    return weights @ V, weights


def _row_max_then(Q: Array, K: Array, axis: int | None, keepdims: bool) -> Array:
    scores = np.where(_future(Q.shape[0]), -np.inf, _scores(Q, K))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    with np.errstate(invalid="ignore"):
        return e / np.sum(e, axis=axis, keepdims=keepdims)


def _keepdims_missing_row_max(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_max_then(Q, K, 1, False)
    return weights @ V, weights


def _columns_row_max(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_max_then(Q, K, 0, True)
    return weights @ V, weights


def _whole_matrix_row_max(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_max_then(Q, K, None, False)
    return weights @ V, weights


def _whole_matrix(Q: Array, K: Array, V: Array) -> Result:
    e = np.exp(np.where(_future(Q.shape[0]), -np.inf, _scores(Q, K)))
    weights = e / np.sum(e)
    return weights @ V, weights


def _no_scale(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(np.where(_future(Q.shape[0]), -np.inf, Q @ K.T))
    return weights @ V, weights


def _weak_mask(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(_scores(Q, K) - 100.0 * _future(Q.shape[0]))
    return weights @ V, weights


def _masked_scores(Q: Array, K: Array) -> Array:
    return np.where(_future(Q.shape[0]), -np.inf, _scores(Q, K))


def _raw_sum(Q: Array, K: Array, V: Array) -> Result:
    scores = _masked_scores(Q, K)
    with np.errstate(all="ignore"):
        weights = np.exp(scores) / scores.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def _raw_sum_row_max(Q: Array, K: Array, V: Array) -> Result:
    scores = _masked_scores(Q, K)
    with np.errstate(all="ignore"):
        shifted = scores - scores.max(axis=-1, keepdims=True)
        weights = np.exp(shifted) / shifted.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def _zero_not_inf(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(np.where(_future(Q.shape[0]), 0.0, _scores(Q, K)))
    return weights @ V, weights


def _zero_not_inf_multiplied(Q: Array, K: Array, V: Array) -> Result:
    n = Q.shape[0]
    weights = _row_softmax(_scores(Q, K) * np.tril(np.ones((n, n))))
    return weights @ V, weights


def _scale_by_sqrt_n(Q: Array, K: Array, V: Array) -> Result:
    scores = np.where(_future(Q.shape[0]), -np.inf, Q @ K.T / np.sqrt(Q.shape[0]))
    weights = _row_softmax(scores)
    return weights @ V, weights


def _missing_v(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(_masked_scores(Q, K))
    return weights, weights


def _k_not_transposed(Q: Array, K: Array, V: Array) -> Result:
    scores = np.where(_future(Q.shape[0]), -np.inf, Q @ K / np.sqrt(Q.shape[-1]))
    weights = _row_softmax(scores)
    return weights @ V, weights


def _keepdims_missing_diag(Q: Array, K: Array, V: Array) -> Result:
    e = np.exp(_masked_scores(Q, K))
    weights = e @ np.diag(1.0 / e.sum(axis=-1))
    return weights @ V, weights


# name -> (feedback, implementation, *other spellings of the same mistake)
VARIANTS: dict[str, tuple[Any, ...]] = {
    "mask_after_softmax": (
        "The mask is applied after the softmax and the rows are not renormalised: the future "
        "weights are zeroed, but each row then sums to less than 1. Mask the scores with -inf "
        "before the softmax.",
        _mask_after_softmax),
    "mask_hides_diagonal": (
        "The mask also hides the diagonal (np.triu(..., k=0)): position i must attend to "
        "itself, so mask only j > i (k=1); the first row ends up with nothing to attend to.",
        _hides_diagonal),
    "no_mask": (
        "No causal mask is applied: every position attends to future positions.",
        _no_mask),
    "mask_wrong_triangle": (
        "The mask hides the past (lower triangle) instead of the future (upper triangle).",
        _mask_lower),
    "column_softmax": (
        "The masked softmax normalises each column (axis=0) instead of each row.",
        _columns, _columns_row_max),
    "keepdims_missing": (
        "The row sums are applied along the wrong axis: without keepdims=True (or through "
        "exp(S) @ np.diag(1 / row_sums)) entry (i, j) is divided by row j's sum; the causal "
        "zeros survive but the rows do not sum to 1.",
        _keepdims_missing, _keepdims_missing_row_max, _keepdims_missing_diag),
    "raw_score_sum": (
        "The softmax denominator is the sum of the raw (masked) scores, not the sum of their "
        "exponentials: with -inf in the masked scores most rows become 0. Normalise exp(scores) "
        "by np.sum(np.exp(scores), axis=-1, keepdims=True).",
        _raw_sum, _raw_sum_row_max),
    "mask_zero_not_inf": (
        "The future positions are set to 0 (or the scores multiplied by a 0/1 mask) instead "
        "of -inf before the softmax: exp(0) = 1, so the future still gets weight. Use -np.inf "
        "(or a large negative such as -1e9).",
        _zero_not_inf, _zero_not_inf_multiplied),
    "scale_by_sqrt_n": (
        "The scores are scaled by the square root of the sequence length (Q.shape[0]), not by "
        "sqrt(d_k), the query/key dimension (Q.shape[-1]).",
        _scale_by_sqrt_n),
    "missing_v": (
        "The weights are never multiplied by V: the function returns the attention weights "
        "where the output (weights @ V) belongs.",
        _missing_v),
    "k_not_transposed": (
        "K is not transposed: the scores must be Q @ K.T.",
        _k_not_transposed),
    "whole_matrix_softmax": (
        "The softmax is taken over the whole masked score matrix instead of each row.",
        _whole_matrix, _whole_matrix_row_max),
    "weak_mask": (
        "The mask adds a finite negative that is not large enough (about -100): with large "
        "scores the future still gets weight. Use -np.inf (or a value like -1e9).",
        _weak_mask),
    "missing_scale": (
        "The scores are not divided by sqrt(d_k).",
        _no_scale),
}
