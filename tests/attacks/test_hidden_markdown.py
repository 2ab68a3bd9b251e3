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
from tests.attacks.conftest import UPLOAD
from tests.attacks.test_hidden_latex import B1, DOCUMENT, VALUES

MARKDOWN = re.sub(r"\\section\*\{(\w+)\}", r"## \1", DOCUMENT)
HIDDEN = {
    "a comment block": "See the table.\n<!--\n" + VALUES + "\n-->",
    "an inline comment": "See the table. <!-- " + VALUES + " -->",
    "a link reference definition's title": 'See the table.\n\n[b1]: <#b1> "' + VALUES + '"',
}


def _b1(target: Api, who: str, answer: str) -> list[tuple[str, str, float]]:
    upload = target.client.post(f"{UPLOAD}?wait=true", headers=target.auth(who),
                                files={"file": ("answers.md", (MARKDOWN % answer).encode(),
                                                "text/markdown")})
    assert upload.status_code == 201, upload.text
    body = target.client.get(f"/api/v1/submissions/{upload.json()['id']}",
                             headers=target.auth("prof")).json()
    return [(i["id"], i["status"], float(i["points"] or 0)) for i in body["items"]
            if i["id"] in B1]


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_values_in_an_html_comment_earn_nothing(target: Api, name: str) -> None:
    items = _b1(target, "alice", HIDDEN[name])
    assert len(items) == 3 and all(points == 0 for _, _, points in items), items
    assert all(status == "missing" for _, status, _ in items), items


def test_the_same_values_on_the_page_are_credited(target: Api) -> None:
    items = _b1(target, "bob", VALUES)
    assert [status for _, status, _ in items] == ["graded"] * 3, items
    assert sum(points for _, _, points in items) == 10, items


def _notebook_b1(target: Api, who: str, answer: str) -> list[tuple[str, str, float]]:
    cells = [{"cell_type": "markdown", "id": f"c{n}", "metadata": {}, "source": block}
             for n, block in enumerate((MARKDOWN % answer).split("\n## ")) if block.strip()]
    for cell in cells[1:]:
        cell["source"] = "## " + str(cell["source"])
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    upload = target.client.post(f"{UPLOAD}?wait=true", headers=target.auth(who),
                                files={"file": ("answers.ipynb", notebook.encode(),
                                                "application/x-ipynb+json")})
    assert upload.status_code == 201, upload.text
    body = target.client.get(f"/api/v1/submissions/{upload.json()['id']}",
                             headers=target.auth("prof")).json()
    return [(i["id"], i["status"], float(i["points"] or 0)) for i in body["items"]
            if i["id"] in B1]


def test_values_in_a_notebook_cells_html_comment_earn_nothing(target: Api) -> None:
    hidden = _notebook_b1(target, "alice", HIDDEN["a comment block"])
    shown = _notebook_b1(target, "bob", VALUES)
    assert len(hidden) == 3 and all(points == 0 for _, _, points in hidden), hidden
    assert sum(points for _, _, points in shown) == 10, shown
