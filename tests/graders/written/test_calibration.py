"""The calibration that ships with the written grader (fitted on Mohler assignments 1-6)."""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.mohler_fit import (
    agreement_threshold,
    fit_calibration,
    fit_not_full,
    threshold_grid,
)
from graders.written.calibration import (
    COHORT_CONFIDENCE_FEATURES,
    COHORT_TWO_WAY_FEATURES,
    CONFIDENCE_FEATURES,
    TWO_WAY_FEATURES,
    LogisticModel,
    calibration_from_mapping,
    confidence_features,
    shipped_calibration,
)
from graders.written.cohort import COHORT_FEATURES
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


def test_shipped_calibration_has_its_cohort_and_two_way_models() -> None:
    calibration = shipped_calibration()
    assert calibration.cohort is not None and calibration.two_way is not None
    assert {t for t, _ in calibration.cohort.confidence.weights} == set(
        COHORT_CONFIDENCE_FEATURES)
    assert {t for t, _ in calibration.two_way.cohort.weights} == set(COHORT_TWO_WAY_FEATURES)
    assert {t for t, _ in calibration.two_way.per_answer.weights} == set(TWO_WAY_FEATURES)
    for threshold in (calibration.cohort.threshold_95, calibration.two_way.threshold_95,
                      calibration.two_way.cohort_threshold_95):
        assert 0.5 <= threshold < 1.0


def test_shipped_thresholds_are_points_of_the_fits_grid() -> None:
    # The shipped file is what `--fit` writes: its thresholds come from the fit's grid.
    calibration = shipped_calibration()
    assert calibration.cohort is not None and calibration.two_way is not None
    grid = threshold_grid()
    for threshold in (calibration.threshold_95, calibration.cohort.threshold_95,
                      calibration.two_way.threshold_95, calibration.two_way.cohort_threshold_95,
                      calibration.two_way.agreement_threshold):
        assert threshold in grid


def test_a_fit_file_without_the_optional_sections_uses_the_per_answer_models() -> None:
    shipped = json.loads(resources.files("graders.written").joinpath(
        "calibration.json").read_text())
    bare = {k: v for k, v in shipped.items() if k not in ("cohort", "two_way")}
    calibration = calibration_from_mapping(bare)
    assert calibration.cohort is None and calibration.two_way is None
    assert calibration.points_model(True) is calibration.points
    features = {**_features(0.5), "knn": 0.9, "centre": 0.9}
    assert calibration.confidence_of(features, 0.8, False, 10, cohort=True) == \
        calibration.confidence_of(features, 0.8, False, 10)
    with pytest.raises(KeyError):
        calibration_from_mapping({**bare, "cohort": {"points": shipped["points"]}})


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 1000))
def test_a_fit_on_any_graded_answers_loads_back(seed: int) -> None:
    rng = np.random.default_rng(seed)
    count = 120
    features = {name: rng.uniform(0, 1, count) for name in (*FEATURES, *COHORT_FEATURES)}
    features["words"] = rng.integers(1, 60, count).astype(float)
    features["opposite"] = (rng.uniform(0, 1, count) < 0.1).astype(float)
    human = np.clip(np.round(5 * features["best"] + rng.normal(0, 1, count)) / 1, 0, 5)
    assignment = np.repeat(np.arange(1, 5), count // 4)
    fitted = fit_calibration(features, human, assignment)
    calibration = calibration_from_mapping(json.loads(json.dumps(fitted)))
    assert calibration.cohort is not None and calibration.two_way is not None
    one = {name: float(values[0]) for name, values in features.items()}
    share = calibration.points_model(True).predict(one)
    assert 0.0 <= share <= 1.0
    assert 0.0 < calibration.two_way.correct(one, False, 10, True) < 1.0
    assert calibration.two_way.agreement_threshold in threshold_grid()
    for not_full in (calibration.two_way.not_full, calibration.two_way.cohort_not_full):
        assert not_full is not None
        assert not_full.threshold in [*threshold_grid(), 1.0]
        assert 0.0 < not_full.confidence(0.9) < 1.0


def test_a_two_way_section_without_the_calibrated_not_full_verdict_loads_without_it() -> None:
    # A calibration file fitted before it: P(not correct) and the full credits' threshold
    # apply (scoring.py), as in written grader version 10.
    shipped = json.loads(resources.files("graders.written").joinpath(
        "calibration.json").read_text())
    older = {k: v for k, v in shipped["two_way"].items()
             if k not in ("not_full", "cohort_not_full")}
    calibration = calibration_from_mapping({**shipped, "two_way": older})
    assert calibration.two_way is not None
    assert calibration.two_way.not_full is None and calibration.two_way.cohort_not_full is None
    two_way = shipped_calibration().two_way
    assert two_way is not None and two_way.not_full is not None
    assert two_way.cohort_not_full is not None


@settings(max_examples=50, deadline=None)
@given(data=st.lists(st.tuples(st.floats(0.001, 0.999), st.booleans(), st.booleans()),
                     max_size=300))
def test_the_not_full_verdict_is_calibrated_and_risk_controlled(
        data: list[tuple[float, bool, bool]]) -> None:
    not_correct = np.array([p for p, _, _ in data], dtype=float)
    given_ = np.array([g for _, g, _ in data], dtype=bool)
    right = np.array([r for _, _, r in data], dtype=bool)
    fitted = fit_not_full(not_correct, given_, right)
    calibration = calibration_from_mapping({**json.loads(resources.files(
        "graders.written").joinpath("calibration.json").read_text())})
    assert calibration.two_way is not None
    model = LogisticModel.from_mapping(fitted)
    threshold = fitted["threshold"]
    assert threshold in [*threshold_grid(), 1.0]
    confidence = np.array([model.probability({"against": float(np.log(p / (1 - p)))})
                           for p in not_correct])
    chosen = given_ & (confidence >= threshold)
    # The verdicts it would auto-grade err at most 5% counted with one error added; none when
    # no grid point does (threshold 1.0), and none when fewer than 19 verdicts could be.
    if threshold < 1.0:
        assert ((chosen & ~right).sum() + 1) / (chosen.sum() + 1) <= 0.05
    else:
        assert not chosen.any()
    if int(given_.sum()) < 19:
        assert threshold == 1.0


def test_a_two_way_section_without_the_agreement_threshold_loads_without_it() -> None:
    # A calibration file fitted before the agreement threshold: the rule before it applies
    # (scoring.py), not a threshold made up here.
    shipped = json.loads(resources.files("graders.written").joinpath(
        "calibration.json").read_text())
    older = {k: v for k, v in shipped["two_way"].items() if k != "agreement_threshold"}
    calibration = calibration_from_mapping({**shipped, "two_way": older})
    assert calibration.two_way is not None and calibration.two_way.agreement_threshold is None
    assert shipped_calibration().two_way is not None
    assert shipped_calibration().two_way.agreement_threshold is not None


@settings(max_examples=50, deadline=None)
@given(data=st.lists(st.tuples(st.floats(0, 1), st.booleans(), st.booleans()), max_size=300))
def test_the_agreement_threshold_is_the_lowest_that_bounds_the_error_with_one_added(
        data: list[tuple[float, bool, bool]]) -> None:
    agreement = np.array([a for a, _, _ in data], dtype=float)
    full = np.array([f for _, f, _ in data], dtype=bool)
    correct = np.array([c for _, _, c in data], dtype=bool)
    threshold = agreement_threshold(agreement, full, correct)
    grid = threshold_grid()
    assert threshold in grid

    def bound(at: float) -> float:
        chosen = full & (agreement >= at)
        return float(((chosen & ~correct).sum() + 1) / (chosen.sum() + 1))

    for lower in grid[:grid.index(threshold)]:
        assert bound(lower) > 0.05  # no lower grid point meets the target
    if threshold < grid[-1]:
        assert bound(threshold) <= 0.05
    # Fewer than 19 full credits can never meet it, even with no error: all to review.
    if int(full.sum()) < 19:
        assert threshold == grid[-1]
