"""The calibration that ships with the written grader (fitted on Mohler assignments 1-6)."""

from __future__ import annotations

import math

import pytest

from graders.written.calibration import (
    CONFIDENCE_FEATURES,
    LogisticModel,
    confidence_features,
    shipped_calibration,
)
from graders.written.features import FEATURES


def _features(value: float) -> dict[str, float]:
    return {name: value for name in FEATURES}


def test_shipped_calibration_says_what_it_was_fitted_on() -> None:
    calibration = shipped_calibration()
    assert "assignments [1, 2, 3, 4, 5, 6]" in calibration.fitted_on
    assert 0.5 <= calibration.threshold_95 < 1.0
    assert {term for term, _ in calibration.confidence.weights} == set(CONFIDENCE_FEATURES)


@pytest.mark.parametrize("value", [0.0, 0.3, 0.6, 0.9])
def test_points_share_and_confidence_are_bounded(value: float) -> None:
    calibration = shipped_calibration()
    share = calibration.points.predict(_features(value))
    assert 0.0 <= share <= 1.0
    confidence = calibration.confidence_of(_features(value), share, False, 12)
    assert 0.0 < confidence < 1.0


def test_a_closer_answer_is_worth_more() -> None:
    points = shipped_calibration().points
    assert points.predict(_features(0.8)) > points.predict(_features(0.3))


def test_logistic_model_is_the_logistic_of_its_terms() -> None:
    model = LogisticModel(0.5, (("a", 2.0), ("a*b", -1.0)))
    z = 0.5 + 2.0 * 0.3 - 1.0 * 0.3 * 2.0
    assert model.probability({"a": 0.3, "b": 2.0}) == pytest.approx(1 / (1 + math.exp(-z)))
    assert model.probability({"a": 1e6, "b": 0.0}) == pytest.approx(1.0)


def test_confidence_features_name_every_input_of_the_model() -> None:
    inputs = confidence_features(_features(0.5), 0.8, True, 20)
    for term in CONFIDENCE_FEATURES:
        for name in term.split("*"):
            assert name in inputs
    assert inputs["opposite"] == 1.0 and inputs["words"] == pytest.approx(math.log(21))
