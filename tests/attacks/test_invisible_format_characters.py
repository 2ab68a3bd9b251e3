"""A number with an invisible format character inside it (a zero-width space, U+200B, as copying
from a web page leaves; also a zero-width joiner or a word joiner) shows as the number on every
page: `768/12 = 6<U+200B>4` reads "64" to a TA. B1's d_head was `graded` 0 of 4 with no review
(the numeric grader read `6` and `4` apart); the reader now skips such characters inside a
number, offsets kept (graders/numeric/invisible.py), and credits it as shown. A control credits
the answer without them; an override that shows other digits than were typed goes to review."""

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


@pytest.mark.parametrize("name", sorted(INVISIBLE))
def test_a_number_with_an_invisible_character_is_credited_as_shown(target: Api,
                                                                     name: str) -> None:
    assert _d_head(target, "alice", INVISIBLE[name]) == ("graded", 4)


def test_the_same_number_without_it_is_credited(target: Api) -> None:
    assert _d_head(target, "bob", "") == ("graded", 4)


def test_an_override_that_shows_other_digits_goes_to_a_reader(target: Api) -> None:
    # typed 46 inside a right-to-left override: the page shows 64, the text holds 46
    items = _b1(target, "bob", VALUES.replace("= 64", "= \u202e46\u202c"))
    assert next(status for item, status, _ in items if item == "b1.d_head") == "needs_review", items
