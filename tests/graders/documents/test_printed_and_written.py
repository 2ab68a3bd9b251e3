"""Class: notebooks where a question's values are printed by code and also written by the
student, and notebooks whose printed values have no question heading above them. A student
computes `2a`, `2b` in a code cell (`print("2a", x)`) and writes `(a) 640` in markdown: after
the code under the question's heading, before it, after an answer marker (`**Your Answer:**`),
or under the question's own heading below a cell that prints every question (`### 2, 3
(computed)`); or the notebook has only a title (`# Homework 4`) over a cell printing every
answer. Before, the printed values were read first (the written statement lost, graded with
confidence when they differed), and under a title alone no printed value was found. Now the
written statement is the answer; where it and the printed value differ, the item goes to review
showing both; printed values with no written one are the answer, under a title alone too."""

from __future__ import annotations

from decimal import Decimal

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from graders.documents import read_submission
from graders.documents.printed_written import disagreements, written_parts
from graders.engine import grade_submission
from graders.rubric import parse_rubric

EXPECTED = {"2": {"a": 640, "b": 250}, "3": {"a": 7, "b": 9}}


def _numeric(q: str) -> str:
    items = ", ".join(f"{{id: q{q}.{p}, points: 1, grader: numeric, config: {{expected: {v}, "
                      f"kind: integer, cues: [\"({p})\"]}}}}" for p, v in EXPECTED[q].items())
    return (f'  - id: Q{q}\n    labels: ["Q{q}", "Question {q}", "{q}"]\n'
            f"    answer_kind: numeric\n    items: [{items}]\n")


RUBRIC = parse_rubric(
    "slug: both\ntitle: Both\nquestions:\n" + _numeric("2") + _numeric("3")
    + '  - id: Q5\n    labels: ["Q5", "Question 5", "5"]\n    answer_kind: prose\n'
      "    items: [{id: q5.w, points: 1, grader: written, "
      "config: {elements: [{id: e, patterns: [expert]}]}}]\n")
PRINTED = ["{q}{p} {v}", "Q{q}({p}): {v}", "{q}{p} = {v}", "Question {q} ({p}) {v}",
           "Q{q}{p}: {v}"]
WRITTEN = ["(a) {a}\n\n(b) {b}", "(a) The value is {a}.\n\n(b) {b}", "**(a)** {a}\n\n**(b)** {b}"]
HEADINGS = ["## Q{q}", "### Question {q}", "### {q}"]
LAYOUTS = ["printed only", "printed then written", "written then printed", "marker"]


def _code(lines: list[str]) -> nbformat.NotebookNode:
    cell = new_code_cell("\n".join(f"print({line!r})" for line in lines), execution_count=1)
    cell.outputs = [new_output("stream", name="stdout", text="\n".join(lines) + "\n")]
    return cell


@st.composite
def _values(draw: st.DrawFn) -> dict[str, dict[str, tuple[int, int]]]:
    """(printed, written) per question and part: each right or wrong, equal or not."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for q, parts in EXPECTED.items():
        out[q] = {}
        for p, v in parts.items():
            written = draw(st.sampled_from([v, v + 3]))
            printed = draw(st.sampled_from([written, written, v + 5]))
            out[q][p] = (printed, written)
    return out


@settings(max_examples=60, deadline=None, database=None)
@given(_values(), st.sampled_from(["per question", "grouped", "title only"]),
       st.lists(st.sampled_from(LAYOUTS), min_size=2, max_size=2), st.sampled_from(PRINTED),
       st.sampled_from(WRITTEN), st.sampled_from(HEADINGS))
def test_the_written_answer_is_read_and_a_differing_print_is_reviewed(
        values: dict[str, dict[str, tuple[int, int]]], mode: str, layouts: list[str],
        form: str, written_form: str, heading: str) -> None:
    cells = [new_markdown_cell("# Homework 4")]
    has_written: dict[str, bool] = {}

    def printed(q: str) -> list[str]:
        return [form.format(q=q, p=p, v=pv) for p, (pv, _) in values[q].items()]

    def written(q: str) -> str:
        return written_form.format(a=values[q]["a"][1], b=values[q]["b"][1])

    if mode == "title only":
        cells.append(_code(printed("2") + printed("3")))
        has_written = {"2": False, "3": False}
    elif mode == "grouped":
        cells += [new_markdown_cell(heading.format(q="2, 3") + " (computed)"),
                  _code(printed("2") + printed("3"))]
        for q, layout in zip(EXPECTED, layouts, strict=True):
            has_written[q] = layout != "printed only"
            if has_written[q]:
                cells += [new_markdown_cell(heading.format(q=q)), new_markdown_cell(written(q))]
    else:
        for q, layout in zip(EXPECTED, layouts, strict=True):
            cells.append(new_markdown_cell(heading.format(q=q)))
            has_written[q] = layout != "printed only"
            if layout == "written then printed":
                cells += [new_markdown_cell(written(q)), _code(printed(q))]
            elif layout == "marker":
                cells += [_code(printed(q)),
                          new_markdown_cell("**Your Answer:** " + written(q))]
            else:
                cells.append(_code(printed(q)))
                if layout == "printed then written":
                    cells.append(new_markdown_cell(written(q)))
    cells += [new_markdown_cell(heading.format(q="5")),
              new_markdown_cell("One expert gets every token.")]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    parsed = read_submission(raw, "hw.ipynb", None, RUBRIC.rubric)
    results = {r.item_id: r for r in grade_submission(RUBRIC, parsed).items}
    for q, parts in values.items():
        differ = has_written[q] and any(pv != wv for pv, wv in parts.values())
        for p, (pv, wv) in parts.items():
            result = results[f"q{q}.{p}"]
            read = wv if has_written[q] else pv
            right = Decimal(1 if read == EXPECTED[q][p] else 0)
            assert result.points == right, (q, p, pv, wv, mode, layouts, result.feedback)
            if differ:
                assert result.status == "needs_review", (q, p, result)
                assert "prints another value" in result.feedback, result.feedback
            else:
                assert "prints another value" not in result.feedback, result.feedback
                assert result.status == "graded", (q, p, mode, layouts, result.feedback)


def test_a_written_part_stating_the_printed_value_in_a_computation_agrees() -> None:
    written = written_parts("(a) 2 x 320 = 640 parameters\n\n(b) about 1,000")
    assert disagreements([("a", "640.0"), ("b", "1000")], written) == []
    assert disagreements([("a", "600")], written) == ["(a): written '2 x 320 = 640 parameters', "
                                                      "printed '600'"]
