"""Active grading on Mohler without a server: the same loop as `active_grading.py` (propose,
decide from the human grades, re-score the undecided answers with the decisions as exemplars,
estimate), through the same functions the service calls (`app.active.rescore`,
`graders.active`), in one process. For trying a change in a minute or two; the HTTP benchmark
stays the measurement of record. The audit draws hash the submission ids the HTTP run's fresh
database gives (student n is submission n + 1), so the two take the same decisions: on 7-12 every
item's curve is the HTTP run's. `--salt` draws other random checks.

    python benchmarks/active_grading_offline.py [--assignments 7-12] [--cap 0.5]
                                                [--max-questions N] [--cache FILE] [--salt S]
                                                [--every-check | --near-done F]

`--every-check`: a random check at every `AUDIT_EVERY`-th decision, due or not (as before
`checks_due`); `--near-done F`: checks due from F targets instead of `NEAR_DONE`.

`--cache`: re-scored suggestions kept by (item, decisions) between runs (a change to the
chooser or the propagation re-uses what the grader already computed; delete the file after
changing the grader).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from decimal import Decimal
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import yaml  # noqa: E402
from active_grading import DATA, ItemRun, Step, _rows, _rubric, report  # noqa: E402

from app.active import rescore  # noqa: E402
from app.calibration.context import (  # noqa: E402
    LearnedContext,
    LearnedExemplar,
    LearnedItem,
    apply_context,
)
from app.settings import Settings  # noqa: E402
from graders import active  # noqa: E402
from graders.active import (  # noqa: E402
    NEAR_DONE,
    Candidate,
    HeldBack,
    checks_due,
    estimate,
    propagate,
    propose,
)
from graders.rubric import LoadedRubric, parse_rubric  # noqa: E402
from graders.written.settings import MAX_EXEMPLARS  # noqa: E402

TARGET = 0.05
TOLERANCE = 1.0  # 20% of 5 points
PROPAGATE = True  # carry decisions over to the answers like them (`--no-propagate`: not)
GATED = True  # random checks only where they are due (`checks_due`; `--every-check`: always)


class Cache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: dict[bytes, list[tuple[Decimal, float]]] = {}
        if path is not None and path.is_file():
            self.known = pickle.loads(path.read_bytes())

    def save(self) -> None:
        if self.path is not None:
            self.path.write_bytes(pickle.dumps(self.known))


def _scores(loaded: LoadedRubric, question: str, item: str, texts: list[str],
            decided: dict[int, float], resources: object, cache: Cache
            ) -> list[tuple[Decimal, float]]:
    """Every answer's suggestion under the decisions so far (the latest MAX_EXEMPLARS as
    exemplars, as `app.calibration` learns them)."""
    key = hashlib.sha256(repr((item, sorted(decided.items()))).encode()).digest()
    if key not in cache.known:
        if decided:
            shown = list(decided.items())[-MAX_EXEMPLARS:]
            context = LearnedContext(rubric_hash=loaded.content_hash, items={item: LearnedItem(
                question=question, exemplars=tuple(
                    LearnedExemplar(submission=k, text=texts[k], points=Decimal(str(p)))
                    for k, p in shown))})
            loaded = apply_context(loaded, context)
        found = rescore.rescore(loaded, question, item, texts, resources)  # type: ignore[arg-type]
        cache.known[key] = [(f.points, f.confidence) for f in found]
    return cache.known[key]


def simulate(loaded: LoadedRubric, question: str, item: str, texts: list[str],
             truth: list[float], cap: float, resources: object, cache: Cache,
             tolerance: float = TOLERANCE, salt: str = "mohler",
             keys: list[int] | None = None) -> ItemRun:
    """The loop on one item: `tolerance` in points (20% of the item's), `salt` names the
    assignment in the audit draws, `keys` are the answers' submission ids in the HTTP run (the
    audit draws hash them; by default their positions)."""
    run = ItemRun(item, len(texts))
    limit = max(1, round(cap * len(texts)))
    cosines = rescore.similarity(loaded, question, texts, resources)  # type: ignore[arg-type]
    decided: dict[int, float] = {}
    held: list[HeldBack] = []
    began = time.monotonic()
    while True:
        scored = _scores(loaded, question, item, texts, decided, resources, cache)
        points = [float(p) for p, _ in scored]
        errors = [round(1.0 - c, 6) for _, c in scored]
        if PROPAGATE:
            points, errors = propagate(points, errors, decided, cosines, tolerance)
        waiting = [k for k in range(len(texts)) if k not in decided]
        within = sum(abs((decided[k] if k in decided else points[k]) - truth[k])
                     <= tolerance + 1e-9 for k in range(len(texts)))
        wrong = sum(abs(points[k] - truth[k]) > tolerance + 1e-9 for k in waiting)
        est = estimate([errors[k] for k in waiting], held, TARGET, len(texts))
        sub = None if cosines is None else cosines[waiting][:, waiting]
        ids = list(range(len(texts))) if keys is None else keys
        proposal = propose([Candidate(ids[k], errors[k]) for k in waiting], sub, len(decided),
                           f"{salt}\0{item}", GATED is False or checks_due(est, TARGET))
        run.steps.append(Step(len(decided), within, wrong, len(waiting), est.share, est.done,
                              est.least_sure, 0.0 if proposal is None else proposal.weight))
        if proposal is None or len(decided) >= limit:
            break
        run.reasons[proposal.reason] += 1
        k = ids.index(proposal.key)
        decided[k] = round(truth[k], 2)
        held.append(HeldBack(errors[k], abs(points[k] - decided[k]) > tolerance + 1e-9,
                             points[k]))
    run.seconds = time.monotonic() - began
    return run


def checks_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--every-check", action="store_true",
                        help="a random check every AUDIT_EVERY-th decision, due or not")
    parser.add_argument("--near-done", type=float, default=None,
                        help=f"random checks due from this many targets (default {NEAR_DONE})")


def use_checks_options(args: argparse.Namespace) -> None:
    global GATED
    GATED = not args.every_check
    if args.near_done is not None:
        active.NEAR_DONE = args.near_done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--assignments", default="7-12")
    parser.add_argument("--cap", type=float, default=0.5)
    parser.add_argument("--max-questions", type=int, default=None)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--salt", default="mohler",
                        help="the audit draws' salt (the HTTP run's: its slug, mohler); another "
                        "draws other random checks, to see how much a figure owes to them")
    parser.add_argument("--no-propagate", action="store_true",
                        help="the suggestions as the grader gives them (decisions as exemplars)")
    parser.add_argument("--json", type=Path, default=None, help="also write the runs here")
    checks_options(parser)
    args = parser.parse_args()
    global PROPAGATE
    PROPAGATE = not args.no_propagate
    use_checks_options(args)
    if not args.data.is_file():
        raise SystemExit(f"Mohler data not found at {args.data}: nothing measured.")
    low, _, high = args.assignments.partition("-")
    questions = _rows(args.data, set(range(int(low), int(high or low) + 1)),
                      args.max_questions)
    loaded = parse_rubric(yaml.safe_dump(_rubric(questions)), "mohler.yaml")
    resources = rescore.resources_for(Settings().grading_options())
    cache = Cache(args.cache)
    runs = []
    try:
        for q, rows in questions.items():
            # Student n is submission n + 1 in the HTTP run's fresh database (its uploads go in
            # student order): the audit draws hash the ids, so they pick the same answers.
            kept = [(n + 1, r) for n, r in enumerate(rows) if r["student_answer"].strip()]
            runs.append(simulate(loaded, f"q{q}", f"m{q}", [r["student_answer"] for _, r in kept],
                                 [float(r["score_avg"]) for _, r in kept], args.cap, resources,
                                 cache, salt=args.salt, keys=[n for n, _ in kept]))
    finally:
        cache.save()
    print(report(runs, 0.0, args.cap, f"Offline simulation, Mohler {args.assignments}."))
    if args.json is not None:
        args.json.write_text(json.dumps([{"item": r.item, "size": r.size, "steps": [
            vars(s) for s in r.steps]} for r in runs]))


if __name__ == "__main__":
    main()
