"""Confidence on a subject it was not fitted on: Mohler, leave one assignment out.

The only public graded short-answer data here is Mohler (../shared/data/mohler: 12 assignments
of a data-structures course, 81 questions, 2,273 answers, two human grades each). Each
assignment is a pseudo-subject: it is held out in turn, the shipped calibration's models are
fitted on the other eleven (`benchmarks.mohler_fit.fit_calibration`, exactly as `--fit` does on
1-6), and the held-out assignment's answers are graded by the written grader itself under that
fold's calibration, as `grade-table` grades them: reference answers only, the question's other
answers as its cohort, items worth 1 point (the hidden benchmark's correct / incorrect
judgement), a rubric that sets no review threshold (the calibrated one applies).

Reported per held-out assignment, and over all of them: the share sent to review (target
<= 60%), the share of the full credits given without review that are wrong (target <= 5%;
correct = human average >= 4 of 5, `TWO_WAY_CORRECT`), the same for the grades below full
credit given without review (wrong: the answer is correct) and for all auto-graded answers,
and the 2-way macro-F1 of the suggested verdicts (target >= 0.70). Each held-out assignment is
graded twice under the same fitted models: by the rule of this code and by the rule before it
(`before_rule`), shown side by side; `--json` writes both, with every answer's verdict.

Usage: python benchmarks/written_transfer.py [--data PATH] [--cache-dir DIR] [--no-write]
       [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.mohler_fit import fit_calibration
from benchmarks.mohler_report import TWO_WAY_CORRECT, macro_f1
from benchmarks.report import write_section
from benchmarks.written_mohler import DATA, features_of, mohler_cohorts
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import Status
from graders.rubric import Rubric
from graders.written import GRADER, grader
from graders.written.calibration import Calibration, calibration_from_mapping
from graders.written.cohort import COHORT_KEY

Row = dict[str, str]
TARGET_WRONG = 0.05
TARGET_REVIEW = 0.60
TARGET_F1 = 0.70
# Review thresholds an operator may set (the rubric's `review_threshold`), reported beside.
OPERATOR_BARS = (0.9, 0.92, 0.94)


def _rubric(rows: Sequence[Row]) -> Rubric:
    """One 1-point item per question, its reference the desired answer; no review threshold."""
    questions: dict[str, dict[str, Any]] = {}
    for row in rows:
        questions.setdefault(row["id"], {
            "id": row["id"], "prompt": row["question"], "items": [{
                "id": f"m{row['id']}", "points": 1, "grader": "written",
                "config": {"reference": [row["desired_answer"]]}}]})
    return Rubric.model_validate({"slug": "mohler-transfer", "title": "Mohler, one held out",
                                  "questions": list(questions.values())})


def _grade(rubric: Rubric, rows: Sequence[Row], resources: GradingResources,
           calibration: Calibration) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whether each answer got full credit, whether it went to review, and the confidence,
    under `calibration` (put in place of the shipped one for the duration)."""
    by_id = {q.id: q for q in rubric.questions}
    shipped = grader.shipped_calibration
    grader.shipped_calibration = lambda: calibration  # type: ignore[assignment]
    full, review, confidence = [], [], []
    try:
        for row in rows:
            question = by_id[row["id"]]
            text = row["student_answer"]
            answer = LocatedAnswer(question.id, text, start=0, end=len(text))
            submission = ParsedSubmission(text=text, format="text",
                                          answers={question.id: answer})
            context = GradingContext(rubric=rubric, question=question, submission=submission,
                                     resources=resources)
            [result] = GRADER.grade_items(question.items, answer, context)
            full.append(result.points >= result.max_points)
            review.append(result.status is Status.NEEDS_REVIEW)
            confidence.append(result.confidence)
    finally:
        grader.shipped_calibration = shipped  # type: ignore[assignment]
    return np.array(full), np.array(review), np.array(confidence)


def _cells(full: np.ndarray, review: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    """Review share; auto-graded full credits, non-full credits (less than full: wrong when a
    careful grader calls the answer correct) and all auto-graded answers, each with the share
    that is wrong; the 2-way macro-F1 of the suggested verdicts."""
    auto_full, auto_other = full & ~review, ~full & ~review
    wrong = full != truth
    return {
        "answers": len(truth),
        "review": float(review.mean()),
        "auto_full": int(auto_full.sum()),
        "wrong_auto_full": float(wrong[auto_full].mean()) if auto_full.any() else 0.0,
        "auto_other": int(auto_other.sum()),
        "wrong_auto_other": float(wrong[auto_other].mean()) if auto_other.any() else 0.0,
        "wrong_auto": float(wrong[~review].mean()) if (~review).any() else 0.0,
        "macro_f1": macro_f1(full, truth),
    }


def before_rule(calibration: Calibration) -> Calibration:
    """The same fitted calibration without the exemption of fragment references from the bar
    of closeness to the reference: the rule of written grader version 18 (a full credit given
    with the cohort to an answer whose closest stretch is below cosine 0.5 goes to review,
    whatever the reference), measured beside in the same run."""
    two_way = calibration.two_way
    if two_way is None:
        return calibration
    return replace(calibration, two_way=replace(two_way, terse_reference_words=None))


def run(rows: list[Row], resources: GradingResources,
        per_answer: dict[str, Any] | None = None,
        ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Per held-out assignment and pooled ("all"), under the rule of this code and under the
    rule before it (`before_rule`), the same fitted models in both; then, from this rule's
    grades, what a review threshold set by the operator (the rubric's `review_threshold`)
    would give ("at 0.92", ...: an answer is auto-graded when its confidence reaches it and it
    was not sent to review for another reason), pooled and at worst over the held-out
    assignments."""
    human = np.array([float(r["score_avg"]) for r in rows])
    assignment = np.array([int(r["id"].split(".")[0]) for r in rows])
    per_answer = {} if per_answer is None else per_answer
    features = features_of(rows, resources)
    resources.shared(COHORT_KEY, dict).update(mohler_cohorts(rows, resources))
    truth = human >= TWO_WAY_CORRECT
    graded = {rule: (np.zeros(len(rows), dtype=bool), np.zeros(len(rows), dtype=bool),
                     np.zeros(len(rows))) for rule in ("after", "before")}
    out: dict[str, dict[str, dict[str, float]]] = {"after": {}, "before": {}}
    for held in sorted(set(assignment.tolist())):
        fit = assignment != held
        fitted = calibration_from_mapping(fit_calibration(
            {k: v[fit] for k, v in features.items()}, human[fit], assignment[fit]))
        rows_held = [rows[i] for i in np.flatnonzero(~fit)]
        for rule, calibration in (("after", fitted), ("before", before_rule(fitted))):
            f, r, c = _grade(_rubric(rows_held), rows_held, resources, calibration)
            full, review, confidence = graded[rule]
            full[~fit], review[~fit], confidence[~fit] = f, r, c
            out[rule][str(held)] = _cells(f, r, truth[~fit])
        not_full = fitted.two_way.cohort_not_full if fitted.two_way else None
        out["after"][str(held)]["not_full_threshold"] = (
            1.0 if not_full is None else not_full.threshold)
        print(held, out["after"][str(held)], flush=True)
    for rule, (full, review, _) in graded.items():
        out[rule]["all"] = _cells(full, review, truth)
    per_answer.update({rule: {"full": full.tolist(), "review": review.tolist(),
                              "confidence": confidence.tolist()}
                       for rule, (full, review, confidence) in graded.items()})
    full, review, confidence = graded["after"]
    for bar in OPERATOR_BARS:
        stricter = review | (confidence < bar)
        groups = [_cells(full[assignment == a], stricter[assignment == a], truth[assignment == a])
                  for a in sorted(set(assignment.tolist()))]
        out["after"][f"at {bar}"] = {**_cells(full, stricter, truth),
                                     "worst_wrong": max(g["wrong_auto_full"] for g in groups),
                                     "worst_review": max(g["review"] for g in groups),
                                     "groups_wrong_met": sum(g["wrong_auto_full"] <= TARGET_WRONG
                                                             for g in groups)}
    return out["after"], out["before"]


def _row(label: str, cells: Mapping[str, float], before: Mapping[str, float] | None) -> str:
    def pct(key: str) -> str:
        now = f"{cells[key]:.1%}"
        return f"{now} (was {before[key]:.1%})" if before else now

    def count(key: str) -> str:
        now = f"{int(cells[key])}"
        return f"{now} (was {int(before[key])})" if before else now

    f1 = f"{cells['macro_f1']:.3f}" + (f" (was {before['macro_f1']:.3f})" if before else "")
    return (f"| {label} | {int(cells['answers'])} | {pct('review')} | {count('auto_full')} "
            f"| {pct('wrong_auto_full')} | {count('auto_other')} | {pct('wrong_auto_other')} "
            f"| {pct('wrong_auto')} | {f1} |")


def _met(result: Mapping[str, Mapping[str, float]], held: Sequence[str]) -> dict[str, int]:
    """How many held-out assignments meet each target."""
    cells = [result[k] for k in held]
    return {"wrong": sum(c["wrong_auto_full"] <= TARGET_WRONG for c in cells),
            "review": sum(c["review"] <= TARGET_REVIEW for c in cells),
            "all": sum(c["wrong_auto"] <= TARGET_WRONG for c in cells),
            "f1": sum(c["macro_f1"] >= TARGET_F1 for c in cells)}


def report(result: Mapping[str, Mapping[str, float]],
           before: Mapping[str, Mapping[str, float]] | None) -> str:
    held = [k for k in result if k.isdigit()]
    reached = {k: result[k].get("not_full_threshold", 1.0) for k in held}
    folds = (f"in {sum(t >= 1.0 for t in reached.values())} of {len(held)} folds none reached "
             "it, so all such verdicts went to review" + "".join(
                 f"; fitted without assignment {k}: {t:g}" for k, t in reached.items() if t < 1.0))
    lines = [
        "## Written answers on a subject not fitted on (Mohler, leave one assignment out)",
        "",
        "Each Mohler assignment held out in turn: the calibration fitted on the other eleven, "
        "the held-out answers graded by the written grader under it as `grade-table` grades "
        "them (reference only, the cohort, 1-point items, the calibrated review threshold). "
        f"Correct = human average >= {TWO_WAY_CORRECT:g} of 5; a grade less than full credit "
        "is wrong when the answer is correct, a full credit when it is not. Targets (issue "
        f"#29): wrong among auto-graded full credits <= {TARGET_WRONG:.0%}, to review <= "
        f"{TARGET_REVIEW:.0%}, 2-way macro-F1 >= {TARGET_F1:.2f}; and, the promise of the "
        "`graded` status, wrong among all auto-graded answers (full credit or less) at most "
        f"{TARGET_WRONG:.0%} too. Mohler is the only graded short-answer data set "
        "here; no other (SemEval-2013 or any that may be the hidden benchmark) is used. "
        "A full credit given with the cohort is auto-graded only where the answer alone and "
        "the answer with its cohort agree (the lower of the two models' probabilities of "
        "correct, held to a threshold chosen on the fitting assignments, out of fold, so that "
        "their such full credits err at most 5% counted with one error added), and not when no "
        "stretch of the answer is close to a reference statement (closest cosine below 0.5)."
        + (" Now also less than full credit: auto-graded only where both models say not "
           "correct (1 - the higher probability of correct), its confidence calibrated on how "
           "often such verdicts of the fitting assignments were right (out of fold) and held "
           "to the lowest threshold at which they erred at most 5% counted with one error added "
           f"({folds}). The bar of closeness does not apply where the reference is a "
           "fragment of at most 4 words (\"By reference.\", \"File scope.\"; a sentence "
           "restating it stays below 0.5): there the agreement threshold alone decides. The "
           "models and thresholds were fitted without the held-out assignment; the 4 words were "
           "chosen on this proxy over all assignments (2 to 8 compared), like the bar itself. "
           "`was`: the same run, the same fitted models, under the rule before (written grader "
           "version 18: the bar for every reference)." if before else ""),
        "",
        "| held out | answers | to review | auto-graded full credits | wrong among them "
        "| auto-graded less than full | wrong among them | wrong among all auto-graded "
        "| macro-F1 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key in [*held, "all"]:
        label = "all (pooled)" if key == "all" else f"assignment {key}"
        lines.append(_row(label, result[key], before.get(key) if before else None))
    met = _met(result, held)
    was = _met(before, held) if before else None

    def count(name: str) -> str:
        return f"{met[name]}" + (f" (was {was[name]})" if was else "")

    worst = max(result[k]["wrong_auto_full"] for k in held)
    worst_all = max(result[k]["wrong_auto"] for k in held)
    counts = [max(1, int(result[k]["auto_full"])) for k in held]
    lines += ["", f"Held-out assignments meeting each target (of {len(held)}): wrong among "
              f"auto-graded full credits {count('wrong')}, wrong among all auto-graded "
              f"{count('all')}, review share {count('review')}, macro-F1 {count('f1')}. Worst "
              f"held-out wrong share among auto-graded full credits {worst:.1%}"
              + (f" (was {max(before[k]['wrong_auto_full'] for k in held):.1%})" if before
                 else "") + f", among all auto-graded {worst_all:.1%}"
              + (f" (was {max(before[k]['wrong_auto'] for k in held):.1%})." if before
                 else "."),
              "", f"A held-out assignment has {min(counts)} to {max(counts)} auto-graded full "
              f"credits: one wrong answer moves its share by {1 / max(counts):.1%} to "
              f"{1 / min(counts):.1%}, so the per-assignment shares are noisy. The hidden "
              "benchmark is one unseen subject, like one held-out assignment with more "
              "answers: its share may land anywhere in this spread, not only at the pooled one."]
    lines += ["", "The same grades with a review threshold set by the operator (the rubric's "
              "`review_threshold`; an answer is auto-graded when its confidence reaches it): "
              "what each lower wrong share costs in review.", "",
              "| review threshold | to review | wrong among auto-graded full credits | wrong "
              "among all auto-graded | worst held-out assignment: wrong among full credits / to "
              "review | assignments with wrong among full credits <= 5% |",
              "|---|---|---|---|---|---|"]
    for bar in OPERATOR_BARS:
        cells = result.get(f"at {bar}")
        if cells:
            lines.append(f"| {bar} | {cells['review']:.1%} | {cells['wrong_auto_full']:.1%} | "
                         f"{cells['wrong_auto']:.1%} | "
                         f"{cells['worst_wrong']:.1%} / {cells['worst_review']:.1%} | "
                         f"{int(cells['groups_wrong_met'])} of {len(held)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="a persistent embedding cache (speeds up repeated runs)")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (the Mohler data lives in ../shared/data/mohler/)")
    with args.data.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    options: dict[str, Any] = {"embedding_cache_dir": str(args.cache_dir)} if args.cache_dir else {}
    per_answer: dict[str, Any] = {}
    result, before = run(rows, GradingResources(options=options), per_answer)
    if args.json:
        args.json.write_text(json.dumps({"after": result, "before": before,
                                         "per_answer": per_answer}) + "\n")
    body = report(result, before)
    print(body)
    if not args.no_write:
        write_section("written_transfer", body)


if __name__ == "__main__":
    main()
