"""Reference and known bugs for `class LayerNorm` with `__init__(self, d, eps=1e-5)` and
`forward(self, x)`: each row of x normalised over its last axis, then scaled by `gamma` (ones)
and shifted by `beta` (zeros), both set in `__init__`. Rubric data: run only in the trusted
grading process, never in the sandbox."""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


class LayerNorm:
    def __init__(self, d: int, eps: float = 1e-5) -> None:
        self.gamma = np.ones(d)
        self.beta = np.zeros(d)
        self.eps = eps

    def forward(self, x: Array) -> Array:
        mean = x.mean(axis=-1, keepdims=True)
        var = x.var(axis=-1, keepdims=True)
        return self.gamma * (x - mean) / np.sqrt(var + self.eps) + self.beta


class _StdOutsideRoot(LayerNorm):
    def forward(self, x: Array) -> Array:
        mean = x.mean(axis=-1, keepdims=True)
        return self.gamma * (x - mean) / (x.std(axis=-1, keepdims=True) + self.eps) + self.beta


class _WholeArray(LayerNorm):
    def forward(self, x: Array) -> Array:
        return self.gamma * (x - x.mean()) / np.sqrt(x.var() + self.eps) + self.beta


# name -> (feedback, class with the same method)
VARIANTS = {
    "eps_outside_root": ("eps is added to the standard deviation, not to the variance under "
                         "the square root.", _StdOutsideRoot),
    "whole_array": ("The mean and variance are taken over the whole array, not over each row's "
                    "features (the last axis).", _WholeArray),
}
