"""Credit for what a rendered Markdown page never shows as text, beyond comments and hidden
elements (test_hidden_markdown.py, test_hidden_markdown_elements.py): B1 reading "See the
table." with its three values in a link's title (`[See the table](#b1 "...")`, shown only on
hovering), an image's text (`![...](x.png)`: the page shows the image), a tag's attribute
(`<span title="...">`, `<img alt="...">`, a hidden input's value) or a `<script>`, `<style>` or
`<template>` element was `graded` 10 of 10 with no review. Now the reader blanks each
(graders/documents/markdown_html.py): B1 is `missing`, in a notebook's Markdown cell too; the
values as a link's text, or between tags that show, are still 10 of 10."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import assert_credited, assert_unread
from tests.attacks.test_hidden_latex import VALUES
from tests.attacks.test_hidden_markdown import _b1, _notebook_b1

HIDDEN = {
    "a link's title": f'[See the table](#b1 "{VALUES}").',
    "an image's text": f"See the table. ![{VALUES}](table.png)",
    "a title attribute": f'See the table. <span title="{VALUES}">here</span>',
    "an alt attribute": f'See the table. <img src="table.png" alt="{VALUES}">',
    "a hidden input": f'See the table. <input type="hidden" value="{VALUES}">',
    "a script": f"See the table.\n\n<script>\n{VALUES}\n</script>",
    "a style": f"See the table.\n\n<style>\n/* {VALUES} */\n</style>",
    "a template": f"See the table.\n\n<template>\n{VALUES}\n</template>",
}
SHOWN = {
    "a link's text": f"[{VALUES}](#b1)",
    "text between tags": f'<span title="the table">{VALUES}</span>',
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_values_the_page_never_shows_earn_nothing(target: Api, name: str) -> None:
    items = _b1(target, "alice", HIDDEN[name])
    assert_unread(items)


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_the_same_values_shown_are_credited(target: Api, name: str) -> None:
    items = _b1(target, "bob", SHOWN[name])
    assert_credited(items, graded=True)


def test_values_in_a_notebook_cells_link_title_earn_nothing(target: Api) -> None:
    hidden = _notebook_b1(target, "alice", HIDDEN["a link's title"])
    shown = _notebook_b1(target, "bob", SHOWN["a link's text"])
    assert_unread(hidden, missing=False)
    assert_credited(shown)
