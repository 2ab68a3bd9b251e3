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

    python benchmarks/active_grading_ceiling.py [--assignments 7-12] [--budget 20]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--assignments", default="7-12")
    parser.add_argument("--budget", type=int, default=20, help="decisions per 100 answers")
    args = parser.parse_args()
    if not args.data.is_file():
        raise SystemExit(f"Mohler data not found at {args.data}: nothing measured.")
    low, _, high = args.assignments.partition("-")
    questions = _rows(args.data, set(range(int(low), int(high or low) + 1)), None)
    loaded = parse_rubric(yaml.safe_dump(_rubric(questions)), "mohler.yaml")
    resources = rescore.resources_for(Settings().grading_options())
    items = []
    for q, rows in questions.items():
        kept = [r for r in rows if r["student_answer"].strip()]
        found = rescore.rescore(loaded, f"q{q}", f"m{q}", [r["student_answer"] for r in kept],
                                resources)
        points = np.array([float(f.points) for f in found])
        doubt = np.array([1.0 - f.confidence for f in found])
        truth = np.array([float(r["score_avg"]) for r in kept])
        items.append((points, doubt, np.abs(points - truth) > TOLERANCE + 1e-9))
    answers = sum(len(p) for p, _, _ in items)
    wrong = sum(int(w.sum()) for _, _, w in items)
    spend = [round(args.budget * len(p) / 100) for p, _, _ in items]
    oracle = sum(min(int(w.sum()), s) for (_, _, w), s in zip(items, spend, strict=True))
    # Ties by position, as the chooser breaks them by the lower key.
    shares = sum(int(w[np.argsort(-d, kind="stable")[:s]].sum())
                 for (_, d, w), s in zip(items, spend, strict=True))
    doubt = np.concatenate([d for _, d, _ in items])
    points = np.concatenate([p for p, _, _ in items])
    flags = np.concatenate([w for _, _, w in items])
    pooled = int(flags[np.argsort(-doubt, kind="stable")[:sum(spend)]].sum())
    print(f"Mohler {args.assignments}: {answers} answers, {wrong} ({wrong / answers:.1%}) more "
          f"than 1 point from the human average from the reference alone; {args.budget} "
          f"decisions per 100 answers ({sum(spend)}), each fixing its own answer:")
    for name, fixed in (("an oracle, each item its share", oracle),
                        ("each item's least sure, its share", shares),
                        ("the split's least sure (ideal allocation)", pooled)):
        print(f"  {name}: {fixed} fixed, {(answers - wrong + fixed) / answers:.1%} within")
    goal = wrong - int(0.05 * answers)
    print(f"  95% within needs {goal} fixed: {goal / max(sum(spend), 1):.0%} of the decisions "
          "on wrong answers")
    sure = int((flags & (doubt < SURE)).sum())
    print(f"Doubt below {SURE:.0%} on {sure} of the {wrong} wrong answers ({sure / wrong:.0%}): "
          "no chooser guided by it reaches them early.")
    print(f"AUROC of the doubt for the wrong answers: {auroc(doubt, flags):.3f} over all")
    for start in range(5):
        band = (points >= start) & (points < start + 1) if start < 4 else points >= 4
        if band.sum():
            print(f"  suggested {start}-{start + 1} points: {int(band.sum())} answers, "
                  f"{int(flags[band].sum())} wrong, AUROC {auroc(doubt[band], flags[band]):.3f}")
    for low in (3.0, 3.5, 4.0, 4.5):
        band = (points >= low) & (points < low + 0.5 if low < 4.5 else points <= 5)
        if band.sum():
            print(f"  suggested {low}-{low + 0.5} points: {int(band.sum())} answers, "
                  f"{int(flags[band].sum())} wrong, AUROC {auroc(doubt[band], flags[band]):.3f}")


if __name__ == "__main__":
    main()
