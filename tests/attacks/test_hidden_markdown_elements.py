"""Credit for what the rendered page hides by markup, in Markdown: B1 reading "See the table."
with its values in an element with the `hidden` attribute, `style="display:none"`,
`visibility:hidden` or white text was `graded` 10 of 10 with no review, as values in an HTML
comment were before (test_hidden_markdown.py). The reader now blanks such elements outside code
(graders/documents/markdown_html.py): B1 is `missing`, in a notebook's Markdown cell too; the
values in an element that shows (`<details>`, a colour) are still 10 of 10."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import assert_credited, assert_unread
from tests.attacks.test_hidden_latex import VALUES
from tests.attacks.test_hidden_markdown import _b1, _notebook_b1

HIDDEN = {
    "a hidden attribute": f"See the table. <span hidden>{VALUES}</span>",
    "display none": f'See the table.\n\n<div style="display:none">\n\n{VALUES}\n\n</div>',
    "visibility hidden": f"See the table. <span style='visibility: hidden'>{VALUES}</span>",
    "white text": f'See the table. <span style="color:white">{VALUES}</span>',
}
SHOWN = {
    "a details element": f"<details><summary>Table</summary>\n\n{VALUES}\n\n</details>",
    "red text": f'<span style="color: red">{VALUES}</span>',
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_values_in_a_hidden_element_earn_nothing(target: Api, name: str) -> None:
    items = _b1(target, "alice", HIDDEN[name])
    assert_unread(items)


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_the_same_values_shown_are_credited(target: Api, name: str) -> None:
    items = _b1(target, "bob", SHOWN[name])
    assert_credited(items, graded=True)


def test_values_in_a_notebook_cells_hidden_element_earn_nothing(target: Api) -> None:
    hidden = _notebook_b1(target, "alice", HIDDEN["a hidden attribute"])
    shown = _notebook_b1(target, "bob", SHOWN["red text"])
    assert_unread(hidden, missing=False)
    assert_credited(shown)
