"""Credit for what the rendered page never shows, in Markdown: B1 reading "See the table." with
its values in an HTML comment (`<!-- ... -->`, on lines of its own or inline) or in the title of
a link reference definition (`[b1]: <#b1> "..."`, which renders as nothing) was `graded` 10 of
10 with no review, as the same values hidden in a LaTeX comment were (test_hidden_latex.py). The
reader now blanks HTML comments outside code (graders/documents/markdown_source.py): B1 is
`missing`; the values on the page, or shown inside a code block, are still read. A notebook's
Markdown cells likewise (Jupyter renders them the same way)."""

from __future__ import annotations

import json
import re

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import Items, assert_credited, assert_unread, b1_items
from tests.attacks.test_hidden_latex import DOCUMENT, VALUES

MARKDOWN = re.sub(r"\\section\*\{(\w+)\}", r"## \1", DOCUMENT)
HIDDEN = {
    "a comment block": "See the table.\n<!--\n" + VALUES + "\n-->",
    "an inline comment": "See the table. <!-- " + VALUES + " -->",
    "a link reference definition's title": 'See the table.\n\n[b1]: <#b1> "' + VALUES + '"',
}


def _b1(target: Api, who: str, answer: str) -> Items:
    return b1_items(target, who, "answers.md", (MARKDOWN % answer).encode(), "text/markdown")


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_values_in_an_html_comment_earn_nothing(target: Api, name: str) -> None:
    items = _b1(target, "alice", HIDDEN[name])
    assert_unread(items)


def test_the_same_values_on_the_page_are_credited(target: Api) -> None:
    items = _b1(target, "bob", VALUES)
    assert_credited(items, graded=True)


def _notebook_b1(target: Api, who: str, answer: str) -> Items:
    cells = [{"cell_type": "markdown", "id": f"c{n}", "metadata": {}, "source": block}
             for n, block in enumerate((MARKDOWN % answer).split("\n## ")) if block.strip()]
    for cell in cells[1:]:
        cell["source"] = "## " + str(cell["source"])
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    return b1_items(target, who, "answers.ipynb", notebook.encode(), "application/x-ipynb+json")


def test_values_in_a_notebook_cells_html_comment_earn_nothing(target: Api) -> None:
    hidden = _notebook_b1(target, "alice", HIDDEN["a comment block"])
    shown = _notebook_b1(target, "bob", VALUES)
    assert_unread(hidden, missing=False)
    assert_credited(shown)
