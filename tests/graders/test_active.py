"""The active-grading chooser and error estimate (graders/active.py) on small synthetic data."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.active import (
    AUDIT_EVERY,
    MIN_CHECKS,
    NEAR_DONE,
    SETTLE_FAR,
    Candidate,
    HeldBack,
    checks_due,
    estimate,
    propagate,
    propose,
)

probabilities = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
pools = st.lists(st.tuples(st.integers(1, 10_000), probabilities), min_size=1, max_size=12,
                 unique_by=lambda c: c[0])


def _cosines(points: list[tuple[float, float]]) -> np.ndarray:
    """Unit vectors at these angles (radians): their cosines, a valid similarity matrix."""
    vectors = np.array([[np.cos(a), np.sin(a)] for a, _ in points])
    cosines: np.ndarray = vectors @ vectors.T
    return cosines


@given(pools, st.integers(0, 50), st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_the_proposal_is_an_undecided_answer_whatever_the_row_order(
    pool: list[tuple[int, float]], decided: int, rng: random.Random
) -> None:
    angles = [(rng.uniform(0, 1.5), 0.0) for _ in pool]
    candidates = [Candidate(k, p) for k, p in pool]
    cosines = _cosines(angles)
    first = propose(candidates, cosines, decided, "item")
    order = list(range(len(pool)))
    rng.shuffle(order)
    shuffled = propose([candidates[i] for i in order], cosines[np.ix_(order, order)],
                       decided, "item")
    assert first is not None and shuffled is not None
    assert first.key in {k for k, _ in pool}
    assert first.key == shuffled.key and first.reason == shuffled.reason
    assert (first.reason == "audit") == (decided % AUDIT_EVERY == AUDIT_EVERY - 1)


@given(pools)
def test_without_an_encoder_the_least_sure_answer_comes_first(
    pool: list[tuple[int, float]]
) -> None:
    proposal = propose([Candidate(k, p) for k, p in pool], None, 0, "item")
    assert proposal is not None
    top = max(p for _, p in pool)
    assert proposal.key == min(k for k, p in pool if round(p, 9) == round(top, 9))
    assert proposal.reason == "least sure"


def test_a_cluster_of_doubtful_near_copies_beats_one_lone_doubtful_answer() -> None:
    # Five near-copies (cosine ~1) each 40% likely wrong; one unrelated answer 70% likely.
    candidates = [Candidate(k, 0.4) for k in range(1, 6)] + [Candidate(9, 0.7)]
    cosines = np.eye(6)
    cosines[:5, :5] = 0.97
    np.fill_diagonal(cosines, 1.0)
    proposal = propose(candidates, cosines, 0, "item")
    assert proposal is not None and proposal.key == 1
    assert proposal.reason == "settles" and proposal.settles == 4
    assert propose([], None, 0, "item") is None


def _symmetric(values: list[float], size: int) -> np.ndarray:
    """A cosine matrix of `size` answers with these off-diagonal values (cycled)."""
    cosines = np.eye(size)
    pairs = [(i, j) for i in range(size) for j in range(i + 1, size)]
    for n, (i, j) in enumerate(pairs):
        cosines[i, j] = cosines[j, i] = values[n % len(values)]
    return cosines


@given(pools, st.lists(st.floats(-1.0, SETTLE_FAR, exclude_max=True), min_size=1, max_size=20),
       st.integers(0, 50).filter(lambda d: d % AUDIT_EVERY != AUDIT_EVERY - 1))
@settings(max_examples=60, deadline=None)
def test_among_varied_answers_the_least_sure_comes_first(
    pool: list[tuple[int, float]], values: list[float], decided: int
) -> None:
    """Answers no closer than SETTLE_FAR to one another (a class that writes in its own
    words): a decision settles nothing beyond its answer, so however many moderately similar
    answers crowd around a sure one, the least sure answer is asked about first."""
    cosines = _symmetric(values, len(pool))
    proposal = propose([Candidate(k, p) for k, p in pool], cosines, decided, "item")
    top = max(round(p, 9) for _, p in pool)
    assert proposal is not None and proposal.reason == "least sure"
    assert proposal.key == min(k for k, p in pool if round(p, 9) == top)


@given(pools, st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=20), probabilities,
       st.integers(0, 50).filter(lambda d: d % AUDIT_EVERY != AUDIT_EVERY - 1))
@settings(max_examples=60, deadline=None)
def test_a_proposed_answer_the_machine_doubts_more_stays_proposed(
    pool: list[tuple[int, float]], values: list[float], more: float, decided: int
) -> None:
    """Whatever the similarities: raising the proposed answer's error probability never hands
    the proposal to another answer (its own doubt counts fully, a neighbour's at most half)."""
    cosines = _symmetric(values, len(pool))
    first = propose([Candidate(k, p) for k, p in pool], cosines, decided, "item")
    assert first is not None
    raised = [(k, max(p, more) if k == first.key else p) for k, p in pool]
    again = propose([Candidate(k, p) for k, p in raised], cosines, decided, "item")
    assert again is not None and again.key == first.key


def test_audit_draws_differ_between_items_and_decision_counts() -> None:
    candidates = [Candidate(k, 0.1) for k in range(1, 40)]
    turns = [AUDIT_EVERY * n + AUDIT_EVERY - 1 for n in range(6)]
    draws = {(salt, t): propose(candidates, None, t, salt) for salt in ("a", "b") for t in turns}
    assert all(p is not None and p.reason == "audit" for p in draws.values())
    assert len({p.key for p in draws.values() if p is not None}) > 3


@given(pools, st.integers(0, 50), st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_a_random_check_that_is_not_due_leaves_the_machine_its_choice(
    pool: list[tuple[int, float]], turn: int, rng: random.Random
) -> None:
    """On an audit turn whose check is not due, the proposal is the one of a turn without a
    check: the machine's own choice, never a draw."""
    candidates = [Candidate(k, p) for k, p in pool]
    cosines = _cosines([(rng.uniform(0, 1.5), 0.0) for _ in pool])
    audit_turn = AUDIT_EVERY * turn + AUDIT_EVERY - 1
    skipped = propose(candidates, cosines, audit_turn, "item", audit=False)
    own = propose(candidates, cosines, audit_turn - 1, "item")
    assert skipped is not None and own is not None
    assert skipped == own and skipped.reason != "audit"
    drawn = propose(candidates, cosines, audit_turn, "item", audit=True)
    assert drawn is not None and drawn.reason == "audit"


@given(st.lists(probabilities, min_size=1, max_size=30),
       st.lists(st.tuples(probabilities, st.booleans()), max_size=30),
       st.floats(0.001, 0.5), st.floats(0.0, 0.5))
def test_random_checks_are_due_wherever_done_is_within_reach(
    undecided: list[float], held: list[tuple[float, bool]], target: float, more: float
) -> None:
    """A check is due wherever the item could say done (it is there to keep done honest), and
    a laxer target never makes it not due; an item whose estimate is further than NEAR_DONE
    targets from done spends its turns on the machine's own choices."""
    checks = [HeldBack(p, w) for p, w in held]
    found = estimate(undecided, checks, target, len(undecided) + len(checks))
    if found.done or found.share <= target:
        assert checks_due(found, target)
    if checks_due(found, target):
        assert checks_due(found, target + more)
    if found.share > NEAR_DONE * target:
        assert not checks_due(found, target)


@given(st.lists(probabilities, max_size=30),
       st.lists(st.tuples(probabilities, st.booleans()), max_size=30),
       st.floats(0.001, 0.5))
def test_the_estimate_is_a_share_and_more_errors_seen_never_lower_it(
    undecided: list[float], held: list[tuple[float, bool]], target: float
) -> None:
    checks = [HeldBack(p, w) for p, w in held]
    found = estimate(undecided, checks, target, len(undecided) + len(checks))
    assert 0.0 <= found.share <= 1.0 and found.undecided == len(undecided)
    assert found.expected_wrong <= len(undecided) + 1e-9
    assert found.least_sure == max(undecided, default=0.0)  # not scaled by the checks
    worse = estimate(undecided, [HeldBack(p, True) for p, _ in held], target,
                     len(undecided) + len(checks))
    assert worse.share >= found.share - 1e-12
    if not undecided:
        assert found.done
    if undecided and len(checks) < min(MIN_CHECKS, len(undecided) + len(checks)):
        assert not found.done


def test_with_no_check_the_probabilities_are_taken_as_they_are() -> None:
    found = estimate([0.1, 0.2, 0.3], [], 0.05, 3)
    assert found.ratio == 1.0 and abs(found.expected_wrong - 0.6) < 1e-9
    assert not found.done


def test_the_estimate_recovers_a_miscalibrated_machine_from_held_back_checks() -> None:
    """The machine says about 10% but is wrong 30% of the time: after 60 checks the estimate
    for the undecided answers is near the truth, not the machine's word. Wrong only 3% of the
    time: the estimate moves down from the machine's word but stays above the truth (the prior
    leans toward more error, so "done" comes late rather than early)."""
    rng = random.Random(7)
    for factor in (3.0, 0.3):
        probability = [rng.uniform(0.02, 0.18) for _ in range(400)]
        wrong = [rng.random() < factor * p for p in probability]
        held = [HeldBack(p, w) for p, w in zip(probability[:60], wrong[:60], strict=True)]
        rest = probability[60:]
        found = estimate(rest, held, 0.05, 400)
        truth = sum(wrong[60:]) / len(rest)
        said = sum(rest) / len(rest)
        if factor > 1:
            assert abs(found.share - truth) < 0.25 * truth, (found.share, truth)
        else:
            assert truth < found.share < said, (found.share, truth, said)


def _clusters(sizes: list[int], spread: float, rng: random.Random) -> np.ndarray:
    """Cosines of answers in clusters of these sizes: cluster c's answers lie within `spread`
    radians of axis c (the clusters a right angle apart: unrelated answers)."""
    vectors = []
    for c, size in enumerate(sizes):
        for _ in range(size):
            angle = rng.uniform(0, spread)
            vector = np.zeros(len(sizes) + 1)
            vector[c], vector[-1] = np.cos(angle), np.sin(angle)
            vectors.append(vector)
    matrix = np.array(vectors)
    cosines: np.ndarray = matrix @ matrix.T
    return cosines


@given(st.integers(3, 8), st.integers(2, 8), st.sampled_from([0.0, 1.0, 3.0, 5.0]),
       st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_agreeing_decisions_carry_over_to_their_near_copies_and_no_further(
    size: int, other: int, truth: float, rng: random.Random
) -> None:
    """A class whose answers restate one of two statements (the Powergrading setting): once
    two near-copies of one statement are decided alike, the machine's doubtful suggestions
    for that statement's other copies become the decision; the other statement's answers,
    unlike every decided one, keep the machine's suggestions."""
    cosines = _clusters([size, other], 0.05, rng)
    n = size + other
    points = [rng.choice([0.0, 2.5, 5.0]) for _ in range(n)]
    errors = [0.6] * n
    out, doubt = propagate(points, errors, {0: truth, 1: truth}, cosines, 1.0)
    assert out[2:size] == [truth] * (size - 2)
    assert all(d < 0.6 for d in doubt[2:size])
    assert out[size:] == points[size:] and doubt[size:] == errors[size:]
    assert out[:2] == points[:2]  # the decided keep theirs (the service shows the decision)


def test_decisions_that_disagree_do_not_overrule_a_sure_machine() -> None:
    """Near-copies decided 0 and 5 (the vote misses both ways, leave-one-out): an undecided
    copy the machine is sure of keeps its suggestion, whatever the vote says."""
    cosines = np.ones((4, 4))
    out, doubt = propagate([1.0, 1.0, 4.0, 4.0], [0.3, 0.3, 0.05, 0.05], {0: 0.0, 1: 5.0},
                           cosines, 1.0)
    assert out[2:] == [4.0, 4.0] and doubt[2:] == [0.05, 0.05]


def test_one_decision_or_no_encoder_carries_nothing_over() -> None:
    points, errors = [1.0, 2.0, 3.0], [0.9, 0.9, 0.9]
    assert propagate(points, errors, {0: 5.0}, np.ones((3, 3)), 1.0) == (points, errors)
    assert propagate(points, errors, {0: 5.0, 1: 5.0}, None, 1.0) == (points, errors)


@given(st.integers(4, 9), st.floats(0.1, 0.9), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_a_settled_copy_is_no_likelier_wrong_than_the_machine_or_a_coin_toss_says(
    size: int, machine: float, rng: random.Random
) -> None:
    """Copies settled by agreeing decisions: their doubt shrinks toward the machine's own (not
    toward a coin toss), so it is below both the machine's and the vote's coin-toss gate; more
    agreeing decisions lower it further."""
    cosines = _clusters([size], 0.05, rng)
    points, errors = [2.5] * size, [machine] * size
    two = propagate(points, errors, {0: 5.0, 1: 5.0}, cosines, 1.0)[1]
    three = propagate(points, errors, {0: 5.0, 1: 5.0, 2: 5.0}, cosines, 1.0)[1]
    gate = 0.5 * 2.0 / (2.0 + 2.0)  # no miss among two voters, two votes' worth of a coin toss
    if gate < machine:
        assert all(d <= min(gate, machine) + 1e-6 for d in two[2:])
        assert all(b <= a + 1e-9 for a, b in zip(two[3:], three[3:], strict=True))
    else:
        assert two[2:] == errors[2:]


@given(st.integers(4, 9), st.integers(1, 6), st.floats(0.05, 0.5), st.sampled_from([0.0, 2.5, 5.0]),
       st.floats(-0.9, 0.9), st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_decisions_that_agree_with_the_machine_lower_their_near_copies_doubt_only(
    size: int, other: int, machine: float, suggested: float, shift: float, rng: random.Random
) -> None:
    """A class restating two statements; the machine suggests the same points for every copy
    of the first, and two (then three) of them are decided within the tolerance of that
    suggestion. Nothing moves (the decisions agree with it), but the other copies are now
    backed by decisions as well as the machine: their doubt drops below the machine's, a third
    agreeing decision lowers it further, and the answers unlike every decided one keep the
    machine's points and doubt."""
    cosines = _clusters([size, other], 0.05, rng)
    decision = round(min(5.0, max(0.0, suggested + shift)), 2)
    points = [suggested] * size + [rng.choice([0.0, 2.5, 5.0]) for _ in range(other)]
    errors = [machine] * size + [rng.uniform(0.05, 0.9) for _ in range(other)]
    out2, two = propagate(points, errors, {0: decision, 1: decision}, cosines, 1.0)
    out3, three = propagate(points, errors, {0: decision, 1: decision, 2: decision}, cosines,
                            1.0)
    for out, first in ((out2, 2), (out3, 3)):  # kept, or moved to the decision (also within)
        assert all(p in (suggested, decision) for p in out[first:size])
        assert out[size:] == points[size:]
    assert all(d < machine for d in two[2:size])
    assert all(b <= a + 1e-9 for a, b in zip(two[3:size], three[3:size], strict=True))
    assert two[size:] == errors[size:] and three[size:] == errors[size:]


@given(st.lists(probabilities, min_size=1, max_size=30), st.integers(0, 29), probabilities,
       st.lists(st.tuples(probabilities, st.booleans()), max_size=12))
def test_a_doubt_raised_never_lowers_the_estimate(
    undecided: list[float], index: int, raised: float,
    held: list[tuple[float, bool]]
) -> None:
    """The estimate is monotone in each undecided answer's error probability: an answer the
    machine doubts more never makes the item look less wrong (nor done where it was not)."""
    checks = [HeldBack(p, w) for p, w in held]
    before = estimate(undecided, checks, 0.05, 100)
    more = list(undecided)
    i = index % len(more)
    more[i] = max(more[i], raised)
    after = estimate(more, checks, 0.05, 100)
    assert after.share >= before.share - 1e-12
    assert not (after.done and not before.done)
