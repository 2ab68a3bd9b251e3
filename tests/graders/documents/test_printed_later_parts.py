"""A notebook answer whose later sub-parts a code cell prints (trial 8's ben.ipynb: a markdown cell
`(a) ... $$F = 4T^2 d$$`, then `print("(b) F =", F)` and `print("(c) linear / softmax =", r)`):
the printed lines that open with a later sub-part's marker the written answer does not have are
the answer's too. Before, the answer ended at the code cell: (b) and (c) were called missing at
0.85."""

from __future__ import annotations

from decimal import Decimal

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from graders.context import GradingResources
from graders.documents import read_submission
from graders.engine import grade_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: printed
title: Printed sub-parts
questions:
  - id: Q4
    labels: ["Q4", "Question 4", "4"]
    answer_kind: derivation
    items:
      - {id: q4.formula, points: 1, grader: symbolic,
         config: {mode: equivalent, target: F, expected: "4*T^2*d"}}
      - {id: q4.value, points: 1, grader: numeric,
         config: {expected: 2147483648, kind: integer, cues: ["(b)", FLOPs]}}
      - {id: q4.linear, points: 1, grader: numeric,
         config: {form: factor, expected: 0.0625, cues: ["(c)", linear, factor]}}
  - id: Q5
    labels: ["Q5", "Question 5", "5"]
    answer_kind: prose
    items:
      - {id: q5, points: 1, grader: written, config: {elements: [{id: k, patterns: [keys]}]}}
""")

_WRITTEN = ["(a) Two matmuls, each $2T^2d$ FLOPs:\n$$F = 4T^2 d$$", "(a) $F = 4T^2d$",
            "**(a)** F = 4 T^2 d"]
_PRINTED = [("(b) F = 2147483648", "(c) linear / softmax = 0.0625"),
            ("b) FLOPs: 2147483648", "c) factor: 0.0625"),
            ("(b) 2147483648", "(c) 0.0625")]


@settings(max_examples=10, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(_WRITTEN), st.sampled_from(_PRINTED),
       st.sampled_from(["## Question 4", "### Q4", "**Question 4**"]))
def test_printed_later_sub_parts_are_the_answer(resources: GradingResources, written: str,
                                                 printed: tuple[str, str], heading: str) -> None:
    code = new_code_cell("T, d = 2048, 128\nF = 4 * T**2 * d\nprint(...)", execution_count=2)
    code.outputs = [new_output("stream", name="stdout", text="\n".join(printed) + "\n")]
    nb = new_notebook(cells=[new_code_cell("import numpy as np", execution_count=1),
                             new_markdown_cell(f"{heading}\n\n{written}"), code,
                             new_markdown_cell("## Question 5\nThe keys come from the encoder.")])
    raw = nbformat.writes(nb).encode()  # type: ignore[no-untyped-call]
    parsed = read_submission(raw, "hw.ipynb", None, RUBRIC.rubric)
    results = {r.item_id: r for r in grade_submission(RUBRIC, parsed, resources).items}
    for item in ("q4.formula", "q4.value", "q4.linear"):
        assert results[item].points == Decimal(1), (written, printed, results[item])
    assert "keys" not in parsed.answers["Q4"].text
