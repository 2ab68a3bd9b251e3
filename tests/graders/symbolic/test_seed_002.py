"""Seed 002 (the 2021-2022 attention homework): its symbolic answers get full credit, and a
scale factor the student declares in words counts as the large scalar."""

from __future__ import annotations

from decimal import Decimal

import pytest

from graders.context import GradingContext, GradingResources
from graders.documents import read_submission
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.registry import get_grader
from graders.results import Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from graders.symbolic.expressions import declared_scalars
from tests.shared_data import shared_path

RUBRIC = load_rubric(BUNDLED_RUBRICS / "cs224n-attention-2021.yaml").rubric
SEED = "002_ac63fb4f2dd973a5.txt"


def _grade(question_id: str, parsed: ParsedSubmission, resources: GradingResources):
    question = next(q for q in RUBRIC.questions if q.id == question_id)
    items = [i for i in question.items if i.grader == "symbolic"]
    grader = get_grader("symbolic")
    assert grader is not None
    context = GradingContext(RUBRIC, question, parsed, resources)
    return grader.grade_items(items, parsed.answers[question_id], context)


@pytest.mark.shared
@pytest.mark.parametrize(("question_id", "expression"), [
    ("1b", "\\beta (k_a + k_b)"),  # q \sim \beta(k_a + k_b), (\beta \gg 0) on the next line
    ("1c.i", "\\beta(\\mu_a + \\mu_b)"),
])
def test_seed_002_large_scalar_queries_get_full_credit(question_id, expression, resources):
    path = shared_path("seeds", SEED)
    parsed = read_submission(path.read_bytes(), path.name, None, RUBRIC)
    [result] = _grade(question_id, parsed, resources)
    assert result.status is Status.GRADED, result.feedback
    assert result.points == result.max_points, result.feedback
    shown = [e for e in result.evidence if e.kind == "expression"]
    assert shown and shown[0].text == expression
    assert shown[0].start is not None
    assert parsed.text[shown[0].start:shown[0].end] == expression


def _answer(question_id: str, text: str) -> ParsedSubmission:
    answer = LocatedAnswer(question_id=question_id, text=text, start=0, end=len(text))
    return ParsedSubmission(text=text, format="text", answers={question_id: answer})


def test_a_scale_factor_declared_in_words_is_a_large_scalar(resources):
    # handwriting reads mu as M, and the parser lower-cases capitals: N M_a is n mu_a
    text = "$$q_1 = NM_a$$\n, where N is a sis scalar.\n $q_2 = NM_b$"
    [result] = _grade("1d.i", _answer("1d.i", text), resources)
    assert result.points == Decimal(1), result.feedback
    undeclared = "$$q_1 = NM_a$$\n $q_2 = NM_b$"
    [plain] = _grade("1d.i", _answer("1d.i", undeclared), resources)
    assert plain.points < Decimal(1)
    assert plain.status is Status.NEEDS_REVIEW  # an unknown factor n: a person decides


def test_declared_scalars_reads_words_and_conditions():
    assert declared_scalars("where S is a big scalar") == {"S"}
    assert declared_scalars("q = C(k_a + k_b), C >> 1") == {"C"}
    assert declared_scalars("(\\beta \\gg 0)") == {"beta"}
    assert declared_scalars("λ ≫ 0") == {"lambda"}
    assert declared_scalars("the variance is a number; it is a scalar") == set()
