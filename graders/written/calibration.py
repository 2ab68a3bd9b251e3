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
- `two_way`: for items of at most two steps (1 point with the default 0.5 step, or a step equal
  to the points), where "within a step" is no longer a useful notion of agreement: a logistic
  regression for the probability that a careful grader calls the answer correct (the human
  average at least `CORRECT_SHARE` of the points), per answer and with the cohort. Full credit
  from a probability `full_credit_from` (chosen for the best 2-way macro-F1 when fitted); the
  confidence is the probability of the verdict (full credit correct, or less than full credit
  correct). A full credit given with the cohort is auto-graded only where both models agree:
  its confidence is the lower of the two probabilities, held to `agreement_threshold` (an answer far
  from every reference statement goes to review, unless the reference is a fragment:
  `terse_reference_words`). Less
  than full credit is auto-graded only where both models say not correct, and its confidence
  is calibrated on how often such verdicts were right out of fold (`NotFull`): on Mohler they
  never reach 95%, so they go to review.

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

from graders.written.similarity_model import SimilarityModel

# Agreement means within this share of the item's points (1 point of 5 on the Mohler scale).
AGREEMENT = 0.2
_SIMILARITY_CONFIDENCE = ("share", "share*share", "best", "whole", "align_recall",
                          "align_precision", "recall", "length", "opposite", "words")
# The contextual alignment (`alignment.py`) in the per-answer and 2-way models; not in the
# 5-point cohort models, where it cost agreement on held-out data (docs/benchmarks.md).
CONFIDENCE_FEATURES = (*_SIMILARITY_CONFIDENCE, "ctx_recall", "ctx_precision")
COHORT_CONFIDENCE_FEATURES = (*_SIMILARITY_CONFIDENCE, "knn")
# The 2-way model (items of at most two steps, such as 1 point with the 0.5 step): the
# probability that a careful grader calls the answer correct, i.e. gives at least this share.
CORRECT_SHARE = 0.8
TWO_WAY_FEATURES = ("best", "whole", "align_recall", "align_precision", "recall", "hits_recall",
                    "length", "words", "opposite", "best*best", "align_recall*align_recall",
                    "ctx_recall", "ctx_precision")
COHORT_TWO_WAY_FEATURES = (*TWO_WAY_FEATURES, "knn", "centre")


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
class NotFull:
    """How sure the verdict "less than full credit" is, on an item of at most two steps: a
    calibrated probability that a careful grader calls the answer not correct, read from the
    logit of the 2-way model's P(not correct) (with the cohort, of 1 - the higher of the two
    probabilities of correct: both models must say not correct); and its review threshold,
    the lowest at which the fitting data's such verdicts erred at most 5% counted with one
    error added (out of fold), 1.0 when none did: then every such verdict goes to review."""

    model: LogisticModel  # one term, "against": the logit of P(not correct)
    threshold: float

    @classmethod
    def from_mapping(cls, value: Mapping[str, Any]) -> NotFull:
        return cls(LogisticModel.from_mapping(value), float(value["threshold"]))

    def confidence(self, not_correct: float) -> float:
        return self.model.probability({"against": logit(not_correct)})


def logit(probability: float) -> float:
    """log(p / (1 - p)), p kept within [1e-6, 1 - 1e-6]."""
    p = min(1.0 - 1e-6, max(1e-6, probability))
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class TwoWayCalibration:
    """P(correct) per answer and with the cohort; the thresholds at which the fitting data's
    auto-graded full credits were correct 95% of the time (out of fold)."""

    per_answer: LogisticModel
    cohort: LogisticModel
    threshold_95: float
    cohort_threshold_95: float
    # The probability of correct from which full credit is given (best 2-way macro-F1 when
    # fitted; one half when the file does not say).
    full_credit_from: float = 0.5
    cohort_full_credit_from: float = 0.5
    # The review threshold of a full credit given with the cohort, read on the agreement of
    # the two models (the lower of the two probabilities): the lowest at which the fitting
    # data's such full credits erred at most 5% with one error added (out of fold). None (a
    # calibration file from before it): the cohort's own threshold and bar (`scoring.py`).
    agreement_threshold: float | None = None
    # A reference statement of at most this many words is a fragment ("By reference.", "File
    # scope."): a full credit given with the cohort to an answer of such an item is held to
    # `agreement_threshold` without the bar of closeness to the reference (`scoring.terse`).
    # None (a calibration file from before it): that bar applies to every item.
    terse_reference_words: int | None = None
    # The verdict "less than full credit", per answer and with the cohort. None (a calibration
    # file from before it): its confidence is P(not correct), held to the threshold above.
    not_full: NotFull | None = None
    cohort_not_full: NotFull | None = None

    def cut(self, cohort: bool) -> float:
        return self.cohort_full_credit_from if cohort else self.full_credit_from

    def correct(self, features: Mapping[str, float], opposite: bool, words: int,
                cohort: bool) -> float:
        model = self.cohort if cohort else self.per_answer
        return model.probability(confidence_features(features, 0.0, opposite, words))


@dataclass(frozen=True)
class Calibration:
    points: SimilarityModel
    confidence: LogisticModel
    # The threshold at which auto-graded answers of the fitting data reached 95% agreement.
    threshold_95: float
    fitted_on: str
    cohort: CohortCalibration | None = None
    two_way: TwoWayCalibration | None = None

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
    two_way = value.get("two_way")
    return Calibration(
        points=SimilarityModel.from_mapping(value["points"]),
        confidence=LogisticModel.from_mapping(value["confidence"]),
        threshold_95=float(value["threshold_95"]),
        fitted_on=str(value.get("fitted_on", "")),
        cohort=None if cohort is None else CohortCalibration(
            points=SimilarityModel.from_mapping(cohort["points"]),
            confidence=LogisticModel.from_mapping(cohort["confidence"]),
            threshold_95=float(cohort["threshold_95"])),
        two_way=None if two_way is None else TwoWayCalibration(
            per_answer=LogisticModel.from_mapping(two_way["per_answer"]),
            cohort=LogisticModel.from_mapping(two_way["cohort"]),
            threshold_95=float(two_way["threshold_95"]),
            cohort_threshold_95=float(two_way["cohort_threshold_95"]),
            full_credit_from=float(two_way.get("full_credit_from", 0.5)),
            cohort_full_credit_from=float(two_way.get("cohort_full_credit_from", 0.5)),
            agreement_threshold=(None if two_way.get("agreement_threshold") is None
                                 else float(two_way["agreement_threshold"])),
            terse_reference_words=(None if two_way.get("terse_reference_words") is None
                                   else int(two_way["terse_reference_words"])),
            not_full=_not_full(two_way.get("not_full")),
            cohort_not_full=_not_full(two_way.get("cohort_not_full"))),
    )


def _not_full(value: Mapping[str, Any] | None) -> NotFull | None:
    return None if value is None else NotFull.from_mapping(value)


@cache
def shipped_calibration() -> Calibration:
    """The calibration fitted on Mohler assignments 1-6 (package data, read once)."""
    text = resources.files("graders.written").joinpath("calibration.json").read_text()
    return calibration_from_mapping(json.loads(text))
