"""A notebook whose JSON `json.loads` takes but whose validation recurses past Python's limit:
an output's `application/json` data nested 500 deep (about 3.5 KB). nbformat's schema
validator spends several frames per level, so the RecursionError comes from it, not from the
JSON parser, and the upload was refused with the interpreter's own words ("not a readable
Jupyter notebook: maximum recursion depth exceeded while calling a Python object"): a machine
internal, and no reason a student can act on. It is refused as the parser's depth is, in words
that say what is wrong; an output nested 50 deep (a real `display(JSON(...))` of a config) is
read."""

from __future__ import annotations

import json

from tests.attacks.conftest import UPLOAD, Served


def _notebook(depth: int) -> bytes:
    nested: object = 1
    for _ in range(depth):
        nested = {"a": nested}
    output = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
              "data": {"application/json": nested, "text/plain": "{...}"}}
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "A1: XOR is not linearly "
              "separable"},
             {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "show()",
              "outputs": [output]}]
    return json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5,
                       "metadata": {}}).encode()


def test_a_notebook_nested_past_the_validators_depth_is_refused_in_plain_words(
        served: Served) -> None:
    answer = served.client.post(UPLOAD, files={"file": ("a.ipynb", _notebook(500),
                                                        "application/x-ipynb+json")},
                                headers=served.auth("alice"))
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert "nested too deeply" in detail, detail
    assert "recursion" not in detail.lower() and "python" not in detail.lower(), detail


def test_a_notebook_with_an_output_nested_50_deep_is_read(served: Served) -> None:
    answer = served.client.post(UPLOAD, files={"file": ("a.ipynb", _notebook(50),
                                                        "application/x-ipynb+json")},
                                headers=served.auth("bob"))
    assert answer.status_code == 202, answer.text
