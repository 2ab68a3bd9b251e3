"""A number with an invisible format character inside it (a zero-width space, U+200B, as copying
from a web page leaves; also a zero-width joiner or a word joiner) shows as the number on every
page: `768/12 = 6<U+200B>4` reads "64" to a TA. Yet B1's d_head was `graded` 0 of 4 with no review
(the numeric grader does not read `6`, the invisible character and `4` as one number): a status
that promises a careful TA would agree. Held as a strict xfail: the fix belongs to the numeric
grader's reading of a number (graders/numeric/, other helpers' files), which must skip such
characters inside a number and keep every offset; a control credits the answer without them."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.test_hidden_latex import VALUES
from tests.attacks.test_hidden_markdown import _b1

INVISIBLE = {"a zero-width space": "\u200b", "a zero-width joiner": "\u200d",
             "a word joiner": "\u2060"}


def _d_head(target: Api, who: str, inside: str) -> tuple[str, float]:
    items = _b1(target, who, VALUES.replace("= 64", f"= 6{inside}4"))
    return next((status, points) for item, status, points in items if item == "b1.d_head")


@pytest.mark.xfail(strict=True, reason="the numeric grader does not read 6, an invisible "
                   "character and 4 as 64 (graders/numeric/, other helpers' files)")
@pytest.mark.parametrize("name", sorted(INVISIBLE))
def test_a_number_with_an_invisible_character_is_not_graded_wrong(target: Api,
                                                                  name: str) -> None:
    status, points = _d_head(target, "alice", INVISIBLE[name])
    assert points == 4 or status == "needs_review", (status, points)


def test_the_same_number_without_it_is_credited(target: Api) -> None:
    assert _d_head(target, "bob", "") == ("graded", 4)
