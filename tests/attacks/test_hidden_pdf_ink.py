"""Credit for what a PDF draws but nobody sees: B1 reading "See the table." with its values drawn
on the page in white, in invisible rendering mode (3) or 0.2 pt high was `graded` 10 of 10 with
no review, as values drawn off the page were before (test_hidden_pdf.py). The reader now leaves
out text drawn unseen beside text that shows (graders/documents/pdf_page.py `Ink`): B1 is
`missing`; the same values drawn black are still 10 of 10, and a scanned page's OCR layer (all
its text invisible) is still read whole."""

from __future__ import annotations

import re

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import assert_credited, assert_unread
from tests.attacks.pdf_lines import drawn_pdf
from tests.attacks.test_hidden_latex import DOCUMENT, VALUES
from tests.attacks.test_hidden_pdf import _b1

PLAIN = re.sub(r"\\section\*\{(\w+)\}", r"\1.", DOCUMENT)
UNSEEN = {"white": "1 g", "white in RGB": "1 1 1 rg", "invisible": "3 Tr",
          "0.2 pt high": "/F1 0.2 Tf"}


def _page(how: str = "", everything: str = "") -> bytes:
    """The document on one page, drawn with `everything`; B1 reads "See the table." and its
    values follow on the next line, drawn with `how`."""
    drawn: list[tuple[float, float, str, str]] = []
    for line in (line for line in (PLAIN % "See the table.").splitlines() if line.strip()):
        drawn.append((40.0, 770.0 - 14 * len(drawn), line[:120], everything))
        if line == "See the table.":
            drawn.append((40.0, 770.0 - 14 * len(drawn), VALUES, how or everything))
    return drawn_pdf(drawn)


@pytest.mark.parametrize("how", sorted(UNSEEN))
def test_values_drawn_unseen_earn_nothing(target: Api, how: str) -> None:
    items = _b1(target, "alice", _page(UNSEEN[how]))
    assert_unread(items)


@pytest.mark.parametrize("how", ["0 g", "0 0 1 rg"])
def test_the_same_values_drawn_to_be_seen_are_credited(target: Api, how: str) -> None:
    items = _b1(target, "bob", _page(how))
    assert_credited(items)


def test_a_scanned_pages_invisible_text_is_read(target: Api) -> None:
    items = _b1(target, "bob", _page(everything="3 Tr"))
    assert_credited(items)
