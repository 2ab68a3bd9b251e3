"""References and known bugs for four NumPy layers written as classes: `Embedding` (a table
drawn from the rng), `FeedForward` (two linear layers with a ReLU, W1 drawn before W2),
`KVCache` (keys and values kept across calls) and `SinusoidalPositions`. Rubric data: run only
in the trusted grading process, never in the sandbox."""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


class Embedding:
    def __init__(self, vocab: int, d: int, rng: np.random.Generator) -> None:
        self.W = rng.standard_normal((vocab, d))

    def forward(self, ids: Array) -> Array:
        return self.W[ids]


class _EmbeddingTransposedDraw(Embedding):
    def __init__(self, vocab: int, d: int, rng: np.random.Generator) -> None:
        self.W = rng.standard_normal((d, vocab)).T


class _EmbeddingScaled(Embedding):
    def forward(self, ids: Array) -> Array:
        return self.W[ids] * np.sqrt(self.W.shape[1])


class FeedForward:
    def __init__(self, d: int, d_ff: int, rng: np.random.Generator) -> None:
        self.W1 = rng.standard_normal((d, d_ff)) / np.sqrt(d)
        self.b1 = np.zeros(d_ff)
        self.W2 = rng.standard_normal((d_ff, d)) / np.sqrt(d_ff)
        self.b2 = np.zeros(d)

    def forward(self, x: Array) -> Array:
        return np.maximum(0.0, x @ self.W1 + self.b1) @ self.W2 + self.b2


class _NoActivation(FeedForward):
    def forward(self, x: Array) -> Array:
        return (x @ self.W1 + self.b1) @ self.W2 + self.b2


class _Gelu(FeedForward):
    def forward(self, x: Array) -> Array:
        h = x @ self.W1 + self.b1
        h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
        return h @ self.W2 + self.b2


class _Unscaled(FeedForward):
    def __init__(self, d: int, d_ff: int, rng: np.random.Generator) -> None:
        super().__init__(d, d_ff, rng)
        self.W1 = self.W1 * np.sqrt(d)
        self.W2 = self.W2 * np.sqrt(d_ff)


class KVCache:
    def __init__(self, d: int) -> None:
        self.K = np.zeros((0, d))
        self.V = np.zeros((0, d))

    def append(self, k: Array, v: Array) -> tuple[Array, Array]:
        self.K = np.concatenate([self.K, k])
        self.V = np.concatenate([self.V, v])
        return self.K, self.V


class _NotKept(KVCache):
    def append(self, k: Array, v: Array) -> tuple[Array, Array]:
        return k, v


class _Twice(KVCache):
    def append(self, k: Array, v: Array) -> tuple[Array, Array]:
        self.K = np.concatenate([self.K, k, k])
        self.V = np.concatenate([self.V, v, v])
        return self.K, self.V


class _Prepended(KVCache):
    def append(self, k: Array, v: Array) -> tuple[Array, Array]:
        self.K = np.concatenate([k, self.K])
        self.V = np.concatenate([v, self.V])
        return self.K, self.V


class SinusoidalPositions:
    def __init__(self, d_model: int) -> None:
        self.d_model = d_model

    def forward(self, T: int) -> Array:
        pos = np.arange(T)[:, None]
        i = np.arange(0, self.d_model, 2)[None, :]
        angle = pos / 10000 ** (i / self.d_model)
        pe = np.zeros((T, self.d_model))
        pe[:, 0::2] = np.sin(angle)
        pe[:, 1::2] = np.cos(angle)
        return pe


class _Halves(SinusoidalPositions):
    def forward(self, T: int) -> Array:
        pe = SinusoidalPositions.forward(self, T)
        return np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)


class _ExponentOfIndex(SinusoidalPositions):
    def forward(self, T: int) -> Array:
        pos = np.arange(T)[:, None]
        i = np.arange(self.d_model // 2)[None, :]
        angle = pos / 10000 ** (i / self.d_model)
        pe = np.zeros((T, self.d_model))
        pe[:, 0::2] = np.sin(angle)
        pe[:, 1::2] = np.cos(angle)
        return pe


EMBEDDING_BUGS = {
    "transposed_draw": ("W is drawn with shape (d, vocab) and transposed: draw it as "
                        "rng.standard_normal((vocab, d)).", _EmbeddingTransposedDraw),
    "scaled": ("The rows are multiplied by sqrt(d); the question asks for the rows of W as "
               "drawn.", _EmbeddingScaled),
}
FFN_BUGS = {
    "no_activation": ("There is no ReLU between the two linear layers, so the block is one "
                      "linear map.", _NoActivation),
    "gelu": ("GELU is used where the question asks for ReLU.", _Gelu),
    "unscaled": ("The weights are not divided by the square root of their fan-in "
                 "(sqrt(d) for W1, sqrt(d_ff) for W2).", _Unscaled),
}
CACHE_BUGS = {
    "not_kept": ("append returns only this call's keys and values: the cache must keep those "
                 "of earlier calls.", _NotKept),
    "twice": ("Each call's keys and values are stored twice.", _Twice),
    "prepended": ("New keys and values are put before the cached ones; append them after.",
                  _Prepended),
}
POSITION_BUGS = {
    "halves": ("The sines fill the first half of the columns and the cosines the second; "
               "they alternate (sin in even columns, cos in odd).", _Halves),
    "exponent": ("The exponent uses the pair index i/d_model instead of 2i/d_model.",
                 _ExponentOfIndex),
}


def keys_and_values_kept(inputs: dict[str, Any], observed: dict[str, Any],
                         reference: dict[str, Any]) -> tuple[bool, str]:
    """Both of the cache's returns equal the reference's (the K check alone misses a V kept
    wrong)."""
    for name in ("K", "V"):
        got = np.asarray(observed.get(name))
        want = reference[name]
        if got.shape != want.shape:
            return False, f"{name} has shape {got.shape}, expected {want.shape}"
        if not np.allclose(got, want):
            return False, f"{name} differs from the cache's expected contents"
    return True, ""
