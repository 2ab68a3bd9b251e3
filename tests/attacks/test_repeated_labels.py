"""One label answered twice: a Markdown submission with two `## B1` sections, the first giving
wrong values (`d_head = 32, per matrix 10, total 30`) and the second the right ones, had
b1.per_matrix and b1.total `graded` 3 of 3 each with no review (only b1.d_head was
`needs_review`, its rival named). A student who answers every way under repeated labels was
credited for whichever value the grader met; a TA reading the page sees two answers and would
not credit both. Now the locator doubts an answer whose own label heads two sections stating
different values (graders/documents/repeats.py): B1's items go to review, the reason naming
both; a control credits one B1 section alone."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.test_hidden_latex import VALUES
from tests.attacks.test_hidden_markdown import _b1

WRONG = "d_head = 32, per matrix 10, total 30."


@pytest.mark.parametrize("order", ["wrong first", "right first"])
def test_a_label_answered_twice_is_not_credited_outright(target: Api, order: str) -> None:
    both = [WRONG, VALUES] if order == "wrong first" else [VALUES, WRONG]
    items = _b1(target, "alice", "\n\n## B1\n".join(both))
    assert all(status == "needs_review" or points == 0 for _, status, points in items), items


def test_one_answer_is_credited(target: Api) -> None:
    items = _b1(target, "bob", VALUES)
    assert [status for _, status, _ in items] == ["graded"] * 3, items
