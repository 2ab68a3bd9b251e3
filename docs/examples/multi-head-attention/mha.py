"""Reference, known bugs and an instructor's check for
multi_head_attention(Q, K, V, W_q, W_k, W_v, W_o, num_heads). Rubric data: run only in the
trusted grading process, never in the sandbox, on the inputs the battery (mha.yaml) draws.

Q is (n, d_model), K and V are (m, d_model), each W is (d_model, d_model); the projections are
split into num_heads heads of d_head = d_model / num_heads columns, each head attends with
softmax(q kᵀ / √d_head), and the heads are concatenated in order and projected by W_o.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


def _softmax(scores: Array, axis: int = -1) -> Array:
    e = np.exp(scores - scores.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _split(x: Array, heads: int) -> Array:
    """(rows, d_model) -> (heads, rows, d_head)."""
    return x.reshape(x.shape[0], heads, x.shape[1] // heads).transpose(1, 0, 2)


def _heads(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array, heads: int,
           scale: float | None = None, axis: int = -1) -> Array:
    q, k, v = _split(Q @ W_q, heads), _split(K @ W_k, heads), _split(V @ W_v, heads)
    d_head = q.shape[-1]
    scores = q @ k.transpose(0, 2, 1) / (np.sqrt(d_head) if scale is None else scale)
    return _softmax(scores, axis) @ v  # (heads, n, d_head)


def _concat(heads: Array) -> Array:
    return heads.transpose(1, 0, 2).reshape(heads.shape[1], -1)


def multi_head_attention(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array,
                         W_o: Array, num_heads: int) -> Array:
    return _concat(_heads(Q, K, V, W_q, W_k, W_v, num_heads)) @ W_o


def _no_scale(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array, W_o: Array,
              num_heads: int) -> Array:
    return _concat(_heads(Q, K, V, W_q, W_k, W_v, num_heads, scale=1.0)) @ W_o


def _scale_by_d_model(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array,
                      W_o: Array, num_heads: int) -> Array:
    scale = float(np.sqrt(Q.shape[-1]))
    return _concat(_heads(Q, K, V, W_q, W_k, W_v, num_heads, scale=scale)) @ W_o


def _one_head(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array, W_o: Array,
              num_heads: int) -> Array:
    d_head = Q.shape[-1] // num_heads
    return _concat(_heads(Q, K, V, W_q, W_k, W_v, 1, scale=float(np.sqrt(d_head)))) @ W_o


def _one_head_d_model(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array,
                      W_o: Array, num_heads: int) -> Array:
    return _concat(_heads(Q, K, V, W_q, W_k, W_v, 1)) @ W_o


def _concat_without_transpose(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array,
                              W_o: Array, num_heads: int) -> Array:
    heads = _heads(Q, K, V, W_q, W_k, W_v, num_heads)
    return heads.reshape(heads.shape[1], -1) @ W_o  # (heads, n, d_head) read row by row


def _no_output_projection(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array,
                          W_o: Array, num_heads: int) -> Array:
    return _concat(_heads(Q, K, V, W_q, W_k, W_v, num_heads))


def _column_softmax(Q: Array, K: Array, V: Array, W_q: Array, W_k: Array, W_v: Array,
                    W_o: Array, num_heads: int) -> Array:
    return _concat(_heads(Q, K, V, W_q, W_k, W_v, num_heads, axis=-2)) @ W_o


def finite(inputs: dict[str, Any], observed: dict[str, Array], expected: dict[str, Array]
           ) -> tuple[bool, str]:
    """The instructor's own check: with large inputs the output stays finite (the softmax
    subtracts each row's maximum)."""
    output = observed["output"]
    if not np.isfinite(output.astype(np.float64)).all():
        return False, "the output contains inf or nan (subtract each row's maximum before exp)"
    return True, ""


# name -> (feedback, implementation, *other spellings of the same mistake)
VARIANTS: dict[str, tuple[Any, ...]] = {
    "missing_scale": (
        "The scores are not divided by sqrt(d_head) before the softmax.",
        _no_scale),
    "scale_by_d_model": (
        "The scores are divided by sqrt(d_model); each head's scale is sqrt(d_head), "
        "d_head = d_model / num_heads.",
        _scale_by_d_model),
    "heads_not_split": (
        "The projections are never split into num_heads heads: one attention over all d_model "
        "columns is not multi-head attention. Reshape to (num_heads, n, d_head).",
        _one_head, _one_head_d_model),
    "concat_order": (
        "The heads are concatenated in the wrong order: (num_heads, n, d_head) must be "
        "transposed to (n, num_heads, d_head) before reshaping to (n, d_model).",
        _concat_without_transpose),
    "missing_output_projection": (
        "The concatenated heads are never multiplied by W_o.",
        _no_output_projection),
    "column_softmax": (
        "The softmax normalises over the queries (axis -2) instead of the keys (axis -1).",
        _column_softmax),
}
