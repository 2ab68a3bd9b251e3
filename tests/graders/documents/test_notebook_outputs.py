"""A numeric question answered in a notebook by code whose output is the value.

The class: `print(8 * 512 ** 2)` (a stream output) or a cell ending in the expression (an
execute_result) under the question, and no markdown answer: the answer was "missing" at
confidence 1.0 ("only code cells"). A code cell's short text output is rendered after its fence
as `Out:` lines; a numeric question with only code under it reads its last output line, as
weak evidence (review: the printed value may be an intermediate one). A prose question with
only code under it is still unanswered, and an output line never reads as a label.
"""

from __future__ import annotations

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: nb
title: NB
questions:
  - id: Q1
    labels: ["Question 1"]
    answer_kind: numeric
    items: [{id: q1.n, points: 1, grader: numeric, config: {expected: 2097152, kind: integer}}]
  - id: Q2
    labels: ["Question 2"]
    answer_kind: prose
    items: [{id: q2.w, points: 1, grader: written, config: {elements: [{id: e, patterns: [x]}]}}]
""").rubric


def _code(source: str, output: str, kind: str) -> nbformat.NotebookNode:
    cell = new_code_cell(source)
    if kind == "stream":
        cell.outputs = [new_output("stream", name="stdout", text=output + "\n")]
    elif kind == "result":
        cell.outputs = [new_output("execute_result", data={"text/plain": output},
                                   execution_count=1)]
    return cell


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["stream", "result"]), st.integers(0, 2), st.booleans(),
       st.sampled_from(["Question 2: 5", "1. done", "Q2", "n = 2097152"]))
def test_a_printed_value_under_a_numeric_question_is_its_weak_answer(
        kind: str, before: int, prose_q2: bool, noise: str) -> None:
    cells = [new_markdown_cell("# Homework"), new_markdown_cell("### Question 1\nHow many?")]
    for k in range(before):  # earlier code cells print other things
        cells.append(_code(f"x{k} = {k}\nprint('{noise}')", noise, "stream"))
    cells.append(_code("n = 8 * 512 ** 2\nprint(n)" if kind == "stream" else "8 * 512 ** 2",
                       "2097152", kind))
    cells.append(new_markdown_cell("### Question 2\nWhy?"))
    if prose_q2:
        cells.append(new_markdown_cell("Because x."))
    else:
        cells.append(_code("print('Question 1: 7')", "Question 1: 7", "stream"))
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    parsed = read_submission(raw, "hw.ipynb", None, RUBRIC)
    answer = parsed.answers["Q1"]
    assert answer.text.strip() == "Out: 2097152", answer.text
    assert answer.strength == "weak" and "output" in (answer.weak_reason or "")
    if prose_q2:
        assert parsed.answers["Q2"].text.strip() == "Because x."
    else:  # a prose question with only code (and its output) under it has no answer
        assert "Q2" not in parsed.answers


def test_a_long_output_is_left_out() -> None:
    cells = [new_markdown_cell("### Question 1\nHow many?"),
             _code("print(list(range(200)))", str(list(range(200))), "stream")]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    parsed = read_submission(raw, "hw.ipynb", None, RUBRIC)
    assert "Q1" not in parsed.answers


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["NLL", "PPL", "loss", "acc"]), min_size=2, max_size=4,
                unique=True), st.integers(0, 1))
def test_every_line_of_the_last_output_is_read(names: list[str], before: int) -> None:
    """`print('NLL', nll)` then `print('PPL', ppl)` in one cell answer two items of the
    question: only the last line was read, so the first items were called missing (trial
    homework 4). The last code cell's whole output is the answer; an earlier cell's is not."""
    cells = [new_markdown_cell("### Question 1\nHow many?")]
    if before:
        cells.append(_code("print('draft', 99)", "draft 99", "stream"))
    printed = "\n".join(f"{name} {10 + k}" for k, name in enumerate(names))
    cells.append(_code("\n".join(f"print('{n}', {10 + k})" for k, n in enumerate(names)),
                       printed, "stream"))
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    answer = read_submission(raw, "hw.ipynb", None, RUBRIC).answers["Q1"]
    assert answer.text.strip() == "\n".join(f"Out: {line}" for line in printed.splitlines())
