"""Per-question risk control from instructor-graded answers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graders.written.risk import risk_threshold


def test_the_threshold_keeps_the_bounded_error_under_the_target() -> None:
    confidence = [0.99] * 30 + [0.6] * 10
    wrong = [False] * 30 + [True] * 10
    threshold, bound, share = risk_threshold(confidence, wrong, 0.05)
    assert 0.6 < threshold <= 0.99 and bound == 1 / 31 and share == 0.75


def test_too_few_answers_send_everything_to_review() -> None:
    assert risk_threshold([0.99] * 5, [False] * 5, 0.05) == (1.0, 1.0, 0.0)


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=60),
       st.floats(0.01, 0.5))
def test_the_auto_graded_answers_meet_the_bound(pairs: list[tuple[float, bool]],
                                                target: float) -> None:
    confidence = [c for c, _ in pairs]
    wrong = [w for _, w in pairs]
    threshold, bound, _ = risk_threshold(confidence, wrong, target)
    chosen = [w for c, w in pairs if c >= threshold]
    if threshold < 1.0:
        assert (sum(chosen) + 1) / (len(chosen) + 1) <= target
        assert bound <= target
