"""Active grading across an assignment's written items: which item's proposal the instructor
decides next, and the assignment's estimate.

Each item keeps its own proposal, decisions and estimate (`service.state_of`); across the items
the next decision goes first to an item with fewer than `WARM` of its answers decided (its first
decisions make the exemplars and the decided answers' vote that move its other answers), then to
the item whose least sure undecided answer is the least sure of all (`priority`, `choose`): an
item whose remaining answers the machine is fairly sure of waits while another holds answers it
doubts more. The doubt that ranks the items and each item's proposals here is the machine's,
rescaled at each level of points by what the item's decisions found there
(`graders.active_levels`): a level where the decisions found the machine wrong comes first, one
where they found it right waits. Offline, three draws of the random checks, on Mohler 7-12:
95.1-95.3% of the answers within 1 point at 20 decisions per 100 answers (the machine's doubt
alone 94.1-94.6%; equal shares per item 93.8-94.2%), 95% at 19-20 per 100 (23-24; 29-32)
(docs/active-grading.md, *Across items*).

The assignment's estimate pools the items': the probably wrong answers summed over the
undecided answers of every item, against the items' targets weighted by their undecided
answers; it is done when that pooled share is at most the target after at least `MIN_CHECKS`
held-back checks in all (or every answer is decided).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from app.active import service
from app.active.service import ItemState
from app.db.models import User
from app.errors import InvalidInput
from graders.active import MIN_CHECKS


@dataclass(frozen=True)
class Pooled:
    """The assignment's estimate: every written item's, pooled."""

    undecided: int
    expected_wrong: float
    share: float  # expected_wrong / undecided
    target: float  # the items' targets, weighted by their undecided answers
    checks: int
    done: bool
    least_sure: float


@dataclass(frozen=True)
class AssignmentState:
    slug: str
    items: list[ItemState]  # in the rubric's order
    estimate: Pooled
    next: ItemState | None  # the item whose proposal comes next (None: every answer decided)

    @property
    def total(self) -> int:
        return sum(len(s.answers) for s in self.items)

    @property
    def decided(self) -> int:
        return sum(s.decided for s in self.items)


WARM = 0.07  # of an item's answers decided before the least sure answers rank it


def priority(least_sure: float, decided: int, answers: int) -> float:
    """An item's claim on the next decision: its least sure undecided answer's error
    probability (0-1), raised above every item past its warm-up while fewer than `WARM` of its
    answers are decided. Tuned on Mohler 1-6 (2-10% tried, 7% best: 94.9-95.2% at 20 per 100
    against 94.5-94.7% with none), checked on 7-12 and the course (docs/active-grading.md)."""
    return least_sure + (2.0 if decided < round(WARM * answers) else 0.0)


def choose(priorities: Sequence[float | None]) -> int | None:
    """The index of the item to decide in next: the highest `priority` among the items with a
    proposal (None: no item has one); ties go to the earlier item."""
    open_ = [(-value, i) for i, value in enumerate(priorities) if value is not None]
    return min(open_)[1] if open_ else None


def pooled(estimates: Sequence[tuple[int, float, float, int, float]], fallback: float
           ) -> Pooled:
    """The assignment's estimate from each item's (undecided, expected wrong, target, checks,
    least sure); `fallback`: the target with nothing undecided."""
    undecided = sum(e[0] for e in estimates)
    expected = sum(e[1] for e in estimates)
    checks = sum(e[3] for e in estimates)
    share = expected / undecided if undecided else 0.0
    target = (sum(e[0] * e[2] for e in estimates) / undecided) if undecided else fallback
    done = not undecided or (checks >= MIN_CHECKS and share <= target)
    return Pooled(undecided, expected, share, target, checks, done,
                  max((e[4] for e in estimates), default=0.0))


def assignment_state(session: Session, slug: str, options: Mapping[str, Any]) -> AssignmentState:
    """Every written item's state, the pooled estimate and the item whose proposal is next.

    422 when the assignment has no written item (nothing to grade actively)."""
    read = service.reading(session, slug)
    written = service.written_items(read.current)
    if not written:
        raise InvalidInput(f"{slug!r} has no written item: active grading is for written "
                           "answers (the others are decided by their answer groups).")
    states = [service.state_of(session, read, question_id, item, options, by_levels=True)
              for question_id, item in written]
    chosen = choose([priority(s.ranked_least_sure, s.decided, len(s.answers))
                     if s.proposal is not None else None for s in states])
    estimate = pooled([(s.estimate.undecided, s.estimate.expected_wrong, s.target,
                        s.estimate.checks, s.estimate.least_sure) for s in states],
                      states[0].target)
    return AssignmentState(slug, states, estimate, None if chosen is None else states[chosen])


def decide(session: Session, slug: str, item_id: str, submission_id: int, points: Decimal,
           feedback: str, actor: User, options: Mapping[str, Any]) -> tuple[service.Decision,
                                                                             AssignmentState]:
    """One decision on one item (as `service.decide`), then the assignment's state."""
    decision = service.decide(session, slug, item_id, submission_id, points, feedback, actor,
                              options, by_levels=True)
    return decision, assignment_state(session, slug, options)


def progress_line(state: AssignmentState) -> str:
    """The pooled estimate in words."""
    e = state.estimate
    if not e.undecided:
        return "Every answer of every written item is decided."
    verdict = "done" if e.done else "not done yet"
    return (f"About {e.share:.1%} of the {e.undecided} undecided answers across "
            f"{len(state.items)} written items are probably wrong (≈{e.expected_wrong:.1f}); "
            f"target {e.target:.0%}: {verdict}.")
