"""Homework 4 - Ben"""
from __future__ import annotations
import numpy as np
from numpy.typing import NDArray


# Q1
class Embedding:
    def __init__(self, vocab: int, d: int, rng: np.random.Generator) -> None:
        self.vocab, self.d = vocab, d
        self.W: NDArray[np.float64] = rng.standard_normal((vocab, d))

    def forward(self, ids: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.take(self.W, ids, axis=0)


# Q2
class FeedForward:
    def __init__(self, d: int, d_ff: int, rng: np.random.Generator) -> None:
        self.W1 = rng.standard_normal((d, d_ff)) / np.sqrt(d)
        self.W2 = rng.standard_normal((d_ff, d)) / np.sqrt(d_ff)
        self.b1 = np.zeros(d_ff)
        self.b2 = np.zeros(d)

    @staticmethod
    def relu(z: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.where(z > 0, z, 0.0)

    def forward(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.relu(x @ self.W1 + self.b1) @ self.W2 + self.b2


# Q3
class KVCache:
    def __init__(self, d: int) -> None:
        self.d = d
        self.keys: list[NDArray[np.float64]] = []
        self.values: list[NDArray[np.float64]] = []

    def append(self, k: NDArray[np.float64], v: NDArray[np.float64]):
        self.keys.append(k)
        self.values.append(v)
        return np.vstack(self.keys), np.vstack(self.values)

    def __len__(self) -> int:
        return sum(len(k) for k in self.keys)


# Q4
class SinusoidalPositions:
    def __init__(self, d_model: int) -> None:
        self.d_model = d_model

    def forward(self, T: int) -> NDArray[np.float64]:
        pe = np.empty((T, self.d_model))
        for pos in range(T):
            for i in range(0, self.d_model, 2):
                angle = pos / (10000 ** (i / self.d_model))
                pe[pos, i] = np.sin(angle)
                pe[pos, i + 1] = np.cos(angle)
        return pe


# Q5: 512*2048 + 2048 + 2048*512 + 512 = 2099712
# Q6: without a cache every step would recompute the keys and values of the whole prefix.
# The old keys and values never change, so we keep them and only project the newest token.
