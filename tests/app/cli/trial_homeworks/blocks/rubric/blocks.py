"""Reference and known bugs for the building-blocks homework (trusted, grading process only)."""
from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


def layer_norm(x: Array, gamma: Array, beta: Array, eps: float = 1e-5) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def _eps_outside(x: Array, gamma: Array, beta: Array, eps: float = 1e-5) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    return gamma * (x - mean) / (x.std(axis=-1, keepdims=True) + eps) + beta


def _unbiased(x: Array, gamma: Array, beta: Array, eps: float = 1e-5) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True, ddof=1)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def _wrong_axis(x: Array, gamma: Array, beta: Array, eps: float = 1e-5) -> Array:
    mean = x.mean(axis=0, keepdims=True)
    var = x.var(axis=0, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def constant_row(inputs: dict[str, Any], sizes: dict[str, int], rng: np.random.Generator
                 ) -> dict[str, Any]:
    """A row whose entries are all equal: its variance is 0, so only eps keeps it finite."""
    x = np.array(inputs["x"], dtype=float)
    x[0, :] = 3.0
    inputs["x"] = x
    return inputs


LN_VARIANTS = {
    "eps_outside": (
        "eps is added to the standard deviation, not inside the square root.",
        _eps_outside),
    "unbiased": ("The variance is the unbiased one (ddof=1); layer norm divides by d.", _unbiased),
    "wrong_axis": (
        "The statistics are taken over the batch axis, not over the features.",
        _wrong_axis),
}


def causal_mask(n: int) -> Array:
    return np.tril(np.ones((n, n), dtype=bool))


def _strict(n: int) -> Array:
    return np.tril(np.ones((n, n), dtype=bool), k=-1)


def _upper(n: int) -> Array:
    return np.triu(np.ones((n, n), dtype=bool))


MASK_VARIANTS = {
    "no_diagonal": (
        "A position must be allowed to attend to itself (the diagonal is True).",
        _strict),
    "inverted": (
        "True marks the future here: True must mean 'may attend' (on and below the diagonal).",
        _upper),
}


def softmax(x: Array, *, temperature: float = 1.0) -> Array:
    z = x / temperature
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _times_t(x: Array, *, temperature: float = 1.0) -> Array:
    z = x * temperature
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _whole_array(x: Array, *, temperature: float = 1.0) -> Array:
    z = x / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


SOFTMAX_VARIANTS = {
    "multiplied": ("The logits are multiplied by the temperature; divide by it.", _times_t),
    "whole_array": (
        "The softmax is normalised over the whole array, not over each row.",
        _whole_array),
}


def top_k(logits: Array, k: int) -> tuple[Array, Array]:
    idx = np.argsort(-logits, kind="stable")[:k]
    return logits[idx], idx


def _ascending(logits: Array, k: int) -> tuple[Array, Array]:
    idx = np.argsort(logits, kind="stable")[-k:]
    return logits[idx], idx


TOPK_VARIANTS = {
    "ascending": (
        "The k largest are returned smallest first; return them largest first.",
        _ascending),
}
