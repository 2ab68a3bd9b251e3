"""Active grading of one written item: propose the next decision, take it, and the error
estimate among the answers nobody decided (`graders.active`).

The answers are the counted submissions' (one per student, as the gradebook and the answer
groups count). A decision is an instructor override of the item (`app.review`: audited, kept
across regrades, an exemplar and a calibration point from then on); the undecided answers are
re-scored at once with the decisions as exemplars (`rescore.py`, the regrade's path), and their
stored grades follow at the next regrade, which uses the same decisions. The error target is the
item's question's risk-control target (`app.calibration`, default 5%).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sqlalchemy.orm import Session

from app.active import repository, rescore
from app.assignments.service import CurrentRubric, current_rubric, require_assignment
from app.audit.repository import record
from app.calibration import repository as risk
from app.calibration import service as calibration
from app.calibration.context import apply_context
from app.db.locks import hold_decisions
from app.db.models import ActiveCheck, Override, User
from app.errors import InvalidInput, NotFound
from app.groups import repository as answers
from app.review.service import set_override
from app.sanitize import clean
from app.submissions.counting import counted_ids
from graders.active import (
    Candidate,
    ErrorEstimate,
    HeldBack,
    Proposal,
    checks_due,
    estimate,
    propagate,
    propose,
)
from graders.active_levels import by_level
from graders.registry import kind_of
from graders.rubric import LoadedRubric, RubricItem

ANSWER_CHARS = 4000


@dataclass(frozen=True)
class ActiveAnswer:
    submission_id: int
    student: str | None
    answer: str
    suggested_points: Decimal  # the machine's, re-scored with the decisions so far
    error_probability: float  # 1 - its confidence
    decision: Decimal | None  # the instructor's, when decided
    comment: str | None

    @property
    def points(self) -> Decimal:
        return self.suggested_points if self.decision is None else self.decision


@dataclass(frozen=True)
class ItemState:
    slug: str
    item_id: str
    question_id: str
    title: str
    max_points: Decimal
    tolerance: Decimal  # a suggestion further than this from the decision is an error
    target: float
    answers: list[ActiveAnswer]
    estimate: ErrorEstimate
    proposal: Proposal | None
    rescored: bool  # suggestions re-scored with decisions as exemplars (none yet: stored)
    # The highest doubt the proposal was ranked by among the undecided (`estimate.least_sure`,
    # or with `by_levels` the doubt rescaled by the item's decisions at each level): the item's
    # claim on the next decision across the assignment (`app.active.assignment.priority`).
    ranked_least_sure: float = 0.0

    @property
    def decided(self) -> int:
        return sum(a.decision is not None for a in self.answers)

    def answer(self, submission_id: int) -> ActiveAnswer:
        for found in self.answers:
            if found.submission_id == submission_id:
                return found
        raise NotFound(f"Submission {submission_id} has no counted answer to {self.item_id!r}.",
                       submission_id=submission_id)


@dataclass(frozen=True)
class Decision:
    submission_id: int
    points: Decimal
    changed: bool  # False: the same decision was already there (idempotent)
    state: ItemState


def _item(current: CurrentRubric, item_id: str) -> tuple[str, RubricItem]:
    for question in current.loaded.rubric.questions:
        for item in question.items:
            if item.id == item_id:
                if not kind_of(item.grader).learns_from_overrides:
                    raise InvalidInput(
                        f"Active grading is for written items; {item_id!r} is graded by "
                        f"{item.grader!r} (its answer groups decide it: same value, same "
                        "behaviour).", item_id=item_id)
                return question.id, item
    raise NotFound(f"The rubric of {current.assignment.slug!r} has no item {item_id!r}.",
                   item_id=item_id)


def _tolerance(item: RubricItem) -> Decimal:
    from graders.written.calibration import AGREEMENT  # as `calibration.disagrees`

    return item.points * Decimal(str(AGREEMENT))


@dataclass
class Reading:
    """What every item of one assignment's state reads alike, read once: its current rubric,
    counted submissions, risk-control targets and (only once an item has decisions) the
    learned context."""

    current: CurrentRubric
    ids: list[int]
    targets: dict[str, float]
    _learned: LoadedRubric | None = None

    def learned(self, session: Session) -> LoadedRubric:
        if self._learned is None:
            self._learned = apply_context(self.current.loaded,
                                          calibration.learn(session, self.current))
        return self._learned


def reading(session: Session, slug: str) -> Reading:
    current = current_rubric(session, slug)
    return Reading(current, list(counted_ids(session, current.assignment)),
                   risk.targets(session, current.assignment.id))


def written_items(current: CurrentRubric) -> list[tuple[str, RubricItem]]:
    """(question id, item) of every item active grading is for, in the rubric's order."""
    return [(question.id, item) for question in current.loaded.rubric.questions
            for item in question.items if kind_of(item.grader).learns_from_overrides]


def item_state(session: Session, slug: str, item_id: str,
               options: Mapping[str, Any], by_levels: bool = False) -> ItemState:
    """Every counted answer of the item with its current suggestion or decision, the estimate
    and the next proposal (`by_levels`: as the page across items proposes, `state_of`)."""
    read = reading(session, slug)
    question_id, item = _item(read.current, item_id)
    return state_of(session, read, question_id, item, options, by_levels)


def state_of(session: Session, read: Reading, question_id: str, item: RubricItem,
             options: Mapping[str, Any], by_levels: bool = False) -> ItemState:
    """One item's state, from what `read` holds of its assignment. `by_levels`: the proposal
    ranked by the doubt rescaled at each level by the item's decisions
    (`graders.active_levels`, the chooser across items); the estimate keeps the machine's."""
    current, ids, slug, item_id = read.current, read.ids, read.current.assignment.slug, item.id
    # A blank answer is settled (no answer, no points): nothing to ask about or estimate.
    rows = [r for r in answers.item_rows(session, ids, item_id)
            if str(r[1].answers.get(question_id, "")).strip()]
    decided: dict[int, Override] = answers.overrides(session, ids, item_id)
    held = repository.checks(session, ids, item_id)
    texts = {sub.id: str(run.answers.get(question_id, "")) for _, run, sub in rows}
    undecided = sorted(sub.id for _, _, sub in rows if sub.id not in decided)
    resources = rescore.resources_for(options)
    suggestions: dict[int, tuple[Decimal, float]] = {
        sub.id: (score.points, score.confidence) for score, _, sub in rows}
    rescored = bool(decided)
    if rescored:
        found = rescore.rescore(read.learned(session), question_id, item_id,
                                [texts[s] for s in undecided], resources)
        suggestions.update({s: (f.points, f.confidence) for s, f in zip(undecided, found,
                                                                         strict=True)})
    target = calibration.target_of(read.targets, question_id)
    tolerance = _tolerance(item)
    ordered = sorted(rows, key=lambda r: r[2].id)
    cosines = rescore.similarity(current.loaded, question_id,
                                 [texts[sub.id] for _, _, sub in ordered], resources)
    if rescored:
        suggestions = _carried_over(suggestions, decided, ordered, cosines, item, tolerance)
    out = [ActiveAnswer(
        submission_id=sub.id, student=sub.student, answer=clean(texts[sub.id], ANSWER_CHARS),
        suggested_points=suggestions[sub.id][0],
        error_probability=round(1.0 - suggestions[sub.id][1], 6),
        decision=None if sub.id not in decided else decided[sub.id].points,
        comment=None if sub.id not in decided else decided[sub.id].comment,
    ) for _, _, sub in ordered]
    checks = [HeldBack(c.error_probability,
                       abs(c.machine_points - min(decided[s].points, item.points)) > tolerance,
                       float(c.machine_points))
              for s, c in held.items() if s in decided]
    waiting = [a for a in out if a.decision is None]
    doubts = [a.error_probability for a in waiting]
    estimated = estimate(doubts, checks, target, len(out))
    if by_levels:
        doubts = by_level(doubts, [float(a.suggested_points) for a in waiting], checks,
                          float(tolerance))
    at = [i for i, a in enumerate(out) if a.decision is None]
    proposal = propose([Candidate(a.submission_id, d) for a, d in zip(waiting, doubts,
                                                                        strict=True)],
                       None if cosines is None else cosines[np.ix_(at, at)], len(decided),
                       f"{slug}\0{item_id}", checks_due(estimated, target))
    return ItemState(slug, item_id, question_id, item.title or item_id, item.points, tolerance,
                     target, out, estimated, proposal, rescored, max(doubts, default=0.0))


def _carried_over(suggestions: dict[int, tuple[Decimal, float]],
                  decided: Mapping[int, Override], ordered: Sequence[Any],
                  cosines: NDArray[np.float64] | None, item: RubricItem,
                  tolerance: Decimal) -> dict[int, tuple[Decimal, float]]:
    """The suggestions with the decisions carried over to the answers like them, where the
    decided answers' vote is likelier right than the machine (`graders.active.propagate`)."""
    ids = [sub.id for _, _, sub in ordered]
    index = {s: i for i, s in enumerate(ids) if s in decided}
    points, errors = propagate(
        [float(suggestions[s][0]) for s in ids], [1.0 - suggestions[s][1] for s in ids],
        {i: float(min(decided[s].points, item.points)) for s, i in index.items()}, cosines,
        float(tolerance))
    out = dict(suggestions)
    for s, p, e in zip(ids, points, errors, strict=True):
        if s not in decided:
            shown = min(max(Decimal(str(p)), Decimal(0)), item.points).quantize(Decimal("0.01"))
            out[s] = (shown, 1.0 - e)
    return out


def decide(session: Session, slug: str, item_id: str, submission_id: int, points: Decimal,
           feedback: str, actor: User, options: Mapping[str, Any],
           by_levels: bool = False) -> Decision:
    """The instructor's points (and feedback) for one answer. Idempotent: the same decision
    again changes nothing; other points replace it (the held-back check stays the first one's:
    what the machine suggested before anyone decided). `by_levels`: taken on the page across
    items, whose proposal (and so the check's reason) is ranked as `state_of` says."""
    hold_decisions(session, require_assignment(session, slug).id)  # before reading the state
    before = item_state(session, slug, item_id, options, by_levels)
    answer = before.answer(submission_id)
    comment = feedback.strip()
    if answer.decision == points and (answer.comment or "") == comment:
        return Decision(submission_id, points, False, before)
    first = answer.decision is None
    set_override(session, submission_id, item_id, points, comment, actor)
    known = repository.checks(session, [submission_id], item_id)
    if first and submission_id not in known:
        proposed = before.proposal is not None and before.proposal.key == submission_id
        repository.add_check(session, ActiveCheck(
            submission_id=submission_id, item_id=item_id,
            machine_points=answer.suggested_points,
            error_probability=answer.error_probability,
            reason=before.proposal.reason if proposed and before.proposal else "instructor"))
    record(session, actor, "active.decide", "assignment", slug, {
        "item_id": item_id, "submission": submission_id, "points": str(points),
        "suggested": str(answer.suggested_points), "replaced": None if first
        else str(answer.decision)})
    return Decision(submission_id, points, True, item_state(session, slug, item_id, options))


def progress_line(state: ItemState) -> str:
    """The estimate in words (the page and the CLI say the same)."""
    e = state.estimate
    if not e.undecided:
        return "Every answer is decided."
    verdict = "done" if e.done else "not done yet"
    return (f"About {e.share:.1%} of the {e.undecided} undecided answers are probably wrong "
            f"(≈{e.expected_wrong:.1f}); target {state.target:.0%}: {verdict}.")
