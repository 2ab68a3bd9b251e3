"""Reference, known bugs and the mask-drawing function for
scaled_dot_product_attention(q, k, v, mask=None) on (batch, heads, n, d_k) inputs. Rubric
data: run only in the trusted grading process, never in the sandbox, on the inputs the
battery (sdpa.yaml) draws.

`mask` is boolean, True where a query may attend to a key, broadcast over batch and heads;
its default None means no mask. The battery passes it only in its `masked` cases, drawn by
`causal` below (the vocabulary draws arrays of numbers, not a triangle).
"""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


def _softmax(scores: Array) -> Array:
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _attend(q: Array, k: Array, v: Array, mask: Array | None, scale: float | None,
            keep: bool = True) -> tuple[Array, Array]:
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / (np.sqrt(d_k) if scale is None else scale)
    if mask is not None:
        scores = np.where(mask if keep else ~mask, scores, -1e9)
    weights = _softmax(scores)
    return weights @ v, weights


def scaled_dot_product_attention(q: Array, k: Array, v: Array, mask: Array | None = None
                                 ) -> tuple[Array, Array]:
    return _attend(q, k, v, mask, None)


def _no_scale(q: Array, k: Array, v: Array, mask: Array | None = None) -> tuple[Array, Array]:
    return _attend(q, k, v, mask, 1.0)


def _mask_inverted(q: Array, k: Array, v: Array, mask: Array | None = None
                   ) -> tuple[Array, Array]:
    return _attend(q, k, v, mask, None, keep=False)


def _mask_ignored(q: Array, k: Array, v: Array, mask: Array | None = None
                  ) -> tuple[Array, Array]:
    return _attend(q, k, v, None, None)


def causal(inputs: dict[str, Any], sizes: dict[str, int], rng: np.random.Generator
           ) -> dict[str, Any]:
    """The `adjust` of the masked cases: a causal (n, m) mask, True on and below the
    diagonal."""
    inputs["mask"] = np.tril(np.ones((sizes["n"], sizes["m"]), dtype=bool))
    return inputs


# name -> (feedback, implementation, *other spellings of the same mistake)
VARIANTS: dict[str, tuple[Any, ...]] = {
    "missing_scale": ("The scores are not divided by sqrt(d_k) before the softmax.", _no_scale),
    "mask_inverted": ("The mask is applied the wrong way round: True marks the keys a query "
                      "may attend to, so the scores where it is False are set to a large "
                      "negative number.", _mask_inverted),
    "mask_ignored": ("The mask argument is never applied.", _mask_ignored),
}
