"""Stalling a grading process with an answer that is a long list of distinct numbers (`1, 2, 3,
..., 3000`, 17 KB): the numeric grader compiled a regular expression for every number it read
(to find where it was written; distinct numbers defeat the `re` module's cache, ~1-4 ms each)
and normalised, for every number, the whole statement before it to look for the item's cues
(quadratic in the statement's length). Measured before the fix in-process under load 8: 3,000
numbers for one item, 21 s; B1's three items over 12,000 numbers, 38 s of a grading process for
one JSON upload. Now each number's place is found with a pattern of its shape (digit-group
lengths, cached) and checked digit by digit, and the cues are looked for in the 1,000
characters before a value (graders/numeric/spans.py, select.py): the time grows linearly, and
the right value in such a list goes to review as a shotgun (test_shotgun_values.py)."""

from __future__ import annotations

import time
from decimal import Decimal

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult
from graders.rubric import BUNDLED_RUBRICS, load_rubric

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
B1 = next(q for q in RUBRIC.questions if q.id == "B1")


def _grade(text: str) -> tuple[list[ItemResult], float]:
    answer = LocatedAnswer("B1", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"B1": answer})
    context = GradingContext(RUBRIC, B1, submission, GradingResources())
    started = time.process_time()
    results = GRADER.grade_items(B1.items, answer, context)
    return results, time.process_time() - started


def _listed(count: int, first: int = 1) -> str:
    return "B1: " + ", ".join(str(v) for v in range(first, first + count))


def test_a_list_of_distinct_numbers_is_read_in_linear_time() -> None:
    _grade(_listed(50))  # warm the patterns every answer uses
    _, small = _grade(_listed(300, 10_000))
    results, large = _grade(_listed(1_200, 20_000))
    # four times the numbers: four times the work give or take, never sixteen
    assert large < max(8 * small, 1.0), (small, large)
    assert all(r.status.value != "grader_error" for r in results), results


def test_the_right_value_in_a_long_list_is_not_credited_outright() -> None:
    results, _ = _grade(_listed(300))
    d_head = next(r for r in results if r.item_id == "b1.d_head")
    assert not (d_head.status.value == "graded" and d_head.points == Decimal(4)), d_head


def test_one_item_per_value_is_still_read() -> None:
    results, _ = _grade("d_head = 64, per matrix 589,824, total 1,769,472")
    assert [r.points for r in results] == [Decimal(4), Decimal(3), Decimal(3)], results

