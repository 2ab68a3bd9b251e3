"""Location stays linear on hostile documents: megabytes of labels, headings or list items.

2 MB of `B1. answer N` lines once held a worker for eight minutes (a quadratic scan of inline
labels). The bound is on CPU time, so a busy machine does not make it flaky.
"""

from __future__ import annotations

import time

import pytest

from graders.documents import read_submission
from graders.documents.blocks import MAX_CHARS
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.support.pace import stretched

BASICS = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
ATTENTION = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml").rubric

HOSTILE = {
    "label lines": "".join(f"B1. answer {i}\n" for i in range(150_000)),
    "labels on one line": "B1. answer 1. (a) i. " * 100_000,
    "latex outline": "\\section{x}\n\\begin{enumerate}\n\\item (a)\n" * 60_000,
    "markdown headings": "# Q1\n## (a)\n" * 170_000,
    "answer markers": "Answer: 64\n\n" * 170_000,
    "one long line": "a" * 2_000_000,
    "whitespace": "x" + " \t" * 1_000_000 + "\n",
    "phrase and prompt lines": "## Inline Question 1: why does attention scale?\n" * 40_000,
    "fences after labels": "3. ```python\nx = 1\n" * 110_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("rubric", [BASICS, ATTENTION], ids=["basics", "attention"])
def test_location_of_megabytes_is_bounded(name: str, rubric) -> None:
    raw = HOSTILE[name].encode()
    assert len(raw) >= 1_900_000
    started = time.process_time()
    parsed = read_submission(raw, "s.txt", None, rubric)
    elapsed = time.process_time() - started
    assert elapsed < stretched(2.0), f"{name}: {elapsed:.2f} s of CPU"
    assert len(parsed.answers) + len(parsed.missing) == len(rubric.questions)


def test_a_document_past_the_cap_says_so() -> None:
    text = "B1. d_head = 768 / 12 = 64\n\n" + "filler words here. " * (MAX_CHARS // 10)
    parsed = read_submission(text.encode(), "s.txt", None, BASICS)
    assert parsed.answers["B1"].text.startswith("d_head = 768 / 12 = 64")
    assert any("only the first" in note for note in parsed.notes)


def test_a_notebook_of_thousands_of_cells_is_bounded() -> None:
    import json

    cells = [{"cell_type": "markdown", "metadata": {},
              "source": "**Inline Question 1**\n" + "your answer\n" * 300}
             for _ in range(400)]
    cells += [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
               "source": "# 1. Linear projections\nx = 1\n" * 100} for _ in range(400)]
    raw = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                      "nbformat_minor": 4}).encode()
    assert len(raw) >= 1_900_000
    started = time.process_time()
    parsed = read_submission(raw, "s.ipynb", None, BASICS)
    elapsed = time.process_time() - started
    assert elapsed < stretched(3.0), f"{elapsed:.2f} s of CPU"
    assert len(parsed.answers) + len(parsed.missing) == len(BASICS.questions)
