"""A numeric question answered in a notebook by a sentence that states no value ("I just run
Adam for two steps.") and the code under it that prints the values (the sixth trial homework).
Before, the sentence was the whole answer and every item was 'missing' at 0.85; the printed
output is now read, weakly (review), as when no sentence is there. A sentence that states a
value stays the answer."""

from __future__ import annotations

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: nb-sentence
title: NB sentence
questions:
  - id: Q1
    labels: ["Question 1", "Q1"]
    answer_kind: numeric
    items: [{id: q1.n, points: 1, grader: numeric, config: {expected: 0.2895}}]
  - id: Q2
    labels: ["Question 2", "Q2"]
    answer_kind: prose
    items: [{id: q2.w, points: 1, grader: written, config: {elements: [{id: e, patterns: [x]}]}}]
""").rubric

SENTENCES = ["I just run Adam for two steps.", "Computed below.", "See the code:",
             "The bias-corrected moments, by running the optimiser:"]


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(SENTENCES), st.sampled_from(["## Question 1", "### Q1"]),
       st.booleans())
def test_a_sentence_without_a_value_reads_the_printed_output(
        sentence: str, label: str, with_value: bool) -> None:
    said = f"{sentence} m_hat = 0.2895" if with_value else sentence
    code = new_code_cell("m_hat = 0.055 / 0.19\nprint('m_hat =', m_hat)")
    code.outputs = [new_output("stream", name="stdout", text="m_hat = 0.2894736842105264\n")]
    cells = [new_markdown_cell("# HW6"), new_markdown_cell(f"{label}\n{said}"), code,
             new_markdown_cell("## Question 2"), new_markdown_cell("Because x.")]
    data = nbformat.writes(new_notebook(cells=cells)).encode()
    parsed = read_submission(data, "cho.ipynb", None, RUBRIC)
    answer = parsed.answers["Q1"]
    if with_value:
        assert "0.2895" in answer.text and "0.28947368" not in answer.text, answer
    else:
        assert "0.2894736842105264" in answer.text, (said, answer.text)
        assert answer.strength == "weak", answer
