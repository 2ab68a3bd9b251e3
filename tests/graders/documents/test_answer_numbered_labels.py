"""Answers numbered by the word "Answer" (or "Solution"): `Answer 1`, `**Answer 2.**`,
`Solution 3:`, `Answer 4a`, as a word processor's document or its PDF writes them (the sixth
trial homework). Before, none was a label: a PDF with `Answer 1` ... `Answer 8` had 1 of 8
questions found and every item went to review at 0. `Answer:` without a number, and "answer 2"
inside a sentence, are still no labels."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: answer-labels
title: Answer labels
questions:
  - id: Q1
    labels: ["Q1", "Question 1", "1"]
    answer_kind: numeric
    items: [{id: q1, points: 1, grader: numeric, config: {expected: 0.2895}}]
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
      - {id: q3, points: 1, grader: written, config: {reference: [Units are dropped at random.]}}
""").rubric

BODIES = {"Q1": "m_hat = 0.055 / 0.19 = 0.2895", "Q2": "g = p - y",
          "Q3": "units are dropped at random during training"}
LABELS = st.sampled_from(["Answer {}", "Answer {}:", "**Answer {}.**", "Solution {}",
                          "ANSWER {})", "Ans. {}", "Answer {}a)"])


@settings(max_examples=50, deadline=None, database=None, derandomize=True)
@given(st.permutations(["Q1", "Q2", "Q3"]), LABELS, st.sampled_from(["\n", " "]),
       st.sampled_from(["s.md", "s.txt"]))
def test_answers_numbered_by_the_word_answer_are_found(
        order: list[str], label: str, gap: str, name: str) -> None:
    parts = [f"{label.format(q[1])}{gap}{BODIES[q]}" for q in order]
    text = "Pia L. - Homework 6\n\n" + "\n\n".join(parts) + "\n"
    parsed = read_submission(text.encode(), name, None, RUBRIC)
    assert not parsed.missing, (text, parsed.missing)
    for qid in order:
        assert BODIES[qid] in parsed.answers[qid].text, (text, qid, parsed.answers[qid].text)


def test_an_answer_marker_without_a_number_or_inside_a_sentence_is_no_label() -> None:
    text = ("Q1 m_hat = 0.2895\n\nQ2 g = p - y\nAnswer: the same as answer 3 of last week\n\n"
            "Q3 units are dropped at random\n")
    parsed = read_submission(text.encode(), "s.md", None, RUBRIC)
    assert "answer 3 of last week" in parsed.answers["Q2"].text
    assert parsed.answers["Q3"].text.startswith("units")
