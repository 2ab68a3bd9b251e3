"""Active grading across items (issue #29) with a chooser that learns online which suggestions
are wrong: a joint simulation in the page's order (`app.active.assignment`), without a server.

The page's chooser ranks each item's undecided answers by the machine's calibrated doubt and
spends the next decision on the item whose least sure answer is the least sure of all. Every
decision also says whether the machine's suggestion for that answer was wrong (further than the
tolerance from the decision). `online` fits, pooled over the assignment's decisions so far, a
small logistic model of "wrong" on what the chooser sees of each answer (the doubt as a logit,
the suggested share of the points, how far the suggestion moved since the reference-only one,
how far it lies from its decided neighbours' points and how close the nearest decided answer is,
whether the decided neighbours were found wrong), shrunk toward the doubt itself (`PENALTY`
decisions' worth); the chooser ranks by the model instead of the doubt, within and across
items. The random checks, the carrying over and the estimate (and so *done*) are the page's.

A model pooled over items couples them (an item's next proposal depends on decisions taken on
the others), so the per-item runs cannot be merged as `active_grading_across.merge` does: this
script steps every item together. `--rank doubt` is the page's order (it reproduces the merge).

    python benchmarks/active_grading_chooser.py [--assignments 7-12] [--course SEED]
        [--rank doubt|online|committee] [--penalty P] [--budget 0.3] [--salt S] [--cache FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import numpy as np  # noqa: E402
import yaml  # noqa: E402
from active_grading import DATA, _rows, _rubric  # noqa: E402
from active_grading_across import AcrossStep, curve, lines  # noqa: E402
from active_grading_offline import Cache, _scores  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

from app.active import rescore  # noqa: E402
from app.active.assignment import choose, pooled, priority  # noqa: E402
from app.settings import Settings  # noqa: E402
from graders.active import (  # noqa: E402
    FAR,
    NEAR,
    OTHERS,
    SETTLE_FAR,
    Candidate,
    ErrorEstimate,
    HeldBack,
    checks_due,
    estimate,
    propagate,
    propose,
)
from graders.rubric import LoadedRubric, parse_rubric  # noqa: E402

TARGET = 0.05
ACROSS_ONLY = False  # the score ranks the items only; each item proposes as the page does
LAST_REASON: dict[str, str] = {}
TRACE: list[tuple[str | int | float | bool, ...]] = []  # per decision: what it did
PENALTY = 10.0  # decisions' worth of belief in the prior (the doubt alone)
FEATURES = ("logit", "one", "share", "middling", "moved", "apart", "nearest", "neighbours_wrong",
            "item_rate", "level_rate")


@dataclass
class Spec:
    loaded: LoadedRubric
    question: str
    item: str
    texts: list[str]
    truth: list[float]
    tolerance: float
    salt: str
    keys: list[int]
    maximum: float  # the item's points


@dataclass
class Item:
    spec: Spec
    cosines: NDArray[np.float64] | None
    base: list[float] = field(default_factory=list)  # reference-only suggestions
    decided: dict[int, float] = field(default_factory=dict)
    wrong_at: dict[int, bool] = field(default_factory=dict)  # decided -> suggestion was wrong
    held: list[HeldBack] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    errors: list[float] = field(default_factory=list)
    est: ErrorEstimate | None = None

    @property
    def waiting(self) -> list[int]:
        return [k for k in range(len(self.spec.texts)) if k not in self.decided]


def refresh(item: Item, resources: object, cache: Cache) -> None:
    s = item.spec
    scored = _scores(s.loaded, s.question, s.item, s.texts, item.decided, resources, cache)
    points = [float(p) for p, _ in scored]
    errors = [round(1.0 - c, 6) for _, c in scored]
    if not item.base:
        item.base = list(points)
    item.points, item.errors = propagate(points, errors, item.decided, item.cosines, s.tolerance)
    item.est = estimate([item.errors[k] for k in item.waiting], item.held, TARGET, len(s.texts))


def features(item: Item, k: int) -> list[float]:
    """What the chooser sees of undecided answer k (`FEATURES`)."""
    s, top = item.spec, item.spec.maximum
    d = min(max(item.errors[k], 1e-4), 1 - 1e-4)
    share = item.points[k] / top
    nearest = apart = neighbours_wrong = 0.0
    if item.cosines is not None and item.decided:
        keys = list(item.decided)
        cos = item.cosines[k, keys]
        nearest = float(max(0.0, cos.max()))
        w = np.clip((cos - FAR) / (NEAR - FAR), 0.0, 1.0)
        if w.sum() > 0:
            given = np.array([item.decided[j] for j in keys])
            apart = float(abs(w @ given / w.sum() - item.points[k]) / top)
            flags = np.array([item.wrong_at[j] for j in keys], dtype=np.float64)
            neighbours_wrong = float(w @ flags / w.sum()) * float(w.max())
    del s
    return [math.log(d / (1 - d)), 1.0, share, 4 * share * (1 - share),
            abs(item.points[k] - item.base[k]) / top, apart, nearest, neighbours_wrong,
            math.log(item_ratio(item, 2.0)), math.log(level_ratio(item, k, 1.0, 0.25))]


def level_ratio(item: Item, k: int, prior: float, width: float) -> float:
    """Errors seen over predicted on the item's decisions whose suggestion was at answer k's
    level (within `width` of the tolerance), shrunk toward 1."""
    near = [h for h in item.held
            if abs(h.points - item.points[k]) <= width * item.spec.tolerance + 1e-9]
    seen = sum(h.wrong for h in near)
    return (seen + prior) / (sum(h.error_probability for h in near) + prior)


def item_ratio(item: Item, prior: float) -> float:
    """Errors seen over errors predicted on the item's decisions, shrunk toward 1."""
    seen = sum(h.wrong for h in item.held)
    return (seen + prior) / (sum(h.error_probability for h in item.held) + prior)


@dataclass
class Model:
    """A penalised logistic regression of "wrong", its prior the doubt itself (coefficient 1 on
    its logit, 0 elsewhere)."""

    penalty: float
    use: tuple[bool, ...]
    beta: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    rows: list[list[float]] = field(default_factory=list)
    labels: list[float] = field(default_factory=list)

    def prior(self) -> NDArray[np.float64]:
        return np.array([1.0] + [0.0] * (len(FEATURES) - 1))

    def fit(self) -> None:
        beta = self.prior()
        if not self.rows:
            self.beta = beta
            return
        x = np.array(self.rows) * np.array(self.use, dtype=np.float64)
        y = np.array(self.labels)
        b0 = self.prior()
        for _ in range(25):
            p = 1 / (1 + np.exp(-(x @ beta)))
            grad = x.T @ (p - y) + self.penalty * (beta - b0)
            hess = (x.T * (p * (1 - p))) @ x + self.penalty * np.eye(len(beta))
            step = np.linalg.solve(hess, grad)
            beta = beta - step
            if np.abs(step).max() < 1e-6:
                break
        self.beta = beta

    def predict(self, row: list[float]) -> float:
        z = float(np.dot(np.array(row) * np.array(self.use, dtype=np.float64), self.beta))
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def _reach(similarity: NDArray[np.float64]) -> NDArray[np.float64]:
    weights = np.clip((similarity - SETTLE_FAR) / (NEAR - SETTLE_FAR), 0.0, 1.0)
    np.fill_diagonal(weights, 0.0)
    return weights


Rank = Callable[[Item, list[int]], list[float]]


def proposal_of(item: Item, score: Rank | None) -> tuple[int, float] | None:
    """(answer index, priority) of the item's next proposal: the page's (`propose`, `priority`)
    with `score` None, else the same random checks and the answer maximising the score plus
    `OTHERS` of its close neighbours' (as `propose` does with the doubt)."""
    s, waiting = item.spec, item.waiting
    assert item.est is not None
    if not waiting:
        return None
    due = checks_due(item.est, TARGET)
    sub = None if item.cosines is None else item.cosines[waiting][:, waiting]
    p = propose([Candidate(s.keys[k], item.errors[k]) for k in waiting], sub, len(item.decided),
                f"{s.salt}\0{s.item}", due)
    assert p is not None
    if score is not None and ACROSS_ONLY:
        LAST_REASON[s.item] = p.reason
        return s.keys.index(p.key), priority(max(score(item, waiting)), len(item.decided),
                                             len(s.texts))
    if score is None or p.reason == "audit":
        top = item.est.least_sure if score is None else max(score(item, waiting))
        LAST_REASON[s.item] = p.reason
        return s.keys.index(p.key), priority(top, len(item.decided), len(s.texts))
    LAST_REASON[s.item] = "model"
    q = np.array(score(item, waiting))
    weights = q if sub is None else q + OTHERS * (_reach(sub) @ q)
    best = min(range(len(waiting)), key=lambda i: (-round(float(weights[i]), 9),
                                                   s.keys[waiting[i]]))
    return waiting[best], priority(float(q.max()), len(item.decided), len(s.texts))


def run(specs: list[Spec], score_of: Callable[[Model], Rank | None], model: Model,
        budget: float, cap: float, resources: object, cache: Cache) -> list[AcrossStep]:
    items = [Item(s, rescore.similarity(s.loaded, s.question, s.texts, resources))  # type: ignore[arg-type]
             for s in specs]
    for item in items:
        refresh(item, resources, cache)
    total = sum(len(s.texts) for s in specs)
    out: list[AcrossStep] = []
    while True:
        ests = [i.est for i in items]
        est = pooled([(e.undecided, e.expected_wrong, TARGET, e.checks, e.least_sure)
                      for e in ests if e is not None], TARGET)
        within = sum(abs((i.decided[k] if k in i.decided else i.points[k]) - i.spec.truth[k])
                     <= i.spec.tolerance + 1e-9 for i in items for k in range(len(i.spec.texts)))
        wrong = sum(abs(i.points[k] - i.spec.truth[k]) > i.spec.tolerance + 1e-9
                    for i in items for k in i.waiting)
        undecided = sum(len(i.waiting) for i in items)
        decided = total - undecided
        out.append(AcrossStep(decided, within, wrong, undecided, est.expected_wrong, est.done))
        if decided >= budget * total:
            return out
        score = score_of(model)
        found = [proposal_of(i, score) if len(i.decided) < max(1, round(cap * len(i.spec.texts)))
                 else None for i in items]
        chosen = choose([None if f is None else f[1] for f in found])
        if chosen is None:
            return out
        item, (k, _) = items[chosen], found[chosen]  # type: ignore[misc]
        row = features(item, k)
        truth = round(item.spec.truth[k], 2)
        wrong_k = abs(item.points[k] - truth) > item.spec.tolerance + 1e-9
        model.rows.append(row)
        model.labels.append(float(wrong_k))
        model.fit()
        item.held.append(HeldBack(item.errors[k], wrong_k, item.points[k]))
        before = sum(abs(item.points[j] - item.spec.truth[j]) <= item.spec.tolerance + 1e-9
                     for j in item.waiting if j != k)
        item.decided[k] = truth
        item.wrong_at[k] = wrong_k
        refresh(item, resources, cache)
        after = sum(abs(item.points[j] - item.spec.truth[j]) <= item.spec.tolerance + 1e-9
                    for j in item.waiting)
        TRACE.append((decided, item.spec.item, k, item.held[-1].error_probability, wrong_k,
                      after - before, len(item.decided), LAST_REASON[item.spec.item]))


def mohler_specs(assignments: str, salt: str) -> list[Spec]:
    low, _, high = assignments.partition("-")
    questions = _rows(DATA, set(range(int(low), int(high or low) + 1)), None)
    loaded = parse_rubric(yaml.safe_dump(_rubric(questions)), "mohler.yaml")
    specs = []
    for q, rows in questions.items():
        kept = [(n + 1, r) for n, r in enumerate(rows) if r["student_answer"].strip()]
        specs.append(Spec(loaded, f"q{q}", f"m{q}", [r["student_answer"] for _, r in kept],
                          [float(r["score_avg"]) for _, r in kept], 1.0, salt,
                          [n for n, _ in kept], 5.0))
    return specs


def course_specs(seed: int, students: int = 120) -> list[Spec]:
    from active_grading_course import SLUG, TRUE_POINTS, statement
    from answer_groups_course import course

    from graders.documents.submission import read_submission
    from graders.rubric import load_rubric
    from graders.rubric_model import BUNDLED_RUBRICS

    loaded = load_rubric(BUNDLED_RUBRICS / f"{SLUG}.yaml")
    parsed = [read_submission(raw, name, kind, loaded.rubric)
              for _, raw, name, kind in course(students, seed)]
    specs = []
    for question in loaded.rubric.questions:
        for it in question.items:
            if it.id not in TRUE_POINTS:
                continue
            kept = [(n + 1, p.answers[question.id].text) for n, p in enumerate(parsed)
                    if question.id in p.answers and p.answers[question.id].text.strip()]
            texts = [t for _, t in kept]
            truth = [float(TRUE_POINTS[it.id][statement(question.id, t)]) for t in texts]
            specs.append(Spec(loaded, question.id, it.id, texts, truth, 0.2 * float(it.points),
                              SLUG, [n for n, _ in kept], float(it.points)))
    return specs


def committee(alpha: float) -> Rank:
    """The doubt raised by the disagreement of the signals: the reference-only suggestion, the
    current one and the decided neighbours' points (query by committee)."""
    def score(item: Item, waiting: list[int]) -> list[float]:
        out = []
        for k in waiting:
            f = dict(zip(FEATURES, features(item, k), strict=True))
            out.append(min(1.0, item.errors[k] + alpha * max(f["moved"], f["apart"])))
        return out
    return score


def by_ratio(prior: float, power: float) -> Rank:
    """The doubt scaled by the item's errors seen over predicted (its own decisions so far)."""
    def score(item: Item, waiting: list[int]) -> list[float]:
        r = item_ratio(item, prior) ** power
        return [min(1.0, item.errors[k] * r) for k in waiting]
    return score


def by_level(prior: float, width: float) -> Rank:
    """The doubt scaled by the errors seen over predicted at the answer's level of its item."""
    def score(item: Item, waiting: list[int]) -> list[float]:
        return [min(1.0, item.errors[k] * level_ratio(item, k, prior, width)) for k in waiting]
    return score


def online(model: Model) -> Rank:
    def score(item: Item, waiting: list[int]) -> list[float]:
        return [model.predict(features(item, k)) for k in waiting]
    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assignments", default="7-12")
    parser.add_argument("--course", type=int, default=None, help="the course at this seed")
    parser.add_argument("--rank", default="doubt",
                        choices=("doubt", "online", "committee", "ratio", "level"))
    parser.add_argument("--width", type=float, default=0.25)
    parser.add_argument("--prior", type=float, default=2.0)
    parser.add_argument("--power", type=float, default=1.0)
    parser.add_argument("--penalty", type=float, default=PENALTY)
    parser.add_argument("--alpha", type=float, default=1.0)
    parser.add_argument("--drop", default="", help="features left out, comma-separated")
    parser.add_argument("--budget", type=float, default=0.3)
    parser.add_argument("--cap", type=float, default=None)
    parser.add_argument("--salt", default="mohler")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--across-only", action="store_true")
    args = parser.parse_args()
    global ACROSS_ONLY
    ACROSS_ONLY = args.across_only
    specs = (mohler_specs(args.assignments, args.salt) if args.course is None
             else course_specs(args.course))
    cap = args.cap if args.cap is not None else (0.5 if args.course is None else 0.25)
    dropped = set(args.drop.split(",")) - {""}
    model = Model(args.penalty, tuple(f not in dropped for f in FEATURES))
    model.fit()
    ranks: dict[str, Callable[[Model], Rank | None]] = {
        "doubt": lambda m: None, "online": online, "committee": lambda m: committee(args.alpha),
        "ratio": lambda m: by_ratio(args.prior, args.power),
        "level": lambda m: by_level(args.prior, args.width)}
    resources = rescore.resources_for(Settings().grading_options())
    cache = Cache(args.cache)
    try:
        steps = run(specs, ranks[args.rank], model, args.budget, cap, resources, cache)
    finally:
        if args.cache is not None and args.cache.is_file():  # runs in parallel share the file
            cache.known = {**Cache(args.cache).known, **cache.known}
        cache.save()
    total = sum(len(s.texts) for s in specs)
    within = "within 1 point" if args.course is None else "within 20% of the points"
    print(lines(steps, total, within, int(args.budget * 100)))
    for b in (10, 15, 20, 25, 30):
        if b <= args.budget * 100:
            print(f"at {b}: {curve(steps, total, b):.2%}")
    print("beta", dict(zip(FEATURES, np.round(model.beta, 3).tolist(), strict=True)),
          f"wrong decided {int(sum(model.labels))}/{len(model.labels)}")
    if args.json is not None:
        args.json.write_text(json.dumps({"steps": [vars(s) for s in steps], "trace": TRACE}))


if __name__ == "__main__":
    main()
