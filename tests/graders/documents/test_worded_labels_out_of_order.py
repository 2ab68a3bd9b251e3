"""Questions named in words (`Question 5`, `Q5.`) and answered in any order, including prose and
derivation questions that have no content cues, and labels that write the sub-part against the
number (`Q5.a`, `Q3.b:`, `Question 2c`). Before: a prose answer labelled `Question 5` but
written first was 'missing' at confidence 1 (a block was moved to its question only when content
cues agreed), and `Q5.a Because ...` was no label at all, so Q5 ran into Q4's answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.documents.labels import find_labels
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: words-in-any-order
title: Words in any order
questions:
  - id: Q1
    labels: ["Q1", "Question 1", "1"]
    answer_kind: prose
    items:
      - {id: q1, points: 1, grader: written, config: {reference: [Attention ignores order.]}}
  - id: Q2
    labels: ["Q2", "Question 2", "2"]
    answer_kind: derivation
    items:
      - id: q2
        points: 1
        grader: symbolic
        config: {target: g, expected: "p - y", mode: equivalent}
  - id: Q3
    labels: ["Q3", "Question 3", "3"]
    answer_kind: prose
    items:
      - id: q3.a
        points: 1
        grader: written
        config: {subpart: a, reference: [Pre-LN keeps an identity path.]}
      - id: q3.b
        points: 1
        grader: written
        config: {subpart: b, reference: [The cache stores keys and values.]}
  - id: Q4
    labels: ["Q4", "Question 4", "4"]
    answer_kind: prose
    items:
      - {id: q4, points: 1, grader: written, config: {reference: [Residuals help gradients.]}}
""").rubric

BODIES = {
    "Q1": ["Self-attention treats the input as a set of tokens.",
           "Without positions the model sees a bag of words."],
    "Q2": ["g = p - y", "$$\\frac{\\partial L}{\\partial z} = p - y$$"],
    "Q3": ["(a) The residual stream stays an identity path.\n(b) It stores past keys and values.",
           "(a) identity path through the skips\n\n(b) keys and values are cached"],
    "Q4": ["Residual connections let gradients reach the early layers.",
           "The skip connections carry the gradient."],
}
WORDED = st.sampled_from(["Question {}", "**Question {}**", "## Question {}", "Q{}.", "Q{})",
                          "### Q{}"])


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.permutations(["Q1", "Q2", "Q3", "Q4"]), WORDED, st.integers(0, 1))
def test_worded_labels_in_any_order_find_every_answer(order: list[str], label: str,
                                                      pick: int) -> None:
    parts = [f"{label.format(q[1])}\n{BODIES[q][pick]}" for q in order]
    text = "Homework 5, answered in my own order\n\n" + "\n\n".join(parts) + "\n"
    parsed = read_submission(text.encode(), "s.md", None, RUBRIC)
    assert not parsed.missing, (text, parsed.missing)
    for qid in order:
        body = BODIES[qid][pick]
        assert parsed.answers[qid].text.strip().startswith(body.split("\n")[0][:12]), (
            text, qid, parsed.answers[qid].text)


@settings(max_examples=80, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(["Q", "Question ", "Problem ", "Task "]), st.integers(1, 12),
       st.sampled_from(list("abcdefgh")), st.sampled_from(["", "."]),
       st.sampled_from(["", ":", " :"]), st.sampled_from([" Because", "\nBecause", "  x = 1"]))
def test_a_worded_number_with_its_letter_is_one_label(
        word: str, number: int, letter: str, dot: str, close: str, after: str) -> None:
    text = f"{word}{number}{dot}{letter}{close}{after} the rest."
    marks = [m for m in find_labels(text) if not m.inline]
    assert marks and (marks[0].num, marks[0].letter) == (number, letter), (text, marks)


def test_a_letter_after_a_spaced_full_stop_is_prose() -> None:
    [mark] = [m for m in find_labels("Q5. a model is a function.") if not m.inline]
    assert (mark.num, mark.letter) == (5, None)
    assert not [m for m in find_labels("Q5.ab then") if not m.inline]


def test_sub_part_labels_under_a_worded_question_end_the_answer_before() -> None:
    text = ("Q1. It is a set.\n\nQ2. $g = p - y$\n\nQ3.a The identity path.\n\n"
            "Q3.b Keys and values are cached.\n\nQ4. Skips carry gradients.\n")
    parsed = read_submission(text.encode(), "s.md", None, RUBRIC)
    assert parsed.answers["Q2"].text.strip() == "$g = p - y$"
    assert "identity" in parsed.answers["Q3"].text and "cached" in parsed.answers["Q3"].text
