"""The `written` grader on the Mohler short-answer data: agreement with the human graders.

Every answer is graded against its question's desired answer by the written grader itself (an
item with `reference: [desired answer]`), once with an empty embedding cache (cold) and once
more with the cache warm. Reported on the held-out split (assignments 7-12):
- the grader's own points (its built-in, hand-set similarity mapping; nothing fitted), and
- a linear calibration of the engine's features (best cosine, whole-answer cosine, content-word
  recall minus the question's words, squares and product), fitted by least squares on the
  answers of assignments 1-6 only.

Usage: python benchmarks/written_mohler.py [--data PATH] [--limit N] [--no-write]
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import write_section
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.rubric import Rubric
from graders.written import GRADER, shared_embedder
from graders.written.lexical import content_stems, recall
from graders.written.similarity import AnswerVectors
from graders.written.text import normalise, split_sentences

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "mohler" / (
    "mohler_dataset_edited.csv")
TRAIN_ASSIGNMENTS = range(1, 7)


def pearson(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    x, y = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float((x * x).sum() * (y * y).sum()))
    return float((x * y).sum() / denominator) if denominator else float("nan")


def rmse(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.sqrt(((x - y) ** 2).mean()))


def calibration_design(features: np.ndarray) -> np.ndarray:
    best, whole, overlap = features.T
    return np.c_[np.ones(len(features)), best, whole, overlap, best**2, overlap**2, best * overlap]


def fit_calibration(features: np.ndarray, scores: np.ndarray) -> np.ndarray:
    weights, *_ = np.linalg.lstsq(calibration_design(features), scores, rcond=None)
    return weights


def predict(weights: np.ndarray, features: np.ndarray, top: float = 5.0) -> np.ndarray:
    return np.clip(calibration_design(features) @ weights, 0.0, top)


def _rubric(rows: list[dict[str, str]]) -> Rubric:
    questions = {}
    for row in rows:
        qid = row["id"]
        questions.setdefault(qid, {
            "id": qid, "prompt": row["question"],
            "items": [{"id": f"m{qid}", "points": 5, "grader": "written",
                       "config": {"reference": [row["desired_answer"]]}}],
        })
    return Rubric.model_validate({"slug": "mohler", "title": "Mohler",
                                  "questions": list(questions.values())})


def grade_all(rubric: Rubric, rows: list[dict[str, str]], resources: GradingResources
              ) -> tuple[list[Decimal], float]:
    by_id = {q.id: q for q in rubric.questions}
    points: list[Decimal] = []
    start = time.perf_counter()
    for row in rows:
        question = by_id[row["id"]]
        text = row["student_answer"]
        answer = LocatedAnswer(question.id, text, start=0, end=len(text))
        submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
        context = GradingContext(rubric=rubric, question=question, submission=submission,
                                 resources=resources)
        [result] = GRADER.grade_items(question.items, answer, context)
        points.append(result.points)
    return points, time.perf_counter() - start


def features_of(rubric: Rubric, rows: list[dict[str, str]], resources: GradingResources
                ) -> np.ndarray:
    by_id = {q.id: q for q in rubric.questions}
    out = []
    for row in rows:
        question = by_id[row["id"]]
        context = GradingContext(rubric=rubric, question=question,
                                 submission=ParsedSubmission(text="", format="text", answers={}),
                                 resources=resources)
        embedder = shared_embedder(context)
        assert embedder is not None, "the embedding model is needed for this benchmark"
        vectors = AnswerVectors(embedder, split_sentences(row["student_answer"]))
        reference = [normalise(row["desired_answer"])]
        closest, whole = vectors.closest(reference), vectors.whole(reference)
        overlap = recall(row["desired_answer"], row["student_answer"],
                         content_stems(row["question"])) or 0.0
        out.append([closest.score if closest else 0.0, whole or 0.0, overlap])
    return np.asarray(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=0, help="grade only the first N answers")
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (the Mohler data lives in ../shared/data/mohler/)")
    with args.data.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if args.limit:
        rows = rows[: args.limit]
    rubric = _rubric(rows)
    human = np.array([float(r["score_avg"]) for r in rows])
    train = np.array([int(r["id"].split(".")[0]) in TRAIN_ASSIGNMENTS for r in rows])
    test = ~train

    resources = GradingResources(options={})
    cold_points, cold_seconds = grade_all(rubric, rows, resources)
    warm_points, warm_seconds = grade_all(rubric, rows, resources)
    assert cold_points == warm_points, "the cache changed a grade"
    engine = np.array([float(p) for p in cold_points])
    features = features_of(rubric, rows, resources)
    weights = fit_calibration(features[train], human[train])
    calibrated = predict(weights, features)
    inter_rater = pearson([float(r["score_me"]) for r in rows],
                          [float(r["score_other"]) for r in rows])
    n = len(rows)
    lines = [
        "## Written grader on the Mohler short answers",
        "",
        f"{n} answers to {len(rubric.questions)} questions, each graded against its desired "
        "answer with the `written` grader (all-MiniLM-L6-v2 in NumPy plus content-word overlap). "
        f"Held-out split: assignments 7-12 ({int(test.sum())} answers); calibration fitted on "
        f"assignments 1-6 ({int(train.sum())} answers) only.",
        "",
        "| scorer (held-out answers) | Pearson r | RMSE (0-5) |",
        "|---|---|---|",
        "| grader's built-in mapping (hand-set, nothing fitted) | "
        f"{pearson(engine[test], human[test]):.3f} | {rmse(engine[test], human[test]):.3f} |",
        "| linear calibration of the engine's features (fitted on assignments 1-6) | "
        f"{pearson(calibrated[test], human[test]):.3f} | "
        f"{rmse(calibrated[test], human[test]):.3f} |",
        "| Mohler et al. 2011 (published) | 0.48 | |",
        "| Sultan et al. 2016 (published) | 0.592 | |",
        f"| the two human graders with each other (all answers) | {inter_rater:.3f} | |",
        "",
        "Calibration features: closest-stretch cosine, whole-answer cosine, share of the desired "
        "answer's content words (question words removed) used by the student, their squares and "
        "the cosine x overlap product; weights "
        + ", ".join(f"{w:.3f}" for w in weights) + ".",
        "",
        "| throughput (one answer at a time, this machine) | answers/s |",
        "|---|---|",
        f"| cold (empty embedding cache, model already loaded) | {n / cold_seconds:.1f} |",
        f"| warm (same answers again, embeddings cached by text hash) | {n / warm_seconds:.1f} |",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("written_mohler", body)


if __name__ == "__main__":
    main()
