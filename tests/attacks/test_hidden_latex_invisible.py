"""Credit for what the compiled page draws invisible: B1 reading "See the table." with its three
values in `\\phantom{...}` (room of their size, drawn empty), `\\textcolor{white}{...}` or a
`{\\color{white} ...}` group (white on the white page) was `graded` 10 of 10 with no review, as
values in a comment were before (test_hidden_latex.py). The reader now blanks such text
(graders/documents/latex_hidden.py): B1 is `missing`; the same values in a colour that shows
are still 10 of 10. And a URL holding `%20` on the answer's line (`\\url{...}`) was read as a
comment start, hiding the visible values after it: the URL is now verbatim."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import assert_credited, assert_unread
from tests.attacks.test_hidden_latex import VALUES, _b1

HIDDEN = {
    "a phantom": "See the table. \\phantom{" + VALUES + "}",
    "white text": "See the table. \\textcolor{white}{" + VALUES + "}",
    "a white group": "See the table. {\\color{white} " + VALUES + "}",
}
SHOWN = {
    "red text": "\\textcolor{red}{" + VALUES + "}",
    "after a URL": "(see \\url{https://x.org/a%20table}) " + VALUES,
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_values_drawn_invisible_earn_nothing(target: Api, name: str) -> None:
    items = _b1(target, "alice", HIDDEN[name])
    assert_unread(items)


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_the_same_values_shown_are_credited(target: Api, name: str) -> None:
    items = _b1(target, "bob", SHOWN[name])
    assert_credited(items, graded=True)
