"""Credit for what a PDF holds on its page but never shows, by means beyond colour, rendering
mode and size (test_hidden_pdf_ink.py): B1 reading "See the table." with its values on the next
line, drawn outside a 1 pt clipping rectangle (`0 0 1 1 re W n`) or inside marked content of an
optional content group the document hides by default (a layer in `/OCProperties /D /OFF`:
viewers show it only when the reader turns it on), was `graded` 10 of 10 with no review. The
reader now leaves out such text beside text that shows (graders/documents/pdf_page.py `Ink`):
B1 is `missing`; the same values inside their clip or in a layer shown by default are still
10 of 10."""

from __future__ import annotations

import re

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import assert_credited, assert_unread
from tests.attacks.pdf_lines import wrapped_pdf
from tests.attacks.test_hidden_latex import DOCUMENT, VALUES
from tests.attacks.test_hidden_pdf import _b1

PLAIN = re.sub(r"\\section\*\{(\w+)\}", r"\1.", DOCUMENT)
UNSEEN = {"clipped away": "q 0 0 1 1 re W n %s Q", "in a hidden layer": "/OC /off BDC q %s Q EMC"}
SEEN = {"inside its clip": "q 0 0 612 792 re W n %s Q",
        "in a shown layer": "/OC /on BDC q %s Q EMC"}


def _page(how: str) -> bytes:
    """The document on one page; B1 reads "See the table." and its values follow on the next
    line, drawn as `how` wraps them."""
    drawn: list[tuple[float, float, str, str]] = []
    for line in (line for line in (PLAIN % "See the table.").splitlines() if line.strip()):
        drawn.append((40.0, 770.0 - 14 * len(drawn), line[:120], "q %s Q"))
        if line == "See the table.":
            drawn.append((40.0, 770.0 - 14 * len(drawn), VALUES, how))
    return wrapped_pdf(drawn)


@pytest.mark.parametrize("how", sorted(UNSEEN))
def test_values_clipped_away_or_in_a_hidden_layer_earn_nothing(target: Api, how: str) -> None:
    items = _b1(target, "alice", _page(UNSEEN[how]))
    assert_unread(items)


@pytest.mark.parametrize("how", sorted(SEEN))
def test_the_same_values_shown_are_credited(target: Api, how: str) -> None:
    items = _b1(target, "bob", _page(SEEN[how]))
    assert_credited(items)
