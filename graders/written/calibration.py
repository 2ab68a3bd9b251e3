"""The shipped calibration of reference-only grading: points from similarity, and confidence.

Both models are small sets of coefficients in `calibration.json` beside this module, fitted by
`benchmarks/written_mohler.py --fit` on the Mohler short answers of assignments 1-6 only
(assignments 7-12 are held out for the report in docs/benchmarks.md):
- `points`: a ridge regression from the reference features (`features.FEATURES`) to the human
  average, as a share of the item's points (`SimilarityModel`);
- `confidence`: a logistic regression that estimates the probability that the suggested points
  are within `AGREEMENT` of the item's points of what a careful grader gives, from what the
  grader sees (the suggested share and how extreme it is, the similarity and alignment
  features, the answer's length, a contradiction signal). It was fitted on out-of-fold
  suggestions (leave one assignment out within 1-6), so it has seen the points model's errors
  on answers it was not fitted on.

- `cohort` (optional): the same two models with the cohort features (`cohort.py`) added, used
  when the answer's whole cohort is known (a table or a bulk regrade; still no human grade),
  fitted the same way with each answer's cohort being its question's answers.

A confidence is therefore a probability, and a review threshold is a precision: the answers
graded automatically at threshold t agree with a careful grader at least about t of the time
(measured on the held-out assignments in docs/benchmarks.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from graders.written.scoring import SimilarityModel

# Agreement means within this share of the item's points (1 point of 5 on the Mohler scale).
AGREEMENT = 0.2
CONFIDENCE_FEATURES = ("share", "share*share", "best", "whole", "align_recall",
                       "align_precision", "recall", "length", "opposite", "words")
COHORT_CONFIDENCE_FEATURES = (*CONFIDENCE_FEATURES, "knn")


@dataclass(frozen=True)
class LogisticModel:
    """p = 1 / (1 + exp(-(intercept + sum of weight x term))), terms as in `SimilarityModel`."""

    intercept: float
    weights: tuple[tuple[str, float], ...]

    @classmethod
    def from_mapping(cls, value: Mapping[str, Any]) -> LogisticModel:
        weights = value["weights"]
        pairs = weights.items() if isinstance(weights, Mapping) else weights
        return cls(float(value["intercept"]), tuple((str(k), float(w)) for k, w in pairs))

    def probability(self, features: Mapping[str, float]) -> float:
        total = self.intercept
        for term, weight in self.weights:
            left, _, right = term.partition("*")
            total += weight * features[left] * (features[right] if right else 1.0)
        total = max(-30.0, min(30.0, total))
        return 1.0 / (1.0 + math.exp(-total))


@dataclass(frozen=True)
class CohortCalibration:
    """The points and confidence models that also read the cohort features."""

    points: SimilarityModel
    confidence: LogisticModel
    threshold_95: float


@dataclass(frozen=True)
class Calibration:
    points: SimilarityModel
    confidence: LogisticModel
    # The threshold at which auto-graded answers of the fitting data reached 95% agreement.
    threshold_95: float
    fitted_on: str
    cohort: CohortCalibration | None = None

    def points_model(self, cohort: bool) -> SimilarityModel:
        return self.cohort.points if cohort and self.cohort is not None else self.points

    def confidence_of(self, features: Mapping[str, float], share: float, opposite: bool,
                      words: int, cohort: bool = False) -> float:
        model = (self.cohort.confidence if cohort and self.cohort is not None
                 else self.confidence)
        return model.probability(confidence_features(features, share, opposite, words))


def confidence_features(features: Mapping[str, float], share: float, opposite: bool,
                        words: int) -> dict[str, float]:
    """The confidence model's inputs for one answer: the reference features, the suggested
    share of points, whether it may state the opposite of a reference, log(1 + its words)."""
    out = {name: float(value) for name, value in features.items()}
    out.update(share=share, opposite=1.0 if opposite else 0.0, words=math.log1p(words))
    return out


def calibration_from_mapping(value: Mapping[str, Any]) -> Calibration:
    cohort = value.get("cohort")
    return Calibration(
        points=SimilarityModel.from_mapping(value["points"]),
        confidence=LogisticModel.from_mapping(value["confidence"]),
        threshold_95=float(value["threshold_95"]),
        fitted_on=str(value.get("fitted_on", "")),
        cohort=None if cohort is None else CohortCalibration(
            points=SimilarityModel.from_mapping(cohort["points"]),
            confidence=LogisticModel.from_mapping(cohort["confidence"]),
            threshold_95=float(cohort["threshold_95"])),
    )


@cache
def shipped_calibration() -> Calibration:
    """The calibration fitted on Mohler assignments 1-6 (package data, read once)."""
    text = resources.files("graders.written").joinpath("calibration.json").read_text()
    return calibration_from_mapping(json.loads(text))
