"""The benchmark's metrics and calibration fit (the benchmark itself is not part of the tests)."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

bench = importlib.import_module("benchmarks.written_mohler")
fit = importlib.import_module("benchmarks.mohler_fit")


def test_pearson_and_rmse() -> None:
    assert bench.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert bench.pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert bench.rmse([0, 0], [3, 4]) == pytest.approx(np.sqrt(12.5))


def test_ridge_calibration_recovers_a_linear_rule_as_a_share_of_points() -> None:
    rng = np.random.default_rng(0)
    features = rng.uniform(0, 1, size=(400, 2))
    scores = 1 + 2 * features[:, 0] + 1.5 * features[:, 1]
    model = bench.fit_ridge(features, scores, ("best", "whole"), alpha=1e-6)
    for row, score in zip(features, scores, strict=True):
        share = model.predict({"best": float(row[0]), "whole": float(row[1])})
        assert share == pytest.approx(score / 5, abs=1e-4)
    assert model.predict({"best": 10.0, "whole": 10.0}) == 1.0  # clipped to the item's points


def test_exemplar_split_is_a_fixed_fifth_of_each_question() -> None:
    rows = [{"id": f"{q}.1"} for q in (1, 2) for _ in range(10)]
    chosen = bench.exemplar_split(rows)
    assert chosen[:10].sum() == 2 and chosen[10:].sum() == 2
    assert np.array_equal(chosen, bench.exemplar_split(rows))


def test_auroc_counts_ordered_pairs_and_ties() -> None:
    assert bench.auroc([0.9, 0.8, 0.2, 0.1], [True, True, False, False]) == 1.0
    assert bench.auroc([0.1, 0.2, 0.8, 0.9], [True, True, False, False]) == 0.0
    assert bench.auroc([0.5, 0.5], [True, False]) == 0.5


def test_logistic_fit_recovers_a_known_rule() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4000, 2))
    p = 1 / (1 + np.exp(-(0.5 + 2.0 * x[:, 0] - 1.0 * x[:, 1])))
    y = (rng.uniform(size=len(p)) < p).astype(float)
    model = bench.fit_logistic(x, y, ("a", "b"), l2=1e-6)
    assert model.intercept == pytest.approx(0.5, abs=0.15)
    assert dict(model.weights) == pytest.approx({"a": 2.0, "b": -1.0}, abs=0.2)


def test_threshold_is_the_lowest_that_reaches_the_precision() -> None:
    confidence = np.array([0.95, 0.9, 0.8, 0.7, 0.6])
    right = np.array([True, True, True, False, False])
    assert bench.precision_threshold(confidence, right, 0.95) == 0.705  # the 0.005 grid
    assert bench.precision_threshold(confidence, right, 0.6) == 0.5  # all five: 3 of 5


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.booleans()), min_size=1, max_size=40),
       st.sampled_from([0.6, 0.8, 0.95]))
def test_threshold_is_the_lowest_grid_point_that_reaches_the_target(
        pairs: list[tuple[float, bool]], target: float) -> None:
    confidence = np.array([c for c, _ in pairs])
    right = np.array([r for _, r in pairs])
    grid = fit.threshold_grid()
    assert grid[0] == 0.5 and grid[-1] < 1.0
    assert all(b - a == pytest.approx(fit.THRESHOLD_STEP) for a, b in itertools.pairwise(grid))

    def reaches(threshold: float) -> bool:
        chosen = confidence >= threshold
        return bool(chosen.any()) and float(right[chosen].mean()) >= target

    threshold = bench.precision_threshold(confidence, right, target)
    assert threshold in grid
    below = [t for t in grid if t < threshold]
    assert not any(reaches(t) for t in below)
    assert reaches(threshold) or threshold == grid[-1]


def test_two_way_threshold_reads_the_same_grid_above_the_full_credit_cut() -> None:
    probability = np.array([0.99, 0.93, 0.91, 0.8, 0.7])
    correct = np.array([True, True, True, False, True])
    # Full credits from the cut 0.75: the 0.8 answer is wrong; above 0.8, all three right.
    assert fit._two_way_threshold(probability, correct, 0.75) == 0.805
    # A cut above every wrong full credit: the grid's lowest point.
    assert fit._two_way_threshold(probability, correct, 0.85) == 0.5


def test_two_way_macro_f1() -> None:
    truth = np.array([True, True, False, False])
    assert bench.macro_f1(truth, truth) == pytest.approx(1.0)
    assert bench.macro_f1(~truth, truth) == pytest.approx(0.0)
    # Everything called correct: F1 2/3 for "correct", 0 for "incorrect".
    assert bench.macro_f1(np.ones(4, dtype=bool), truth) == pytest.approx(1 / 3)


@settings(max_examples=100, deadline=None)
@given(data=st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1,
                     max_size=60))
def test_transfer_cells_count_every_auto_graded_verdict_and_its_errors(
        data: list[tuple[bool, bool, bool]]) -> None:
    transfer = importlib.import_module("benchmarks.written_transfer")
    full = np.array([f for f, _, _ in data])
    review = np.array([r for _, r, _ in data])
    truth = np.array([t for _, _, t in data])
    cells = transfer._cells(full, review, truth)
    auto = [(f, t) for f, r, t in data if not r]
    full_auto = [t for f, t in auto if f]
    other_auto = [t for f, t in auto if not f]
    assert cells["auto_full"] == len(full_auto) and cells["auto_other"] == len(other_auto)
    # A full credit is wrong when the answer is not correct; less than full, when it is.
    wrong_full = sum(not t for t in full_auto)
    wrong_other = sum(other_auto)
    assert cells["wrong_auto_full"] == pytest.approx(wrong_full / max(1, len(full_auto)))
    assert cells["wrong_auto_other"] == pytest.approx(wrong_other / max(1, len(other_auto)))
    assert cells["wrong_auto"] == pytest.approx((wrong_full + wrong_other) / max(1, len(auto)))
    assert cells["review"] == pytest.approx(sum(r for _, r, _ in data) / len(data))
