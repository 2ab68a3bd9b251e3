"""Answers a notebook prints, labelled by question and part (trial 10's jun.ipynb: a heading
`### 2, 3, 4 (computed)` over one cell printing `2a 640.0`, `2b 260.0`, ... `4c 589824`).

The class: a student computes the answers in code and prints them one labelled line per part
(`2a 640.0`, `Q2(b): 260`, `4c = 589824`, `Question 3 (a) 0.28`), in one cell's output or
several, under a heading naming several questions or under the last question's heading. Before,
an output longer than four lines was not rendered and a printed label was never a label: the
parts were called missing at confidence 1.0. Each printed labelled line is now its part's
answer; long outputs that label nothing (logs, arrays) stay out of every answer.
"""

from __future__ import annotations

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from graders.documents import read_submission
from graders.documents.notebook import render_notebook
from graders.documents.printed_labels import MAX_PRINTED
from graders.rubric import parse_rubric


def _numeric(qid: str, parts: str) -> str:
    items = ", ".join(
        f'{{id: {qid.lower()}.{p}, points: 1, grader: numeric, config: {{expected: 1, '
        f'cues: ["({p})"]}}}}' for p in parts)
    return (f'  - id: {qid}\n    labels: ["{qid}", "Question {qid[1:]}", "{qid[1:]}"]\n'
            f"    answer_kind: numeric\n    items: [{items}]\n")


_PROSE = ('  - id: Q{n}\n    labels: ["Q{n}", "Question {n}", "{n}"]\n    answer_kind: prose\n'
          '    items: [{{id: q{n}.w, points: 1, grader: written, '
          'config: {{elements: [{{id: e, patterns: [expert]}}]}}}}]\n')
RUBRIC = parse_rubric("slug: printed\ntitle: Printed\nquestions:\n" + _PROSE.format(n=1)
                      + _numeric("Q2", "ab") + _numeric("Q3", "ab") + _numeric("Q4", "abc")
                      + _PROSE.format(n=5)).rubric
PARTS = {"2": "ab", "3": "ab", "4": "abc"}
FORMS = ["{q}{p} {v}", "Q{q}({p}): {v}", "{q}{p} = {v}", "Question {q} ({p}) {v}",
         "{q}({p}) {v}", "Q{q}{p}: {v}"]
STYLES = ["### {n}", "## Q{n}", "### Question {n}", "# {n}"]
NOISE = ["epoch 3 loss 0.5121", "[[0.1 0.2 0.3]", "Traceback (most recent call last):",
         "  warnings.warn(msg)", "step 100/1000 acc 0.91"]


def _cell(lines: list[str]) -> nbformat.NotebookNode:
    cell = new_code_cell("\n".join(f"print({line!r})" for line in lines), execution_count=1)
    cell.outputs = [new_output("stream", name="stdout", text="\n".join(lines) + "\n")]
    return cell


def _heading(style: str, numbers: list[str]) -> str:
    marks, _, word = style.partition(" ")
    prefix = word.replace("{n}", "")
    return f"{marks} " + ", ".join(prefix + n for n in numbers) + " (computed)"


@settings(max_examples=60, deadline=None, database=None)
@given(st.sampled_from(FORMS), st.sampled_from(STYLES),
       st.sampled_from(["one cell", "cells", "own headings"]), st.booleans(),
       st.lists(st.integers(1, 10**6), min_size=7, max_size=7), st.integers(0, 30))
def test_each_printed_labelled_line_is_its_parts_answer(
        form: str, style: str, layout: str, multi: bool, values: list[int],
        noise: int) -> None:
    """`layout`: every answer printed by one cell, by a cell per question, or by a cell under
    each question's own heading; `multi`: a heading naming questions 2-4 above them."""
    cells = [new_markdown_cell("# Homework 10"),
             new_markdown_cell(style.format(n=1)),
             new_markdown_cell("One expert gets every token.")]
    if multi and layout != "own headings":
        cells.append(new_markdown_cell(_heading(style, ["2", "3", "4"])))
    expected: dict[str, list[str]] = {}
    printed: list[list[str]] = []
    taken = iter(values)
    for q, parts in PARTS.items():
        lines = []
        for p in parts:
            value = f"{next(taken) / 100}"
            lines.append(form.format(q=q, p=p, v=value))
            expected.setdefault(q, []).append(f"({p}) {value}")
        printed.append(lines)
    logs = [NOISE[k % len(NOISE)] for k in range(noise)]
    if layout == "one cell":
        cells.append(_cell(logs + [line for lines in printed for line in lines]))
    elif layout == "cells":
        cells += [_cell(logs + lines) for lines in printed]
    else:
        for q, lines in zip(PARTS, printed, strict=True):
            cells += [new_markdown_cell(style.format(n=q)), _cell(logs + lines)]
    cells += [new_markdown_cell(style.format(n=5)),
              new_markdown_cell("Routing sends tokens to an expert.")]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    answers = read_submission(raw, "hw.ipynb", None, RUBRIC).answers
    for q, parts_read in expected.items():
        text = answers[f"Q{q}"].text
        for line in parts_read:
            assert line in text, (q, line, text)
        assert not any(word in text for word in ("epoch", "Traceback", "warn", "step", "[[")), text
    assert "Routing" in answers["Q5"].text
    assert answers["Q1"].text.strip().startswith("One expert")


@settings(max_examples=40, deadline=None, database=None)
@given(st.lists(st.sampled_from([*NOISE, "2d array of shape (3, 4)", "1e-5", "3 heads 0.5"]),
                min_size=5, max_size=80))
def test_a_long_output_that_labels_nothing_stays_out(lines: list[str]) -> None:
    cells = [new_markdown_cell("### 2\nBelow."), _cell(lines),
             new_markdown_cell("### 5\nRouting sends tokens to an expert.")]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    answers = read_submission(raw, "hw.ipynb", None, RUBRIC).answers
    for answer in answers.values():
        assert not any(line in answer.text for line in lines if len(lines) > 4), answer.text


def test_printed_answers_are_bounded_in_a_notebook() -> None:
    """A notebook of 2,000 cells each printing 60 labelled lines renders at most
    `MAX_PRINTED` of them (the location's caps hold for printed labels too)."""
    lines = "\n".join(f"{k % 90 + 1}{'abc'[k % 3]} {k}.5" for k in range(60))
    cell = {"cell_type": "code", "source": "print(x)",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": lines}]}
    text, _ = render_notebook([cell] * 2000)
    read = sum(line.endswith(".5") for line in text.splitlines())
    assert 0 < read <= MAX_PRINTED, read
