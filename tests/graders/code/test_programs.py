"""What runs (issue 10, Scopes 5 and 6): a notebook's cells in order in one namespace; typed
code exactly as written, its syntax errors at the student's line; extraction linear in the
answer's size."""

from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.extract import _fence_blocks, extract_code
from graders.context import GradingResources
from graders.engine import grade_submission
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.graders.code.conftest import Grade

LOADED = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")

B3_BODY = """def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""
B4_BODY = """def masked_attention(Q, K, V):
    n = Q.shape[0]
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    scores = np.where(np.triu(np.ones((n, n)), k=1) == 1, -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""


def _code_items(raw: bytes, name: str, resources: GradingResources) -> dict[str, ItemResult]:
    from graders.documents.submission import read_submission

    parsed = read_submission(raw, name, None, LOADED.rubric)
    return {r.item_id: r for r in grade_submission(LOADED, parsed, resources).items
            if r.grader == "code"}


def _notebook(cells: list[tuple[str, str]]) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": kind, "id": f"cell{number}", "metadata": {}, "source": text,
         **({"outputs": [], "execution_count": None} if kind == "code" else {})}
        for number, (kind, text) in enumerate(cells)]}).encode()


def test_a_notebook_b4_cell_using_an_earlier_import_grades_like_one_file(
        resources: GradingResources) -> None:
    notebook = _notebook([
        ("code", "import numpy as np"),
        ("markdown", "## B3"), ("code", B3_BODY),
        ("markdown", "## B4"), ("code", B4_BODY),
    ])
    one_file = ("## B3\n\n```python\nimport numpy as np\n" + B3_BODY + "```\n\n## B4\n\n"
                "```python\nimport numpy as np\n" + B4_BODY + "```\n").encode()
    from_notebook = _code_items(notebook, "homework.ipynb", resources)
    from_file = _code_items(one_file, "homework.md", resources)
    assert {k: r.points for k, r in from_notebook.items()} == \
        {k: r.points for k, r in from_file.items()}
    assert sum(r.points for r in from_notebook.values()) == 20
    assert "in order in one namespace" in from_notebook["b4.output"].feedback


def test_typed_code_with_mixed_tabs_is_not_repaired_and_the_error_is_at_its_line(
        grade: Grade) -> None:
    source = ("import numpy as np\n\n"
              "def attention(Q, K, V):\n"
              "\tscores = Q @ K.T / np.sqrt(Q.shape[-1])\n"
              "        weights = np.exp(scores)\n"
              "\treturn weights @ V, weights\n")
    code = extract_code(source)
    assert code is not None and code.source == source and code.normalisations == ()
    results = grade("B3", source)
    result = results["b3.output"]
    assert result.status is Status.SUBMISSION_ERROR
    assert "at line 5" in result.feedback and "indent" in result.feedback.lower()
    assert "dropped" not in result.feedback


@settings(max_examples=30, deadline=None)
@given(body=st.lists(st.sampled_from(["    x = 1", "\tx = 2", "    return x", "  y = x",
                                      "    if x:", "        pass", ""]),
                     min_size=1, max_size=8))
def test_typed_code_is_never_altered(body: list[str]) -> None:
    # The class of typed code: indentation present, no transcription artefacts.
    source = "import numpy as np\n\ndef attention(Q, K, V):\n" + "\n".join(body) + "\n"
    code = extract_code(source)
    if code is not None and any(line.strip() for line in body):
        assert code.source.rstrip("\n") == source.rstrip("\n")
        assert not any("dropped" in n or "rebuilt" in n for n in code.normalisations)


def _regex_fences(text: str) -> list[tuple[str, str]]:
    """The specification the linear scanner implements (bounded input only)."""
    import re

    fence = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$",
                       re.M | re.S)
    return [(m.group(2), m.group(3).removesuffix("\n")) for m in fence.finditer(text)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["```", "```python", "~~~", "~~~py", "  ```", "x = 1",
                                 "text", "", "```text", "````"]), max_size=14))
def test_the_fence_scanner_finds_what_the_regex_found(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    assert _fence_blocks(text) == _regex_fences(text)


def test_64_kib_of_code_fences_is_extracted_in_linear_time() -> None:
    # Unclosed-fence soup made the old backtracking regex take 13-28 s of CPU.
    text = ("```python\n" + "~~~\n" * 3 + "x = 1\n") * 3000
    text = text[:64 * 1024]
    started = time.process_time()
    extract_code(text)
    assert time.process_time() - started < 2.0


def test_an_answer_using_an_import_from_an_earlier_answer_gets_it(
        resources: GradingResources) -> None:
    # One box per question: numpy imported in B3's answer only, as the notebook had it.
    raw = json.dumps({"answers": {"B3": "import numpy as np\n" + B3_BODY,
                                  "B4": B4_BODY}}).encode()
    results = _code_items(raw, "answers.json", resources)
    assert sum(r.points for r in results.values()) == 20, {
        k: r.feedback for k, r in results.items()}
    assert "import numpy as np" in results["b4.output"].feedback
    assert "import" not in results["b3.output"].feedback
