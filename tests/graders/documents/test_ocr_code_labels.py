"""An OCR transcript of a handwritten page numbers a code answer by writing the code on the
number's line: `7 def top_p(logits, p):`. The bare number was a label only before a sub-part
(`3 (a) ...`), so the code of questions 7 and 8 was found nowhere and went to review unrun
(trial homework 4). A number opening the first line of a program (`def name(`, `class Name:`,
`import numpy`) labels it; prose that starts with a number does not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: ocr-code
title: OCR code
questions:
  - id: Q1
    labels: ["Q1", "1"]
    answer_kind: numeric
    items: [{id: q1, points: 1, grader: numeric, config: {expected: 64, cues: ["(a)"]}}]
  - id: Q2
    labels: ["Q2", "2"]
    answer_kind: code
    items: [{id: q2, points: 1, grader: written, config: {elements: [{id: e, patterns: [x]}]}}]
  - id: Q3
    labels: ["Q3", "3"]
    answer_kind: code
    items: [{id: q3, points: 1, grader: written, config: {elements: [{id: e, patterns: [x]}]}}]
""").rubric

FIRST_LINES = ["def f(x):", "def f (x, y):", "class Model:", "class Head(object):",
               "import numpy as np", "from numpy import exp"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FIRST_LINES), st.sampled_from(FIRST_LINES), st.sampled_from([" ", "  "]))
def test_a_number_opening_the_first_line_of_code_labels_it(
        first: str, second: str, gap: str) -> None:
    text = (f"NAME  homework  [OCR]\n\n1 (a) d = 512/8 = 64\n\n2{gap}{first}\n    return 1\n\n"
            f"3{gap}{second}\n    y = 2\n")
    answers = read_submission(text.encode(), "scan.txt", None, RUBRIC).answers
    assert answers["Q2"].text.lstrip("2 ").startswith(first), answers["Q2"].text
    assert answers["Q3"].text.lstrip("3 ").startswith(second), answers["Q3"].text


def test_prose_after_a_number_is_no_label() -> None:
    # inside a paragraph: see test_ocr_prose_labels.py for the paragraph a bare number opens
    text = "1 (a) 64\n2 define the class labels first\n3 class labels are 0/1\n"
    answers = read_submission(text.encode(), "scan.txt", None, RUBRIC).answers
    assert "Q2" not in answers and "Q3" not in answers, answers
