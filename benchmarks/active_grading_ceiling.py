"""How far active grading on Mohler can go with the machine's doubt as its guide: the answers
scored once from the reference alone (as the active loop's first step), then, with no
re-scoring and no carrying over, the share within 1 point of the human average after B
decisions per 100 answers when the decisions go

- to the answers the human grades say are wrong (an oracle; each item its equal share);
- to each item's least sure answers (its equal share, no random checks);
- to the whole split's least sure answers (the ideal allocation across items);

and how well the machine's doubt (1 - confidence) separates the wrong answers from the right
ones (AUROC), over all answers and within each band of suggested points: where most errors sit,
the doubt must rank them for any chooser to find them.

`--fit 1-6`: the doubt refitted on those assignments (`refit`: a logistic regression of "more
than 1 point off" on the doubt and what the written grader and the item's answers show, nothing
specific to Mohler's subject), then the same rows and AUROC on `--assignments` with it.

    python benchmarks/active_grading_ceiling.py [--assignments 7-12] [--budget 20] [--fit 1-6]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import numpy as np  # noqa: E402
import yaml  # noqa: E402
from active_grading import DATA, _rows, _rubric  # noqa: E402
from mohler_fit import fit_logistic  # noqa: E402
from written_mohler import features_of  # noqa: E402

from app.active import rescore  # noqa: E402
from app.settings import Settings  # noqa: E402
from graders.rubric import parse_rubric  # noqa: E402

TOLERANCE = 1.0  # 20% of 5 points
SURE = 0.15  # a doubt below this: the machine is sure


def auroc(scores: np.ndarray, wrong: np.ndarray) -> float:
    """The chance that a wrong answer has more doubt than a right one (ties count half)."""
    bad, good = scores[wrong], scores[~wrong]
    if not len(bad) or not len(good):
        return float("nan")
    above = (bad[:, None] > good[None, :]).sum() + 0.5 * (bad[:, None] == good[None, :]).sum()
    return float(above / (len(bad) * len(good)))


Item = dict[str, np.ndarray]
# What the refitted doubt reads (`refit`): the machine's doubt (as a logit), its suggested
# points, the reference features the written grader computes (`written_mohler.features_of`),
# the cohort's (closeness to the 3 nearest classmates, to the cohort's centre), how typical
# the answer is among the item's answers, how far its suggestion lies from its closest
# classmates' suggestions, and its length against the reference's.
REFIT = ("logit", "share", "share*share", "best", "whole", "recall", "align_recall",
         "align_precision", "ctx_recall", "ctx_precision", "opposite", "knn", "centre",
         "typical", "peers_gap", "length_ratio")


def _items(data: Path, assignments: str) -> list[Item]:
    """Each item's answers scored from the reference alone, with what `refit` reads."""
    low, _, high = assignments.partition("-")
    questions = _rows(data, set(range(int(low), int(high or low) + 1)), None)
    loaded = parse_rubric(yaml.safe_dump(_rubric(questions)), "mohler.yaml")
    resources = rescore.resources_for(Settings().grading_options())
    items = []
    for q, rows in questions.items():
        kept = [r for r in rows if r["student_answer"].strip()]
        texts = [r["student_answer"] for r in kept]
        found = rescore.rescore(loaded, f"q{q}", f"m{q}", texts, resources)
        points = np.array([float(f.points) for f in found])
        truth = np.array([float(r["score_avg"]) for r in kept])
        item = {"points": points, "doubt": np.array([1.0 - f.confidence for f in found]),
                "wrong": np.abs(points - truth) > TOLERANCE + 1e-9}
        item.update(features_of(kept, resources))
        cosines = rescore.similarity(loaded, f"q{q}", texts, resources)
        assert cosines is not None, "the encoder is needed for this benchmark"
        others = cosines - 2 * np.eye(len(texts))  # itself never among its classmates
        item["typical"] = (cosines.sum(axis=1) - 1) / max(len(texts) - 1, 1)
        closest = np.argsort(-others, axis=1)[:, :5]
        item["peers_gap"] = np.abs(points - points[closest].mean(axis=1))
        reference = len(kept[0]["desired_answer"].split())
        item["length_ratio"] = np.log((item["words"] + 1) / (reference + 1))
        doubt = np.clip(item["doubt"], 1e-4, 1 - 1e-4)
        item["logit"] = np.log(doubt / (1 - doubt))
        item["share"] = points / 5
        items.append(item)
    return items


def _design(items: list[Item]) -> np.ndarray:
    columns = []
    for term in REFIT:
        left, _, right = term.partition("*")
        values = np.concatenate([i[left] for i in items])
        columns.append(values * np.concatenate([i[right] for i in items]) if right else values)
    return np.column_stack(columns)


def refit(fit: list[Item], used: list[Item]) -> list[Item]:
    """`used` with each answer's doubt replaced by a model fitted on `fit`'s answers."""
    model = fit_logistic(_design(fit), np.concatenate([i["wrong"] for i in fit]).astype(float),
                         REFIT)
    design = _design(used)
    probabilities = [model.probability(dict(zip(REFIT, row, strict=True))) for row in design]
    out, at = [], 0
    for item in used:
        size = len(item["points"])
        out.append({**item, "doubt": np.array(probabilities[at:at + size])})
        at += size
    return out


def report(items: list[Item], budget: int, name: str) -> None:
    answers = sum(len(i["points"]) for i in items)
    wrong = sum(int(i["wrong"].sum()) for i in items)
    spend = [round(budget * len(i["points"]) / 100) for i in items]
    oracle = sum(min(int(i["wrong"].sum()), s) for i, s in zip(items, spend, strict=True))
    # Ties by position, as the chooser breaks them by the lower key.
    shares = sum(int(i["wrong"][np.argsort(-i["doubt"], kind="stable")[:s]].sum())
                 for i, s in zip(items, spend, strict=True))
    doubt = np.concatenate([i["doubt"] for i in items])
    points = np.concatenate([i["points"] for i in items])
    flags = np.concatenate([i["wrong"] for i in items])
    pooled = int(flags[np.argsort(-doubt, kind="stable")[:sum(spend)]].sum())
    print(f"{name}: {answers} answers, {wrong} ({wrong / answers:.1%}) more than 1 point from "
          f"the human average from the reference alone; {budget} decisions per 100 answers "
          f"({sum(spend)}), each fixing its own answer:")
    for label, fixed in (("an oracle, each item its share", oracle),
                         ("each item's least sure, its share", shares),
                         ("the split's least sure (ideal allocation)", pooled)):
        print(f"  {label}: {fixed} fixed, {(answers - wrong + fixed) / answers:.1%} within")
    goal = wrong - int(0.05 * answers)
    print(f"  95% within needs {goal} fixed: {goal / max(sum(spend), 1):.0%} of the decisions "
          "on wrong answers")
    sure = int((flags & (doubt < SURE)).sum())
    print(f"Doubt below {SURE:.0%} on {sure} of the {wrong} wrong answers ({sure / wrong:.0%}): "
          "no chooser guided by it reaches them early.")
    print(f"AUROC of the doubt for the wrong answers: {auroc(doubt, flags):.3f} over all")
    bands = [(float(s), s + 1.0 if s < 4 else 5.01) for s in range(5)]
    bands += [(low, low + 0.5 if low < 4.5 else 5.01) for low in (3.0, 3.5, 4.0, 4.5)]
    for low, high in bands:
        band = (points >= low) & (points < high)
        if band.sum():
            print(f"  suggested {low:g}-{min(high, 5):g} points: {int(band.sum())} answers, "
                  f"{int(flags[band].sum())} wrong, AUROC {auroc(doubt[band], flags[band]):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--assignments", default="7-12")
    parser.add_argument("--budget", type=int, default=20, help="decisions per 100 answers")
    parser.add_argument("--fit", default=None,
                        help="assignments to refit the doubt on (e.g. 1-6), then also report it")
    args = parser.parse_args()
    if not args.data.is_file():
        raise SystemExit(f"Mohler data not found at {args.data}: nothing measured.")
    items = _items(args.data, args.assignments)
    report(items, args.budget, f"Mohler {args.assignments}")
    if args.fit:
        print()
        used = refit(_items(args.data, args.fit), items)
        report(used, args.budget, f"Mohler {args.assignments}, the doubt refitted on {args.fit}")


if __name__ == "__main__":
    main()
