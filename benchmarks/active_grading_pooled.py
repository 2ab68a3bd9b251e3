"""Active grading across an assignment's written items with the undecided answers' suggestions
re-calibrated on the decisions pooled over every item (issue #29), in one process: the page's
order (`app.active.assignment.priority`, `choose`), each item's proposals and estimate as the
service computes them (`graders.active`; re-scores through `active_grading_offline._scores`),
and, at every step, a model of the instructor's points given what the machine knows of an
answer (its suggestion as a share of the item's points, its doubt), fitted on all the
decisions taken so far across the items, moving the undecided answers' suggestions.

The decisions are the answers the machine chose, by its doubt (and the random checks); a model
of the instructor's points conditional on those covariates is not biased by that choice, where
a per-item mean offset was. The model is applied only to the undecided answers whose doubt lies
where the decisions were taken (`--apply-doubt`). Its suggestions are what is measured; the
error probabilities (and so the proposals) are the machine's, so `--model none` is the
per-item runs merged (`active_grading_across.merge`) step for step.

    python benchmarks/active_grading_pooled.py [--assignments 7-12 | --course SEED]
        [--salt mohler] [--cache FILE] [--model none|bands|ridge] [--prior K]
        [--apply-doubt D] [--budget 0.4]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import numpy as np  # noqa: E402
import yaml  # noqa: E402
from active_grading import DATA, _rows, _rubric  # noqa: E402
from active_grading_across import AcrossStep, curve, lines  # noqa: E402
from active_grading_offline import TARGET, Cache, _scores  # noqa: E402

from app.active import rescore  # noqa: E402
from app.active.assignment import choose, pooled, priority  # noqa: E402
from app.settings import Settings  # noqa: E402
from graders.active import (  # noqa: E402
    Candidate,
    ErrorEstimate,
    HeldBack,
    Proposal,
    checks_due,
    estimate,
    propagate,
    propose,
)
from graders.rubric import LoadedRubric, parse_rubric  # noqa: E402


@dataclass(frozen=True)
class Record:
    """One decision as the pooled model sees it."""

    share: float  # the machine's suggestion just before, as a share of the item's points
    doubt: float  # its error probability then
    human: float  # the decision, as a share of the item's points
    audit: bool


@dataclass
class ItemSim:
    loaded: LoadedRubric
    question: str
    item: str
    texts: list[str]
    truth: list[float]
    keys: list[int]
    points: float  # the item's
    limit: int
    cosines: np.ndarray | None = None
    decided: dict[int, float] = field(default_factory=dict)
    held: list[HeldBack] = field(default_factory=list)
    now: tuple[list[float], list[float], ErrorEstimate, Proposal | None] | None = None

    @property
    def tolerance(self) -> float:
        return 0.2 * self.points


Shift = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (share, doubt) -> share moved


def no_model(records: Sequence[Record]) -> Shift:
    return lambda share, doubt: np.zeros_like(share)


def bands(width: float, prior: float, stat: str = "mean") -> Callable[[Sequence[Record]], Shift]:
    """The mean (or median) gap human - machine of the decisions whose suggestion fell in the
    same band of `width` (a share of the points), shrunk toward none by `prior` decisions."""
    def fit(records: Sequence[Record]) -> Shift:
        gaps: dict[int, list[float]] = {}
        for r in records:
            gaps.setdefault(int(min(r.share, 0.999) / width), []).append(r.human - r.share)
        table = {}
        for band, found in gaps.items():
            centre = float(np.median(found)) if stat == "median" else float(np.mean(found))
            table[band] = centre * len(found) / (len(found) + prior)

        def shift(share: np.ndarray, doubt: np.ndarray) -> np.ndarray:
            return np.array([table.get(int(min(s, 0.999) / width), 0.0) for s in share])
        return shift
    return fit


def ridge(penalty: float) -> Callable[[Sequence[Record]], Shift]:
    """human - machine as a line in (1, share, share^2, doubt, share x doubt), ridge toward
    no shift."""
    def design(share: np.ndarray, doubt: np.ndarray) -> np.ndarray:
        return np.column_stack([np.ones_like(share), share - 0.5, (share - 0.5) ** 2,
                                doubt - 0.3, (share - 0.5) * (doubt - 0.3)])

    def fit(records: Sequence[Record]) -> Shift:
        if not records:
            return no_model(records)
        x = design(np.array([r.share for r in records]), np.array([r.doubt for r in records]))
        y = np.array([r.human - r.share for r in records])
        beta = np.linalg.solve(x.T @ x + penalty * np.eye(x.shape[1]), x.T @ y)
        return lambda share, doubt: design(share, doubt) @ beta
    return fit


def isotonic(prior: float) -> Callable[[Sequence[Record]], Shift]:
    """An isotonic (non-decreasing) map from the machine's share to the instructor's, fitted on
    the decisions (pool-adjacent-violators), its gap from the identity shrunk toward none by
    `prior` decisions; between the decided shares it holds the nearest one's value."""
    def fit(records: Sequence[Record]) -> Shift:
        if not records:
            return no_model(records)
        order = sorted(records, key=lambda r: r.share)
        blocks: list[list[float]] = []  # [sum of human, count, first share]
        for r in order:
            blocks.append([r.human, 1.0, r.share])
            while len(blocks) > 1 and (blocks[-2][0] / blocks[-2][1]
                                       > blocks[-1][0] / blocks[-1][1]):
                last = blocks.pop()
                blocks[-1][0] += last[0]
                blocks[-1][1] += last[1]
        starts = np.array([b[2] for b in blocks])
        level = np.array([b[0] / b[1] for b in blocks])
        trust = len(records) / (len(records) + prior)

        def shift(share: np.ndarray, doubt: np.ndarray) -> np.ndarray:
            at = np.clip(np.searchsorted(starts, share, side="right") - 1, 0, len(blocks) - 1)
            moved: np.ndarray = (level[at] - share) * trust
            return moved
        return shift
    return fit


MODELS: dict[str, Callable[[argparse.Namespace], Callable[[Sequence[Record]], Shift]]] = {
    "none": lambda a: no_model,
    "bands": lambda a: bands(a.width, a.prior),
    "median": lambda a: bands(a.width, a.prior, "median"),
    "ridge": lambda a: ridge(a.prior),
    "isotonic": lambda a: isotonic(a.prior),
}


def mohler_items(assignments: str, cap: float) -> list[ItemSim]:
    low, _, high = assignments.partition("-")
    questions = _rows(DATA, set(range(int(low), int(high or low) + 1)), None)
    loaded = parse_rubric(yaml.safe_dump(_rubric(questions)), "mohler.yaml")
    out = []
    for q, rows in questions.items():
        # Student n is submission n + 1 in the HTTP run's database (active_grading_offline).
        kept = [(n + 1, r) for n, r in enumerate(rows) if r["student_answer"].strip()]
        out.append(ItemSim(loaded, f"q{q}", f"m{q}", [r["student_answer"] for _, r in kept],
                           [float(r["score_avg"]) for _, r in kept], [n for n, _ in kept], 5.0,
                           max(1, round(cap * len(kept)))))
    return out


def course_items(seed: int, cap: float, students: int = 120) -> list[ItemSim]:
    from active_grading_course import SLUG, TRUE_POINTS, statement
    from answer_groups_course import course

    from graders.documents.submission import read_submission
    from graders.rubric import load_rubric
    from graders.rubric_model import BUNDLED_RUBRICS

    loaded = load_rubric(BUNDLED_RUBRICS / f"{SLUG}.yaml")
    parsed = [read_submission(raw, name, kind, loaded.rubric)
              for _, raw, name, kind in course(students, seed)]
    out = []
    for question in loaded.rubric.questions:
        for item in question.items:
            if item.id not in TRUE_POINTS:
                continue
            kept = [(n + 1, p.answers[question.id].text) for n, p in enumerate(parsed)
                    if question.id in p.answers and p.answers[question.id].text.strip()]
            texts = [t for _, t in kept]
            out.append(ItemSim(loaded, question.id, item.id, texts,
                               [float(TRUE_POINTS[item.id][statement(question.id, t)])
                                for t in texts], [n for n, _ in kept], float(item.points),
                               max(1, round(cap * len(kept)))))
    return out


def _refresh(sim: ItemSim, resources: object, cache: Cache, salt: str) -> None:
    """The item's suggestions, error probabilities, estimate and proposal under its decisions
    (as `active_grading_offline.simulate` computes them at each step)."""
    scored = _scores(sim.loaded, sim.question, sim.item, sim.texts, sim.decided, resources,
                     cache)
    points = [float(p) for p, _ in scored]
    errors = [round(1.0 - c, 6) for _, c in scored]
    points, errors = propagate(points, errors, sim.decided, sim.cosines, sim.tolerance)
    waiting = [k for k in range(len(sim.texts)) if k not in sim.decided]
    est = estimate([errors[k] for k in waiting], sim.held, TARGET, len(sim.texts))
    sub = None if sim.cosines is None else sim.cosines[waiting][:, waiting]
    proposal = propose([Candidate(sim.keys[k], errors[k]) for k in waiting], sub,
                       len(sim.decided), f"{salt}\0{sim.item}", checks_due(est, TARGET))
    sim.now = (points, errors, est, proposal)


def _shown(sim: ItemSim, shift: Shift, apply_doubt: float) -> np.ndarray:
    """The item's suggestions moved by the pooled model where their doubt is at least
    `apply_doubt` (within the item's points)."""
    assert sim.now is not None
    points, errors = np.array(sim.now[0]), np.array(sim.now[1])
    share = np.clip(points / sim.points, 0.0, 1.0)
    moved = np.where(errors >= apply_doubt, shift(share, errors), 0.0)
    return np.clip(points + moved * sim.points, 0.0, sim.points)


def run(sims: list[ItemSim], fit: Callable[[Sequence[Record]], Shift], apply_doubt: float,
        budget: float, salt: str, resources: object, cache: Cache,
        refit_every: int = 1) -> tuple[list[AcrossStep], list[Record]]:
    """The joint loop until `budget` of all the answers are decided (or none is proposed)."""
    total = sum(len(s.texts) for s in sims)
    for sim in sims:
        sim.cosines = rescore.similarity(sim.loaded, sim.question, sim.texts,
                                         resources)  # type: ignore[arg-type]
        _refresh(sim, resources, cache, salt)
    records: list[Record] = []
    shift = fit(records)
    steps: list[AcrossStep] = []
    while True:
        within = wrong = undecided = 0
        shown = []
        for sim in sims:
            points = _shown(sim, shift, apply_doubt)
            shown.append(points)
            for k, truth in enumerate(sim.truth):
                off = abs((sim.decided[k] if k in sim.decided else points[k]) - truth)
                within += off <= sim.tolerance + 1e-9
                if k not in sim.decided:
                    undecided += 1
                    wrong += off > sim.tolerance + 1e-9
        estimates = [s.now[2] for s in sims if s.now]
        est = pooled([(e.undecided, e.expected_wrong, TARGET, e.checks, e.least_sure)
                      for e in estimates], TARGET)
        decided = sum(len(s.decided) for s in sims)
        steps.append(AcrossStep(decided, within, wrong, undecided, est.expected_wrong, est.done))
        chosen = choose([priority(s.now[2].least_sure, len(s.decided), len(s.texts))
                         if s.now and s.now[3] is not None and len(s.decided) < s.limit
                         else None for s in sims])
        if chosen is None or decided >= budget * total:
            return steps, records
        sim = sims[chosen]
        assert sim.now is not None and sim.now[3] is not None
        k = sim.keys.index(sim.now[3].key)
        human = round(sim.truth[k], 2)
        error = sim.now[1][k]
        records.append(Record(min(max(sim.now[0][k] / sim.points, 0.0), 1.0), error,
                              human / sim.points, sim.now[3].reason == "audit"))
        sim.held.append(HeldBack(error, abs(shown[chosen][k] - human) > sim.tolerance + 1e-9,
                                 float(shown[chosen][k])))
        sim.decided[k] = human
        _refresh(sim, resources, cache, salt)
        if len(records) % refit_every == 0:
            shift = fit(records)


CELLS = (0.0, 0.05, 0.1, 0.15, 0.25)  # doubt bands of `cell_oracle`


def cell_oracle(sims: list[ItemSim], by_item: bool = False) -> tuple[int, int, int, int]:
    """What the best estimate a pooled model could learn would do for the undecided answers
    now: each cell (the suggestion to a quarter of a point and a band of `CELLS` doubt, or with
    `by_item` the item and the suggestion) given the mean, or the median, of its own answers'
    human points (an oracle: it reads the truth). (undecided, within now, within at the cells'
    means, within at their medians)."""
    rows = np.array([(i if by_item else 0, s.now[0][k] / s.points, s.now[1][k],
                      s.truth[k] / s.points, s.tolerance / s.points)
                     for i, s in enumerate(sims) if s.now
                     for k in range(len(s.texts)) if k not in s.decided])
    item, share, doubt, truth, tolerance = rows.T
    level = np.round(share * 20) / 20
    band = item if by_item else np.digitize(doubt, CELLS)
    means, medians = share.copy(), share.copy()
    for key in set(zip(level.tolist(), band.tolist(), strict=True)):
        at = (level == key[0]) & (band == key[1])
        means[at], medians[at] = truth[at].mean(), np.median(truth[at])
    now, at_means, at_medians = (int((np.abs(guess - truth) <= tolerance + 1e-9).sum())
                                 for guess in (share, means, medians))
    return len(rows), now, at_means, at_medians


def summary(steps: list[AcrossStep], total: int) -> str:
    """One line: within at 10/15/20/25/30 per 100, 95% reached at, the true error at done."""
    at = " ".join(f"{b}:{curve(steps, total, b):.1%}" for b in (10, 15, 20, 25, 30))
    reached = next((b for b in range(0, 101) if steps[-1].decided >= b * total / 100 - 1e-9
                    and curve(steps, total, b) >= 0.95), None)
    done = next((s for s in steps if s.done and s.undecided and s.decided >= 3), None)
    done_text = ("never" if done is None else
                 f"{100 * done.decided / total:.1f}/100 true {done.undecided_wrong}/"
                 f"{done.undecided}={done.undecided_wrong / done.undecided:.1%}")
    return f"{at} | 95% at {reached} | done {done_text}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assignments", default="7-12")
    parser.add_argument("--course", type=int, default=None, help="the course at this seed")
    parser.add_argument("--cap", type=float, default=None, help="per item (0.5 / course 0.25)")
    parser.add_argument("--budget", type=float, default=0.4, help="of all the answers")
    parser.add_argument("--salt", default=None, help="the random checks' draw (mohler)")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--model", choices=sorted(MODELS), default="none")
    parser.add_argument("--prior", type=float, default=5.0)
    parser.add_argument("--width", type=float, default=0.1)
    parser.add_argument("--apply-doubt", type=float, default=0.0)
    parser.add_argument("--table", action="store_true", help="the across-items table too")
    parser.add_argument("--oracle", action="store_true",
                        help="at the end (--budget): the cells' oracle (`cell_oracle`)")
    args = parser.parse_args()
    if args.course is not None:
        sims = course_items(args.course, args.cap or 0.25)
        salt = args.salt or "transformer-basics"
    else:
        if not DATA.is_file():
            raise SystemExit(f"Mohler data not found at {DATA}: nothing measured.")
        sims = mohler_items(args.assignments, args.cap or 0.5)
        salt = args.salt or "mohler"
    resources = rescore.resources_for(Settings().grading_options())
    cache = Cache(args.cache)
    began = time.monotonic()
    try:
        steps, _ = run(sims, MODELS[args.model](args), args.apply_doubt, args.budget, salt,
                       resources, cache)
    finally:
        cache.save()
    total = sum(len(s.texts) for s in sims)
    print(f"{args.model} prior={args.prior} width={args.width} apply>={args.apply_doubt} "
          f"salt={salt}: {summary(steps, total)} ({time.monotonic() - began:.0f} s)")
    if args.oracle:
        decided = sum(len(s.decided) for s in sims)
        for by_item in (False, True):
            undecided, now, means, medians = cell_oracle(sims, by_item)
            cells = "item x suggestion" if by_item else "suggestion x doubt"
            print(f"at {decided} decisions, {undecided} undecided: within now {now} "
                  f"({(now + decided) / total:.1%} of all); cells {cells} at their true means "
                  f"{means} ({(means + decided) / total:.1%}), medians {medians} "
                  f"({(medians + decided) / total:.1%})")
    if args.table:
        print(lines(steps, total, "within 1 point", int(args.budget * 100)))


if __name__ == "__main__":
    main()
