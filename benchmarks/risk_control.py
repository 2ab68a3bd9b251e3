"""Risk control and exemplars as the service applies them, on the Mohler short answers.

Held-out assignments 7-12 only (the shipped calibration was fitted on 1-6). Per question, an
instructor grades a fixed-seed `needed(target)` of its answers (their points: the human average),
the least the service calibrates with. As in the service (`app/calibration/service.py`):
- the machine's results of those answers, graded before any exemplar existed, are the
  calibration points: wrong = more than 1 point (AGREEMENT x 5) from the instructor's;
- the question's threshold is `risk_threshold(confidence, wrong, target)`, at least `FLOOR`;
- the rest of the question's answers are graded again with the graded ones as exemplars and the
  calibrated threshold (`review_threshold` of the item), exactly the rubric a grading process
  receives (`apply_context`).
Reported on the rest of each question's answers (never the graded ones): the automated share,
the error among auto-graded answers, and the share of all answers auto-graded *and* wrong.

Usage: python benchmarks/risk_control.py [--data PATH] [--no-write]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.calibration.service import FLOOR, needed
from benchmarks.mohler_fit import agrees
from benchmarks.report import write_section
from benchmarks.written_mohler import DATA, DEV_ASSIGNMENTS, grade_rows
from graders.context import GradingResources
from graders.rubric import Rubric
from graders.written.calibration import shipped_calibration
from graders.written.risk import risk_threshold

Row = dict[str, str]
TARGETS = (0.1, 0.05)
MIN_REST = 5  # a question needs this many answers left over to report on


def _rubric(rows: list[Row], default: float, thresholds: Mapping[str, float],
            exemplars: Mapping[str, list[Row]]) -> Rubric:
    questions: dict[str, dict[str, Any]] = {}
    for row in rows:
        qid = row["id"]
        if qid in questions:
            continue
        config: dict[str, Any] = {"reference": [row["desired_answer"]]}
        if exemplars.get(qid):
            config["exemplars"] = [{"text": e["student_answer"], "points": e["score_avg"]}
                                   for e in exemplars[qid]]
        if qid in thresholds:
            config["review_threshold"] = thresholds[qid]
        questions[qid] = {"id": qid, "prompt": row["question"], "items": [
            {"id": f"m{qid}", "points": 5, "grader": "written", "config": config}]}
    return Rubric.model_validate({"slug": "mohler", "title": "Mohler", "review_threshold": default,
                                  "questions": list(questions.values())})


def _line(label: str, auto: np.ndarray, wrong: np.ndarray) -> str:
    count = len(auto)
    share = auto.mean() if count else 0.0
    error = (wrong & auto).sum() / auto.sum() if auto.sum() else float("nan")
    joint = (wrong & auto).sum() / count if count else 0.0
    return f"| {label} | {count} | {share:.1%} | {error:.1%} | {joint:.1%} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="a persistent embedding cache (speeds up repeated runs)")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (the Mohler data lives in ../shared/data/mohler/)")
    with args.data.open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle)
                if int(r["id"].split(".")[0]) not in DEV_ASSIGNMENTS]
    human = np.array([float(r["score_avg"]) for r in rows])
    default = shipped_calibration().threshold_95
    options: dict[str, Any] = {"embedding_cache_dir": str(args.cache_dir)} if args.cache_dir else {}
    resources = GradingResources(options=options)
    started = time.perf_counter()
    points0, confidence0, _ = grade_rows(_rubric(rows, default, {}, {}), rows, resources)
    wrong0 = ~agrees(points0, human)
    print(f"graded {len(rows)} answers without exemplars in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)
    ids = np.array([r["id"] for r in rows])
    sections = []
    for target in TARGETS:
        k = needed(target)
        graded = np.zeros(len(rows), dtype=bool)
        thresholds: dict[str, float] = {}
        exemplars: dict[str, list[Row]] = {}
        for qid in sorted(set(ids)):
            members = np.flatnonzero(ids == qid)
            if len(members) < k + MIN_REST:
                continue
            rng = np.random.default_rng(int(qid.replace(".", "")))
            chosen = rng.choice(members, size=k, replace=False)
            graded[chosen] = True
            thresholds[qid] = max(FLOOR, risk_threshold(confidence0[chosen].tolist(),
                                                        wrong0[chosen].tolist(), target)[0])
            exemplars[qid] = [rows[i] for i in chosen]
        rest = np.flatnonzero(~graded & np.isin(ids, list(thresholds)))
        rest_rows = [rows[i] for i in rest]
        points1, confidence1, review1 = grade_rows(
            _rubric(rest_rows, default, thresholds, exemplars), rest_rows, resources)
        wrong1 = ~agrees(points1, human[rest])
        per = np.array([thresholds[ids[i]] for i in rest])
        sections.append("\n".join([
            f"### Target {target:.0%}: {k} instructor grades per question, "
            f"{len(thresholds)} questions, {len(rest)} other answers",
            "",
            "| setting (on the answers not graded by the instructor) | answers | auto-graded | "
            "wrong among auto-graded | auto-graded and wrong (of all) |",
            "|---|---|---|---|---|",
            _line(f"no instructor grades: default threshold {default:g}",
                  confidence0[rest] >= default, wrong0[rest]),
            _line("calibrated threshold, no exemplars", confidence0[rest] >= per, wrong0[rest]),
            _line(f"exemplars, default threshold {default:g}", confidence1 >= default, wrong1),
            _line("**exemplars + calibrated threshold (the service)**", ~review1, wrong1),
            "",
            f"Calibrated thresholds: median {np.median(list(thresholds.values())):.2f}, "
            f"{sum(t >= 1.0 for t in thresholds.values())} of {len(thresholds)} questions at 1.00 "
            "(no threshold met the bound: all their answers go to review).",
        ]))
    seconds = time.perf_counter() - started
    body = "\n".join([
        "## Risk control and exemplars from instructor grades (Mohler, held-out 7-12)",
        "",
        "Per question, an instructor grades a fixed-seed 1/target of its answers (the human "
        "average); the machine's results of those answers (graded before any exemplar) set the "
        "question's threshold by `risk_threshold`, and the other answers are graded with them "
        "as exemplars and that threshold, as the service does. Wrong: more than 1 point from the "
        "human average. The guarantee of the rule is on the last column (expected share of "
        "answers auto-graded and wrong <= target, conformal risk control); the error among "
        "auto-graded answers is the instructor's reading, measured here.",
        "",
        "\n\n".join(sections),
        "",
        f"{len(rows)} held-out answers; {seconds:.0f} s in all on a shared machine (other "
        "engineers' jobs running: timings are noisy).",
    ])
    print(body)
    if not args.no_write:
        write_section("risk_control", body)


if __name__ == "__main__":
    main()
