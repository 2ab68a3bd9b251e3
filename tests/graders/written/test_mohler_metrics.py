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
