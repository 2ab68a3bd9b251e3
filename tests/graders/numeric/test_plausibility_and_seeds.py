from __future__ import annotations

from decimal import Decimal

import pytest
import yaml

from graders.context import GradingContext, GradingResources
from graders.documents import read_submission
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER, NumericConfig
from graders.results import Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric, parse_rubric
from tests.shared_data import shared_path

CS224N = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml").rubric
BASICS = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric


def grade_cs(question_id: str, text: str):
    question = next(q for q in CS224N.questions if q.id == question_id)
    answer = LocatedAnswer(question_id, text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={question_id: answer})
    context = GradingContext(CS224N, question, submission, GradingResources())
    return {r.item_id: r for r in GRADER.grade_items(list(question.items), answer, context)}


def test_reported_results_are_recognised_with_a_verdict():
    results = grade_cs("3d", "d) Dev acc.: 1.2%\n\nBaseline: 5%")
    assert results["3d"].status is Status.GRADED and "plausible" in results["3d"].feedback
    assert "correct" in results["3d.baseline"].feedback
    assert all(r.points == 0 and r.max_points == 0 for r in results.values())
    value = next(e for e in results["3d"].evidence if e.kind == "value")
    assert value.note.startswith("read as 1.2")


def test_out_of_range_is_flagged_for_review_not_zeroed_silently():
    result = grade_cs("3f", "Dev acc.: 2.4%")["3f"]
    assert result.status is Status.NEEDS_REVIEW
    assert "out of the expected range" in result.feedback


def test_counts_out_of_500_are_read_as_the_percentage():
    result = grade_cs("3f", "f) Correct: 72.0 out of 500.0: 14.39%")["3f"]
    assert "14.39 %" in result.feedback and "plausible" in result.feedback


def test_no_number_in_a_report_goes_to_review():
    result = grade_cs("3g", "g) I did not run it")["3g"]
    assert result.status is Status.NEEDS_REVIEW


def test_config_model_accepts_the_bundled_rubrics_and_rejects_nonsense():
    for rubric in (BASICS, CS224N):
        for item in rubric.items():
            if item.grader == "numeric":
                NumericConfig.model_validate(item.config)
    bad = BUNDLED_RUBRICS.joinpath("transformer-basics.yaml").read_text().replace(
        "expected: 64\n", "expected: [64]\n")
    with pytest.raises(Exception, match="vector"):
        parse_rubric(bad)


def _expert(seed: str) -> dict[str, dict[str, object]]:
    data = yaml.safe_load(shared_path("eval", "seed-grades.yaml").read_text())
    items: dict[str, dict[str, object]] = data["transformer-basics"][seed]["items"]
    return items


@pytest.mark.shared
@pytest.mark.parametrize("seed", ["000_02a58be4e6a68d79.txt", "001_ee2365db649ca309.txt"])
def test_seed_b1_b2_items_are_within_the_expert_range(seed):
    path = shared_path("seeds", seed)
    parsed = read_submission(path.read_bytes(), path.name, None, BASICS)
    expert = _expert(seed)
    for question_id in ("B1", "B2"):
        question = next(q for q in BASICS.questions if q.id == question_id)
        answer = parsed.answers[question_id]
        context = GradingContext(BASICS, question, parsed, GradingResources())
        for result in GRADER.grade_items(list(question.items), answer, context):
            spec = expert[result.item_id]
            low, high = spec.get("range", [spec["points"], spec["points"]])  # type: ignore[misc]
            assert Decimal(str(low)) <= result.points <= Decimal(str(high)), (
                result.item_id, result.points, result.feedback)
            if spec.get("status") == "missing":
                assert result.status is Status.MISSING
            else:
                assert result.status is Status.GRADED, result.feedback
