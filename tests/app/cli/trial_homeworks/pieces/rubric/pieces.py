"""Reference and known bugs for the transformer-block-pieces homework (trusted, grading process
only)."""
from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


def _softmax(s: Array) -> Array:
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def _scores(q: Array, k: Array) -> Array:
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


def causal_attention(q: Array, k: Array, v: Array) -> Array:
    s = _scores(q, k)
    t = s.shape[-1]
    s = np.where(np.tril(np.ones((t, t), dtype=bool)), s, -np.inf)
    return _softmax(s) @ v


def _strict_mask(q: Array, k: Array, v: Array) -> Array:
    """Off by one: the diagonal masked too (the first query sees nothing: NaN)."""
    s = _scores(q, k)
    t = s.shape[-1]
    s = np.where(np.tril(np.ones((t, t), dtype=bool), k=-1), s, -1e9)
    return _softmax(s) @ v


def _future_mask(q: Array, k: Array, v: Array) -> Array:
    """The mask the wrong way round: each query sees itself and the future."""
    s = _scores(q, k)
    t = s.shape[-1]
    s = np.where(np.triu(np.ones((t, t), dtype=bool)), s, -np.inf)
    return _softmax(s) @ v


def _no_mask(q: Array, k: Array, v: Array) -> Array:
    return _softmax(_scores(q, k)) @ v


def _no_scale(q: Array, k: Array, v: Array) -> Array:
    return causal_attention(q * np.sqrt(q.shape[-1]), k, v)


def _softmax_over_queries(q: Array, k: Array, v: Array) -> Array:
    s = _scores(q, k)
    t = s.shape[-1]
    s = np.where(np.tril(np.ones((t, t), dtype=bool)), s, -np.inf)
    s = s - s.max(axis=-2, keepdims=True)
    e = np.exp(s)
    return (e / e.sum(axis=-2, keepdims=True)) @ v


def unbatched(inputs: dict[str, Any], sizes: dict[str, int], rng: np.random.Generator
              ) -> dict[str, Any]:
    """The (T, d) call: the first sequence of the drawn batch, without the batch axis."""
    return {name: np.array(value)[0] for name, value in inputs.items()}


ATTENTION_VARIANTS = {
    "strict_mask": ("The mask is off by one: it hides the diagonal too, so a token cannot "
                    "attend to itself and the first row has nothing to attend to.", _strict_mask),
    "future_mask": ("The mask is the wrong way round: each query attends to the later keys "
                    "(np.triu where np.tril was meant).", _future_mask),
    "no_mask": ("No causal mask: every query attends to every key.", _no_mask),
    "no_scale": ("The scores are not divided by sqrt(d).", _no_scale),
    "softmax_over_queries": ("The softmax normalises over the queries (axis -2), not over the "
                             "keys (the last axis).", _softmax_over_queries),
}


def layer_norm(x: Array, gamma: Array, beta: Array, eps: float = 1e-5) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def _eps_outside(x: Array, gamma: Array, beta: Array, eps: float = 1e-5) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    return gamma * (x - mean) / (x.std(axis=-1, keepdims=True) + eps) + beta


def _over_tokens(x: Array, gamma: Array, beta: Array, eps: float = 1e-5) -> Array:
    mean = x.mean(axis=-2, keepdims=True)
    var = x.var(axis=-2, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def _unbiased(x: Array, gamma: Array, beta: Array, eps: float = 1e-5) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True, ddof=1)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def constant_token(inputs: dict[str, Any], sizes: dict[str, int], rng: np.random.Generator
                   ) -> dict[str, Any]:
    """One token whose features are all equal: its variance is 0, only eps keeps it finite."""
    x = np.array(inputs["x"], dtype=float)
    x[0, 0, :] = 2.5
    return inputs | {"x": x}


def constant_token_gives_beta(inputs: dict[str, Any], observed: dict[str, Any],
                             reference: dict[str, Any]) -> tuple[bool, str]:
    """The constant token alone: the other tokens are the values check's."""
    y = np.asarray(observed["y"], dtype=float)
    if y.shape != np.shape(reference["y"]):
        return False, f"shape {y.shape}, expected {np.shape(reference['y'])}"
    token = y[0, 0]
    if np.allclose(token, inputs["beta"], rtol=1e-5, atol=1e-6):
        return True, ""
    return False, f"the constant token gives {np.round(token, 4).tolist()}, not beta"


LN_VARIANTS = {
    "eps_outside": ("eps is added to the standard deviation, not inside the square root.",
                    _eps_outside),
    "over_tokens": ("The statistics are taken over the tokens (axis -2), not over the features "
                    "of each token.", _over_tokens),
    "unbiased": ("The variance is the unbiased one (ddof=1); layer norm divides by d.",
                 _unbiased),
}
