"""A table graded in batches (the next batch encoded while one is graded, repeated answers kept)
gives every row the result of grading that row alone."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import graders.written.table as table_module
from graders.context import GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.engine import grade_submission
from graders.results import ItemResult
from graders.rubric import LoadedRubric, parse_rubric
from graders.written.table import TableGrader, TableRow
from tests.graders.written.quiz import ANSWERS as QUIZ_ANSWERS
from tests.graders.written.quiz import HEADS, STACK, quiz

RUBRIC = quiz(STACK, HEADS, labelled=True, review_threshold=0.6)
ANSWERS = [
    *QUIZ_ANSWERS,
    "The most recent item is removed first, like a pile of plates.",
    "Because of the softmax.",
]
QUESTIONS = ["stack", "Q1", "heads", "nope"]


@pytest.fixture(scope="module")
def loaded() -> LoadedRubric:
    return parse_rubric(json.dumps(RUBRIC))  # JSON is YAML


def _alone(loaded: LoadedRubric, grader: TableGrader, row: TableRow,
           resources: GradingResources) -> tuple[ItemResult, ...] | None:
    key = row.question.strip().lower()
    if key not in grader.parts:
        return None
    part = grader.parts[key]
    question = grader.questions[key]
    answer = LocatedAnswer(question.id, row.answer, start=0, end=len(row.answer),
                           method="label")
    submission = ParsedSubmission(text=row.answer, format="text",
                                  answers={question.id: answer})
    return grade_submission(part, submission, resources).items


# A repeat two batches later whose kept result the batch between has pushed out.
@example([("stack", ANSWERS[0]), ("heads", ANSWERS[2]), ("stack", ANSWERS[0])], 1, 1)
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(QUESTIONS), st.sampled_from(ANSWERS)),
                min_size=1, max_size=30),
       st.sampled_from([1, 2, 3, 7]), st.sampled_from([0, 1, 3, 20_000]))
def test_batched_rows_get_the_result_of_each_row_alone(
        loaded: LoadedRubric, resources: GradingResources, monkeypatch: pytest.MonkeyPatch,
        pairs: list[tuple[str, str]], batch_rows: int, remember: int) -> None:
    monkeypatch.setattr(table_module, "BATCH_ROWS", batch_rows)
    rows = [TableRow(f"s{i}", q, a) for i, (q, a) in enumerate(pairs)]
    grader = TableGrader(loaded, resources, remember=remember)
    results = list(grader.grade(rows))
    assert [r.row for r in results] == rows  # one result per row, in order
    for result in results:
        expected = _alone(loaded, grader, result.row, resources)
        if expected is None:
            assert result.error is not None and "not in the rubric" in result.error
            assert result.items == ()
            continue
        assert result.error is None
        assert result.items == expected
        assert result.total == sum((i.points for i in expected), start=Decimal(0))
