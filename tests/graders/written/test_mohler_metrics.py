"""The benchmark's metrics and calibration fit (the benchmark itself is not part of the tests)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

bench = importlib.import_module("benchmarks.written_mohler")


def test_pearson_and_rmse() -> None:
    assert bench.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert bench.pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert bench.rmse([0, 0], [3, 4]) == pytest.approx(np.sqrt(12.5))


def test_calibration_recovers_a_linear_rule_and_clips() -> None:
    rng = np.random.default_rng(0)
    features = rng.uniform(0, 1, size=(200, 3))
    scores = 1 + 2 * features[:, 0] + 1.5 * features[:, 2]
    weights = bench.fit_calibration(features, scores)
    assert np.allclose(bench.predict(weights, features), np.clip(scores, 0, 5), atol=1e-6)
    assert bench.predict(weights, np.array([[10.0, 0.0, 10.0]]))[0] == 5.0
