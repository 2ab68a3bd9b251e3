"""The chooser's doubt rescaled at each level of points by the item's decisions
(graders/active_levels.py), on synthetic items where the grader is wrong at one level: the
class of a reference that a class answers in other words, so every answer the grader puts at
that level is off, while its confidence there is as high as elsewhere."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from graders.active import Candidate, HeldBack, propose
from graders.active_levels import LEVEL_WIDTH, by_level

TOLERANCE = 1.0  # 20% of 5 points
levels = st.sampled_from([0.0, 1.0, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0])
doubts = st.floats(0.02, 0.6)


@given(levels, levels, st.lists(doubts, min_size=1, max_size=6), doubts, st.floats(1.05, 1.6),
       st.integers(1, 500))
def test_answers_at_a_level_the_decisions_found_wrong_are_asked_about_first(
    wrong_level: float, other_level: float, checks: list[float], doubt: float, more: float,
    key: int
) -> None:
    """The decisions at one level all found the machine wrong: an undecided answer there comes
    before an answer at another level the machine doubts somewhat more (by less than the
    errors seen over the errors it predicted there), as long as the two levels are apart."""
    assume(abs(wrong_level - other_level) > LEVEL_WIDTH * TOLERANCE)
    held = [HeldBack(p, True, wrong_level) for p in checks]
    ratio = (len(held) + 1.0) / (sum(checks) + 1.0)
    assume(more < ratio * 0.99)
    errors = [doubt, min(1.0, doubt * more)]
    points = [wrong_level, other_level]
    ranked = by_level(errors, points, held, TOLERANCE)
    assume(errors[1] > errors[0])
    proposal = propose([Candidate(key, ranked[0]), Candidate(key + 1, ranked[1])], None, 0,
                       "item", audit=False)
    assert proposal is not None and proposal.key == key


@given(st.lists(st.tuples(doubts, levels), min_size=1, max_size=12),
       st.lists(st.tuples(doubts, st.booleans(), levels), max_size=20))
def test_the_rescaled_doubt_follows_what_the_decisions_found_at_each_level(
    answers: list[tuple[float, float]], checks: list[tuple[float, bool, float]]
) -> None:
    """A probability still; unchanged at a level with no decision; raised where the decisions
    there found more errors than the machine predicted, lowered where fewer."""
    held = [HeldBack(p, w, at) for p, w, at in checks]
    ranked = by_level([e for e, _ in answers], [at for _, at in answers], held, TOLERANCE)
    for (error, at), found in zip(answers, ranked, strict=True):
        assert 0.0 <= found <= 1.0
        near = [h for h in held if abs(h.points - at) <= LEVEL_WIDTH * TOLERANCE]
        seen = sum(h.wrong for h in near)
        predicted = sum(h.error_probability for h in near)
        if not near or abs(seen - predicted) < 1e-12:
            assert abs(found - error) < 1e-12
        elif seen > predicted:
            assert found >= error
        else:
            assert found < error


def test_one_check_moves_a_level_by_at_most_its_prior() -> None:
    """One wrong check at 3.5 with a doubt of 0.2: that level's doubt times (1 + 1) / (0.2 + 1);
    one right check at 4.5: times 1 / 1.2; 1.0 points, two levels away, unchanged."""
    held = [HeldBack(0.2, True, 3.5), HeldBack(0.2, False, 4.5)]
    found = by_level([0.3, 0.3, 0.3, 0.3], [3.5, 3.75, 4.5, 1.0], held, TOLERANCE)
    assert found == [0.3 * 2 / 1.2, 0.3 * 2 / 1.2, 0.3 / 1.2, 0.3]
