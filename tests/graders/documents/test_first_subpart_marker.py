"""An answer whose first line is its first sub-part's marker (`**Problem 3**`, then `(a) ...`,
`(b) ...`): the marker opens the answer, not the question. It used to be taken as the label and
cut off (so an item cued by `(a)` found no value, and the sub-answers no longer counted up from
the first), and in a notebook the answer cell was taken for the question's own cell, leaving a
mixed question's answer empty ("missing" at confidence 1). Generated in Markdown and as
notebooks."""

from __future__ import annotations

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_markdown_cell, new_notebook

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: subparts
title: Sub-parts
questions:
  - id: P1
    labels: ["P1", "Problem 1", "1"]
    answer_kind: prose
    items:
      - {id: p1, points: 1, grader: written, config: {reference: [Scaling keeps variance.]}}
  - id: P2
    labels: ["P2", "Problem 2", "2"]
    answer_kind: numeric
    items:
      - {id: p2.a, points: 1, grader: numeric, config: {expected: 64, cues: ["(a)"]}}
      - {id: p2.b, points: 1, grader: numeric, config: {expected: 1, cues: ["(b)"]}}
  - id: P3
    labels: ["P3", "Problem 3", "3"]
    answer_kind: mixed
    items:
      - {id: p3.a, points: 1, grader: written, config: {elements: [{id: q, patterns: [quadratic]}]}}
      - {id: p3.b, points: 1, grader: numeric, config: {expected: 16, form: factor}}
""").rubric

LABELS = ["**Problem {}**", "## Problem {}", "Problem {}.", "### {}."]
MARKERS = [("(a)", "(b)"), ("a)", "b)"), ("(i)", "(ii)"), ("a.", "b.")]


def _answers(labels: str, markers: tuple[str, str]) -> list[tuple[str, str]]:
    a, b = markers
    return [(labels.format(1), "Dividing by sqrt(d_k) keeps the variance of the scores at one."),
            (labels.format(2), f"{a} the variance is 64\n\n{b} after scaling it is 1"),
            (labels.format(3), f"{a} quadratic in the length\n\n{b} 16x more memory")]


def _check(submission) -> None:  # type: ignore[no-untyped-def]
    for qid in ("P2", "P3"):
        answer = submission.answers.get(qid)
        assert answer is not None, submission.missing
        first = answer.text.lstrip("*# -").split()[0]
        assert first.strip("()*.:").lower() in ("a", "i"), answer.text
    assert "64" in submission.answers["P2"].text and "16x" in submission.answers["P3"].text


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LABELS), st.sampled_from(MARKERS))
def test_the_first_marker_stays_in_a_markdown_answer(labels: str, markers: tuple[str, str]
                                                     ) -> None:
    text = "# Homework\n\n" + "\n\n".join(f"{head}\n\n{body}"
                                          for head, body in _answers(labels, markers)) + "\n"
    _check(read_submission(text.encode(), "hw.md", None, RUBRIC))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LABELS), st.sampled_from(MARKERS))
def test_the_answer_cell_after_a_label_cell_is_the_answer(labels: str,
                                                          markers: tuple[str, str]) -> None:
    cells = []
    for head, body in _answers(labels, markers):
        cells += [new_markdown_cell(head), new_markdown_cell(body)]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    _check(read_submission(raw, "hw.ipynb", None, RUBRIC))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(LABELS), st.sampled_from(MARKERS))
def test_a_mixed_answer_in_its_label_cell_with_no_cell_after_is_read(
        labels: str, markers: tuple[str, str]) -> None:
    """The label and the answer in one markdown cell, the last of the notebook: moving on to
    "the next cell" left a mixed question's answer empty (missing at confidence 1)."""
    cells = [new_markdown_cell(f"{head}\n\n{body}") for head, body in _answers(labels, markers)]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    submission = read_submission(raw, "hw.ipynb", None, RUBRIC)
    answer = submission.answers.get("P3")
    assert answer is not None, submission.missing
    assert "16x" in answer.text
