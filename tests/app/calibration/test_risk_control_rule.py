"""The threshold rule of risk control on generated calibration sets, and how a learned context
reaches the rubric a grading process uses (no database: both are pure)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.calibration.context import LearnedContext, LearnedExemplar, LearnedItem, apply_context
from app.calibration.service import needed
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from graders.written.risk import risk_threshold

REPETITIONS = 150
FRESH = 300


@settings(max_examples=12, deadline=None)
@given(
    target=st.sampled_from([0.05, 0.1, 0.2]),
    calibration=st.integers(10, 120),
    base=st.floats(0.0, 0.3),
    slope=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_expected_share_of_wrong_auto_grades_stays_under_the_target(
    target: float, calibration: int, base: float, slope: float, seed: int
) -> None:
    """Calibration and later answers drawn from one distribution (exchangeable), the machine
    wrong with a probability that may fall with its confidence, or not at all: over many
    calibrations, the expected share of later answers that are auto-graded *and* wrong is at
    most the target (conformal risk control: the loss 1[auto-graded and wrong] falls as the
    threshold rises, and the rule's threshold is never below the conformal one)."""
    rng = np.random.default_rng(seed)

    def draw(count: int) -> tuple[np.ndarray, np.ndarray]:
        confidence = np.round(rng.uniform(0.4, 1.0, count), 2)
        wrong = rng.uniform(size=count) < np.clip(base + slope * (1 - confidence), 0, 1)
        return confidence, wrong

    losses = []
    for _ in range(REPETITIONS):
        confidence, wrong = draw(calibration)
        threshold, _, _ = risk_threshold(confidence.tolist(), wrong.tolist(), target)
        fresh, fresh_wrong = draw(FRESH)
        losses.append(float(np.mean(fresh_wrong & (fresh >= threshold))))
    mean = float(np.mean(losses))
    slack = 4 * float(np.std(losses)) / np.sqrt(REPETITIONS)
    assert mean <= target + slack, (mean, target, slack)


@given(st.floats(0.001, 0.5), st.lists(st.floats(0, 1), min_size=1, max_size=400))
def test_enough_answers_the_machine_got_right_always_set_a_threshold(
    target: float, confidence: list[float]
) -> None:
    """With `needed(target)` instructor grades that all agree with the machine, a threshold
    is set, and it auto-grades them all."""
    confidence = (confidence * needed(target))[: needed(target)]
    threshold, bound, share = risk_threshold(confidence, [False] * len(confidence), target)
    assert threshold == 0.0 and bound <= target and share == 1.0


def _learned(rubric_hash: str) -> LearnedContext:
    return LearnedContext(rubric_hash=rubric_hash, items={
        "a5.why_heads": LearnedItem(question="A5", threshold=0.77, exemplars=(
            LearnedExemplar(submission=1, text="heads attend in parallel", points=Decimal(5)),
            LearnedExemplar(submission=2, text="more parameters", points=Decimal(9)),
        )),
        "b1.d_head": LearnedItem(question="B1", threshold=0.99),  # not written: ignored
    })


def test_a_learned_context_reaches_the_written_items_only() -> None:
    loaded = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
    learned = _learned(loaded.content_hash)
    applied = apply_context(loaded, learned, exclude=1)
    items = {i.id: i for i in applied.rubric.items()}
    config = items["a5.why_heads"].config
    # Submission 1's own answer is left out; points are capped at the item's.
    assert config["exemplars"] == [{"text": "more parameters", "points": Decimal(5)}]
    assert config["review_threshold"] == 0.77
    assert items["b1.d_head"].config == {i.id: i for i in loaded.rubric.items()}[
        "b1.d_head"].config
    assert applied.content_hash == loaded.content_hash
    assert {i.id: i for i in loaded.rubric.items()}["a5.why_heads"].config.get(
        "exemplars") is None  # the cached rubric itself is untouched
    stale = learned.model_copy(update={"rubric_hash": "0" * 64})
    assert apply_context(loaded, stale, exclude=None) is loaded
