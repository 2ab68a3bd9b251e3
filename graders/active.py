"""Active grading of one item: which answer the instructor decides next, and how wrong the
answers nobody decided probably are. Pure: no database, no web, no model.

Each undecided answer comes with the machine's current suggestion and its probability of being
wrong (more than the agreement tolerance from what a careful grader gives: 1 - the grader's
calibrated confidence). Deciding an answer makes it an exemplar, which moves the suggestions of
the answers like it; so the answer worth asking about is the one whose own probable error plus
its neighbours' holds the most: each other undecided answer counts `OTHERS` of its error
probability at cosine `NEAR` and above (whole-answer vectors), nothing below `SETTLE_FAR`, linearly
between. Where answers restate a few statements, a decision on a doubtful one settles its
near-copies and the cluster comes first; where answers are varied, each settles little beyond
itself and the least sure comes first.
Every `AUDIT_EVERY`-th proposal is instead an answer drawn at random (deterministically, from
the item and the count of decisions) while the item's estimate is within `NEAR_DONE` targets
(`checks_due`): the machine's own choices are the answers it is least sure of, and a few
uniform draws keep the error estimate honest about the rest where "done" is within reach.

Decisions carry over (`propagate`): the decided answers vote for the answers like them, and
the vote replaces the machine's suggestion where it has been right more often, leave-one-out
on the decided answers, than the machine's confidence promises; elsewhere nothing moves, but
where the vote agrees with the suggestion the answer's doubt shrinks as a settled copy's does.

The estimate: a calibrated per-answer error probability, summed. Each decision taken through
active grading holds back what the machine suggested for that answer just before (and its
error probability): a held-out check. The ratio of errors seen to errors predicted over those
checks (shrunk toward 1 by `PRIOR` predicted errors) scales the undecided answers'
probabilities; the item is done when the scaled mean is at most the instructor's target.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

NEAR = 0.9  # cosine at and above which a decision settles the other answer fully
FAR = 0.6  # cosine below which it does not move it
# The chooser: another answer's error probability counts OTHERS of its weight from SETTLE_FAR up
# (ramped to NEAR). On Mohler 7-12 (answers varied, mean cosine about 0.5) counting it fully from
# FAR favoured typical answers the machine is sure of: offline, 92.3% of the answers within 1
# point at 20 decisions per 100 and 95% at 45 per 100, against 92.9% and 32 with these
# (docs/active-grading.md).
SETTLE_FAR = 0.75
OTHERS = 0.5
AUDIT_EVERY = 4  # every 4th proposal is a uniform draw among the undecided
# ... while the item's estimate is at most NEAR_DONE x its target (`checks_due`): a random check
# is there to keep "done" honest, so it is spent where "done" is within reach; an item far from
# it spends its decisions on the answers the machine doubts (docs/active-grading.md).
NEAR_DONE = 2.0
PRIOR = 2.0  # predicted errors' worth of belief that the probabilities are calibrated
MIN_CHECKS = 3  # held-back decisions before an item can be done (fewer when it is smaller)
VOTE_PRIOR = 2.0  # votes' worth of a coin toss in how often the decided answers' vote misses


@dataclass(frozen=True)
class Candidate:
    key: int  # the answer's id (its submission)
    error_probability: float  # 1 - the machine's confidence in its current suggestion


@dataclass(frozen=True)
class HeldBack:
    """A decision, with what the machine had suggested for that answer just before it."""

    error_probability: float
    wrong: bool  # the decision is further than the tolerance from that suggestion
    points: float = 0.0  # that suggestion


@dataclass(frozen=True)
class Proposal:
    key: int
    reason: str  # "settles" | "least sure" | "audit"
    settles: int  # other undecided answers at cosine >= NEAR
    weight: float  # the probable error its neighbourhood holds


@dataclass(frozen=True)
class ErrorEstimate:
    undecided: int
    expected_wrong: float  # among the undecided
    share: float  # expected_wrong / undecided (0 with none)
    ratio: float  # errors seen / predicted on the held-back decisions, shrunk toward 1
    checks: int  # held-back decisions
    done: bool
    # The highest error probability among the undecided (0 with none), not scaled by `ratio`:
    # the least sure answer left. An instructor grading several items moves on from an item once
    # this is low; spent that way the decisions go where the machine doubts most across the
    # items (docs/active-grading.md).
    least_sure: float = 0.0


def _closeness(similarity: NDArray[np.float64]) -> NDArray[np.float64]:
    weights = np.clip((similarity - FAR) / (NEAR - FAR), 0.0, 1.0)
    np.fill_diagonal(weights, 1.0)
    return weights


def _reach(similarity: NDArray[np.float64]) -> NDArray[np.float64]:
    """How much of another answer's probable error a decision is credited with (not its own)."""
    weights = np.clip((similarity - SETTLE_FAR) / (NEAR - SETTLE_FAR), 0.0, 1.0)
    np.fill_diagonal(weights, 0.0)
    return weights


def _draw(keys: Sequence[int], salt: str) -> int:
    return min(keys, key=lambda k: hashlib.sha256(f"{salt}\0{k}".encode()).digest())


def checks_due(estimated: ErrorEstimate, target: float) -> bool:
    """Whether the item's random checks are due: its estimate is within `NEAR_DONE` times the
    target, where "done" is within reach and a check can change it."""
    return estimated.share <= NEAR_DONE * target


def propose(candidates: Sequence[Candidate], similarity: NDArray[np.float64] | None,
            decided: int, salt: str, audit: bool = True) -> Proposal | None:
    """The undecided answer to ask about next (None when every answer is decided).

    `similarity`: cosines between the candidates' answers (in their order), None without an
    encoder (then each answer settles only itself, and the least sure comes first). `decided`:
    decisions so far; `salt` names the item (the audit draws differ between items). `audit`:
    whether this turn's random check is due (`checks_due`); without it every proposal is the
    machine's own choice."""
    if not candidates:
        return None
    keys = [c.key for c in candidates]
    if audit and decided % AUDIT_EVERY == AUDIT_EVERY - 1:
        key = _draw(keys, f"{salt}\0{decided}")
        index = keys.index(key)
        return Proposal(key, "audit", _settled(similarity, index),
                        candidates[index].error_probability)
    errors = np.array([c.error_probability for c in candidates], dtype=np.float64)
    weights = errors if similarity is None else errors + OTHERS * (_reach(similarity) @ errors)
    # Ties: the lower key, so a proposal does not depend on the order of the rows.
    best = min(range(len(keys)), key=lambda i: (-round(float(weights[i]), 9), keys[i]))
    settles = _settled(similarity, best)
    reason = "settles" if settles else "least sure"
    return Proposal(keys[best], reason, settles, float(weights[best]))


def _settled(similarity: NDArray[np.float64] | None, index: int) -> int:
    if similarity is None:
        return 0
    return int((similarity[index] >= NEAR).sum()) - 1


def estimate(undecided: Sequence[float], held: Sequence[HeldBack], target: float,
             total: int) -> ErrorEstimate:
    """The expected error among the undecided answers (their error probabilities), calibrated
    on the held-back decisions; `total` answers in all (an item smaller than `MIN_CHECKS`
    needs fewer checks)."""
    predicted = sum(h.error_probability for h in held)
    seen = sum(h.wrong for h in held)
    ratio = (seen + PRIOR) / (predicted + PRIOR)
    expected = min(float(len(undecided)), ratio * sum(undecided))
    share = expected / len(undecided) if undecided else 0.0
    enough = len(held) >= min(MIN_CHECKS, total)
    done = not undecided or (enough and share <= target)
    return ErrorEstimate(len(undecided), expected, share, ratio, len(held), done,
                         max(undecided, default=0.0))


def propagate(points: Sequence[float], errors: Sequence[float], decided: Mapping[int, float],
              similarity: NDArray[np.float64] | None, tolerance: float
              ) -> tuple[list[float], list[float]]:
    """Every answer's suggestion and error probability with the decisions carried over to the
    answers like them, where that is likelier right than the machine.

    `points`, `errors`: the machine's suggestions and error probabilities, every answer by
    index; `decided`: index -> the instructor's points; `similarity`: cosines between all the
    answers. A decided answer votes for another with its closeness (`NEAR` and above fully,
    nothing below `FAR`); how often such a vote misses (is further than `tolerance` from the
    decision) is measured leave-one-out on the decided answers, each voted on by the others,
    and is the vote's error probability for an answer (its voters' misses, weighted as they
    vote, with `VOTE_PRIOR` votes' worth of a coin toss). The vote replaces the machine's
    suggestion only where that probability is below the machine's own: an answer unlike every
    decided one, or one the machine is surer of than the votes have been right, keeps its
    suggestion. Where it is replaced, its error probability is its voters' misses with the
    `VOTE_PRIOR` votes' worth set at the machine's own error probability instead (at most the
    coin-toss figure). Where the vote agrees with the machine's suggestion (within
    `tolerance`), nothing moves, but the answer's error probability is at most that same
    figure: copies of answers decided as the machine suggested are backed by the decisions as
    well as the machine (on the answer-groups course the chooser otherwise went on deciding
    copies of a statement settled alike until 6 of them voted, docs/active-grading.md)."""
    out, doubt = list(points), list(errors)
    if similarity is None or len(decided) < 2:
        return out, doubt
    keys = list(decided)
    given = np.array([decided[k] for k in keys], dtype=np.float64)
    weights = _closeness(similarity)[:, keys]
    weights[keys, range(len(keys))] = 0.0  # a decision does not vote for itself
    support = weights.sum(axis=1)
    votes = weights @ given / np.where(support > 0, support, 1.0)
    judged = support[keys] > 0
    misses = np.where(judged, np.abs(votes[keys] - given) > tolerance + 1e-9, 0.0)
    missed = weights[:, judged] @ misses[judged]
    voters = weights[:, judged].sum(axis=1)
    probability = (missed + VOTE_PRIOR * 0.5) / (voters + VOTE_PRIOR)
    # Once the vote is trusted (its misses with a coin toss's prior below the machine's doubt),
    # its doubt shrinks toward the machine's, not a coin toss: on the answer-groups course the
    # coin toss kept copies settled by agreeing decisions doubtful, and "done" came late (true
    # error 2.4% at a 5% target, offline); Mohler moves by 0.1 point (docs/active-grading.md).
    settled = (missed + VOTE_PRIOR * np.asarray(errors, dtype=np.float64)) / (voters + VOTE_PRIOR)
    agree = np.abs(votes - np.asarray(points, dtype=np.float64)) <= tolerance + 1e-9
    for i in range(len(out)):
        if i in decided or support[i] <= 0:
            continue
        if probability[i] < doubt[i]:
            out[i] = round(float(votes[i]), 2)
            doubt[i] = round(float(min(settled[i], probability[i])), 6)
        elif agree[i]:
            doubt[i] = round(float(min(settled[i], doubt[i])), 6)
    return out, doubt
