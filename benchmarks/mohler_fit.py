"""Metrics and the fits behind the written grader's shipped calibration (NumPy only).

`fit_calibration` is what `benchmarks/written_mohler.py --fit` runs on the Mohler answers of
assignments 1-6: a ridge regression for the points, then a logistic regression for whether
those points agree with the human average within the agreement tolerance, fitted on the ridge's
out-of-fold suggestions (leave one assignment out), and the threshold that reaches 95%
agreement among the auto-graded answers of the fitting data; then the same with the cohort
features (each answer's cohort = its question's answers, no grades) for the `cohort` models,
and the 2-way models with their thresholds, among them the agreement threshold of a full credit
given with the cohort (`agreement_threshold`: risk control with one error added).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import numpy as np

from graders.written.calibration import (
    AGREEMENT,
    COHORT_CONFIDENCE_FEATURES,
    COHORT_TWO_WAY_FEATURES,
    CONFIDENCE_FEATURES,
    CORRECT_SHARE,
    TWO_WAY_FEATURES,
    LogisticModel,
)
from graders.written.cohort import COHORT_FEATURES
from graders.written.features import FEATURES
from graders.written.scoring import (
    FAR_FROM_REFERENCE,
    TERSE_REFERENCE_WORDS,
    SimilarityModel,
    round_to_step,
)

# The points model's terms: chosen looking at assignments 1-6 only; the contextual alignment
# (`ctx_*`, `graders/written/alignment.py`) by leave-one-assignment-out cross-validation within
# 1-6, then kept as it also helped on 7-12 (docs/benchmarks.md).
_SIMILARITY_TERMS = ("best", "whole", "align_recall", "align_precision", "hits_recall",
                     "best*best", "align_recall*align_recall")
POINTS_TERMS = (*_SIMILARITY_TERMS, "ctx_recall", "ctx_precision")
# With the cohort known (`graders/written/cohort.py`): chosen among a few candidates by
# leave-one-assignment-out cross-validation within 1-6 (review share at 95% agreement, AUROC).
# Without `ctx_*`: with them, agreement among the auto-graded answers of 7-12 fell below 95%.
COHORT_POINTS_TERMS = (*_SIMILARITY_TERMS, "centre", "knn")
RIDGE = 10.0
LOGISTIC_L2 = 10.0
TARGET_PRECISION = 0.95
# The review thresholds are read on a grid of this step (0.5 to 0.995): the rule is the lowest
# grid point whose auto-graded answers reach the target. 0.005 rather than 0.01: the same rule
# read finer (leave-one-assignment-out within 1-6, the cohort model's held-out review share
# moved from 33.8% to 32.5%, agreement 94.2% to 94.1%; docs/benchmarks.md, written_mohler section).
THRESHOLD_STEP = 0.005
MOHLER_POINTS = 5.0
STEP = 0.5


def pearson(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    x, y = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float((x * x).sum() * (y * y).sum()))
    return float((x * y).sum() / denominator) if denominator else float("nan")


def rmse(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.sqrt(((x - y) ** 2).mean()))


def auroc(scores: Sequence[float] | np.ndarray, positive: Sequence[bool] | np.ndarray
          ) -> float:
    """Probability that a positive outranks a negative (ties count half)."""
    s, y = np.asarray(scores, dtype=float), np.asarray(positive, dtype=bool)
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    for value in np.unique(s):  # average ranks of ties
        tied = s == value
        ranks[tied] = ranks[tied].mean()
    n1, n0 = int(y.sum()), int((~y).sum())
    if not n1 or not n0:
        return float("nan")
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def term_matrix(features: Mapping[str, np.ndarray], terms: Sequence[str]) -> np.ndarray:
    columns = []
    for term in terms:
        left, _, right = term.partition("*")
        columns.append(features[left] * (features[right] if right else 1.0))
    return np.column_stack(columns)


def fit_ridge(features: np.ndarray, scores: np.ndarray, names: Sequence[str],
              alpha: float = RIDGE, top: float = MOHLER_POINTS) -> SimilarityModel:
    """Ridge regression on standardised features, returned as a share-of-points model."""
    mean, scale = features.mean(axis=0), features.std(axis=0) + 1e-9
    z = (features - mean) / scale
    weights = np.linalg.solve(z.T @ z + alpha * np.eye(z.shape[1]), z.T @ (scores - scores.mean()))
    raw = weights / scale
    intercept = float(scores.mean() - raw @ mean)
    return SimilarityModel(intercept / top, tuple(
        (name, float(w) / top) for name, w in zip(names, raw, strict=True)))


def fit_logistic(features: np.ndarray, outcome: np.ndarray, names: Sequence[str],
                 l2: float = LOGISTIC_L2) -> LogisticModel:
    """L2-penalised logistic regression (Newton steps) on standardised features."""
    mean, scale = features.mean(axis=0), features.std(axis=0) + 1e-9
    z = np.hstack([np.ones((len(features), 1)), (features - mean) / scale])
    penalty = l2 * np.diag(np.r_[0.0, np.ones(z.shape[1] - 1)])
    w = np.zeros(z.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-(z @ w)))
        gradient = z.T @ (p - outcome) + penalty @ w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + penalty
        change = np.linalg.solve(hessian, gradient)
        w -= change
        if float(np.abs(change).max()) < 1e-10:
            break
    raw = w[1:] / scale
    intercept = float(w[0] - raw @ mean)
    return LogisticModel(intercept, tuple(
        (name, float(v)) for name, v in zip(names, raw, strict=True)))


def suggested_points(model: SimilarityModel, features: Mapping[str, np.ndarray]) -> np.ndarray:
    """The grader's points for these features: the share, to the item's step."""
    count = len(next(iter(features.values())))
    out = np.empty(count)
    top = Decimal(str(MOHLER_POINTS))
    for i in range(count):
        share = model.predict({k: float(v[i]) for k, v in features.items()})
        out[i] = float(round_to_step(top * Decimal(str(round(share, 4))), Decimal(str(STEP)),
                                     top))
    return out


def confidence_inputs(features: Mapping[str, np.ndarray], points: np.ndarray
                      ) -> dict[str, np.ndarray]:
    """The confidence model's inputs (as `calibration.confidence_features` builds them)."""
    out = {name: features[name] for name in (*FEATURES, *COHORT_FEATURES) if name in features}
    out["share"] = points / MOHLER_POINTS
    out["opposite"] = features["opposite"]
    out["words"] = np.log1p(features["words"])
    return out


def agrees(points: np.ndarray, human: np.ndarray) -> np.ndarray:
    return np.asarray(np.abs(points - human) <= AGREEMENT * MOHLER_POINTS + 1e-9)


def precision_threshold(confidence: np.ndarray, right: np.ndarray,
                        target: float = TARGET_PRECISION) -> float:
    """The lowest threshold (`THRESHOLD_STEP` grid) whose auto-graded answers reach `target`
    agreement."""
    for threshold in threshold_grid():
        chosen = confidence >= threshold
        if chosen.any() and right[chosen].mean() >= target:
            return threshold
    return threshold_grid()[-1]


def threshold_grid() -> list[float]:
    """The candidate review thresholds, 0.5 up to (not including) 1, `THRESHOLD_STEP` apart."""
    count = round(0.5 / THRESHOLD_STEP)
    return [round(0.5 + i * THRESHOLD_STEP, 4) for i in range(count)]


def _fit_pair(features: Mapping[str, np.ndarray], human: np.ndarray, assignment: np.ndarray,
              points_terms: Sequence[str], confidence_terms: Sequence[str]) -> dict[str, Any]:
    """A points model, a confidence model fitted on its out-of-fold suggestions (leave one
    assignment out), and the threshold at which the fitting data reach 95% agreement."""
    x = term_matrix(features, points_terms)
    out_of_fold = np.empty(len(human))
    for held in sorted(set(assignment.tolist())):
        fit = assignment != held
        fold = fit_ridge(x[fit], human[fit], points_terms)
        rows = ~fit
        out_of_fold[rows] = suggested_points(fold, {k: v[rows] for k, v in features.items()})
    right = agrees(out_of_fold, human)
    inputs = confidence_inputs(features, out_of_fold)
    confidence = fit_logistic(term_matrix(inputs, confidence_terms), right.astype(float),
                              confidence_terms)
    fitted = np.array([confidence.probability({k: float(v[i]) for k, v in inputs.items()})
                       for i in range(len(human))])
    points = fit_ridge(x, human, points_terms)
    return {
        "threshold_95": precision_threshold(fitted, right),
        "points": {"intercept": points.intercept, "weights": dict(points.weights)},
        "confidence": {"intercept": confidence.intercept, "weights": dict(confidence.weights)},
    }


def fit_calibration(features: Mapping[str, np.ndarray], human: np.ndarray,
                    assignment: np.ndarray) -> dict[str, Any]:
    """Points and confidence models from these answers (the caller passes assignments 1-6);
    with the cohort features (`knn`, `centre`) among `features`, the cohort models too."""
    fitted = _fit_pair(features, human, assignment, POINTS_TERMS, CONFIDENCE_FEATURES)
    out: dict[str, Any] = {
        "fitted_on": (f"Mohler short answers, assignments {sorted(set(assignment.tolist()))} "
                      f"({len(human)} answers); benchmarks/written_mohler.py --fit"),
        "agreement": AGREEMENT,
        **fitted,
    }
    if all(name in features for name in COHORT_FEATURES):
        out["cohort"] = _fit_pair(features, human, assignment, COHORT_POINTS_TERMS,
                                  COHORT_CONFIDENCE_FEATURES)
        out["two_way"] = fit_two_way(features, human, assignment)
    return out


def _two_way_threshold(probability: np.ndarray, correct: np.ndarray, cut: float,
                       target: float = TARGET_PRECISION) -> float:
    """The lowest threshold (`THRESHOLD_STEP` grid) at which the full credits it auto-grades
    (probability of correct at least the threshold and the full-credit cut) are correct
    `target` of the time."""
    for threshold in threshold_grid():
        chosen = probability >= max(cut, threshold)
        if chosen.any() and correct[chosen].mean() >= target:
            return threshold
    return threshold_grid()[-1]


def fit_two_way(features: Mapping[str, np.ndarray], human: np.ndarray,
                assignment: np.ndarray) -> dict[str, Any]:
    """The 2-way models (P(correct), correct = human share >= CORRECT_SHARE), per answer and
    with the cohort, and their thresholds from out-of-fold probabilities (leave one
    assignment out); then `agreement_threshold` for full credits given with the cohort."""
    inputs = confidence_inputs(features, np.zeros(len(human)))
    correct = human >= CORRECT_SHARE * MOHLER_POINTS - 1e-9
    out: dict[str, Any] = {"correct_share": CORRECT_SHARE}
    folds: dict[str, np.ndarray] = {}
    for name, terms in (("per_answer", TWO_WAY_FEATURES), ("cohort", COHORT_TWO_WAY_FEATURES)):
        x = term_matrix(inputs, terms)
        out_of_fold = np.empty(len(human))
        for held in sorted(set(assignment.tolist())):
            fit = assignment != held
            fold = fit_logistic(x[fit], correct[fit].astype(float), terms)
            out_of_fold[~fit] = [fold.probability({k: float(v[i]) for k, v in inputs.items()})
                                 for i in np.flatnonzero(~fit)]
        model = fit_logistic(x, correct.astype(float), terms)
        out[name] = {"intercept": model.intercept, "weights": dict(model.weights)}
        key = "threshold_95" if name == "per_answer" else "cohort_threshold_95"
        cut = _two_way_cut(out_of_fold, correct)
        out["full_credit_from" if name == "per_answer" else "cohort_full_credit_from"] = cut
        out[key] = _two_way_threshold(out_of_fold, correct, cut)
        folds[name] = out_of_fold
    # The full credits the threshold can auto-grade: not stating the opposite of the
    # reference, not far from it (`graders/written/scoring.py` holds the others to review).
    full = ((folds["cohort"] >= out["cohort_full_credit_from"]) & (inputs["opposite"] == 0)
            & (features["best"] >= FAR_FROM_REFERENCE))
    out["agreement_threshold"] = agreement_threshold(
        np.minimum(folds["per_answer"], folds["cohort"]), full, correct)
    # Fragment references are exempt from the bar of closeness at grading (`scoring.terse`);
    # the threshold above is chosen without their far answers, as before.
    out["terse_reference_words"] = TERSE_REFERENCE_WORDS
    # The verdict "less than full credit", per answer and with the cohort (both models must
    # say not correct): its confidence calibrated, and its threshold (`fit_not_full`).
    out["not_full"] = fit_not_full(1 - folds["per_answer"],
                                   folds["per_answer"] < out["full_credit_from"], ~correct)
    out["cohort_not_full"] = fit_not_full(
        1 - np.maximum(folds["per_answer"], folds["cohort"]),
        folds["cohort"] < out["cohort_full_credit_from"], ~correct)
    return out


def fit_not_full(not_correct: np.ndarray, given: np.ndarray, right: np.ndarray
                 ) -> dict[str, Any]:
    """The confidence of the verdict "less than full credit" where it is `given` (out-of-fold
    probabilities of not correct): a logistic regression on their logit for how often the
    verdict was `right` (a careful grader calls the answer not correct); and its threshold,
    the lowest (`THRESHOLD_STEP` grid) at which the verdicts it auto-grades err at most 5%
    counted with one error added, read on those calibrated probabilities; 1.0 when none does
    (every such verdict goes to review)."""
    p = np.clip(not_correct, 1e-6, 1 - 1e-6)
    against = np.log(p / (1 - p))[:, None]
    labels = right[given]
    if labels.all() or not labels.any():
        # One class only (or none): nothing to regress on; the share right, one of each
        # class added (a constant).
        rate = (float(labels.sum()) + 1) / (len(labels) + 2)
        model = LogisticModel(math.log(rate / (1 - rate)), (("against", 0.0),))
    else:
        model = fit_logistic(against[given], labels.astype(float), ("against",))
    confidence = np.array([model.probability({"against": float(x)}) for x in against[:, 0]])
    threshold = agreement_threshold(confidence, given, right, otherwise=1.0)
    return {"intercept": model.intercept, "weights": dict(model.weights),
            "threshold": threshold}


def agreement_threshold(agreement: np.ndarray, full: np.ndarray, correct: np.ndarray,
                        target: float = 1 - TARGET_PRECISION,
                        otherwise: float | None = None) -> float:
    """The review threshold of a full credit given with the cohort, read on its agreement (the
    lower of the per-answer and the cohort probability of correct, out of fold): the lowest
    (`THRESHOLD_STEP` grid) at which the full credits it auto-grades err at most `target`,
    counted with one error added ((errors + 1) / (auto-graded + 1)), so that a fitting set with
    few such answers sends more to review, not fewer (the rule of `graders/written/risk.py`).
    When no grid point does: `otherwise`, or the top of the grid."""
    for threshold in threshold_grid():
        chosen = full & (agreement >= threshold)
        errors = int((chosen & ~correct).sum())
        if chosen.any() and (errors + 1) / (int(chosen.sum()) + 1) <= target:
            return threshold
    return threshold_grid()[-1] if otherwise is None else otherwise


def _two_way_cut(probability: np.ndarray, correct: np.ndarray) -> float:
    """The probability of correct from which full credit is given: the one (0.05 grid, 0.5 to
    0.8) with the best macro-F1 of the two verdicts, out of fold; ties go to the lower."""
    def macro_f1(cut: float) -> float:
        full = probability >= cut
        f1 = []
        for predicted, truth in ((full, correct), (~full, ~correct)):
            denominator = float(predicted.sum() + truth.sum())
            f1.append(2 * float((predicted & truth).sum()) / denominator if denominator else 1.0)
        return sum(f1) / 2

    cuts = [round(0.5 + 0.05 * i, 2) for i in range(7)]
    scores = [round(macro_f1(c), 3) for c in cuts]
    return cuts[scores.index(max(scores))]
