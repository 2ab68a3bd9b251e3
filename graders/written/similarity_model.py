"""A calibrated map from an answer's similarity features to a share of points (the written
grader's `written_similarity_model` option, the shipped calibration's models)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def clip(value: float) -> float:
    return max(0.0, min(1.0, value))


@dataclass(frozen=True)
class SimilarityModel:
    """A calibrated map from reference features (see `features.FEATURES`) to a share of points.

    share = clip(intercept + sum of weight x term, 0, 1), where a term is a feature name or a
    product `a*b` of two (a square when a == b). Built by whoever calibrates it (the Mohler
    benchmark fits one by ridge regression) and handed to the grader as an option.
    """

    intercept: float
    weights: tuple[tuple[str, float], ...]

    @classmethod
    def from_mapping(cls, value: Mapping[str, Any]) -> SimilarityModel:
        weights = value["weights"]
        pairs = weights.items() if isinstance(weights, Mapping) else weights
        return cls(float(value["intercept"]), tuple((str(k), float(w)) for k, w in pairs))

    def predict(self, features: Mapping[str, float]) -> float:
        total = self.intercept
        for term, weight in self.weights:
            left, _, right = term.partition("*")
            total += weight * features[left] * (features[right] if right else 1.0)
        return clip(total)
