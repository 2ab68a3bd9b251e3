"""B3 reference and known bugs. Rubric data: run only in the trusted grading process, never in
the sandbox, on inputs the grader generates.

Each variant reproduces one mistake students make; when a submission's results match a variant
(and not the reference), the feedback names that mistake in the words given here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]
Result = tuple[Array, Array]


def _row_softmax(scores: Array) -> Array:
    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(Q @ K.T / np.sqrt(Q.shape[-1]))
    return weights @ V, weights


def _whole_matrix(Q: Array, K: Array, V: Array) -> Result:
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[-1]))
    weights = e / np.sum(e)
    return weights @ V, weights


def _whole_matrix_row_max(Q: Array, K: Array, V: Array) -> Result:
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / np.sum(e)
    return weights @ V, weights


def _columns_row_max(Q: Array, K: Array, V: Array) -> Result:
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=0, keepdims=True)
    return weights @ V, weights


def _keepdims_missing_row_max(Q: Array, K: Array, V: Array) -> Result:
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=1)
    return weights @ V, weights


def _columns(Q: Array, K: Array, V: Array) -> Result:
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[-1]))
    weights = e / e.sum(axis=0, keepdims=True)
    return weights @ V, weights


def _no_scale(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(Q @ K.T)
    return weights @ V, weights


def _scale_by_dk(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(Q @ K.T / Q.shape[-1])
    return weights @ V, weights


def _scale_by_dv(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(Q @ K.T / np.sqrt(V.shape[-1]))
    return weights @ V, weights


def _k_not_transposed(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(Q @ K / np.sqrt(Q.shape[-1]))
    return weights @ V, weights


def _keepdims_missing(Q: Array, K: Array, V: Array) -> Result:
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[-1]))
    weights = e / np.sum(e, axis=1)  # (n, m) / (m,): divides column j by row j's sum
    return weights @ V, weights


def _keepdims_missing_diag(Q: Array, K: Array, V: Array) -> Result:
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[-1]))
    weights = e @ np.diag(1.0 / e.sum(axis=-1))  # column j divided by row j's sum
    return weights @ V, weights


def _keepdims_missing_diag_row_max(Q: Array, K: Array, V: Array) -> Result:
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e @ np.diag(1.0 / e.sum(axis=-1))
    return weights @ V, weights


def _scale_by_sqrt_n(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(Q @ K.T / np.sqrt(Q.shape[0]))
    return weights @ V, weights


def _scale_by_sqrt_m(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(Q @ K.T / np.sqrt(K.shape[0]))
    return weights @ V, weights


def _missing_v(Q: Array, K: Array, V: Array) -> Result:
    weights = _row_softmax(Q @ K.T / np.sqrt(Q.shape[-1]))
    return weights, weights


def _raw_sum(Q: Array, K: Array, V: Array) -> Result:
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores) / scores.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def _raw_sum_row_max(Q: Array, K: Array, V: Array) -> Result:
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    shifted = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(shifted) / shifted.sum(axis=-1, keepdims=True)
    return weights @ V, weights


# name -> (feedback, implementation, *other spellings of the same mistake)
VARIANTS: dict[str, tuple[Any, ...]] = {
    "whole_matrix_softmax": (
        "The softmax is taken over the whole score matrix instead of each row: "
        "np.sum(np.exp(scores)) adds every entry, so no row sums to 1. Sum over the last axis "
        "with keepdims=True (np.sum(..., axis=-1, keepdims=True)).",
        _whole_matrix, _whole_matrix_row_max),
    "column_softmax": (
        "The softmax normalises each column (axis=0) instead of each row: every query's "
        "weights over the keys must sum to 1, so normalise along axis=-1.",
        _columns, _columns_row_max),
    "missing_scale": (
        "The scores are not divided by sqrt(d_k): without the scale the logits grow with d_k "
        "and the softmax saturates.",
        _no_scale),
    "scale_by_dk": (
        "The scores are divided by d_k instead of sqrt(d_k).",
        _scale_by_dk),
    "scale_by_dv": (
        "The scores are scaled with the value dimension d_v; the scale is sqrt(d_k), the "
        "query/key dimension.",
        _scale_by_dv),
    "k_not_transposed": (
        "K is not transposed: the scores must be Q @ K.T (shape n x m); Q @ K only works when "
        "the shapes happen to line up and then computes the wrong products.",
        _k_not_transposed),
    "keepdims_missing": (
        "The row sums are applied along the wrong axis: without keepdims=True (or through "
        "exp(S) @ np.diag(1 / row_sums)) entry (i, j) is divided by row j's sum instead of row "
        "i's, so the rows do not sum to 1 (and the shapes only fit when n = m). Divide by "
        "np.sum(..., axis=-1, keepdims=True).",
        _keepdims_missing, _keepdims_missing_row_max, _keepdims_missing_diag,
        _keepdims_missing_diag_row_max),
    "scale_by_sqrt_n": (
        "The scores are scaled by the square root of the number of queries (Q.shape[0]) or "
        "keys, not by sqrt(d_k), the query/key dimension (Q.shape[-1]); the two agree only "
        "when they happen to be equal.",
        _scale_by_sqrt_n, _scale_by_sqrt_m),
    "missing_v": (
        "The weights are never multiplied by V: the function returns the attention weights "
        "where the output (weights @ V) belongs.",
        _missing_v),
    "raw_score_sum": (
        "The softmax denominator is the sum of the raw scores, not the sum of their "
        "exponentials: normalise exp(scores) by np.sum(np.exp(scores), axis=-1, "
        "keepdims=True).",
        _raw_sum, _raw_sum_row_max),
}
