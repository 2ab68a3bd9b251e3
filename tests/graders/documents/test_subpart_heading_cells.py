"""A notebook that gives each sub-part its own heading cell (`### Q1 (a)`, `### Q1 (b)`, ...),
the value under each (the sixth trial homework). Before: an answer cell ended at the next
heading cell, so question 1 was only its (a): the values of (b) and (c) were 'missing' at 0.85.
A heading that names another question (`### Q2`, `### Q2 (a)`) still ends the answer."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: subpart-cells
title: Sub-part cells
questions:
  - id: Q1
    labels: ["Q1", "Question 1", "1"]
    answer_kind: numeric
    items:
      - {id: q1.a, points: 1, grader: numeric, config: {expected: 0.2895, cues: ["(a)"]}}
      - {id: q1.b, points: 1, grader: numeric, config: {expected: 0.1299, cues: ["(b)"]}}
      - {id: q1.c, points: 1, grader: numeric, config: {expected: -0.000803, cues: ["(c)"]}}
  - id: Q2
    labels: ["Q2", "Question 2", "2"]
    answer_kind: prose
    items:
      - {id: q2, points: 1, grader: written, config: {reference: [Dropout is off at test time.]}}
""").rubric

HEADINGS = st.sampled_from(["### Q{n} ({l})", "## {n}({l})", "### Question {n} {l}",
                            "#### Q{n}.{l}", "### **Q{n} ({l})**"])
VALUES = {"a": r"$\hat m_2 = 0.055/0.19 = 0.2895$", "b": r"$\hat v_2 = 0.1299$",
          "c": r"$\Delta\theta = -0.000803$"}


def _notebook(cells: list[str]) -> bytes:
    # a code cell at the end, as every homework notebook has one
    code = {"cell_type": "code", "id": "code", "metadata": {}, "execution_count": 1,
            "outputs": [], "source": "import numpy as np"}
    return json.dumps({"cells": [*({"cell_type": "markdown", "id": f"c{k}", "metadata": {},
                                    "source": c} for k, c in enumerate(cells)), code],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(HEADINGS, st.booleans(), st.booleans())
def test_each_sub_part_in_its_own_heading_cell_stays_in_the_answer(
        heading: str, value_in_heading_cell: bool, next_with_letter: bool) -> None:
    cells = ["# Homework 6\nJin"]
    for letter in "abc":
        title = heading.format(n=1, l=letter)
        # (the first one's value in its own cell: a question's first cell with text under its
        # label, followed by written cells, is read as the question's statement)
        if value_in_heading_cell and letter != "a":
            cells.append(f"{title}\n{VALUES[letter]}")
        else:
            cells += [title, VALUES[letter]]
    cells.append(heading.format(n=2, l="a") if next_with_letter else "### Q2")
    cells.append("At test time dropout is turned off.")
    parsed = read_submission(_notebook(cells), "jin.ipynb", None, RUBRIC)
    q1 = parsed.answers["Q1"].text
    assert all(VALUES[k] in q1 for k in "abc"), (cells, q1)
    assert "turned off" not in q1 and "turned off" in parsed.answers["Q2"].text, (cells, q1)
