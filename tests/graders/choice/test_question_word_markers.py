"""A quiz block whose parts carry the question's number after a question word, each on a line
of its own (the twelfth trial homework: `**Problem 6(a)** A` then `**Problem 6(b)** A, C, E`).
The first line's marker goes with the located label, and `Problem 6(b)` was read as the marker
`6(b)` after the words `A **Problem`: the first item read "a **problem", none of the choices
(review at 0). `Problem`, `Prob.`, `Exercise` and `Ex.` before the number are the marker's, as
`Q` and `Question` are, and a run of parts that opens the located text, `(a) A`, goes on with
the same form carrying the question's number, `Problem 6(b)`."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.results import ItemResult, Status
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: quiz
title: A quiz in a document
questions:
  - id: Q6
    labels: ["Q6", "Question 6", "Problem 6", "Exercise 6", "6"]
    items:
      - id: q6.phase
        points: 1
        grader: choice
        config: {choices: [A, B, C, D], correct: A}
      - id: q6.cache
        points: 3
        grader: choice
        config: {choices: [A, B, C, D, E], correct: [A, C, E], select: several,
                 scoring: right_minus_wrong}
""", "quiz.yaml")

WORDS = ["Problem ", "Prob. ", "Exercise ", "Ex. ", "Question ", "Q"]
# (`Question 6.a A`, a part with no closing sign, is located as `a A`: not read apart yet)
FORMS = ["{w}6({p})", "{w}6{p})", "{w}6.{p}:", "{w}6.({p})"]


def _grade(text: str) -> dict[str, ItemResult]:
    parsed = read_submission(text.encode(), "quiz.md", "text/markdown", RUBRIC.rubric)
    return {r.item_id: r for r in grade_submission(RUBRIC, parsed).items}


@settings(max_examples=30, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(WORDS), st.sampled_from(FORMS), st.sampled_from(["", "**"]),
       st.sampled_from(["A", "B"]), st.sampled_from(["A, C, E", "A, C", "D"]))
def test_parts_marked_with_a_question_word_and_number_are_read_apart(word, form, bold, phase,
                                                                     cache):
    lines = [f"{bold}{form.format(w=word, p=p)}{bold} {answer}"
             for p, answer in (("a", phase), ("b", cache))]
    text = "Ben, homework 12\n\n" + "\n".join(lines) + "\n"
    results = _grade(text)
    want = {"q6.phase": Decimal(1 if phase == "A" else 0),
            "q6.cache": Decimal({"A, C, E": 3, "A, C": 2, "D": 0}[cache])}
    for item, points in want.items():
        assert (results[item].status, results[item].points) == (Status.GRADED, points), (
            text, item, results[item].feedback)
