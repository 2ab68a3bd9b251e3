"""Credit for what a PDF never shows: B1 reading "See the table." on the page, with its values
drawn thousands of points off the page (beyond its crop box: no viewer shows them, the text
layer holds them), was `graded` 10 of 10 with no review, as the same values hidden in a LaTeX or
Markdown comment were (test_hidden_latex.py, test_hidden_markdown.py). The reader now leaves
out text that starts off the page (graders/documents/pdf_page.py): B1 is `missing`; the same
values on the page are still 10 of 10."""

from __future__ import annotations

import re

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import Items, assert_credited, assert_unread, b1_items
from tests.attacks.pdf_lines import lines_pdf
from tests.attacks.test_hidden_latex import DOCUMENT, VALUES

PLAIN = re.sub(r"\\section\*\{(\w+)\}", r"\1.", DOCUMENT)
OFF_PAGE = {"far right": (5000.0, 400.0), "far below": (72.0, -3000.0),
            "far up and left": (-2000.0, 4000.0)}


def _page(hidden: tuple[float, float] | None = None) -> bytes:
    """The document on one page, B1 reading "See the table."; its values drawn right after
    that line (in the content stream, so read as B1's), at `hidden` or on the next line."""
    drawn: list[tuple[float, float, str]] = []
    for line in (line for line in (PLAIN % "See the table.").splitlines() if line.strip()):
        drawn.append((40.0, 770.0 - 14 * len(drawn), line[:120]))
        if line == "See the table.":
            drawn.append((*(hidden or (40.0, 770.0 - 14 * len(drawn))), VALUES))
    return lines_pdf(drawn)


def _b1(target: Api, who: str, pdf: bytes) -> Items:
    return b1_items(target, who, "answers.pdf", pdf, "application/pdf")


@pytest.mark.parametrize("where", sorted(OFF_PAGE))
def test_values_drawn_off_the_page_earn_nothing(target: Api, where: str) -> None:
    items = _b1(target, "alice", _page(OFF_PAGE[where]))
    assert_unread(items)


def test_the_same_values_on_the_page_are_credited(target: Api) -> None:
    items = _b1(target, "bob", _page())
    assert_credited(items)
