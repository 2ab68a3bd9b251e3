"""Paraphrased correct answers earn full points; plausible wrong ones earn (nearly) nothing."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from tests.graders.written.conftest import Grade

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "transformer_basics.yaml").read_text())


def _cases(kind: str) -> list[tuple[str, int, str]]:
    return [(q, i, text) for q, sets in CASES.items() for i, text in enumerate(sets[kind])]


def test_every_part_a_question_has_both_sets() -> None:
    assert sorted(CASES) == ["A1", "A2", "A3", "A4", "A5", "A6"]
    assert all(sets["paraphrase"] and sets["wrong"] for sets in CASES.values())


@pytest.mark.parametrize(("question", "index", "text"), _cases("paraphrase"))
def test_paraphrase_scores_full(grade: Grade, question: str, index: int, text: str) -> None:
    for result in grade(question, text):
        assert result.points == result.max_points, (result.item_id, result.feedback)
        assert result.evidence, result.item_id


@pytest.mark.parametrize(("question", "index", "text"), _cases("wrong"))
def test_plausible_wrong_answer_scores_near_zero(
    grade: Grade, question: str, index: int, text: str
) -> None:
    results = grade(question, text)
    total = sum((r.points for r in results), Decimal(0))
    maximum = sum((r.max_points for r in results), Decimal(0))
    assert total <= maximum / 10, [(r.item_id, r.points, r.feedback) for r in results]
